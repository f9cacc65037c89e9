"""Attention variants, over a leading seed axis. Both share :meth:`Attention.forward`: scores a_st = q_s·k_t,
weights α_s = softmax_t(a_s·) masked beyond the input's length, context c_s = Σ_t α_st v_t.

- :class:`DotAttention` — Aitken et al. 2021 §2: q_s = h_s^D, k_t = v_t = h_t^E, no parameters.
- :class:`QKVAttention` — footnote 1 / SM: learned scaled dot-product attention (Vaswani et al. 2017) with one
  head, q = (W_Q h^D + b_Q)/√d, k = W_K h^E + b_K, v = W_V h^E + b_V, d = hidden. The 1/√d is folded into q so
  that a_st = q_s·k_t holds for the exported vectors.
"""

from __future__ import annotations

import math

import torch

from .stacked import StackedModule, affine, fan_in_bound


class Attention(StackedModule):
    def project(self, dec_h: torch.Tensor, enc_h: torch.Tensor):
        """Queries [S,B,S',d], keys and values [S,B,T,d]."""
        raise NotImplementedError  # pragma: no cover - abstract

    def forward(self, dec_h: torch.Tensor, enc_h: torch.Tensor, src_len: torch.Tensor) -> dict[str, torch.Tensor]:
        q, k, v = self.project(dec_h, enc_h)
        scores = torch.einsum("nbsd,nbtd->nbst", q, k)
        t_max = enc_h.shape[2]
        beyond = torch.arange(t_max, device=enc_h.device)[None, None, None, :] >= src_len[..., None, None]
        alpha = torch.softmax(scores.masked_fill(beyond, float("-inf")), dim=-1)
        context = torch.einsum("nbst,nbtd->nbsd", alpha, v)
        return {"query": q, "key": k, "value": v, "scores": scores, "alpha": alpha, "context": context}


class DotAttention(Attention):
    def project(self, dec_h, enc_h):
        return dec_h, enc_h, enc_h


class QKVAttention(Attention):
    def __init__(self, n_seeds: int, hidden: int) -> None:
        super().__init__()
        k = fan_in_bound(hidden)
        self.scale = 1.0 / math.sqrt(hidden)
        for name in ("w_q", "w_k", "w_v"):
            self.param(name, n_seeds, hidden, hidden, bound=k)
        for name in ("b_q", "b_k", "b_v"):
            self.param(name, n_seeds, 1, hidden, bound=k)

    def project(self, dec_h, enc_h):
        q = affine(dec_h, self.w_q, self.b_q) * self.scale
        return q, affine(enc_h, self.w_k, self.b_k), affine(enc_h, self.w_v, self.b_v)


ATTENTIONS = ("dot", "qkv")


def make_attention(name: str, n_seeds: int, hidden: int) -> Attention:
    if name == "dot":
        return DotAttention()
    if name == "qkv":
        return QKVAttention(n_seeds, hidden)
    raise ValueError(f"unknown attention {name!r}; choose one of {ATTENTIONS}")
