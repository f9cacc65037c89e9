"""Recurrent cells over a leading seed axis, and the one recurrent sequence op that runs them.

A cell splits its update into an input projection gx = W_x x + b_x, computed for all time steps at once, a
recurrent term gh = W_h h (+ b_h), one batched matmul per step for the whole seed stack (``torch.baddbmm``), and
a point-wise update ``gates(gx, gh, h, rest)`` (rest: the LSTM's c, else None) — each cell's equations, written
once. Next to them, ``gates_backward`` holds their derivatives.

Shapes: inputs ``x`` [S, B, T, D]; states [S, B, state_size]. A state is one tensor for every cell (the LSTM
keeps [h; c] side by side) so the encoder-decoder code never needs to know which cell it runs; ``output(state)``
is the hidden state h that attention and the readout see. Inside the equations a state is split into h and the
rest (the LSTM's c; None for the others), so that the op can keep each in a buffer of its own without copies.
Input projections are stored time-major ([S, T, B, G] underneath a [S, B, T, G] view): the op reads one time
step at a time, and a contiguous step is one pass over memory instead of a strided gather.

:meth:`Cell.sequence` runs a cell over a whole sequence with a hand-written backward pass. Why by hand: autograd
through a step loop slices ∂gx one step at a time (each ``gx[:, :, t]`` backward writes a full-size zero tensor,
O(T²) memory traffic), issues a small weight-gradient matmul per step and a dozen element-wise passes per gate.
Here the backward loop only propagates ∂state (one matmul ∂gh W_hᵀ and one point-wise function per step), and
∂W_h = Σ_t h_{t−1}ᵀ ∂gh_t is one matmul over all B·T rows. The point-wise functions are compiled
(:mod:`attnrepro.nn.kernels`, where the choice per device lives) or run eagerly.
"""

from __future__ import annotations

import torch

from . import kernels
from .stacked import INITS, StackedModule, affine, fan_in_bound, lookup, lookup_time_major

# ∂/∂x of σ(x) and tanh(x) from their outputs y: ∂y · y(1 − y) and ∂y · (1 − y²), in one pass each (into a given
# block with the .grad_input overloads: naming the overload spares a schema search per call)
sigmoid_backward, tanh_backward = torch.ops.aten.sigmoid_backward, torch.ops.aten.tanh_backward
sigmoid_backward_into, tanh_backward_into = sigmoid_backward.grad_input, tanh_backward.grad_input


