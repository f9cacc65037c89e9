"""Recurrent cells over a leading seed axis.

A cell splits its update into an input projection, computed for all time steps at once, and a recurrent step.
That keeps the per-step Python work to one batched matmul per seed stack (``torch.baddbmm``).

Shapes: inputs ``x`` [S, B, T, D]; states [S, B, H].
"""

from __future__ import annotations

import torch

from .stacked import StackedModule, fan_in_bound


class GRUCell(StackedModule):
    """Gated recurrent unit (Cho et al. 2014), in PyTorch's gate convention:

    r = σ(W_rx x + b_rx + W_rh h + b_rh),  z = σ(W_zx x + b_zx + W_zh h + b_zh),
    n = tanh(W_nx x + b_nx + r ⊙ (W_nh h + b_nh)),  h' = (1 − z) ⊙ n + z ⊙ h.
    """

    def __init__(self, n_seeds: int, input_dim: int, hidden: int) -> None:
        super().__init__()
        self.hidden = hidden
        k = fan_in_bound(hidden)
        self.w_x = self.param("w_x", n_seeds, input_dim, 3 * hidden, bound=k)
        self.w_h = self.param("w_h", n_seeds, hidden, 3 * hidden, bound=k)
        self.b_x = self.param("b_x", n_seeds, 1, 3 * hidden, bound=k)
        self.b_h = self.param("b_h", n_seeds, 1, 3 * hidden, bound=k)

    def input_projection(self, x: torch.Tensor) -> torch.Tensor:
        """W_x x + b_x for every time step: [S, B, T, D] -> [S, B, T, 3H]."""
        s, b, t, d = x.shape
        return torch.baddbmm(self.b_x, x.reshape(s, b * t, d), self.w_x).view(s, b, t, -1)

    def initial_state(self, n_seeds: int, batch: int, device=None) -> torch.Tensor:
        return torch.zeros(n_seeds, batch, self.hidden, device=device)

    def step(self, gx: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """One update from the projected input ``gx`` [S, B, 3H] and state ``h`` [S, B, H]."""
        gh = torch.baddbmm(self.b_h, h, self.w_h)
        xr, xz, xn = gx.chunk(3, dim=-1)
        hr, hz, hn = gh.chunk(3, dim=-1)
        r = torch.sigmoid(xr + hr)
        z = torch.sigmoid(xz + hz)
        n = torch.tanh(xn + r * hn)
        return (1 - z) * n + z * h

    @staticmethod
    def output(state: torch.Tensor) -> torch.Tensor:
        """The hidden state h that attention and readout see."""
        return state


CELLS = {"gru": GRUCell}


def make_cell(name: str, n_seeds: int, input_dim: int, hidden: int):
    return CELLS[name](n_seeds, input_dim, hidden)
