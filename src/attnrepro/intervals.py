"""Confidence intervals by the kind of measure, and the verdict a claim's interval gives.

A claim reads one value per replicate (a training seed, a K-head model, a fold of a pretrained model's text):

- ``proportion``: a 0/1 outcome per replicate (a run fails, a model converges). Interval: Clopper–Pearson, exact
  for k successes in n, always inside [0, 1] and never of zero width.
- ``continuous``: a real value per replicate. Interval: the mean and its Student-t interval. When every replicate
  has the same value (a measure saturated at its bound, e.g. an accuracy of 1.0 in every seed) that interval has
  zero width; the stated rule is then the sign test: the Clopper–Pearson interval of the fraction of replicates on
  the claimed side of the threshold, which must exclude ½ (so n identical values decide only from n ≥ 6 at 95%).

Verdicts, for a claim "measure > θ", "measure < θ" or "θ₁ < measure < θ₂": *reproduced* when the whole interval is
on the claimed side, *not reproduced* when it is wholly on the other side, *undecidable at this n* when even the
most extreme outcome n replicates can give, on the side the data lie, would leave θ inside the interval, else
*inconclusive*. Every undecided row carries the number of replicates that would decide it if the observed rate
(proportions), or mean and spread (continuous), held — :func:`replicates_to_decide`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

KINDS = ("proportion", "continuous")
REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, UNDECIDABLE = (
    "reproduced", "not reproduced", "inconclusive", "undecidable at this n")
VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, UNDECIDABLE)
MAX_REPLICATES = 100_000  # beyond this a design is not worth stating


@dataclass(frozen=True)
class Interval:
    """``estimate`` (mean or k/n) and its interval [low, high] by ``method``: "t", "clopper-pearson" or "sign"
    (for "sign", the interval is that of the fraction of replicates on the claimed side, not of the measure).
    ``k``: the successes (clopper-pearson) or the replicates on the claimed side (sign)."""

    estimate: float
    low: float
    high: float
    method: str
    n: int
    k: int | None = None

    @property
    def rate(self) -> float:
        """The fraction the binomial interval is about."""
        return self.k / self.n if self.k is not None and self.n else math.nan


@dataclass(frozen=True)
class Rule:
    """The claimed region of a measure: ``direction`` ">" or "<" a ``threshold``, or "between" two."""

    direction: str
    threshold: float | tuple[float, float]

    def __post_init__(self):
        if self.direction not in (">", "<", "between"):
            raise ValueError(f"direction {self.direction!r}; choose '>', '<' or 'between'")
        if (self.direction == "between") != isinstance(self.threshold, tuple):
            raise ValueError("'between' takes a (low, high) threshold, '>' and '<' one number")

    def holds(self, x: np.ndarray) -> np.ndarray:
        if self.direction == ">":
            return x > self.threshold
        if self.direction == "<":
            return x < self.threshold
        lo, hi = self.threshold
        return (x > lo) & (x < hi)

    def side(self, low: float, high: float) -> int:
        """+1 when [low, high] lies wholly in the claimed region, −1 wholly outside it, 0 otherwise."""
        if self.direction == ">":
            return 1 if low > self.threshold else -1 if high <= self.threshold else 0
        if self.direction == "<":
            return 1 if high < self.threshold else -1 if low >= self.threshold else 0
        lo, hi = self.threshold
        return 1 if low > lo and high < hi else -1 if high <= lo or low >= hi else 0

    def __str__(self) -> str:
        if self.direction == "between":
            return f"{self.threshold[0]:g} < · < {self.threshold[1]:g}"
        return f"{self.direction} {self.threshold:g}"


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact binomial interval of k successes in n trials (Clopper & Pearson 1934)."""
    if n < 1:
        return math.nan, math.nan
    a = 1 - confidence
    low = 0.0 if k == 0 else float(stats.beta.ppf(a / 2, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.ppf(1 - a / 2, k + 1, n - k))
    return low, high


def student_t(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean and Student-t interval over replicates; NaN bounds with fewer than two values. Error bars of figures
    use it too."""
    values = np.asarray(values, dtype=float)
    mean = float(values.mean()) if len(values) else math.nan
    if len(values) < 2:
        return mean, math.nan, math.nan
    half = float(stats.t.ppf(0.5 + confidence / 2, len(values) - 1) * values.std(ddof=1) / math.sqrt(len(values)))
    return mean, mean - half, mean + half


def _saturated(values: np.ndarray) -> bool:
    return len(values) > 0 and bool(np.all(values == values[0]))


def interval(values: np.ndarray, kind: str, rule: Rule, confidence: float = 0.95) -> Interval:
    """The interval of ``values`` (one per replicate) by ``kind`` (see the module docstring)."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    if kind == "proportion":
        if not np.isin(values, (0.0, 1.0)).all():
            raise ValueError(f"a proportion claim reads 0/1 outcomes, got {sorted(set(values.tolist()))[:5]}")
        k = int(values.sum())
        return Interval(k / n if n else math.nan, *clopper_pearson(k, n, confidence), "clopper-pearson", n, k)
    if kind != "continuous":
        raise ValueError(f"unknown measure kind {kind!r}; choose one of {KINDS}")
    if n >= 1 and (n == 1 or _saturated(values)):
        on_side = int(rule.holds(values).sum())
        return Interval(float(values.mean()), *clopper_pearson(on_side, n, confidence), "sign", n, on_side)
    return Interval(*student_t(values, confidence), "t", n)


def _sign_rule() -> Rule:
    return Rule(">", 0.5)  # the fraction of replicates on the claimed side must exceed ½


def verdict(iv: Interval, rule: Rule, confidence: float = 0.95) -> str:
    """One of :data:`VERDICTS` (see the module docstring)."""
    if iv.n == 0 or math.isnan(iv.low):
        return UNDECIDABLE
    tested = _sign_rule() if iv.method == "sign" else rule
    side = tested.side(iv.low, iv.high)
    if side:
        return REPRODUCED if side > 0 else NOT_REPRODUCED
    if iv.method == "t":
        return INCONCLUSIVE
    # binomial intervals: would the most extreme outcome on the data's side have decided at this n?
    if rule.direction == "between" and iv.method == "clopper-pearson":
        return INCONCLUSIVE  # "sometimes": decided by seeing both outcomes, never by a unanimous one
    favourable = tested.side(iv.rate, iv.rate) > 0
    k = iv.n if favourable == (tested.direction != "<") else 0
    return UNDECIDABLE if tested.side(*clopper_pearson(k, iv.n, confidence)) == 0 else INCONCLUSIVE


def replicates_to_decide(values: np.ndarray, iv: Interval, rule: Rule, confidence: float = 0.95) -> float:
    """The smallest number of replicates at which the observed outcome — the same rate (binomial intervals) or
    the same mean and standard deviation (t) — would decide the claim; NaN where no number would (the estimate
    sits on the threshold, or a "sometimes" claim saw one outcome only)."""
    if iv.method == "t":
        thresholds = rule.threshold if rule.direction == "between" else (rule.threshold,)
        gap = min(abs(iv.estimate - t) for t in thresholds)
        sd = float(np.std(np.asarray(values, dtype=float), ddof=1))
        if gap == 0:
            return math.nan
        return _smallest(lambda n: stats.t.ppf(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n) < gap,
                         max(iv.n, 2))
    tested = _sign_rule() if iv.method == "sign" else rule
    if tested.direction == "between" and iv.rate in (0.0, 1.0):
        return math.nan
    return _smallest(lambda n: tested.side(*clopper_pearson(round(iv.rate * n), n, confidence)) != 0, max(iv.n, 1))


def _smallest(decided, start: int) -> float:
    """The smallest n ≥ start with ``decided(n)``, by doubling then bisection (the decision is monotone in n for
    a fixed rate, or mean and spread, away from the threshold); NaN beyond :data:`MAX_REPLICATES`."""
    hi = start
    while not decided(hi):
        hi *= 2
        if hi > MAX_REPLICATES:
            return math.nan
    lo = start
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if decided(mid) else (mid + 1, hi)
    return float(lo)


def size_vs_reference(iv: Interval, reference: float | None) -> str:
    """Whether the paper's own number lies in our interval: "as paper", "below paper" (our whole interval below
    it), "above paper", or "" (no number, or an interval not on the measure's scale)."""
    if reference is None or (isinstance(reference, float) and math.isnan(reference)) or iv.method == "sign" \
            or math.isnan(iv.low):
        return ""
    if iv.high < reference:
        return "below paper"
    if iv.low > reference:
        return "above paper"
    return "as paper"
