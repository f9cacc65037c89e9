"""Parameters with a leading seed axis, so that S seeds of one model train together in one process.

Every weight is a tensor ``[S, ...]``; slice ``s`` is initialised from the ``"init"`` stream of ``seeds[s]`` alone
(:func:`attnrepro.seeding.generator`), so seed ``s`` of a stacked model starts exactly where a separate run with
that seed would.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .. import seeding


class StackedModule(nn.Module):
    """A module whose parameters are created with :meth:`param` and initialised by :func:`init_stacked`."""

    def __init__(self) -> None:
        super().__init__()
        self._bounds: dict[str, float] = {}
        self._normal: set[str] = set()

    def param(self, name: str, n_seeds: int, *shape: int, bound: float, normal: bool = False) -> nn.Parameter:
        """Register ``[n_seeds, *shape]`` drawn from U(-bound, bound) (PyTorch's default for RNNs and linears),
        or from N(0, bound²) with ``normal=True`` (PyTorch's default for embeddings, bound 1)."""
        # made on the CPU, where each seed's generator draws it (the same weights on any device); .to(device) moves it
        p = nn.Parameter(torch.empty(n_seeds, *shape, device="cpu"))
        self.register_parameter(name, p)
        self._bounds[name] = bound
        if normal:
            self._normal.add(name)
        return p


def fan_in_bound(fan_in: int) -> float:
    return 1.0 / math.sqrt(fan_in)


@torch.no_grad()
def init_stacked(model: nn.Module, seeds: list[int]) -> None:
    """Fill slice ``s`` of every stacked parameter from the ``"init"`` stream of ``seeds[s]``.

    Parameters are visited in registration order, so the draw sequence of one seed does not depend on which
    other seeds share the stack.
    """
    modules = [m for m in model.modules() if isinstance(m, StackedModule)]
    for s, seed in enumerate(seeds):
        init_member(modules, s, seed)


@torch.no_grad()
def init_member(modules: list[StackedModule], s: int, seed: int, head: int | None = None) -> None:
    """Draw member ``s``'s slice of every parameter of ``modules`` (or, with ``head``, slice [s, head] of
    parameters that carry a head axis) from one generator seeded with ``seed``, in registration order."""
    gen = seeding.generator(seed, "init")
    for module in modules:
        for name, bound in module._bounds.items():
            p = getattr(module, name)
            target = p[s] if head is None else p[s, head]
            target.copy_(draw(target.shape, bound, name in module._normal, gen))


def affine(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:
    """x W (+ b) for every member at once: ``x`` [S, ..., D], ``w`` [S, D, O], ``b`` [S, 1, O] -> [S, ..., O], one
    batched matrix product over all of a member's rows."""
    flat = x.reshape(x.shape[0], -1, x.shape[-1])
    out = torch.bmm(flat, w) if b is None else torch.baddbmm(b, flat, w)
    return out.view(*x.shape[:-1], -1)


INITS = ("pytorch", "aitken")  # ModelConfig.init: PyTorch's default draws, or Aitken et al.'s code's


class Linear(StackedModule):
    """A stacked linear layer, ``weight`` [S, in, out] and ``bias`` [S, 1, out] (None with ``bias=False``).
    ``init="pytorch"``: PyTorch's default bounds. ``init="aitken"``: the authors' read-out (their ``Dense_nobias``,
    ``kaitken17/colab_based_projects`` rnn_seq2seq/train_and_build.py): Glorot normal, N(0, 2/(in + out)) — JAX of
    2021 truncates that draw at 2σ and rescales it to the same variance; this draw is not truncated — and a zero
    bias where there is one."""

    def __init__(self, n_seeds: int, in_dim: int, out_dim: int, bias: bool = True, init: str = "pytorch") -> None:
        super().__init__()
        if init not in INITS:
            raise ValueError(f"unknown init {init!r}; choose one of {INITS}")
        k = fan_in_bound(in_dim)
        if init == "aitken":
            self.weight = self.param("weight", n_seeds, in_dim, out_dim, bound=math.sqrt(2.0 / (in_dim + out_dim)),
                                     normal=True)
        else:
            self.weight = self.param("weight", n_seeds, in_dim, out_dim, bound=k)
        # no bias: no parameter and no draw, so every other parameter starts where it would with one
        self.bias = self.param("bias", n_seeds, 1, out_dim, bound=0.0 if init == "aitken" else k) if bias else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # [S, ..., in] -> [S, ..., out]
        return affine(x, self.weight, self.bias)


def lookup(table: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """Rows of each member's ``table`` [S, V, D] for its ``tokens`` [S, ...]: [S, ..., D]. ``F.embedding`` on the
    flattened table, whose backward is several times faster than that of advanced indexing."""
    s, v, d = table.shape
    offset = (torch.arange(s, device=tokens.device) * v).view(-1, *([1] * (tokens.dim() - 1)))
    return torch.nn.functional.embedding(tokens + offset, table.reshape(s * v, d))


def lookup_time_major(table: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """:func:`lookup` of ``tokens`` [S, B, T] as a [S, B, T, D] view of time-major storage [S, T, B, D], the layout
    the recurrent op reads a step at a time (:meth:`attnrepro.nn.cells.Cell.input_projection`)."""
    return lookup(table, tokens.transpose(1, 2)).transpose(1, 2)


def draw(shape, bound: float, normal: bool, gen: torch.Generator) -> torch.Tensor:
    """One parameter's initial value: N(0, bound²) if ``normal`` else U(-bound, bound)."""
    if normal:
        return torch.empty(shape, device=gen.device).normal_(0.0, bound, generator=gen)
    return torch.empty(shape, device=gen.device).uniform_(-bound, bound, generator=gen)


def per_seed_grad_norm(params: list[torch.Tensor]) -> torch.Tensor:
    """Global gradient norm of each seed's own parameters, ``[S]``."""
    sq = sum(p.grad.pow(2).flatten(1).sum(1) for p in params if p.grad is not None)
    return sq.sqrt()


@torch.no_grad()
def clip_grad_norm_per_seed(params: list[torch.Tensor], max_norm: float) -> torch.Tensor:
    """``torch.nn.utils.clip_grad_norm_`` applied to each seed separately; returns the norms before clipping."""
    norms = per_seed_grad_norm(params)
    scale = (max_norm / (norms + 1e-6)).clamp(max=1.0)
    for p in params:
        if p.grad is not None:
            p.grad.mul_(scale.view(-1, *([1] * (p.grad.dim() - 1))))
    return norms
