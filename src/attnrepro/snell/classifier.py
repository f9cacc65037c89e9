"""The binary classifier of Snell et al. 2021, §2.4 (after Wiegreffe & Pinter 2019), seeds stacked.

Eq. 7:  a_l = vᵀ ReLU(Q h_l),  α = softmax_l(a)
Eq. 8:  p_pos = σ(Wᵀ Σ_l α_l h_l) = σ(Σ_l α_l γ_l),  γ_l = Wᵀ h_l  (Eq. 22)
Eq. 9:  β_l = σ((2y − 1) γ_l) — :func:`attnrepro.analysis.lexical_probe.classifier_probe`.

h_l = [→h_l; ←h_l] from a 1-layer BiLSTM over word embeddings (the authors' code: hidden 256 per direction, an
attention MLP of width 256). No biases in Eq. 7–8, as printed. Attention modes as the seq2seq model:
``learned``, ``uniform`` (α = 1/L, §3.2) and ``frozen_beta`` (only Q and v train, App. A.6).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch

from ..stacked import StackedModule, fan_in_bound, init_stacked
from .lstm import lookup, lstm
from .seq2seq import MODES


@dataclass(frozen=True)
class ClassifierConfig:
    vocab: int
    hidden: int                # per direction
    attention_hidden: int = 0  # width of Q; 0 = hidden
    attention: str = "learned"

    def __post_init__(self):
        if self.attention not in MODES:
            raise ValueError(f"attention mode {self.attention!r}; choose one of {MODES}")

    def to_dict(self) -> dict:
        return asdict(self)


class Classifier(StackedModule):
    ATTENTION = ("att_q", "att_v")

    def __init__(self, cfg: ClassifierConfig, seeds: list[int]) -> None:
        super().__init__()
        self.cfg, self.seeds = cfg, [int(s) for s in seeds]
        n, h = len(self.seeds), cfg.hidden
        a = cfg.attention_hidden or h
        b = fan_in_bound(h)
        self.param("embedding", n, cfg.vocab, h, bound=1.0, normal=True)
        for d in ("fwd", "bwd"):
            self.param(f"{d}_wx", n, h, 4 * h, bound=b)
            self.param(f"{d}_wh", n, h, 4 * h, bound=b)
            self.param(f"{d}_b", n, 1, 4 * h, bound=2 * b)
        self.param("att_q", n, 2 * h, a, bound=fan_in_bound(2 * h))
        self.param("att_v", n, a, 1, bound=fan_in_bound(a))
        self.param("w", n, 2 * h, 1, bound=fan_in_bound(2 * h))
        init_stacked(self, self.seeds)
        if cfg.attention == "frozen_beta":
            for name, p in self.named_parameters():
                p.requires_grad_(name in self.ATTENTION)

    def trainable_parameters(self) -> list[torch.nn.Parameter]:
        return [p for p in self.parameters() if p.requires_grad]

    def _gates_in(self, x: torch.Tensor, d: str) -> torch.Tensor:
        table = torch.baddbmm(getattr(self, f"{d}_b"), self.embedding, getattr(self, f"{d}_wx"))
        return lookup(table, x)

    def gates(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x W_x + b of both directions, in input order."""
        return self._gates_in(x, "fwd"), self._gates_in(x, "bwd")

    def encode(self, x: torch.Tensor, mask: torch.Tensor | None = None, gates=None) -> torch.Tensor:
        """h_l [S,B,L,2H]; ``mask`` [S,B,L] marks real positions of right-padded inputs."""
        s, b, _ = x.shape
        zero = self.embedding.new_zeros(s, b, self.cfg.hidden)
        g_fwd, g_bwd = self.gates(x) if gates is None else gates
        fwd = lstm(g_fwd, zero, zero, self.fwd_wh, mask)[0]
        rmask = None if mask is None else mask.flip(2)
        bwd = lstm(g_bwd.flip(2), zero, zero, self.bwd_wh, rmask)[0].flip(2)
        return torch.cat([fwd, bwd], -1)

    def run_with_cache(self, x: torch.Tensor, mask: torch.Tensor | None = None, gates=None):
        """Logit of the positive class [S,B] and the activations (h, α, γ)."""
        h = self.encode(x, mask, gates)
        s, b, length, d = h.shape
        flat = h.reshape(s, b * length, d)
        gamma = torch.bmm(flat, self.w).view(s, b, length)
        if self.cfg.attention == "uniform":
            scores = h.new_zeros(s, b, length)
        else:
            scores = torch.bmm(torch.relu(torch.bmm(flat, self.att_q)), self.att_v).view(s, b, length)
        if mask is not None:
            scores = scores.masked_fill(~mask.bool(), float("-inf"))
        alpha = torch.softmax(scores, -1)
        logit = (alpha * gamma).sum(-1)
        return logit, {"h": h, "alpha": alpha, "gamma": gamma, "scores": scores}

    def forward(self, x, mask=None) -> torch.Tensor:
        return self.run_with_cache(x, mask)[0]


def saliency(model: Classifier, x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Δ_l = ‖∂ log p(y) / ∂ e_{x_l}‖₂ (Ebrahimi et al. 2018's first-order word influence, §5.1): [S,B,L]."""
    gates = tuple(g.detach().requires_grad_() for g in model.gates(x))
    logit, _ = model.run_with_cache(x, mask, gates)
    logp = -torch.nn.functional.binary_cross_entropy_with_logits(logit, y, reduction="sum")
    g_fwd, g_bwd = torch.autograd.grad(logp, gates)
    grad = (torch.einsum("sblg,shg->sblh", g_fwd, model.fwd_wx) + torch.einsum("sblg,shg->sblh", g_bwd, model.bwd_wx))
    return grad.norm(dim=-1).detach()
