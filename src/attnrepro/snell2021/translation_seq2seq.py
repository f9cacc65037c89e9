"""The translation model behind Snell et al. 2021's Table 2 (App. A.8), as the authors' code builds it, members
stacked on a leading axis.

Eq. 1 with the authors' score: a_tl = (W s_t + b)·h_l, h_l = [→h_l; ←h_l] (2H) of a 2-layer bidirectional LSTM
encoder (H per direction), s_t the top layer of a 2-layer LSTM decoder started, layer by layer, from the encoder's
final (h, c) averaged over its two directions.
Eq. 2 with the authors' read-out: c_t = P Σ_l α_tl h_l + b_P (2H -> H), p_t = softmax(V ReLU(F [s_t; c_t])).
Eq. 4:  β_tl = p(y_t | c_t replaced by P h_l + b_P), through the full read-out (:meth:`lexical_probe`).

As their ``nn.LSTM(..., dropout=0.5)``, dropout acts between the two layers of the encoder and of the decoder only,
while training, each member's masks from its own stream (:class:`attnrepro.nn.dropout.StackedDropout`). One shared
word embedding (width H, N(0, 1)) for source and target. Non-embedding parameters at H = 256 and an 8,000-piece
vocabulary: 6,132,544, the number of App. A.8. Attention modes as :mod:`.seq2seq`:
``learned``, ``uniform`` (zero scores over the real source positions), ``frozen_beta`` (only the score trains).
The interface (``run_with_cache``, ``lexical_probe``, ``saliency``, ``greedy_decode``) is that of
:class:`.seq2seq.Seq2Seq`, with a single head.

``readout="linear"``: App. A.1's variant, Eq. 32, p_t = σ(W(c_t + d_t) + b) with c_t = P Σ_l α_tl h_l + b_P and d_t = s_t
(no F, no ReLU); :meth:`eq32_terms` gives the γ_l and γ_s of Eq. 34 that :mod:`.optimal_attention` minimises over α.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..nn.cells import LSTMCell
from ..nn.dropout import StackedDropout
from ..nn.stacked import Linear, StackedModule, init_stacked, lookup_time_major
from .seq2seq import ModeChecked, gradient_times_input

LAYERS = 2


@dataclass(frozen=True)
class TranslationConfig(ModeChecked):
    vocab: int
    hidden: int = 256          # per direction in the encoder; the decoder's width
    dropout: float = 0.5
    attention: str = "learned"
    readout: str = "relu"      # "linear": App. A.1's Eq. 32, W(c + d)

    def __post_init__(self):
        super().__post_init__()
        if self.readout not in ("relu", "linear"):
            raise ValueError(f"readout {self.readout!r}; choose 'relu' (App. A.8) or 'linear' (App. A.1, Eq. 32)")


class TranslationSeq2Seq(StackedModule):
    SCORE = ("score.weight", "score.bias")

    def __init__(self, cfg: TranslationConfig, seeds: list[int], head_seeds=None) -> None:
        super().__init__()
        self.cfg, self.seeds = cfg, [int(s) for s in seeds]
        n, h = len(self.seeds), cfg.hidden
        self.param("embedding", n, cfg.vocab, h, bound=1.0, normal=True)
        self.enc_fwd = torch.nn.ModuleList([LSTMCell(n, h if k == 0 else 2 * h, h) for k in range(LAYERS)])
        self.enc_bwd = torch.nn.ModuleList([LSTMCell(n, h if k == 0 else 2 * h, h) for k in range(LAYERS)])
        self.dec = torch.nn.ModuleList([LSTMCell(n, h, h) for _ in range(LAYERS)])
        self.score = Linear(n, h, 2 * h)          # the authors' attn_lin, with its bias
        self.project = Linear(n, 2 * h, h)        # project_enc
        if cfg.readout == "relu":
            self.extra = Linear(n, 2 * h, h)      # extra_ff on [s; c], then ReLU
        self.out = Linear(n, h, cfg.vocab)        # hidden2vocab
        self.drop = StackedDropout(cfg.dropout, self.seeds, time_dim=2)   # on [S, B, L or T, width]
        init_stacked(self, self.seeds)
        if cfg.attention == "frozen_beta":
            for name, p in self.named_parameters():
                p.requires_grad_(name in self.SCORE)

    @property
    def n_seeds(self) -> int:
        return len(self.seeds)

    def non_embedding_parameters(self) -> int:
        """Parameters per member, the embedding left out (App. A.8 counts 6,132,544)."""
        return sum(p[0].numel() for name, p in self.named_parameters() if name != "embedding")

    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        return lookup_time_major(self.embedding, tokens)

    def encode(self, src, src_len, embedded=None):
        """Encoder states h_l [S,B,L,2H] and the decoder's initial states, one [h; c] per layer."""
        x = self.embed(src) if embedded is None else embedded
        mask = torch.arange(src.shape[-1], device=src.device) < src_len[..., None]
        full = bool(mask.all())
        zero = self.dec[0].initial_state(src.shape[0], src.shape[1], device=src.device)
        initial = []
        for k in range(LAYERS):
            if k:
                x = self.drop(x)
            fwd, f_state = self.enc_fwd[k].sequence(self.enc_fwd[k].input_projection(x), zero, None if full else mask)
            bwd, b_state = self.enc_bwd[k].sequence(self.enc_bwd[k].input_projection(x.flip(2)), zero,
                                                    None if full else mask.flip(2))
            x = torch.cat([fwd, bwd.flip(2)], -1)
            initial.append((f_state + b_state) / 2)     # direction-averaged final (h, c)
        return x, initial

    def _decoder(self, tokens, states):
        """The decoder's top-layer outputs [S,B,T,H] over ``tokens`` [S,B,T] and its final states."""
        x, out = self.embed(tokens), []
        for k in range(LAYERS):
            if k:
                x = self.drop(x)
            x, state = self.dec[k].sequence(self.dec[k].input_projection(x), states[k])
            out.append(state)
        return x, out

    def attention(self, dec_h, enc_h, src_len) -> torch.Tensor:
        """α [S,B,T,L]: softmax over the real source positions of (W s_t + b)·h_l (zero scores when uniform)."""
        if self.cfg.attention == "uniform":
            scores = dec_h.new_zeros(*dec_h.shape[:3], enc_h.shape[2])
        else:
            scores = torch.einsum("sbtg,sblg->sbtl", self.score(dec_h), enc_h)
        pad = torch.arange(enc_h.shape[2], device=dec_h.device) >= src_len[..., None]
        return torch.softmax(scores.masked_fill(pad[:, :, None, :], float("-inf")), -1)

    def readout(self, dec_h, context) -> torch.Tensor:
        """Logits of V ReLU(F [s; c]) (or of W(c + s), Eq. 32) for states and (projected) contexts of one shape
        [..., H]."""
        if self.cfg.readout == "linear":
            return self.out(dec_h + context)
        return self.out(torch.relu(self.extra(torch.cat([dec_h, context], -1))))

    def run_with_cache(self, src, src_len, tgt_in, embedded=None):
        enc_h, initial = self.encode(src, src_len, embedded)
        dec_h = self._decoder(tgt_in, initial)[0]
        alpha = self.attention(dec_h, enc_h, src_len)
        context = self.project(torch.einsum("sbtl,sblg->sbtg", alpha, enc_h))
        return self.readout(dec_h, context), {"encoder.h": enc_h, "decoder.h": dec_h,
                                              "attention.alpha": alpha[:, :, None], "context": context}

    def forward(self, src, src_len, tgt_in) -> torch.Tensor:
        return self.run_with_cache(src, src_len, tgt_in)[0]

    @torch.no_grad()
    def lexical_probe(self, src, src_len, tgt_in, tgt_out, max_elements: int = 25_000_000) -> torch.Tensor:
        """β_tl (Eq. 4): p(y_t) with the context replaced by P h_l + b_P, [S,B,T,L], in slices of the batch."""
        per_row = src.shape[0] * tgt_in.shape[-1] * src.shape[-1] * self.cfg.vocab
        size = max(1, max_elements // per_row)
        parts = []
        for i in range(0, src.shape[1], size):
            s, n, ti, to = (x[:, i: i + size] for x in (src, src_len, tgt_in, tgt_out))
            enc_h, initial = self.encode(s, n)
            dec_h = self._decoder(ti, initial)[0]
            t, length = dec_h.shape[2], enc_h.shape[2]
            logits = self.readout(dec_h[:, :, :, None].expand(-1, -1, -1, length, -1),
                                  self.project(enc_h)[:, :, None].expand(-1, -1, t, -1, -1))   # [S,b,T,L,V]
            gold = to[:, :, :, None, None].expand(-1, -1, -1, length, 1)
            parts.append(torch.log_softmax(logits, -1).gather(-1, gold)[..., 0].exp())
        return torch.cat(parts, 1)

    @torch.no_grad()
    def eq32_terms(self, src, src_len, tgt_in) -> tuple[torch.Tensor, torch.Tensor]:
        """Eq. 34 of the linear read-out: γ_l = W(P h_l + b_P) [S,B,L,V] and γ_s = W s_t + b [S,B,T,V], so that the
        logits are Σ_l α_tl γ_l + γ_s for any attention α_t on the simplex."""
        if self.cfg.readout != "linear":
            raise ValueError("eq32_terms needs readout='linear' (App. A.1's Eq. 32)")
        enc_h, initial = self.encode(src, src_len)
        dec_h = self._decoder(tgt_in, initial)[0]
        return self.out(self.project(enc_h)) - self.out.bias[:, None], self.out(dec_h)

    def saliency(self, src, src_len, tgt_in, tgt_out) -> torch.Tensor:
        """Δ_tl = ∇_{e_l} log p_t(y_t) · e_l (gradient × input, the authors' translation code), [S,B,T,L]."""
        return gradient_times_input(self, src, src_len, tgt_in, tgt_out)

    @torch.no_grad()
    def greedy_decode(self, src, src_len, n_steps: int, sos: int) -> torch.Tensor:
        enc_h, states = self.encode(src, src_len)
        token = torch.full((*src.shape[:2], 1), sos, dtype=torch.long, device=src.device)
        out = []
        for _ in range(n_steps):
            dec_h, states = self._decoder(token, states)
            context = self.project(torch.einsum("sbtl,sblg->sbtg", self.attention(dec_h, enc_h, src_len), enc_h))
            token = self.readout(dec_h, context).argmax(-1)
            out.append(token[..., 0])
        return torch.stack(out, -1)
