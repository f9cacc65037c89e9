"""An LSTM over a whole sequence, seeds stacked, with a hand-written backward pass.

Same equations and gate order (i, f, g, o) as :class:`attnrepro.cells.LSTMCell`:
c_t = σ(f) ⊙ c_{t−1} + σ(i) ⊙ tanh(g),  h_t = σ(o) ⊙ tanh(c_t),  gates = gx_t + h_{t−1} W_h.

Why by hand: autograd would issue one small weight-gradient matmul per time step; here the backward loop only
propagates ∂h, ∂c and the weight gradient is one large matmul over all time steps, B·T rows at once. That and
the fused elementwise work are most of the speed of Snell et al.'s copy runs on a CPU (bench/snell_copy.py).

``mask`` [S,B,T] (1 = real position) holds the state over padding, as the Aitken encoders do after ``<eos>``;
run a reversed sequence through :func:`lstm` with a reversed mask for the backward direction of a BiLSTM.
"""

from __future__ import annotations

import torch

from ..stacked import lookup  # noqa: F401 - re-exported for the Snell models


class _LSTMSequence(torch.autograd.Function):
    @staticmethod
    def forward(ctx, gx, h0, c0, w_h, mask):
        s, b, t_max, g4 = gx.shape
        hidden = g4 // 4
        h, c = h0, c0
        hs = gx.new_empty(s, b, t_max, hidden)
        acts = gx.new_empty(s, b, t_max, g4)   # σ(i), σ(f), tanh(g), σ(o)
        cs = gx.new_empty(s, b, t_max + 1, hidden)
        cs[:, :, 0] = c0
        tcs = gx.new_empty(s, b, t_max, hidden)  # tanh(c_t) of the cell, kept for the backward pass
        h_prev = gx.new_empty(s, b, t_max, hidden)
        for t in range(t_max):
            h_prev[:, :, t] = h
            gates = torch.baddbmm(gx[:, :, t], h, w_h)
            a = acts[:, :, t]
            torch.sigmoid(gates, out=a)
            torch.tanh(gates[..., 2 * hidden:3 * hidden], out=a[..., 2 * hidden:3 * hidden])
            i, f, g, o = a.split(hidden, dim=-1)
            c_new = torch.addcmul(f * c, i, g)
            tc = tcs[:, :, t]
            torch.tanh(c_new, out=tc)
            h_new = o * tc
            if mask is not None:
                m = mask[:, :, t, None]
                c_new = torch.lerp(c, c_new, m)
                h_new = torch.lerp(h, h_new, m)
            h, c = h_new, c_new
            hs[:, :, t] = h
            cs[:, :, t + 1] = c
        ctx.save_for_backward(acts, cs, tcs, h_prev, w_h, mask if mask is not None else gx.new_empty(0))
        ctx.has_mask = mask is not None
        return hs, h, c

    @staticmethod
    def backward(ctx, d_hs, d_h_last, d_c_last):
        acts, cs, tcs, h_prev, w_h, mask = ctx.saved_tensors
        s, b, t_max, g4 = acts.shape
        hidden = g4 // 4
        d_gates = acts.new_empty(s, b, t_max, g4)
        dh = d_h_last.clone() if d_h_last is not None else acts.new_zeros(s, b, hidden)
        dc = d_c_last.clone() if d_c_last is not None else acts.new_zeros(s, b, hidden)
        w_t = w_h.transpose(1, 2)
        for t in reversed(range(t_max)):
            if d_hs is not None:
                dh = dh + d_hs[:, :, t]
            i, f, g, o = acts[:, :, t].split(hidden, dim=-1)
            c_prev, tc = cs[:, :, t], tcs[:, :, t]
            if ctx.has_mask:
                m = mask[:, :, t, None]
                dh_new, dc_new = dh * m, dc * m
                dh_keep, dc_keep = dh - dh_new, dc - dc_new
                # where m = 0 the cell's output was discarded and dh_new = dc_new = 0 (masks are 0/1)
            else:
                dh_new, dc_new = dh, dc
            dc_tot = dc_new + dh_new * o * (1 - tc * tc)
            dg = d_gates[:, :, t]
            di, df, dgg, do = dg.split(hidden, dim=-1)
            torch.mul(dc_tot * g, i * (1 - i), out=di)
            torch.mul(dc_tot * c_prev, f * (1 - f), out=df)
            torch.mul(dc_tot * i, 1 - g * g, out=dgg)
            torch.mul(dh_new * tc, o * (1 - o), out=do)
            dh = torch.bmm(dg, w_t)
            dc = dc_tot * f
            if ctx.has_mask:
                dh = dh + dh_keep
                dc = dc + dc_keep
        d_w = torch.bmm(h_prev.reshape(s, b * t_max, hidden).transpose(1, 2), d_gates.reshape(s, b * t_max, g4))
        return d_gates, dh, dc, d_w, None


def lstm(gx: torch.Tensor, h0: torch.Tensor, c0: torch.Tensor, w_h: torch.Tensor,
         mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Run the LSTM over ``gx`` [S,B,T,4H] (input projection plus both biases, all steps) from (h0, c0)
    [S,B,H] with recurrent weights ``w_h`` [S,H,4H]; returns (h for every step [S,B,T,H], h_T, c_T)."""
    if mask is not None:
        mask = mask.to(gx.dtype)
    return _LSTMSequence.apply(gx, h0, c0, w_h, mask)
