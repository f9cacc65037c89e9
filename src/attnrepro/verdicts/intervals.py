"""Confidence intervals by the kind of measure, and the verdict a claim's interval gives.

A claim reads one value per replicate (a training seed, a K-head model, a fold of a pretrained model's text) of a
measure with a declared range (a share in [0, 1], a correlation in [−1, 1]):

- ``proportion``: a 0/1 outcome per replicate (a run fails, a model converges). Interval: Clopper–Pearson, exact
  for k successes in n, always inside [0, 1] and never of zero width.
- ``continuous``: a real value per replicate. Interval: the distribution-free interval of the **median** from order
  statistics, [x_(k), x_(n+1−k)] with the largest k for which P(Bin(n, ½) < k) ≤ α/2, and the measure's range
  bounds standing in for x_(0) and x_(n+1). Why this one: it is exact for any distribution (bounded, skewed,
  saturated or discrete measures are the rule here, and a Student-t interval at n = 3 runs past their bounds); it
  never leaves the measure's range; it depends on the values only through their order relative to the threshold,
  so [1, 1, 1] and [1, 1, 0.9995] get the same verdict (the sign test is its dual: the interval clears θ exactly
  when few enough replicates lie on θ's other side). Its price is honesty about small n: below 6 replicates no
  order statistic gives 95%, the interval is the whole range and the verdict "undecidable at this n".
- ``fisher``: two groups' 0/1 outcomes (a task against its control). Interval: the conditional maximum-likelihood
  odds ratio and its exact interval, the inversion of Fisher's exact test (so it excludes 1 exactly when the
  one-sided test at α/2 rejects); range [0, ∞].

Verdicts, for a claim "measure > θ", "measure < θ" or "θ₁ < measure < θ₂": *reproduced* when the whole interval is
on the claimed side, *not reproduced* when it is wholly on the other side, *undecidable at this n* when no outcome
n replicates can give would decide either way, else *inconclusive*. An undecided row says which verdicts its n can
reach (:func:`can_decide`: "both ways", or only one, as a rate of 0 of 6 against "below 5%" can be refuted but not
reproduced) and the smallest n at which it could go both ways (:func:`decides_from`): a fact of the design, not a
forecast from the data.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

KINDS = ("proportion", "continuous", "fisher")
REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, UNDECIDABLE = (
    "reproduced", "not reproduced", "inconclusive", "undecidable at this n")
NOT_TESTED = "not tested"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, UNDECIDABLE, NOT_TESTED)
DECIDED = VERDICTS[:2]
MAX_REPLICATES = 2_000  # beyond this a design is not worth stating
UNIT = (0.0, 1.0)
BOTH_WAYS, ONLY_REPRODUCED, ONLY_NOT_REPRODUCED, NEITHER = (
    "both ways", "only reproduced", "only not reproduced", "neither")
REACH = {(True, True): BOTH_WAYS, (True, False): ONLY_REPRODUCED, (False, True): ONLY_NOT_REPRODUCED,
         (False, False): NEITHER}


@dataclass(frozen=True)
class Interval:
    """``estimate`` (median, k/n or odds ratio) and its interval [low, high] by ``method``: "rank",
    "clopper-pearson" or "fisher". ``k``: successes (clopper-pearson); for fisher, ``k``/``n`` are this group's
    and ``k2``/``n2`` the control's."""

    estimate: float
    low: float
    high: float
    method: str
    n: int
    k: int | None = None
    k2: int | None = None
    n2: int | None = None

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


