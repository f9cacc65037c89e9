"""Contextualised agreement ξ of Snell et al. 2021, Eq. 11 (Fig. 2).

Given a reference run's attention α, a second run's attention α̂(τ) and performance p̂(τ) at its checkpoints τ,
ξ(u, v) = p̂(inf{τ : A(α, α̂(τ)) > A(u, v)}): the second run's performance at the first checkpoint whose
attention agrees with α more than u agrees with v. ξ* = p̂(T), the performance when training ends.
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


def xi_star(curve: pd.DataFrame) -> float:
    return float(curve.sort_values("step").performance.iloc[-1])


def xi_table(agreements: dict[str, float], curve: pd.DataFrame) -> pd.DataFrame:
    """ξ for each named agreement (e.g. ``{"alpha_beta_uf": 0.53}``) plus ξ*: one row per name."""
    rows = [{"name": k, "agreement": a, "xi": xi(a, curve)} for k, a in agreements.items()]
    rows.append({"name": "xi_star", "agreement": np.nan, "xi": xi_star(curve)})
    return pd.DataFrame(rows)
