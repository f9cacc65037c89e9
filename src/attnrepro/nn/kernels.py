"""The recurrent sequence op: one cell over a whole sequence, seeds stacked, with a hand-written backward pass.

Forward, for t = 1..T:  gh_t = h_{t−1} W_h + b_h,  s_t = gates(gx_t, gh_t, s_{t−1}),  and where the mask is off
s_t = s_{t−1} (the state is held). Backward, for t = T..1, from ∂s_t (the later steps' direct terms) and ∂h_t
(the outputs' gradient plus ∂gh_{t+1} W_hᵀ): ``gates_backward`` gives ∂gx_t, ∂gh_t and the direct part of
∂s_{t−1}; then ∂W_h = Σ_t h_{t−1}ᵀ ∂gh_t and ∂b_h = Σ_t ∂gh_t over all steps at once. Each cell's equations and
their derivatives live in :mod:`attnrepro.nn.cells`; this module only loops.

Everything the loops touch is time-major ([S, T, B, ·]): gx, ∂gx, the h's and the rest of the state (the LSTM's
c) each in a buffer of its own, so a step reads and writes contiguous blocks and never concatenates [h; c]. The
state the caller sees is still one tensor [S, B, state_size].

Per step the forward is one matmul and one point-wise function, the backward one point-wise function, one matmul
and the sum of the three terms of ∂h (outside the point-wise function, in the order the results depend on). The
point-wise functions run compiled (torch.compile: all of a step's gate arithmetic in one pass over
memory) or eagerly; :data:`POINTWISE` holds the choice per device.

At the default config's shapes (3 seeds, H = 64, one thread) a step's tensors are ~100 KB and an operator costs
more in its call than in its arithmetic, so the loops issue as few as they can, all with the same numbers: each
gate's derivative is written straight into its block of ∂gx / ∂gh (no concatenation per step), every per-step view
is made once before the loop (``unbind``; indexing [:, t] per step costs as much as a small operator), and a step
where no sequence is held skips the masking (the timings: docs/speed.md, from bench/kernel_profile.py).
"""

from __future__ import annotations

import os
import warnings

import torch

# Eager on the CPU: compiling costs seconds per job and cell and gains little or loses at these shapes
# (bench/stacked_training.py, docs/speed.md), so ~30 short default-workflow jobs would pay minutes for
# seconds. CUDA: eager too, as no GPU has measured it (bench/stacked_training.py --device cuda would).
# ATTNREPRO_KERNEL=compiled opts in.
POINTWISE = {"cpu": "eager", "cuda": "eager"}
MODES = ("compiled", "eager")
ENV = "ATTNREPRO_KERNEL"  # overrides the choice for every device: "compiled" or "eager"


def split(state: torch.Tensor, hidden: int) -> tuple[torch.Tensor, torch.Tensor | None]:
    """A state [S, B, state_size] as (h, the rest or None): the LSTM keeps [h; c] side by side."""
    return state[..., :hidden], (state[..., hidden:] if state.shape[-1] > hidden else None)


def join(h: torch.Tensor, rest: torch.Tensor | None) -> torch.Tensor:
    """The inverse of :func:`split`."""
    return h if rest is None else torch.cat([h, rest], -1)


def forward_step(cell, gx, gh, h, rest, keep):
    """One step of ``cell``, the state held where ``keep`` is False: (next h, next rest, what the backward
    needs)."""
    h_new, rest_new, saved = cell.gates(gx, gh, h, rest)
    if keep is not None:
        h_new = torch.where(keep, h_new, h)
        rest_new = None if rest is None else torch.where(keep, rest_new, rest)
    return h_new, rest_new, saved


def backward_step(cell, saved, h, rest, d_h, d_rest, keep, d_gx, d_gh):
    """One step back from ∂(h, rest after it), writing ∂gx and ∂gh into the gate blocks ``d_gx`` and ``d_gh`` (see
    ``Cell.gates_backward``): (∂h before less the recurrent term ∂gh W_hᵀ and the output's gradient, which the
    caller adds, or None; ∂rest before or None)."""
    if keep is None:
        return cell.gates_backward(saved, h, rest, d_h, d_rest, d_gx, d_gh)
    d_h_prev, d_rest_prev = cell.gates_backward(
        saved, h, rest, torch.where(keep, d_h, 0.0), None if d_rest is None else torch.where(keep, d_rest, 0.0),
        d_gx, d_gh)
    held = torch.where(keep, 0.0, d_h)  # a held step passes its gradient straight to the state before it
    d_h_prev = held if d_h_prev is None else d_h_prev + held
    if d_rest is not None:
        d_rest_prev = d_rest_prev + torch.where(keep, 0.0, d_rest)
    return d_h_prev, d_rest_prev


