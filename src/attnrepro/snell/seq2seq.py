"""The LSTM seq2seq with attention of Snell et al. 2021, §2.1 and §5.2, seeds stacked on a leading axis.

Eq. 1:  a_tl = s_tᵀ W h_l,  α_t = softmax_l(a_t·)         (one W per head k, Eq. 20)
Eq. 2:  c_t = Σ_l α_tl h_l,  p_t = N([c_t; s_t])
Eq. 21: with K heads the contexts are combined before N.
Eq. 4:  β_tl = N([h_l; s_t])_{y_t}  — the lexical probe (:meth:`Seq2Seq.lexical_probe`).

Where the paper is silent we follow the authors' code (``../shared/reference/authors-code.md``): one shared
word embedding (dimension = hidden, N(0, 1)) for source and target; 1-layer LSTM encoder and decoder; the decoder
starts from the encoder's final (h, c) and is teacher forced; each head's context goes through its own linear
``project_enc`` P_k before N; N = linear → tanh → linear. The K projected contexts are *summed* as Eq. 21 says
(the authors' multi-head code averages them; the paper is the specification, and a mean weakens a single good
head K-fold at the start of training). The score has no bias, as Eq. 1
(the authors' ``attn_lin`` has one).

Attention modes (``Seq2SeqConfig.attention``):

- ``learned``: as above.
- ``uniform``: α^uf_tl = 1/L over the real source positions (``<eos>`` included, as the authors' zeroed scores), §3.2.
- ``frozen_beta``: the model is as ``learned`` but only the attention parameters W^(k) train (App. A.6);
  :meth:`Seq2Seq.trainable_parameters` is what the optimiser receives.

Initialisation: the backbone (embedding, LSTMs, N) of stack member s is drawn from ``backbone_seeds[s]`` and head
k's parameters (W^(k), P_k) from ``head_seeds[s][k]``, each from its own generator — so rejection sampling can
keep a backbone fixed while trying heads (§5.2), and a member never depends on the others in the stack.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
import torch.nn.functional as F

from ..stacked import StackedModule, draw, fan_in_bound
from .lstm import lookup, lstm

MODES = ("learned", "uniform", "frozen_beta")


@dataclass(frozen=True)
class Seq2SeqConfig:
    vocab: int                 # shared source/target vocabulary, special tokens included
    hidden: int
    heads: int = 1
    attention: str = "learned"

    def __post_init__(self):
        if self.attention not in MODES:
            raise ValueError(f"attention mode {self.attention!r}; choose one of {MODES}")

    def to_dict(self) -> dict:
        return asdict(self)


def head_seeds_of(seed: int, heads: int) -> list[int]:
    """The head seeds of an ordinary run with model seed ``seed`` (independent of its backbone stream)."""
    return [int(x) for x in np.random.SeedSequence([int(seed), 7]).generate_state(heads)]


class Seq2Seq(StackedModule):
    BACKBONE = ("embedding", "enc_wx", "enc_wh", "enc_b", "dec_wx", "dec_wh", "dec_b", "n_w1", "n_b1", "n_w2", "n_b2")
    HEAD = ("att_w", "proj_w", "proj_b")       # W^(k) and the authors' project_enc P_k
    ATTENTION = ("att_w",)                      # what frozen_beta trains

    def __init__(self, cfg: Seq2SeqConfig, backbone_seeds: list[int], head_seeds: list[list[int]] | None = None):
        super().__init__()
        self.cfg = cfg
        self.backbone_seeds = [int(s) for s in backbone_seeds]
        self.head_seeds = ([head_seeds_of(s, cfg.heads) for s in self.backbone_seeds] if head_seeds is None
                           else [[int(h) for h in hs] for hs in head_seeds])
        if len(self.head_seeds) != len(self.backbone_seeds) or any(len(h) != cfg.heads for h in self.head_seeds):
            raise ValueError("head_seeds must hold one list of `heads` seeds per backbone seed")
        n, h, v, k = len(self.backbone_seeds), cfg.hidden, cfg.vocab, cfg.heads
        b = fan_in_bound(h)
        self.param("embedding", n, v, h, bound=1.0, normal=True)
        for part in ("enc", "dec"):
            self.param(f"{part}_wx", n, h, 4 * h, bound=b)
            self.param(f"{part}_wh", n, h, 4 * h, bound=b)
            self.param(f"{part}_b", n, 1, 4 * h, bound=2 * b)  # b_ih + b_hh as one: same support, not same law
        self.param("n_w1", n, 2 * h, h, bound=fan_in_bound(2 * h))
        self.param("n_b1", n, 1, h, bound=fan_in_bound(2 * h))
        self.param("n_w2", n, h, v, bound=b)
        self.param("n_b2", n, 1, v, bound=b)
        self.param("att_w", n, k, h, h, bound=b)
        self.param("proj_w", n, k, h, h, bound=b)
        self.param("proj_b", n, k, 1, h, bound=b)
        self.reset_parameters()
        if cfg.attention == "frozen_beta":
            for name in self.BACKBONE + self.HEAD:
                if name not in self.ATTENTION:
                    getattr(self, name).requires_grad_(False)

    @property
    def n_seeds(self) -> int:
        return len(self.backbone_seeds)

    @torch.no_grad()
    def reset_parameters(self) -> None:
        for s, (seed, heads) in enumerate(zip(self.backbone_seeds, self.head_seeds)):
            gen = torch.Generator().manual_seed(seed)
            for name in self.BACKBONE:
                p = getattr(self, name)
                p[s].copy_(draw(p.shape[1:], self._bounds[name], name in self._normal, gen))
            for k, head_seed in enumerate(heads):
                gen = torch.Generator().manual_seed(head_seed)
                for name in self.HEAD:
                    p = getattr(self, name)
                    p[s, k].copy_(draw(p.shape[2:], self._bounds[name], name in self._normal, gen))

    def trainable_parameters(self) -> list[torch.nn.Parameter]:
        return [p for p in self.parameters() if p.requires_grad]

    # -- pieces ----------------------------------------------------------------------------------------------
    def _gates_in(self, tokens: torch.Tensor, part: str) -> torch.Tensor:
        """x W_x + b for every position: the embedding is folded into a [V, 4H] table first (same numbers,
        |V| rows of matmul instead of B·T)."""
        table = torch.baddbmm(getattr(self, f"{part}_b"), self.embedding, getattr(self, f"{part}_wx"))
        return lookup(table, tokens)

    def encode(self, src: torch.Tensor, src_mask: torch.Tensor | None = None, gates: torch.Tensor | None = None):
        """Encoder states h_l [S,B,L,H] and the final (h, c); ``gates`` replaces x W_x + b (saliency)."""
        s, b, _ = src.shape
        zero = self.embedding.new_zeros(s, b, self.cfg.hidden)
        return lstm(self._gates_in(src, "enc") if gates is None else gates, zero, zero, self.enc_wh, src_mask)

    def decode_states(self, tgt_in: torch.Tensor, h0: torch.Tensor, c0: torch.Tensor) -> torch.Tensor:
        """Teacher-forced decoder states s_t [S,B,T,H]."""
        return lstm(self._gates_in(tgt_in, "dec"), h0, c0, self.dec_wh)[0]

    def attention(self, dec_h: torch.Tensor, enc_h: torch.Tensor, src_mask: torch.Tensor | None) -> torch.Tensor:
        """α [S,B,K,T,L] (Eq. 1 / 20), masked beyond the source's length."""
        s, b, t, _ = dec_h.shape
        length = enc_h.shape[2]
        if self.cfg.attention == "uniform":
            scores = dec_h.new_zeros(s, b, self.cfg.heads, t, length)
        else:
            q = torch.einsum("sbth,skhg->sbktg", dec_h, self.att_w)
            scores = torch.einsum("sbktg,sblg->sbktl", q, enc_h)
        if src_mask is not None:
            scores = scores.masked_fill(~src_mask.bool()[:, :, None, None, :], float("-inf"))
        return torch.softmax(scores, dim=-1)

    def combine(self, contexts: torch.Tensor) -> torch.Tensor:
        """Eq. 21: [S,B,K,T,H] head contexts -> Σ_k (P_k c^(k) + b_k) [S,B,T,H]."""
        projected = torch.einsum("sbkth,skhg->sbktg", contexts, self.proj_w) + self.proj_b[:, None]
        return projected.sum(2)

    # -- forward ---------------------------------------------------------------------------------------------
    def run_with_cache(self, src, tgt_in, src_mask=None, gates=None) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """``src`` [S,B,L], ``tgt_in`` [S,B,T] -> logits [S,B,T,V] and named activations."""
        enc_h, h_last, c_last = self.encode(src, src_mask, gates)
        dec_h = self.decode_states(tgt_in, h_last, c_last)
        alpha = self.attention(dec_h, enc_h, src_mask)
        contexts = torch.einsum("sbktl,sblh->sbkth", alpha, enc_h)
        context = self.combine(contexts)
        logits = self._n(self._n_context(context) + self._n_state(dec_h))
        return logits, {"encoder.h": enc_h, "decoder.h": dec_h, "attention.alpha": alpha, "context": context}

    def forward(self, src, tgt_in, src_mask=None) -> torch.Tensor:
        return self.run_with_cache(src, tgt_in, src_mask)[0]

    def _n_context(self, x: torch.Tensor) -> torch.Tensor:
        """The context half of N's first layer: x W1[:H] for x [S, B, ..., H]."""
        s, b = x.shape[:2]
        out = torch.bmm(x.reshape(s, -1, x.shape[-1]), self.n_w1[:, : self.cfg.hidden])
        return out.view(*x.shape[:-1], -1)

    def _n_state(self, x: torch.Tensor) -> torch.Tensor:
        s = x.shape[0]
        out = torch.baddbmm(self.n_b1, x.reshape(s, -1, x.shape[-1]), self.n_w1[:, self.cfg.hidden:])
        return out.view(*x.shape[:-1], -1)

    def _n(self, pre: torch.Tensor) -> torch.Tensor:
        """tanh, then the output layer: [S, ..., H] -> logits [S, ..., V]."""
        s = pre.shape[0]
        out = torch.baddbmm(self.n_b2, torch.tanh(pre).reshape(s, -1, pre.shape[-1]), self.n_w2)
        return out.view(*pre.shape[:-1], -1)

    @torch.no_grad()
    def lexical_probe(self, src, tgt_in, tgt_out, src_mask=None) -> torch.Tensor:
        """β_tl = N([h_l; s_t])_{y_t} (Eq. 4): the probability of the gold word if every head attended only to
        h_l, [S,B,T,L]. With K heads, each head's context is h_l, so the combined context is Σ_k P_k h_l + b_k."""
        enc_h, h_last, c_last = self.encode(src, src_mask)
        dec_h = self.decode_states(tgt_in, h_last, c_last)
        k = self.cfg.heads
        as_context = self.combine(enc_h[:, :, None].expand(-1, -1, k, -1, -1))        # [S,B,L,H]
        pre = self._n_state(dec_h)[:, :, :, None] + self._n_context(as_context)[:, :, None]  # [S,B,T,L,H]
        logp = torch.log_softmax(self._n(pre), dim=-1)
        gold = tgt_out[:, :, :, None, None].expand(-1, -1, -1, pre.shape[3], 1)
        return logp.gather(-1, gold)[..., 0].exp()


