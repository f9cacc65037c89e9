"""What a row's verdict rests on, beyond its interval: the one-sided tests the interval is the dual of, the
replicates on the claimed side, and how many replicates would have to fall the other way to move it.

- **p-values** (:func:`p_values`): a row is *reproduced* exactly when the one-sided test of "the claim fails" rejects
  at α/2 (α = 1 − confidence), and *not reproduced* exactly when the test of "the claim holds" does. For a
  continuous measure the test is the sign test on the counts of replicates in each region (the order-statistic
  interval's dual: the interval clears θ when at most k − 1 replicates lie on θ's other side, and
  P(Bin(n, ½) ≤ k − 1) ≤ α/2 defines k); for a proportion the exact binomial test at the threshold (the dual of
  Clopper–Pearson); for two groups Fisher's one-sided exact tests. A claim that joins several rows controls its
  error over them with Holm's step-down on these p-values (:mod:`attnrepro.verdicts.combine`). The *least*
  p-values (:func:`least_p_values`) are the smallest any outcome of the row's n can give: whether Holm's first step
  (p ≤ α / 2m) can be reached at all.
- **on the claimed side** (:func:`claimed_count`): for a continuous measure, how many replicates lie in the claimed
  region ("7 of 8"); a proportion's count is its k of n.
- **swing** (:func:`swing`): the fewest replicates that, falling in another region (or with the other outcome),
  would move the verdict between reproduced, not reproduced and undecided. 1 means one seed decides it either way.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import stats

from .intervals import (DECIDED, INCONCLUSIVE, KINDS, NOT_TESTED, ONLY_NOT_REPRODUCED, ONLY_REPRODUCED, REPRODUCED,
                        UNDECIDABLE, Interval, Rule, interval, reachable, verdict)


def _regions(rule: Rule, values: np.ndarray) -> np.ndarray:
    """Per replicate, its region: 1 claimed / 0 other (one-sided); 0 at or below θ₁, 1 inside, 2 at or above θ₂."""
    if rule.direction != "between":
        return rule.holds(values).astype(int)
    lo, hi = rule.threshold
    return np.where(values <= lo, 0, np.where(values >= hi, 2, 1))


def _sign_p(rule: Rule, counts: np.ndarray, n: int) -> tuple[float, float]:
    """(p of the sign test that would reproduce, p of the one that would refute) from region counts."""
    cdf = lambda c: float(stats.binom.cdf(c, n, 0.5))  # noqa: E731
    if rule.direction != "between":
        other, claimed = counts
        return cdf(other), cdf(claimed)
    below, inside, above = counts
    # reproduced: few at or below θ₁ and few at or above θ₂; not reproduced: few above θ₁, or few below θ₂
    return max(cdf(below), cdf(above)), min(cdf(inside + above), cdf(below + inside))


def _binomial_p(rule: Rule, k: int, n: int) -> tuple[float, float]:
    """(p reproducing, p refuting) of k successes in n, the duals of the Clopper–Pearson interval's sides."""
    at_least = lambda t: float(stats.binom.sf(k - 1, n, t))  # noqa: E731  P(X ≥ k): small when the rate is above t
    at_most = lambda t: float(stats.binom.cdf(k, n, t))  # noqa: E731
    if rule.direction == ">":
        return at_least(rule.threshold), at_most(rule.threshold)
    if rule.direction == "<":
        return at_most(rule.threshold), at_least(rule.threshold)
    lo, hi = rule.threshold
    return max(at_least(lo), at_most(hi)), min(at_most(lo), at_least(hi))


def _fisher_p(rule: Rule, k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    m = k1 + k2
    greater = float(stats.hypergeom.sf(k1 - 1, n1 + n2, m, n1))
    less = float(stats.hypergeom.cdf(k1, n1 + n2, m, n1))
    return (greater, less) if rule.direction == ">" else (less, greater)


def p_values(values: np.ndarray, kind: str, rule: Rule, control: np.ndarray | None = None) -> tuple[float, float]:
    """(p_reproduced, p_not_reproduced): the one-sided p-values whose rejection at α/2 is the row's verdict
    (module docstring); NaN without replicates."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    if not n or (kind == "fisher" and (control is None or not len(control))):
        return math.nan, math.nan
    if kind == "continuous":
        regions = _regions(rule, values)
        counts = np.bincount(regions, minlength=2 if rule.direction != "between" else 3)
        return _sign_p(rule, counts, n)
    if kind == "proportion":
        return _binomial_p(rule, int(values.sum()), n)
    if kind == "fisher":
        control = np.asarray(control, dtype=float)
        return _fisher_p(rule, int(values.sum()), n, int(control.sum()), len(control))
    raise ValueError(f"unknown measure kind {kind!r}; choose one of {KINDS}")


def least_p_values(kind: str, rule: Rule, n: int, bounds: tuple[float, float], n2: int | None = None
                   ) -> tuple[float, float]:
    """The smallest p_reproduced and p_not_reproduced that any outcome of ``n`` replicates (and ``n2`` controls)
    can give, inside the measure's ``bounds`` (1 where no outcome reaches that side's region)."""
    if n < 1:
        return math.nan, math.nan
    if kind == "continuous":
        up, down = reachable(kind, rule, max(n, 6), bounds)  # the regions the range allows
        least = float(stats.binom.cdf(0, n, 0.5))  # every replicate in one region
        return (least if up else 1.0), (least if down else 1.0)
    if kind == "proportion":
        ps = np.array([_binomial_p(rule, k, n) for k in range(n + 1)])
        return float(ps[:, 0].min()), float(ps[:, 1].min())
    n2 = n if n2 is None else n2
    ps = np.array([_fisher_p(rule, k1, n, k2, n2) for k1, k2 in ((n, 0), (0, n2))])
    return float(ps[:, 0].min()), float(ps[:, 1].min())


def claimed_count(values: np.ndarray, kind: str, rule: Rule) -> int | None:
    """Replicates in the claimed region (continuous measures; None for proportions and comparisons, whose count
    is their k of n)."""
    return int(rule.holds(np.asarray(values, dtype=float)).sum()) if kind == "continuous" else None


def _collapse(v: str) -> str:
    return v if v in DECIDED else "undecided"


def _representatives(rule: Rule, bounds: tuple[float, float]) -> list[float]:
    """One value inside the measure's range per region of :func:`_regions`, in its order."""
    lo, hi = bounds

    def between(a, b):
        if math.isinf(a) and math.isinf(b):
            return 0.0
        return a + 1.0 if math.isinf(b) else b - 1.0 if math.isinf(a) else (a + b) / 2

    if rule.direction == ">":
        return [max(rule.threshold, lo), between(rule.threshold, hi)]
    if rule.direction == "<":
        return [min(rule.threshold, hi), between(lo, rule.threshold)]
    a, b = rule.threshold
    return [max(a, lo), between(a, b), min(b, hi)]