def _backward_step_returning(cell, saved, h, rest, d_h, d_rest, keep, n_blocks: int):
    """:func:`backward_step` into fresh tensors, returned: what a compiled graph can do (it cannot write into
    the caller's buffers)."""
    d_gx = tuple(torch.empty_like(d_h) for _ in range(n_blocks))
    d_gh = d_gx if cell.gh_is_gx else tuple(torch.empty_like(d_h) for _ in range(n_blocks))
    return (d_gx, d_gh, *backward_step(cell, saved, h, rest, d_h, d_rest, keep, d_gx, d_gh))


def _writing(returning):
    """A :func:`backward_step` from a compiled :func:`_backward_step_returning`: its results copied into place."""
    def run(cell, saved, h, rest, d_h, d_rest, keep, d_gx, d_gh):
        gx_t, gh_t, d_h_prev, d_rest_prev = returning(cell, saved, h, rest, d_h, d_rest, keep, len(d_gx))
        for dst, src in zip(d_gx + (() if cell.gh_is_gx else d_gh), gx_t + (() if cell.gh_is_gx else gh_t)):
            dst.copy_(src)
        return d_h_prev, d_rest_prev
    return run


def _held_steps(mask: torch.Tensor | None, t_max: int, hidden: int) -> list:
    """Per step, the mask's slice [S, B, H], or None where no sequence is held (every step of an unmasked run, and
    the steps before the shortest sequence ends): a step with nothing held skips the masking altogether, which
    gives the same numbers (``where`` with an all-true mask is the identity). The slices are spelt out over H
    (time-major, one copy per sequence): ``where`` broadcasting a [S, B, 1] mask runs element by element, a cost
    docs/speed.md measures at the ParlSpeech classifier's shape."""
    if mask is None:
        return [None] * t_max
    full = mask.all(1).all(0).tolist()  # one host read per sequence
    keeps = mask.transpose(1, 2)[..., None].expand(-1, -1, -1, hidden).contiguous().unbind(1)
    return [None if f else k for f, k in zip(full, keeps)]


_STEPS = {"eager": (forward_step, backward_step)}


def mode_for(device: torch.device) -> str:
    mode = os.environ.get(ENV) or POINTWISE.get(device.type, "eager")
    if mode not in MODES:
        raise ValueError(f"{ENV}={mode!r}; choose one of {MODES}")
    return mode


def steps(device: torch.device):
    """(forward_step, backward_step) for ``device``."""
    mode = mode_for(device)
    if mode not in _STEPS:
        # one graph per cell, mask presence and (after the first) shape, instead of Dynamo's default of 8 in all
        torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, 64)
        fwd, bwd = (_guarded(torch.compile(f, dynamic=False, fullgraph=True), f)
                    for f in (forward_step, _backward_step_returning))
        _STEPS[mode] = (fwd, _writing(bwd))
    return _STEPS[mode]


def _guarded(compiled, eager):
    """``compiled`` on contiguous arguments (so that a step's slice of the mask [S, B, T] has the same strides for
    every T and one compiled graph serves every sequence length), falling back to ``eager`` for good, with a
    warning, if compiling fails (e.g. for want of a C++ compiler)."""
    state = {"ok": True}

    def run(cell, *args):
        if state["ok"]:
            try:
                return compiled(cell, *(a.contiguous() if isinstance(a, torch.Tensor) else a for a in args))
            except Exception as err:  # noqa: BLE001 - any compiler failure; the eager call below re-raises real errors
                state["ok"] = False
                warnings.warn(f"torch.compile of the recurrent kernel failed ({type(err).__name__}: {err}); "
                              f"running it eagerly", stacklevel=2)
        return eager(cell, *args)
    return run


def _run(cell, hidden, gx, state, w_h, b_h, keeps: list, keep_saved: bool):
    """The forward loop over time-major buffers, each step masked by its entry of ``keeps`` (:func:`_held_steps`):
    h_0..h_T as ``hs`` [S, T+1, B, H] (so that h_0..h_{T−1} are the B·T rows of the weight gradient without a
    copy), the rest of the state likewise (or None), the final state and what each step saved."""
    fwd = steps(gx.device)[0]
    gx = gx.transpose(1, 2).contiguous()   # [S, T, B, G]; no copy for input_projection's time-major storage
    s, t_max, b, _ = gx.shape
    h0, rest0 = split(state, hidden)
    hs = gx.new_empty(s, t_max + 1, b, hidden)
    h_at = hs.unbind(1)  # every step's view made once: indexing per step is a large part of a small step's time
    h_at[0].copy_(h0)
    rest_at = [None] * (t_max + 1)
    rests = None
    if rest0 is not None:
        rests = gx.new_empty(s, t_max + 1, b, rest0.shape[-1])
        rest_at = rests.unbind(1)
        rest_at[0].copy_(rest0)
    saved = []
    for t, (gx_t, keep) in enumerate(zip(gx.unbind(1), keeps)):
        h, rest = h_at[t], rest_at[t]
        gh = torch.bmm(h, w_h) if b_h is None else torch.baddbmm(b_h, h, w_h)
        h, rest, sv = fwd(cell, gx_t, gh, h, rest, keep)
        h_at[t + 1].copy_(h)
        if rests is not None:
            rest_at[t + 1].copy_(rest)
        if keep_saved:
            saved.append(sv)
    final = join(h_at[t_max], rest_at[t_max])
    return hs, rests, final, saved


