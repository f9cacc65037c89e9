"""Agreement A(u, v) of Snell et al. 2021, Eq. 10, and its shuffled random baseline Â.

A(u, v) = 1[ |{j : v_j > v_{argmax u}}| < 5% L ]: is the top position of u among the top 5% of v? Averaged over
every target token. As the authors' ``TopPercentMatch``, "5% L" is ceil(0.05·L), so with L = 40 the top 2
positions count and Â is 2/40 = 5%; with L = 41 (copy inputs with ``<eos>``) it is 3/41 ≈ 7.3% — the "integer
rounding" of §3.1. Â is A(u, v') with v' = v shuffled independently for every token (the authors' baseline).

A reported agreement is often the maximum over a probe's checkpoints (App. A.7); its null is then
:func:`max_over_checkpoints_null`, the same maximum against shuffled partners, since one shuffle against a maximum
leaves the maximum's selection gain in the excess.

Inputs are [N, L] arrays (one row per target token) and optionally ``lengths`` [N]: positions ≥ length are
ignored (right padding).
"""

from __future__ import annotations

import math

import numpy as np


def _valid(shape, lengths) -> np.ndarray:
    n, length = shape
    if lengths is None:
        return np.ones(shape, dtype=bool)
    return np.arange(length)[None, :] < np.asarray(lengths)[:, None]


def agreement_rows(u: np.ndarray, v: np.ndarray, lengths: np.ndarray | None = None, p: float = 0.05) -> np.ndarray:
    """A(u_n, v_n) ∈ {0, 1} for every row n (Eq. 10)."""
    u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    valid = _valid(u.shape, lengths)
    top = np.where(valid, u, -np.inf).argmax(1)
    v_top = v[np.arange(len(v)), top]
    above = ((v > v_top[:, None]) & valid).sum(1)
    n_valid = valid.sum(1)
    threshold = np.array([math.ceil(p * k) for k in n_valid])
    return (above < threshold).astype(float)


def agreement(u, v, lengths=None, p: float = 0.05) -> float:
    """Mean of Eq. 10 over all rows (target tokens)."""
    return float(agreement_rows(u, v, lengths, p).mean())


def shuffle_rows(v: np.ndarray, lengths: np.ndarray | None, seed: int | list[int]) -> np.ndarray:
    """v with each row's valid entries permuted independently (``seed``: numpy's seed, an int or a sequence)."""
    v = np.array(v, dtype=float)
    rng = np.random.default_rng(seed)
    valid = _valid(v.shape, lengths)
    keys = np.where(valid, rng.random(v.shape), np.inf)  # padding sorts last and stays in place
    order = keys.argsort(1)
    return np.take_along_axis(v, order, 1)


def shuffled_baseline(u, v, lengths=None, seed: int = 0, p: float = 0.05) -> float:
    """Â: A(u, v shuffled once per token)."""
    return agreement(u, shuffle_rows(v, lengths, seed), lengths, p)


def max_over_checkpoints_null(u: np.ndarray, vs: np.ndarray, lengths: np.ndarray | None = None, seed: int = 0,
                              p: float = 0.05) -> float:
    """max_c A(u, v_c shuffled) over checkpoints ``vs`` [C, N, L], each checkpoint shuffled with its own seed: the
    null of a statistic maximised over those checkpoints (max_c A(u, v_c))."""
    return max(agreement(u, shuffle_rows(v, lengths, [seed, c]), lengths, p) for c, v in enumerate(vs))


def relative_spread(v: np.ndarray, lengths: np.ndarray | None = None) -> float:
    """Mean over rows of (max − min) / max of v over the valid positions: 0 when a probe is the same at every input
    position (App. A.3's β^px on permutations), near 1 when one position stands out."""
    v = np.asarray(v, dtype=float)
    valid = _valid(v.shape, lengths)
    top = np.where(valid, v, -np.inf).max(1)
    low = np.where(valid, v, np.inf).min(1)
    return float(np.mean((top - low) / top))