def swing(values: np.ndarray, kind: str, rule: Rule, confidence: float = 0.95,
          bounds: tuple[float, float] = (-math.inf, math.inf), control: np.ndarray | None = None) -> float:
    """The fewest replicates (of either group) whose region, or outcome, changing would move the verdict between
    reproduced, not reproduced and undecided; NaN where no outcome of this many replicates moves it."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    if not n:
        return math.nan

    def judge(v, c=None):
        iv = interval(v, kind, rule, confidence, bounds, c)
        return _collapse(verdict(iv, rule, confidence, bounds))

    if kind == "continuous":
        reps = _representatives(rule, bounds)
        counts = np.bincount(_regions(rule, values), minlength=len(reps))
        build = lambda c: np.repeat(reps, c)  # noqa: E731  the verdict depends on the counts alone
        here = judge(build(counts))
        up, down = reachable(kind, rule, n, bounds, confidence)
        if not (up or down):
            return math.nan
        for m in range(1, n + 1):
            for dest in range(len(reps)):
                sources = [r for r in range(len(reps)) if r != dest]
                for split in itertools.product(range(m + 1), repeat=len(sources)):
                    if sum(split) != m or any(s > counts[r] for s, r in zip(split, sources)):
                        continue
                    moved = counts.copy()
                    for s, r in zip(split, sources):
                        moved[r] -= s
                    moved[dest] += m
                    if judge(build(moved)) != here:
                        return float(m)
        return math.nan
    if kind == "proportion":
        k = int(values.sum())
        here = judge(values)
        for m in range(1, n + 1):
            for j in (k - m, k + m):
                if 0 <= j <= n and judge(np.r_[np.ones(j), np.zeros(n - j)]) != here:
                    return float(m)
        return math.nan
    control = np.asarray(control, dtype=float)
    k1, k2, n2 = int(values.sum()), int(control.sum()), len(control)
    here = judge(values, control)
    group = lambda k, size: np.r_[np.ones(k), np.zeros(size - k)]  # noqa: E731
    for m in range(1, n + n2 + 1):
        for d1 in range(-m, m + 1):
            for d2 in {m - abs(d1), abs(d1) - m}:
                j1, j2 = k1 + d1, k2 + d2
                if 0 <= j1 <= n and 0 <= j2 <= n2 and judge(group(j1, n), group(j2, n2)) != here:
                    return float(m)
    return math.nan


def note(decision: str, iv: Interval, reach: str, both: float, need: float, kept: int, gated_out: int, total: int,
         size: str, margin: bool, reference: float | None) -> str:
    """Why a row is undecided, or what a decided one needs said, in words: the replicates the model gate left
    out; for *not tested*, how many passed against the deciding minimum ``need``; for *undecidable*, that no
    outcome at this n decides and the smallest n (``both``) that can go both ways; for an *inconclusive* row that
    can go one way only (``reach``), which; for a row *reproduced* under an equivalence ``margin`` whose whole
    interval lies off the paper's ``reference`` (``size``), that it does."""
    at = f"n = {iv.n}" + (f" against {iv.n2} controls" if iv.n2 else "")
    both_text = f"both ways from n = {both:g}" if both == both else "no n decides both ways"
    parts = [f"{gated_out} of {total} replicates left out by the model gate"] if gated_out else []
    if decision == NOT_TESTED:
        parts.append(f"{kept} of {total} replicates pass the model gate; "
                     + (f"{need:g} can decide" if need == need else "no n decides"))
    elif decision == UNDECIDABLE:
        parts.append(f"no outcome at {at} decides either way; {both_text}")
    elif decision == INCONCLUSIVE:
        parts.append(f"can only be refuted at {at}; {both_text}" if reach == ONLY_NOT_REPRODUCED else
                     f"can only be reproduced at {at}; {both_text}" if reach == ONLY_REPRODUCED else
                     "the interval spans the threshold")
    elif decision == REPRODUCED and margin and size in ("below paper", "above paper"):
        parts.append(f"within the margin, but the whole interval lies {size.split()[0]} the paper's {reference:g}")
    return "; ".join(parts)
