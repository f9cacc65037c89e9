"""The bag-of-words proxy of Snell et al. 2021, §2.3, members stacked; its lexical probe is β^px.

Eq. 5:  p_t = σ((1/L) Σ_l W e_{x_l})  for every output position t (the output bag of words)
Eq. 6:  β^px_tl = σ(W e_{x_l})_{y_t};  Eq. 13: θ^px_io = σ(W e_i)_o

e_i and W_o are drawn from N(0, I_d/d) (§4.1). With ``bias`` the logits get an output bias b while training and
β^px / θ^px are read without it, as the authors' ``embedding_beta.py`` (Eq. 5 has none). Adam, mini-batches, the
loss the mean over the real target tokens; which evaluation's β^px Table 2 reads (the best validation loss, as
the authors keep the best epoch) is :func:`attnrepro.snell2021.agreement_table.table2_from_runs`'s choice. It reads a batch of :mod:`attnrepro.data.vocab` like every
model of the project and trains through the same engine; its ``tgt_in`` is not read (Eq. 5 ignores the decoder).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch

from ..nn.stacked import StackedModule, init_stacked, lookup


@dataclass(frozen=True)
class ProxyConfig:
    n_in: int      # input vocabulary
    n_out: int     # output vocabulary (2 for a binary classifier)
    dim: int       # embedding width d
    bias: bool = False   # an output bias while training (authors' embedding_beta.py); β^px is read without it

    def to_dict(self) -> dict:
        return asdict(self)


class Proxy(StackedModule):
    def __init__(self, cfg: ProxyConfig, seeds: list[int]) -> None:
        super().__init__()
        self.cfg, self.seeds = cfg, [int(s) for s in seeds]
        n, d = len(self.seeds), cfg.dim
        self.param("e", n, cfg.n_in, d, bound=d ** -0.5, normal=True)
        self.param("w", n, d, cfg.n_out, bound=d ** -0.5, normal=True)
        if cfg.bias:  # registered last: e and w are drawn as without it
            self.param("b", n, 1, cfg.n_out, bound=d ** -0.5)
        init_stacked(self, self.seeds)

    @property
    def n_seeds(self) -> int:
        return len(self.seeds)

    def forward(self, src, src_len, tgt_in) -> torch.Tensor:
        """Eq. 5's logits, the same at every target position: [S,B,T,n_out]."""
        mask = (torch.arange(src.shape[-1], device=src.device) < src_len[..., None]).to(self.e.dtype)
        mean = (lookup(self.e, src) * mask[..., None]).sum(2) / mask.sum(2, keepdim=True)         # [S,B,d]
        logits = torch.bmm(mean, self.w) if not self.cfg.bias else torch.baddbmm(self.b, mean, self.w)
        return logits[:, :, None].expand(-1, -1, tgt_in.shape[-1], -1)

    @torch.no_grad()
    def theta(self) -> torch.Tensor:
        """θ^px [S, n_in, n_out] (Eq. 13)."""
        return torch.softmax(torch.bmm(self.e, self.w), -1)

    @torch.no_grad()
    def lexical_probe(self, src, src_len, tgt_in, tgt_out) -> torch.Tensor:
        """β^px_tl = θ^px_{x_l, y_t} (Eq. 6), [S,B,T,L]."""
        theta = self.theta()
        seeds = torch.arange(src.shape[0], device=src.device)[:, None, None, None]
        return theta[seeds, src[:, :, None, :], tgt_out[:, :, :, None]]