class _Recurrence(torch.autograd.Function):
    @staticmethod
    def forward(ctx, cell, hidden, gx, state, w_h, b_h, mask):
        ctx.keeps = _held_steps(mask, gx.shape[2], hidden)  # read once, for both loops
        hs, rests, final, ctx.saved = _run(cell, hidden, gx, state, w_h, b_h, ctx.keeps, keep_saved=True)
        ctx.cell, ctx.hidden = cell, hidden
        ctx.save_for_backward(w_h, hs, *(() if rests is None else (rests,)))
        return hs[:, 1:].transpose(1, 2), final

    @staticmethod
    def backward(ctx, d_out, d_final):
        w_h, hs, *rests = ctx.saved_tensors
        rests = rests[0] if rests else None
        cell, hidden, keeps, saved = ctx.cell, ctx.hidden, ctx.keeps, ctx.saved
        bwd = steps(d_out.device)[1]
        s, b, t_max, _ = d_out.shape
        g = w_h.shape[-1]
        d_gx = d_out.new_empty(s, t_max, b, g)   # time-major, as the forward read gx
        d_gh = d_gx if cell.gh_is_gx else d_out.new_empty(s, t_max, b, g)
        # views made once (see _run): each step's gate blocks, ∂gh, h, rest, and the outputs' gradient
        gx_blocks = list(zip(*(x.unbind(1) for x in d_gx.split(hidden, -1))))
        gh_blocks = gx_blocks if cell.gh_is_gx else list(zip(*(x.unbind(1) for x in d_gh.split(hidden, -1))))
        gh_at, h_at, d_out_at = d_gh.unbind(1), hs.unbind(1), d_out.unbind(2)
        rest_at = [None] * t_max if rests is None else rests.unbind(1)
        w_t = w_h.transpose(1, 2)
        d_h, d_rest = split(d_final, hidden)
        d_h = d_h + d_out_at[t_max - 1]
        for t in reversed(range(t_max)):
            d_h_prev, d_rest = bwd(cell, saved[t], h_at[t], rest_at[t], d_h, d_rest, keeps[t], gx_blocks[t],
                                   gh_blocks[t])
            d_h = torch.bmm(gh_at[t], w_t)
            if t > 0:  # summed in this order so that the results do not depend on how the loop is written
                d_h += d_out_at[t - 1]
            if d_h_prev is not None:
                d_h = d_h_prev + d_h
        if cell.shared_blocks:  # once for the whole sequence, not a copy per step
            k = cell.shared_blocks * hidden
            d_gx[..., :k] = d_gh[..., :k]
        d_gh = d_gh.view(s, t_max * b, g)
        d_w = torch.bmm(hs[:, :t_max].reshape(s, t_max * b, hidden).transpose(1, 2), d_gh) \
            if ctx.needs_input_grad[4] else None
        d_b = d_gh.sum(1, keepdim=True) if ctx.needs_input_grad[5] else None
        d_state = join(d_h, d_rest)
        return None, None, d_gx.transpose(1, 2), d_state, d_w, d_b, None


def recurrence(cell, hidden: int, gx: torch.Tensor, state: torch.Tensor, w_h: torch.Tensor,
               b_h: torch.Tensor | None, mask: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
    """Run ``cell`` (a :class:`attnrepro.nn.cells.Cell` class) over ``gx`` [S,B,T,G] from ``state`` [S,B,state_size]
    with recurrent weights ``w_h`` [S,H,G] and bias ``b_h`` [S,1,G] (or None); ``mask`` [S,B,T] bool holds the
    state where False. Returns (outputs h [S,B,T,H], final state)."""
    if mask is not None:
        mask = mask.bool()
    if gx.shape[2] == 0:
        return gx.new_zeros(*gx.shape[:2], 0, hidden), state
    tensors = (gx, state, w_h, b_h)
    if torch.is_grad_enabled() and any(x is not None and x.requires_grad for x in tensors):
        return _Recurrence.apply(cell, hidden, gx, state, w_h, b_h, mask)
    hs, _, final, _ = _run(cell, hidden, gx, state, w_h, b_h, _held_steps(mask, gx.shape[2], hidden), keep_saved=False)
    return hs[:, 1:].transpose(1, 2), final
