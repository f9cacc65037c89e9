"""Kendall's τ variant of the agreement (Snell et al. 2021, App. A.4, Table 3): τ_b between u and v over the input
positions of each target token, averaged over tokens. τ_b handles ties (uniform attention has only ties: τ is
undefined there and the row is skipped, as scipy returns NaN)."""

from __future__ import annotations

import numpy as np


def kendall_tau_rows(u: np.ndarray, v: np.ndarray, lengths: np.ndarray | None = None) -> np.ndarray:
    """τ_b(u_n, v_n) for every row [N]; NaN where u or v is constant. O(N·L²) memory, vectorised."""
    u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    n, length = u.shape
    valid = np.ones((n, length), bool) if lengths is None else np.arange(length)[None] < np.asarray(lengths)[:, None]
    pair = valid[:, :, None] & valid[:, None, :] & np.triu(np.ones((length, length), bool), 1)[None]
    du = np.sign(u[:, :, None] - u[:, None, :])
    dv = np.sign(v[:, :, None] - v[:, None, :])
    concordance = (du * dv * pair).sum((1, 2))
    untied_u = ((du != 0) & pair).sum((1, 2))
    untied_v = ((dv != 0) & pair).sum((1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return concordance / np.sqrt(untied_u * untied_v)


def kendall_agreement(u, v, lengths=None) -> float:
    """Mean τ_b over the rows where it is defined."""
    return float(np.nanmean(kendall_tau_rows(u, v, lengths)))