class Cell(StackedModule):
    """Shared plumbing: ``w_x`` [S, D, G] and ``b_x`` [S, 1, G] project the input to the G gate pre-activations;
    ``w_h`` [S, H, G] and ``b_h`` [S, 1, G] the hidden state (PyTorch's two biases), where the cell has them.

    ``init="pytorch"``: every weight and bias U(−1/√fan_in, 1/√fan_in), PyTorch's RNN default. ``init="aitken"``:
    the authors' cells (``renn.rnn.cells``: ``variance_scaling(1, 'fan_in', 'normal')`` on weights stored
    (units, inputs), whose fan-in JAX reads off the units axis): every weight, input and recurrent, N(0, 1/H), and
    zero biases."""

    state_factor = 1  # state_size = state_factor * hidden
    gh_is_gx = True   # ∂gh = ∂gx: gx and gh enter the gates only as their sum (not so in the GRU)
    shared_blocks = 0  # otherwise, the leading gate blocks whose ∂gx equals ∂gh (gates_backward writes them once)

    def __init__(self, n_seeds: int, input_dim: int, hidden: int, gates: int, recurrent: bool = True,
                 recurrent_bias: bool = True, init: str = "pytorch") -> None:
        super().__init__()
        if init not in INITS:
            raise ValueError(f"unknown init {init!r}; choose one of {INITS}")
        self.hidden = hidden
        k = fan_in_bound(hidden if recurrent else input_dim)
        w = {"bound": fan_in_bound(hidden), "normal": True} if init == "aitken" else {"bound": k}
        b = {"bound": 0.0} if init == "aitken" else {"bound": k}
        self.w_x = self.param("w_x", n_seeds, input_dim, gates * hidden, **w)
        if recurrent:
            self.w_h = self.param("w_h", n_seeds, hidden, gates * hidden, **w)
        self.b_x = self.param("b_x", n_seeds, 1, gates * hidden, **b)
        self.b_h = self.param("b_h", n_seeds, 1, gates * hidden, **b) if recurrent and recurrent_bias else None

    def input_projection(self, x: torch.Tensor) -> torch.Tensor:
        """gx = W_x x + b_x for every time step: [S, B, T, D] -> [S, B, T, G], stored time-major (free when ``x`` is
        a view of time-major storage, as :func:`attnrepro.nn.stacked.lookup_time_major` gives)."""
        return affine(x.transpose(1, 2), self.w_x, self.b_x).transpose(1, 2)

    def embedding_projection(self, table: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
        """:meth:`input_projection` of the rows of an embedding ``table`` [S, V, D] for ``tokens`` [S, B, T]. Where
        the table has fewer rows than there are tokens, it projects the table (V·D·G products) and looks up rows
        of that (the same values, up to rounding), instead of projecting every token's row (B·T·D·G)."""
        if table.shape[1] >= tokens[0].numel():
            return self.input_projection(lookup_time_major(table, tokens))
        return lookup_time_major(affine(table, self.w_x, self.b_x), tokens)

    def token_projection(self, tokens: torch.Tensor, extra: torch.Tensor | None = None) -> torch.Tensor:
        """:meth:`input_projection` of one-hot ``tokens`` [S, B, T] (plus ``extra`` [S, T, D], the same for every
        example): rows of the table W_x + b_x instead of a product with a mostly-zero matrix, equal to it bit for
        bit in the forward pass, and what keeps a 5,000-word vocabulary affordable; the bias is folded into the
        |V|-row table so that its gradient is a sum over |V| rows, not over B·T. Batch-major, unlike
        :meth:`input_projection`: the op copies it once into time-major order (cheap at one-hot widths), and the
        table's gradient sums its B·T rows in batch-major order, the order the Aitken results were trained in,
        bit for bit."""
        gx = lookup(self.w_x + self.b_x, tokens)
        if extra is not None:
            gx = gx + affine(extra, self.w_x)[:, None]
        return gx

    def initial_state(self, n_seeds: int, batch: int, device=None) -> torch.Tensor:
        return torch.zeros(n_seeds, batch, self.state_factor * self.hidden, device=device)

    def output(self, state: torch.Tensor) -> torch.Tensor:
        return state[..., : self.hidden]

    def recurrent(self, h: torch.Tensor) -> torch.Tensor:
        """gh = h W_h + b_h: [S, B, H] -> [S, B, G]."""
        return affine(h, self.w_h, self.b_h)

    def step(self, gx: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        """One time step: gx [S, B, G] (input projection), state [S, B, state_size] -> the next state."""
        h, rest = kernels.split(state, self.hidden)
        h, rest, _ = self.gates(gx, self.recurrent(h), h, rest)
        return kernels.join(h, rest)

    @staticmethod
    def gates(gx: torch.Tensor, gh: torch.Tensor, h: torch.Tensor, rest: torch.Tensor | None):
        """The cell's equations: (next h, next rest or None, what ``gates_backward`` needs)."""
        raise NotImplementedError  # pragma: no cover - abstract

    @staticmethod
    def gates_backward(saved: tuple, h: torch.Tensor, rest: torch.Tensor | None, d_h: torch.Tensor,
                       d_rest: torch.Tensor | None, d_gx: torch.Tensor, d_gh: torch.Tensor):
        """∂ of :meth:`gates`, from ∂(next h) and ∂(next rest), written into ``d_gx`` and ``d_gh``, each a tuple of
        its gate blocks [S, B, H] (views of the op's buffers; the same tuple where ``gh_is_gx``; else ∂gx's first
        ``shared_blocks`` blocks are left to the caller, who copies them from ∂gh); returns the direct part of ∂h
        (None where there is none) and ∂rest of the state before. Each block is written by the op that computes it
        (``out=``): no per-step concatenation."""
        raise NotImplementedError  # pragma: no cover - abstract

    def sequence(self, gx: torch.Tensor, state: torch.Tensor, mask: torch.Tensor | None = None
                 ) -> tuple[torch.Tensor, torch.Tensor]:
        """Run the cell over every time step of ``gx`` [S, B, T, G] (input projections) from ``state``
        [S, B, state_size]; where ``mask`` [S, B, T] (bool) is False the state is held (after ``<eos>``).
        Returns the outputs h [S, B, T, H] and the final state."""
        return kernels.recurrence(type(self), self.hidden, gx, state, self.w_h, self.b_h, mask)


class GRUCell(Cell):
    """Gated recurrent unit (Cho et al. 2014), in PyTorch's gate convention:

    r = σ(W_rx x + b_rx + W_rh h + b_rh),  z = σ(W_zx x + b_zx + W_zh h + b_zh),
    n = tanh(W_nx x + b_nx + r ⊙ (W_nh h + b_nh)),  h' = (1 − z) ⊙ n + z ⊙ h.
    """

    gh_is_gx = False  # r multiplies W_nh h + b_nh alone
    shared_blocks = 2  # ∂ of r and z: the same for gx and gh

    def __init__(self, n_seeds: int, input_dim: int, hidden: int, init: str = "pytorch") -> None:
        super().__init__(n_seeds, input_dim, hidden, gates=3, init=init)

    @staticmethod
    def gates(gx, gh, h, rest):
        blocks = (2 * h.shape[-1], h.shape[-1])  # one split per tensor: cheaper than two slices
        (gx_rz, gx_n), (gh_rz, hn) = gx.split(blocks, -1), gh.split(blocks, -1)
        r, z = torch.sigmoid(gx_rz + gh_rz).chunk(2, dim=-1)
        n = torch.tanh(torch.addcmul(gx_n, r, hn))
        return torch.lerp(n, h, z), None, (r, z, n, hn)

    @staticmethod
    def gates_backward(saved, h, rest, d_h, d_rest, d_gx, d_gh):
        r, z, n, hn = saved
        d_an = tanh_backward_into(torch.addcmul(d_h, d_h, z, value=-1), n, grad_input=d_gx[2])
        sigmoid_backward_into(d_an * hn, r, grad_input=d_gh[0])
        sigmoid_backward_into(d_h * (h - n), z, grad_input=d_gh[1])
        torch.mul(d_an, r, out=d_gh[2])
        return d_h * z, None


class LSTMCell(Cell):
    """Long short-term memory (Hochreiter & Schmidhuber 1997), PyTorch's gate order i, f, g, o:

    c' = σ(f) ⊙ c + σ(i) ⊙ tanh(g),  h' = σ(o) ⊙ tanh(c'),  each gate W_x x + b_x + W_h h + b_h.
    The state is [h; c].
    """

    state_factor = 2

    def __init__(self, n_seeds: int, input_dim: int, hidden: int, init: str = "pytorch") -> None:
        super().__init__(n_seeds, input_dim, hidden, gates=4, init=init)

    @staticmethod
    def gates(gx, gh, h, c):
        a_if, a_g, a_o = (gx + gh).split((2 * h.shape[-1], h.shape[-1], h.shape[-1]), -1)
        i, f = torch.sigmoid(a_if).chunk(2, dim=-1)
        g = torch.tanh(a_g)
        o = torch.sigmoid(a_o)
        c = torch.addcmul(f * c, i, g)
        tc = torch.tanh(c)
        return o * tc, c, (i, f, g, o, tc)

    @staticmethod
    def gates_backward(saved, h, c, d_h, d_c, d_gx, d_gh):
        i, f, g, o, tc = saved
        dc = d_c + tanh_backward(d_h * o, tc)
        sigmoid_backward_into(dc * g, i, grad_input=d_gx[0])
        sigmoid_backward_into(dc * c, f, grad_input=d_gx[1])
        tanh_backward_into(dc * i, g, grad_input=d_gx[2])
        sigmoid_backward_into(d_h * tc, o, grad_input=d_gx[3])
        return None, dc * f


class UGRNNCell(Cell):
    """Update-gate RNN (Collins et al. 2016):

    g = σ(W_gx x + W_gh h + b_g),  c = tanh(W_cx x + W_ch h + b_c),  h' = g ⊙ h + (1 − g) ⊙ c.
    """

    def __init__(self, n_seeds: int, input_dim: int, hidden: int, init: str = "pytorch") -> None:
        super().__init__(n_seeds, input_dim, hidden, gates=2, recurrent_bias=False, init=init)

    @staticmethod
    def gates(gx, gh, h, rest):
        a_g, a_c = (gx + gh).chunk(2, dim=-1)
        g = torch.sigmoid(a_g)
        c = torch.tanh(a_c)
        return torch.lerp(c, h, g), None, (g, c)

    @staticmethod
    def gates_backward(saved, h, rest, d_h, d_rest, d_gx, d_gh):
        g, c = saved
        sigmoid_backward_into(d_h * (h - c), g, grad_input=d_gx[0])
        tanh_backward_into(d_h - d_h * g, c, grad_input=d_gx[1])
        return d_h * g, None


class FeedForwardCell(Cell):
    """The non-gated feed-forward map h = tanh(W x + b) of Aitken et al.'s SM (AO only): no previous state."""

    def __init__(self, n_seeds: int, input_dim: int, hidden: int, init: str = "pytorch") -> None:
        super().__init__(n_seeds, input_dim, hidden, gates=1, recurrent=False, init=init)

    def step(self, gx: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        return torch.tanh(gx)


CELLS = {"gru": GRUCell, "lstm": LSTMCell, "ugrnn": UGRNNCell, "ff": FeedForwardCell}
RECURRENT_CELLS = ("gru", "lstm", "ugrnn")


def make_cell(name: str, n_seeds: int, input_dim: int, hidden: int, init: str = "pytorch") -> Cell:
    return CELLS[name](n_seeds, input_dim, hidden, init=init)
