"""Contextualised agreement ξ of Snell et al. 2021, Eq. 11 (Fig. 2).

Given a reference run's attention α, a second run's attention α̂(τ) and performance p̂(τ) at its checkpoints τ,
ξ(u, v) = p̂(inf{τ : A(α, α̂(τ)) > A(u, v)}): the second run's performance at the first checkpoint whose
attention agrees with α more than u agrees with v. ξ* = p̂(T), the performance when training ends. When no
checkpoint agrees that much, the paper's tables print ξ* with a "*" (:func:`xi_marked`). As the authors' code, the
curve is that of the other runs averaged (:func:`averaged_curve`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def first_step_above(a_uv: float, curve: pd.DataFrame) -> float:
    """τ₀ of Fig. 2: the first checkpoint whose ``agreement`` exceeds ``a_uv``; NaN if none does."""
    c = curve.sort_values("step")
    above = c[c.agreement > a_uv]
    return float(above.step.iloc[0]) if len(above) else float("nan")


def xi(a_uv: float, curve: pd.DataFrame) -> float:
    """``curve``: one row per checkpoint with columns ``step``, ``agreement`` (A(α, α̂(τ))) and ``performance``
    (p̂(τ)). NaN when no checkpoint agrees more than ``a_uv``."""
    c = curve.sort_values("step")
    above = c[c.agreement > a_uv]
    return float(above.performance.iloc[0]) if len(above) else float("nan")


def xi_marked(a_uv: float, curve: pd.DataFrame) -> tuple[float, bool]:
    """(ξ, starred): ξ as :func:`xi`, or ξ* with ``starred`` True when no checkpoint agrees more than ``a_uv``
    (the paper's "ξ := ξ*" mark) — the seed is kept, not dropped."""
    value = xi(a_uv, curve)
    return (xi_star(curve), True) if np.isnan(value) else (value, False)


def averaged_curve(curves: list[pd.DataFrame]) -> pd.DataFrame:
    """The mean over the other runs of A(α, α̂_j(τ)) and p̂_j(τ) at each checkpoint ``step`` they share (the
    authors' ξ reads this averaged curve)."""
    return pd.concat(curves).groupby("step", as_index=False)[["agreement", "performance"]].mean()


def xi_star(curve: pd.DataFrame) -> float:
    return float(curve.sort_values("step").performance.iloc[-1])


def xi_table(agreements: dict[str, float], curve: pd.DataFrame) -> pd.DataFrame:
    """ξ for each named agreement (e.g. ``{"alpha_beta_uf": 0.53}``) plus ξ*: one row per name."""
    rows = [{"name": k, "agreement": a, "xi": xi(a, curve)} for k, a in agreements.items()]
    rows.append({"name": "xi_star", "agreement": np.nan, "xi": xi_star(curve)})
    return pd.DataFrame(rows)
