"""A small Transformer encoder-decoder (Vaswani et al. 2017) with seeds stacked on a leading axis, for the
source-target attention analysis of Kobayashi et al. 2020, §5.

Pre-LayerNorm blocks (stable without learning-rate warm-up at this size), sinusoidal positions, no dropout:

    encoder block:  x += MHA(LN(x), LN(x));  x += FFN(LN(x))
    decoder block:  y += causal MHA(LN(y), LN(y));  y += MHA(LN(y), enc) (source-target);  y += FFN(LN(y))

Multi-head attention follows Eq. 1 of the paper: α^h = softmax(q^h k^hᵀ/√d'), out = Σ_h α^h v^h W^O_h + b^O with
v = x W^V + b^V. :meth:`Transformer.run_with_cache` returns, per decoder layer ``l``, the source-target hook
points ``decoder.{l}.cross.alpha`` [S,B,H,Q,K], ``.value`` [S,B,H,K,d'] (b^V included) and ``.out`` [S,B,Q,d]
(the output of W^O, b^O included); :meth:`Transformer.output_map` gives W^O per head [S,H,d',d] and b^O.

Embeddings and every weight are ``StackedModule`` parameters drawn from U(−1/√fan_in, 1/√fan_in) per seed;
LayerNorm gains are 1 + g with g drawn from U(0, 0) = 0, so they start at exactly 1.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from .model import ModelConfig, sinusoidal_encoding
from ..nn.stacked import Linear, StackedModule, fan_in_bound, init_stacked


class LayerNorm(StackedModule):
    def __init__(self, n: int, d: int) -> None:
        super().__init__()
        self.param("gain", n, 1, 1, d, bound=0.0)
        self.param("shift", n, 1, 1, d, bound=0.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, x.shape[-1:]) * (1.0 + self.gain) + self.shift


class MultiHeadAttention(nn.Module):
    def __init__(self, n: int, d: int, heads: int) -> None:
        super().__init__()
        if d % heads:
            raise ValueError(f"hidden {d} is not a multiple of heads {heads}")
        self.heads, self.d_head = heads, d // heads
        self.query, self.key, self.value, self.out = (Linear(n, d, d) for _ in range(4))

    def _split(self, x: torch.Tensor) -> torch.Tensor:  # [S,B,L,d] -> [S,B,H,L,d']
        s, b, l, _ = x.shape
        return x.view(s, b, l, self.heads, self.d_head).transpose(2, 3)

    def forward(self, x: torch.Tensor, mem: torch.Tensor, mask: torch.Tensor) -> dict[str, torch.Tensor]:
        """``mask`` [S|1, B|1, 1, Q|1, K] is True where attention is forbidden."""
        q, k, v = self._split(self.query(x)), self._split(self.key(mem)), self._split(self.value(mem))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.d_head)
        alpha = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        ctx = (alpha @ v).transpose(2, 3).flatten(3)          # [S,B,Q,d], heads concatenated
        return {"alpha": alpha, "value": v, "out": self.out(ctx)}

    def output_map(self) -> tuple[torch.Tensor, torch.Tensor]:
        """W^O per head [S, H, d', d] and b^O [S, d]."""
        w = self.out.weight  # [S, d, d] as x W, rows = concatenated heads
        return w.view(w.shape[0], self.heads, self.d_head, -1), self.out.bias[:, 0]


class FeedForward(nn.Module):
    def __init__(self, n: int, d: int, d_ff: int) -> None:
        super().__init__()
        self.up, self.down = Linear(n, d, d_ff), Linear(n, d_ff, d)

    def forward(self, x):
        return self.down(F.relu(self.up(x)))


class EncoderBlock(nn.Module):
    def __init__(self, n, d, heads, d_ff):
        super().__init__()
        self.ln1, self.attn, self.ln2, self.ffn = LayerNorm(n, d), MultiHeadAttention(n, d, heads), LayerNorm(n, d), FeedForward(n, d, d_ff)

    def forward(self, x, pad_mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, pad_mask)["out"]
        return x + self.ffn(self.ln2(x))


class DecoderBlock(nn.Module):
    def __init__(self, n, d, heads, d_ff):
        super().__init__()
        self.ln1, self.self_attn = LayerNorm(n, d), MultiHeadAttention(n, d, heads)
        self.ln2, self.cross = LayerNorm(n, d), MultiHeadAttention(n, d, heads)
        self.ln3, self.ffn = LayerNorm(n, d), FeedForward(n, d, d_ff)

    def forward(self, y, enc, causal_mask, pad_mask):
        h = self.ln1(y)
        y = y + self.self_attn(h, h, causal_mask)["out"]
        cross = self.cross(self.ln2(y), enc, pad_mask)
        y = y + cross["out"]
        return y + self.ffn(self.ln3(y)), cross


class Transformer(nn.Module):
    """Same interface as :class:`attnrepro.seq2seq.model.EncoderDecoder`: ``forward``, ``run_with_cache``,
    ``greedy_decode``, ``seeds``, ``n_seeds``, ``cfg``."""

    def __init__(self, cfg: ModelConfig, seeds: list[int]) -> None:
        super().__init__()
        self.cfg, self.seeds = cfg, list(seeds)
        n, d = len(self.seeds), cfg.hidden
        self.embed = _Embeddings(n, cfg.src_vocab, cfg.tgt_vocab, d)
        self.encoder = nn.ModuleList(EncoderBlock(n, d, cfg.heads, 4 * d) for _ in range(cfg.layers))
        self.decoder = nn.ModuleList(DecoderBlock(n, d, cfg.heads, 4 * d) for _ in range(cfg.layers))
        self.ln_enc, self.ln_dec = LayerNorm(n, d), LayerNorm(n, d)
        self.readout = Linear(n, d, cfg.tgt_vocab)
        init_stacked(self, self.seeds)
        self.register_buffer("pe", sinusoidal_encoding(cfg.max_positions, d))

    @property
    def n_seeds(self) -> int:
        return len(self.seeds)

    def _positions(self, length: int) -> torch.Tensor:
        if length > self.pe.shape[0]:
            raise ValueError(f"sequence length {length} exceeds max_positions {self.pe.shape[0]}")
        return self.pe[:length]

    def encode(self, src: torch.Tensor, src_len: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Encoder output [S,B,T,d] and the source padding mask [S,B,1,1,T]."""
        t = src.shape[-1]
        pad = (torch.arange(t, device=src.device) >= src_len[..., None])[:, :, None, None, :]
        x = self.embed.source(src) * math.sqrt(self.cfg.hidden) + self._positions(t)
        for block in self.encoder:
            x = block(x, pad)
        return self.ln_enc(x), pad

    def decode(self, tgt_in, enc, pad) -> tuple[torch.Tensor, list[dict[str, torch.Tensor]]]:
        s = tgt_in.shape[-1]
        causal = torch.ones(s, s, dtype=torch.bool, device=tgt_in.device).triu(1)
        y = self.embed.target(tgt_in) * math.sqrt(self.cfg.hidden) + self._positions(s)
        crosses = []
        for block in self.decoder:
            y, cross = block(y, enc, causal, pad)
            crosses.append(cross)
        return self.readout(self.ln_dec(y)), crosses

    def run_with_cache(self, src, src_len, tgt_in) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        enc, pad = self.encode(src, src_len)
        logits, crosses = self.decode(tgt_in, enc, pad)
        cache = {"encoder.out": enc}
        for layer, cross in enumerate(crosses):
            cache.update({f"decoder.{layer}.cross.{k}": v for k, v in cross.items()})
        return logits, cache

    def forward(self, src, src_len, tgt_in) -> torch.Tensor:
        enc, pad = self.encode(src, src_len)
        return self.decode(tgt_in, enc, pad)[0]

    def output_maps(self) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Per decoder layer, the source-target attention's W^O per head [S,H,d',d] and b^O [S,d]."""
        return [block.cross.output_map() for block in self.decoder]

    @torch.no_grad()
    def greedy_decode(self, src, src_len, n_steps: int, sos: int) -> torch.Tensor:
        enc, pad = self.encode(src, src_len)
        n, b = src.shape[:2]
        words = torch.full((n, b, 1), sos, dtype=torch.long, device=src.device)
        for _ in range(n_steps):
            nxt = self.decode(words, enc, pad)[0][:, :, -1:].argmax(-1)
            words = torch.cat([words, nxt], dim=-1)
        return words[:, :, 1:]


class _Embeddings(StackedModule):
    def __init__(self, n: int, src_vocab: int, tgt_vocab: int, d: int) -> None:
        super().__init__()
        k = fan_in_bound(d)
        self.param("src", n, src_vocab, d, bound=k)
        self.param("tgt", n, tgt_vocab, d, bound=k)

    @staticmethod
    def _lookup(table: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:  # [S,V,d], [S,B,L] -> [S,B,L,d]
        s, b, l = ids.shape
        return torch.gather(table, 1, ids.reshape(s, b * l, 1).expand(-1, -1, table.shape[-1])).view(s, b, l, -1)

    def source(self, ids):
        return self._lookup(self.src, ids)

    def target(self, ids):
        return self._lookup(self.tgt, ids)