def saliency(model: Seq2Seq, src, tgt_in, tgt_out, src_mask=None) -> torch.Tensor:
    """Gradient saliency Δ_tl = ‖∂ log p_t(y_t) / ∂ e_{x_l}‖₂ (the first-order word influence of Ebrahimi et al.
    2018 that Snell et al. §5.1 use), [S,B,T,L]: one backward pass per output position."""
    gates = model._gates_in(src, "enc").detach().requires_grad_()
    logits, _ = model.run_with_cache(src, tgt_in, src_mask, gates=gates)
    logp = torch.log_softmax(logits, -1).gather(-1, tgt_out[..., None])[..., 0]      # [S,B,T]
    out = []
    for t in range(logp.shape[-1]):
        (g,) = torch.autograd.grad(logp[..., t].sum(), gates, retain_graph=t + 1 < logp.shape[-1])
        # gates = e W_x + b, so the gradient at the embedding is g W_xᵀ
        out.append(torch.einsum("sblg,shg->sblh", g, model.enc_wx).norm(dim=-1))
    return torch.stack(out, 2).detach()


@torch.no_grad()
def greedy_decode(model: Seq2Seq, src, src_mask, sos: int, n_steps: int) -> torch.Tensor:
    """Greedy decoding, each step fed the previous argmax: word ids [S,B,n_steps] (cut at ``<eos>`` later)."""
    enc_h, h, c = model.encode(src, src_mask)
    token = torch.full(src.shape[:2], sos, dtype=torch.long, device=src.device)
    out = []
    for _ in range(n_steps):
        dec_h, h, c = lstm(model._gates_in(token[..., None], "dec"), h, c, model.dec_wh)
        alpha = model.attention(dec_h, enc_h, src_mask)
        context = model.combine(torch.einsum("sbktl,sblh->sbkth", alpha, enc_h))
        token = model._n(model._n_context(context) + model._n_state(dec_h)).argmax(-1)[..., 0]
        out.append(token)
    return torch.stack(out, -1)


def per_seed_loss(logits: torch.Tensor, target: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Mean token cross-entropy (Eq. 3 up to the constant 1/T·B) of each seed: [S]; ``mask`` [S,B,T] (1 = real
    target token) averages over real tokens only (right-padded translation batches)."""
    nll = F.cross_entropy(logits.flatten(0, -2), target.flatten(), reduction="none").view(target.shape)
    if mask is None:
        return nll.flatten(1).mean(1)
    mask = mask.to(nll.dtype)
    return (nll * mask).flatten(1).sum(1) / mask.flatten(1).sum(1)
