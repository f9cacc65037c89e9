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
on the claimed side, *not reproduced* when it is wholly on the other side, *undecidable at this n* when even the
most extreme outcome n replicates can give would not decide, else *inconclusive*. Every undecided row carries the
number of replicates at which, if the observed rate (or share of replicates on the claimed side) held, the claim
would be decided with 80% power, and the verdict that decision would be — :func:`replicates_to_decide`.
"""

from __future__ import annotations

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
POWER = 0.8
MAX_REPLICATES = 2_000  # beyond this a design is not worth stating
UNIT = (0.0, 1.0)


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


def verdict(iv: Interval, rule: Rule, confidence: float = 0.95) -> str:
    """One of :data:`VERDICTS` but "not tested" (see the module docstring)."""
    if iv.n == 0 or (iv.method == "fisher" and not iv.n2) or math.isnan(iv.low):
        return UNDECIDABLE
    if iv.method == "fisher":
        side = int(_fisher_side(rule, iv.k, iv.n, iv.k2, iv.n2, confidence))
    else:
        side = rule.side(iv.low, iv.high)
    if side:
        return REPRODUCED if side > 0 else NOT_REPRODUCED
    # undecided: could any outcome of this many replicates, on the side the data lean to, decide?
    if iv.method == "rank":
        return UNDECIDABLE if rank_depth(iv.n, confidence) == 0 else INCONCLUSIVE
    if iv.method == "fisher":
        k1, k2 = (iv.n, 0) if iv.k / iv.n >= iv.k2 / iv.n2 else (0, iv.n2)
        return INCONCLUSIVE if int(_fisher_side(rule, k1, iv.n, k2, iv.n2, confidence)) else UNDECIDABLE
    want = 1 if rule.side(iv.rate, iv.rate) > 0 else -1
    reach = any(rule.side(*clopper_pearson(k, iv.n, confidence)) == want for k in range(iv.n + 1))
    return INCONCLUSIVE if reach else UNDECIDABLE


def replicates_to_decide(values: np.ndarray, iv: Interval, rule: Rule, confidence: float = 0.95,
                         control: np.ndarray | None = None) -> tuple[float, str]:
    """The smallest number of replicates (per group, for fisher) at which a claim would be decided with 80% power
    if each replicate fell as the observed ones did — the same rate (binomial), the same share of replicates in
    the claimed region (rank) — and the verdict it would then reach; (NaN, "") where no number up to
    :data:`MAX_REPLICATES` would (the data sit on the threshold)."""
    ns = np.arange(1, MAX_REPLICATES + 1)
    values = np.asarray(values, dtype=float)
    if iv.method == "rank":
        if not len(values):
            return math.nan, ""
        p = float(np.mean(rule.holds(values)))
        if rule.direction == "between":
            lo, hi = rule.threshold
            p_other = max(np.mean(values <= lo), np.mean(values >= hi))
        else:
            p_other = 1 - p
        if p == p_other:
            return math.nan, ""
        target, q = (REPRODUCED, 1 - p) if p > p_other else (NOT_REPRODUCED, 1 - p_other)
        # decided that way at n when at most k(n) − 1 replicates fall outside that side (for "between", a
        # sufficient condition: the n is then an upper bound)
        k = rank_depth(ns, confidence)
        power = np.where(k > 0, stats.binom.cdf(k - 1, ns, q), 0.0)
    elif iv.method == "clopper-pearson":
        p = iv.rate
        if p in (rule.threshold if rule.direction == "between" else (rule.threshold,)):
            return math.nan, ""  # a rate on the threshold never decides
        target = REPRODUCED if rule.side(p, p) > 0 else NOT_REPRODUCED
        want = 1 if target == REPRODUCED else -1
        power = np.zeros(len(ns))
        for i, n in enumerate(ns):
            j = np.arange(n + 1)
            decided = _sides(rule, *clopper_pearson(j, n, confidence)) == want
            power[i] = stats.binom.pmf(j[decided], n, p).sum()
            if power[i] >= POWER:
                break
    else:
        p1, p2 = iv.k / iv.n, iv.k2 / iv.n2
        if p1 == p2:
            return math.nan, ""
        want = 1 if (p1 > p2) == (rule.direction == ">") else -1
        target = REPRODUCED if want > 0 else NOT_REPRODUCED
        power = np.zeros(len(ns))
        for i, n in enumerate(ns[:300]):
            j = np.arange(n + 1)
            a, b = np.meshgrid(j, j, indexing="ij")
            decided = _fisher_side(rule, a, n, b, n, confidence) == want
            power[i] = (np.outer(stats.binom.pmf(j, n, p1), stats.binom.pmf(j, n, p2)) * decided).sum()
            if power[i] >= POWER:
                break
    hits = np.flatnonzero(power >= POWER)
    return (float(ns[hits[0]]), target) if len(hits) else (math.nan, target)


def _collapse(v: str) -> str:
    return v if v in DECIDED else "undecided"


def fragile(values: np.ndarray, kind: str, rule: Rule, confidence: float = 0.95,
            bounds: tuple[float, float] = (-math.inf, math.inf), control: np.ndarray | None = None) -> bool:
    """Whether leaving out any one replicate (of either group) moves the verdict between reproduced, not
    reproduced and undecided (inconclusive and undecidable count as one)."""
    values = np.asarray(values, dtype=float)
    full = _collapse(verdict(interval(values, kind, rule, confidence, bounds, control), rule, confidence))
    drops = [(np.delete(values, i), control) for i in range(len(values))]
    if control is not None:
        control = np.asarray(control, dtype=float)
        drops += [(values, np.delete(control, i)) for i in range(len(control))]
    return any(_collapse(verdict(interval(v, kind, rule, confidence, bounds, c), rule, confidence)) != full
               for v, c in drops)


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