def _sides(rule: Rule, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """:meth:`Rule.side`, vectorised over intervals."""
    if rule.direction == ">":
        inside, outside = low > rule.threshold, high <= rule.threshold
    elif rule.direction == "<":
        inside, outside = high < rule.threshold, low >= rule.threshold
    else:
        lo, hi = rule.threshold
        inside, outside = (low > lo) & (high < hi), (high <= lo) | (low >= hi)
    return np.where(inside, 1, np.where(outside, -1, 0))


def clopper_pearson(k, n, confidence: float = 0.95):
    """Exact binomial interval of k successes in n trials (Clopper & Pearson 1934); vectorised over k."""
    if np.ndim(k) == 0 and n < 1:
        return math.nan, math.nan
    a = 1 - confidence
    k = np.asarray(k)
    low = np.where(k == 0, 0.0, stats.beta.ppf(a / 2, np.maximum(k, 1), n - k + 1))
    high = np.where(k == n, 1.0, stats.beta.ppf(1 - a / 2, k + 1, np.maximum(n - k, 1)))
    return (float(low), float(high)) if low.ndim == 0 else (low, high)


def rank_depth(n, confidence: float = 0.95):
    """k of the median's order-statistic interval [x_(k), x_(n+1−k)] at n replicates (0: no order statistic
    reaches the confidence; the interval is then the measure's range); vectorised over n."""
    n = np.asarray(n)
    # P(Bin(n, ½) ≤ k − 1) ≤ α/2  ⇔  k ≤ the number of j with cdf(j) ≤ α/2
    k = stats.binom.ppf((1 - confidence) / 2, n, 0.5).astype(int)
    k = np.where(stats.binom.cdf(k, n, 0.5) <= (1 - confidence) / 2, k + 1, k)
    return k if k.ndim else int(k)


def rank_interval(values: np.ndarray, bounds: tuple[float, float], confidence: float = 0.95) -> Interval:
    """The median and its distribution-free interval (module docstring), inside ``bounds``."""
    x = np.sort(np.asarray(values, dtype=float))
    n = len(x)
    if n and (x[0] < bounds[0] or x[-1] > bounds[1]):
        raise ValueError(f"values {x[0]:g} … {x[-1]:g} leave the measure's range [{bounds[0]:g}, {bounds[1]:g}]")
    k = rank_depth(n, confidence) if n else 0
    low, high = (x[k - 1], x[n - k]) if k else bounds
    return Interval(float(np.median(x)) if n else math.nan, float(low), float(high), "rank", n)


def fisher_interval(this: np.ndarray, control: np.ndarray, confidence: float = 0.95) -> Interval:
    """Odds ratio of a 0/1 outcome in ``this`` group against ``control`` and its exact conditional interval (the
    inversion of Fisher's exact test); NaN estimate where it is undefined (no outcome, or every one, in both)."""
    from scipy.stats.contingency import odds_ratio

    k1, n1, k2, n2 = int(np.sum(this)), len(this), int(np.sum(control)), len(control)
    if not n1 or not n2:
        return Interval(math.nan, math.nan, math.nan, "fisher", n1, k1, k2, n2)
    res = odds_ratio([[k1, n1 - k1], [k2, n2 - k2]], kind="conditional")
    ci = res.confidence_interval(confidence)
    low, high = (0.0 if math.isnan(ci.low) else float(ci.low)), (math.inf if math.isnan(ci.high) else float(ci.high))
    return Interval(float(res.statistic), low, high, "fisher", n1, k1, k2, n2)


def interval(values: np.ndarray, kind: str, rule: Rule, confidence: float = 0.95,
             bounds: tuple[float, float] = (-math.inf, math.inf), control: np.ndarray | None = None) -> Interval:
    """The interval of ``values`` (one per replicate) by ``kind`` (see the module docstring); ``control``: the
    other group of a ``fisher`` comparison."""
    values = np.asarray(values, dtype=float)
    if kind in ("proportion", "fisher"):
        for v in (values,) if control is None else (values, np.asarray(control, dtype=float)):
            if not np.isin(v, (0.0, 1.0)).all():
                raise ValueError(f"a {kind} claim reads 0/1 outcomes, got {sorted(set(v.tolist()))[:5]}")
    if kind == "proportion":
        n, k = len(values), int(values.sum())
        return Interval(k / n if n else math.nan, *clopper_pearson(k, n, confidence), "clopper-pearson", n, k)
    if kind == "fisher":
        if control is None:
            raise ValueError("a fisher claim compares two groups: give the control's outcomes")
        return fisher_interval(values, np.asarray(control, dtype=float), confidence)
    if kind != "continuous":
        raise ValueError(f"unknown measure kind {kind!r}; choose one of {KINDS}")
    return rank_interval(values, bounds, confidence)


def _fisher_bounds(k1, n1, k2, n2) -> tuple[float, float]:
    """One-sided Fisher p-values (this group's outcome more / less frequent than the control's); vectorised."""
    m = k1 + k2
    return stats.hypergeom.sf(k1 - 1, n1 + n2, m, n1), stats.hypergeom.cdf(k1, n1 + n2, m, n1)


def _fisher_side(rule: Rule, k1, n1, k2, n2, confidence: float):
    """+1 / −1 / 0 as :meth:`Rule.side` for an odds-ratio rule "> 1" or "< 1", by the one-sided tests at α/2."""
    greater, less = _fisher_bounds(k1, n1, k2, n2)
    a = (1 - confidence) / 2
    up, down = np.asarray(greater) <= a, np.asarray(less) <= a
    sign = 1 if rule.direction == ">" else -1
    return np.where(up, sign, np.where(down, -sign, 0))


def reachable(kind: str, rule: Rule, n: int, bounds: tuple[float, float] = (-math.inf, math.inf),
              confidence: float = 0.95, n2: int | None = None) -> tuple[bool, bool]:
    """(whether some outcome of ``n`` replicates is *reproduced*, whether some is *not reproduced*) for a measure of
    ``kind`` inside ``bounds``; for fisher, ``n`` is this group's size and ``n2`` the control's (default ``n``).

    - continuous: the rank interval decides from 6 replicates (:func:`rank_depth` > 0) and then on the counts of
      replicates in each region alone, so a way is reachable when its region meets the measure's range;
    - proportion: every count k = 0 … n and its Clopper–Pearson interval;
    - fisher: the most extreme tables, (n, 0) and (0, n2), which give the smallest one-sided p-values."""
    if n < 1:
        return False, False
    if kind == "continuous":
        if rank_depth(n, confidence) == 0:
            return False, False
        lo, hi = bounds
        if rule.direction == ">":
            return hi > rule.threshold, lo <= rule.threshold
        if rule.direction == "<":
            return lo < rule.threshold, hi >= rule.threshold
        a, b = rule.threshold
        return a < hi and lo < b, lo <= a or hi >= b
    if kind == "proportion":
        sides = _sides(rule, *clopper_pearson(np.arange(n + 1), n, confidence))
        return bool((sides > 0).any()), bool((sides < 0).any())
    if kind == "fisher":
        n2 = n if n2 is None else n2
        sides = [int(_fisher_side(rule, k1, n, k2, n2, confidence)) for k1, k2 in ((n, 0), (0, n2))]
        return 1 in sides, -1 in sides
    raise ValueError(f"unknown measure kind {kind!r}; choose one of {KINDS}")


@functools.lru_cache(maxsize=None)
def decides_from(kind: str, rule: Rule, bounds: tuple[float, float] = (-math.inf, math.inf),
                 confidence: float = 0.95, both: bool = False) -> float:
    """The smallest n (per group, for fisher) at which some outcome decides the claim (``both``: at which it can
    go either way: reproduced by some outcome, not reproduced by another); NaN where none up to
    :data:`MAX_REPLICATES` does."""
    for n in range(1, MAX_REPLICATES + 1):
        up, down = reachable(kind, rule, n, bounds, confidence)
        if (up and down) if both else (up or down):
            return float(n)
        if kind == "continuous" and n >= 6:  # from 6 on, more replicates reach nothing new
            break
    return math.nan


def method_kind(method: str) -> str:
    """The measure kind an interval method belongs to."""
    return {"rank": "continuous", "clopper-pearson": "proportion", "fisher": "fisher"}[method]


def verdict(iv: Interval, rule: Rule, confidence: float = 0.95,
            bounds: tuple[float, float] = (-math.inf, math.inf)) -> str:
    """One of :data:`VERDICTS` but "not tested" (see the module docstring); ``bounds``: the measure's range."""
    if iv.n == 0 or (iv.method == "fisher" and not iv.n2) or math.isnan(iv.low):
        return UNDECIDABLE
    if iv.method == "fisher":
        side = int(_fisher_side(rule, iv.k, iv.n, iv.k2, iv.n2, confidence))
    else:
        side = rule.side(iv.low, iv.high)
    if side:
        return REPRODUCED if side > 0 else NOT_REPRODUCED
    up, down = reachable(method_kind(iv.method), rule, iv.n, bounds, confidence, iv.n2)
    return INCONCLUSIVE if up or down else UNDECIDABLE


def can_decide(kind: str, rule: Rule, n: int, bounds: tuple[float, float] = (-math.inf, math.inf),
               confidence: float = 0.95, n2: int | None = None) -> str:
    """Which verdicts ``n`` replicates can reach, in words: one of :data:`REACH`."""
    up, down = reachable(kind, rule, n, bounds, confidence, n2)
    return REACH[(up, down)]


def size_vs_reference(iv: Interval, reference: float | None) -> str:
    """Whether the paper's own number lies in our interval: "as paper", "below paper" (our whole interval below
    it), "above paper", or "" (no number, or no interval)."""
    if reference is None or (isinstance(reference, float) and math.isnan(reference)) or math.isnan(iv.low):
        return ""
    if iv.high < reference:
        return "below paper"
    if iv.low > reference:
        return "above paper"
    return "as paper"
