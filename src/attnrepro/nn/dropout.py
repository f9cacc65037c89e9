"""Dropout whose masks are each member's own random stream, so that a stacked member trains as it would alone.

Snell et al. 2021's translation model (App. A.8; the authors' ``nn.LSTM(..., dropout=0.5)``) is the one trained
model with dropout. ``torch.nn.functional.dropout`` draws from torch's global generator, which the members of a
stack share and the engine's checkpoints do not hold: a member's masks would depend on which members share its
stack, and a resumed run would draw other masks than an uninterrupted one. Here member s draws from
``seeding.generator(seeds[s], "dropout")`` — the same per-seed stream scheme as its weights (``"init"``) and its
batches (``"batches"``) — and the engine saves and restores these generators with its checkpoints
(:func:`dropout_states`, :func:`set_dropout_states`).

Padding: a stack pads every member's batch to the longest sequence of the whole stack, alone a member's batch to its
own longest. So that a member's masks on its real positions do not depend on that, each call takes one 32-bit value
from the member's stream (a fixed count per call, whatever the shape) to seed the generator of the mask, and draws
the mask with the padded (time) axis slowest: extra padding then only appends draws after the real positions'.
"""

from __future__ import annotations

import torch
from torch import nn

from .. import seeding


class StackedDropout(nn.Module):
    """Inverted dropout (keep with probability 1 − p, scale the kept by 1/(1 − p), as ``F.dropout``) of ``x``
    [S, ...] while training, member s's mask from its own generator; ``time_dim``: the axis of ``x`` a stack pads.
    No parameters or buffers: a model's ``state_dict`` is the same with or without it."""

    def __init__(self, p: float, seeds: list[int], time_dim: int) -> None:
        super().__init__()
        if not 0.0 <= p < 1.0:
            raise ValueError(f"dropout {p!r}: a probability in [0, 1)")
        if time_dim < 1:
            raise ValueError(f"time_dim {time_dim}: axis 0 is the member axis")
        self.p, self.time_dim = float(p), int(time_dim)
        self.generators = [seeding.generator(s, "dropout") for s in seeds]

    @property
    def active(self) -> bool:
        """Whether it ever draws (p > 0): a model without dropout draws no mask and keeps no dropout state in its
        checkpoints or fingerprint."""
        return self.p > 0.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or not self.active:
            return x
        if x.shape[0] != len(self.generators):
            raise ValueError(f"dropout over {x.shape[0]} members with {len(self.generators)} generators")
        keep = torch.empty_like(x)
        axis = self.time_dim - 1   # in a member's slice
        for s, gen in enumerate(self.generators):
            mask_seed = int(torch.randint(0, 2**32, (1,), generator=gen, device="cpu"))  # gen: a CPU generator
            # the mask's generator lives on x's device (no host-to-device copy of the mask); CPU and CUDA
            # generators draw different masks, as their arithmetic already differs
            mask_gen = torch.Generator(device=x.device).manual_seed(mask_seed)
            shape = list(x.shape[1:])
            shape.insert(0, shape.pop(axis))
            u = torch.rand(shape, generator=mask_gen, device=x.device, dtype=x.dtype)
            keep[s] = u.movedim(0, axis) >= self.p
        return x * keep * (1.0 / (1.0 - self.p))

    def get_state(self) -> list[torch.Tensor]:
        return [g.get_state() for g in self.generators]

    def set_state(self, states: list[torch.Tensor]) -> None:
        if len(states) != len(self.generators):
            raise ValueError(f"{len(states)} dropout generator states for {len(self.generators)} members")
        for g, st in zip(self.generators, states):
            g.set_state(st)


def _modules(model: nn.Module) -> list[StackedDropout]:
    return [m for m in model.modules() if isinstance(m, StackedDropout) and m.active]


def has_dropout(model: nn.Module) -> bool:
    return bool(_modules(model))


def dropout_states(model: nn.Module) -> list[list[torch.Tensor]]:
    """The generators' states of every drawing :class:`StackedDropout` of ``model``, in module order."""
    return [m.get_state() for m in _modules(model)]


def set_dropout_states(model: nn.Module, states: list[list[torch.Tensor]]) -> None:
    """Restore what :func:`dropout_states` returned (a checkpoint's)."""
    modules = _modules(model)
    if len(states) != len(modules):
        raise ValueError(f"{len(states)} dropout modules' states for a model with {len(modules)}")
    for m, st in zip(modules, states):
        m.set_state(st)
