"""Recurrent cells over a leading seed axis.

A cell splits its update into an input projection, computed for all time steps at once, and a recurrent step.
That keeps the per-step Python work to one batched matmul per seed stack (``torch.baddbmm``).

Shapes: inputs ``x`` [S, B, T, D]; states [S, B, state_size]. A state is one tensor for every cell (the LSTM
keeps [h; c] side by side) so the encoder-decoder code never needs to know which cell it runs; ``output(state)``
is the hidden state h that attention and the readout see.
"""

from __future__ import annotations

import torch

from .stacked import StackedModule, fan_in_bound


class Cell(StackedModule):
    """Shared plumbing: ``w_x`` [S, D, G] and ``b_x`` [S, 1, G] project the input to the G gate pre-activations."""

    state_factor = 1  # state_size = state_factor * hidden

    def __init__(self, n_seeds: int, input_dim: int, hidden: int, gates: int, recurrent: bool = True) -> None:
        super().__init__()
        self.hidden = hidden
        k = fan_in_bound(hidden if recurrent else input_dim)
        self.w_x = self.param("w_x", n_seeds, input_dim, gates * hidden, bound=k)
        if recurrent:
            self.w_h = self.param("w_h", n_seeds, hidden, gates * hidden, bound=k)
        self.b_x = self.param("b_x", n_seeds, 1, gates * hidden, bound=k)

    def input_projection(self, x: torch.Tensor) -> torch.Tensor:
        """W_x x + b_x for every time step: [S, B, T, D] -> [S, B, T, G]."""
        s, b, t, d = x.shape
        return torch.baddbmm(self.b_x, x.reshape(s, b * t, d), self.w_x).view(s, b, t, -1)

    def token_projection(self, tokens: torch.Tensor, extra: torch.Tensor | None = None) -> torch.Tensor:
        """:meth:`input_projection` of one-hot ``tokens`` [S, B, T] (plus ``extra`` [S, T, D], the same for every
        example): a row lookup instead of a product with a mostly-zero matrix, equal to it bit for bit in the
        forward pass, and what keeps a 5,000-word vocabulary affordable."""
        seeds = torch.arange(tokens.shape[0], device=tokens.device)[:, None, None]
        gx = self.w_x[seeds, tokens] + self.b_x[:, None]
        if extra is not None:
            gx = gx + torch.bmm(extra, self.w_x)[:, None]
        return gx

    def initial_state(self, n_seeds: int, batch: int, device=None) -> torch.Tensor:
        return torch.zeros(n_seeds, batch, self.state_factor * self.hidden, device=device)

    def output(self, state: torch.Tensor) -> torch.Tensor:
        return state[..., : self.hidden]

    def step(self, gx: torch.Tensor, state: torch.Tensor) -> torch.Tensor:  # pragma: no cover - abstract
        raise NotImplementedError

    def sequence(self, gx: torch.Tensor, state: torch.Tensor, mask: torch.Tensor | None = None
                 ) -> tuple[torch.Tensor, torch.Tensor]:
        """Run the cell over every time step of ``gx`` [S, B, T, G] (input projections) from ``state``
        [S, B, state_size]; where ``mask`` [S, B, T] (bool) is False the state is held (after ``<eos>``).
        Returns the outputs h [S, B, T, H] and the final state."""
        hs = []
        for t in range(gx.shape[2]):
            new = self.step(gx[:, :, t], state)
            state = new if mask is None else torch.where(mask[:, :, t, None], new, state)
            hs.append(self.output(state))
        return torch.stack(hs, 2), state


class GRUCell(Cell):
    """Gated recurrent unit (Cho et al. 2014), in PyTorch's gate convention:

    r = σ(W_rx x + b_rx + W_rh h + b_rh),  z = σ(W_zx x + b_zx + W_zh h + b_zh),
    n = tanh(W_nx x + b_nx + r ⊙ (W_nh h + b_nh)),  h' = (1 − z) ⊙ n + z ⊙ h.
    """

    def __init__(self, n_seeds: int, input_dim: int, hidden: int) -> None:
        super().__init__(n_seeds, input_dim, hidden, gates=3)
        self.b_h = self.param("b_h", n_seeds, 1, 3 * hidden, bound=fan_in_bound(hidden))

    def step(self, gx: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        gh = torch.baddbmm(self.b_h, h, self.w_h)
        xr, xz, xn = gx.chunk(3, dim=-1)
        hr, hz, hn = gh.chunk(3, dim=-1)
        r = torch.sigmoid(xr + hr)
        z = torch.sigmoid(xz + hz)
        n = torch.tanh(xn + r * hn)
        return (1 - z) * n + z * h


class LSTMCell(Cell):
    """Long short-term memory (Hochreiter & Schmidhuber 1997), PyTorch's gate order i, f, g, o:

    c' = σ(f) ⊙ c + σ(i) ⊙ tanh(g),  h' = σ(o) ⊙ tanh(c'),  each gate W_x x + b_x + W_h h + b_h.
    The state is [h; c].
    """

    state_factor = 2

    def __init__(self, n_seeds: int, input_dim: int, hidden: int) -> None:
        super().__init__(n_seeds, input_dim, hidden, gates=4)
        self.b_h = self.param("b_h", n_seeds, 1, 4 * hidden, bound=fan_in_bound(hidden))

    def step(self, gx: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        h, c = state.split(self.hidden, dim=-1)
        i, f, g, o = (gx + torch.baddbmm(self.b_h, h, self.w_h)).chunk(4, dim=-1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return torch.cat([h, c], dim=-1)


class UGRNNCell(Cell):
    """Update-gate RNN (Collins et al. 2016):

    g = σ(W_gx x + W_gh h + b_g),  c = tanh(W_cx x + W_ch h + b_c),  h' = g ⊙ h + (1 − g) ⊙ c.
    """

    def __init__(self, n_seeds: int, input_dim: int, hidden: int) -> None:
        super().__init__(n_seeds, input_dim, hidden, gates=2)

    def step(self, gx: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        g, c = (gx + torch.bmm(h, self.w_h)).chunk(2, dim=-1)
        g, c = torch.sigmoid(g), torch.tanh(c)
        return g * h + (1 - g) * c


class FeedForwardCell(Cell):
    """The non-gated feed-forward map h = tanh(W x + b) of Aitken et al.'s SM (AO only): no previous state."""

    def __init__(self, n_seeds: int, input_dim: int, hidden: int) -> None:
        super().__init__(n_seeds, input_dim, hidden, gates=1, recurrent=False)

    def step(self, gx: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        return torch.tanh(gx)


CELLS = {"gru": GRUCell, "lstm": LSTMCell, "ugrnn": UGRNNCell, "ff": FeedForwardCell}
RECURRENT_CELLS = ("gru", "lstm", "ugrnn")


def make_cell(name: str, n_seeds: int, input_dim: int, hidden: int) -> Cell:
    return CELLS[name](n_seeds, input_dim, hidden)
