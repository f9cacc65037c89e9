"""The descriptive interval of a mean over seeds (:func:`attnrepro.verdicts.descriptive.mean_interval`): inside the
measure's range where Student-t's runs past it, Student-t's far from the bounds, and the coverage its docstring
quotes."""

import math

import numpy as np
import pytest
from scipy import stats

from attnrepro.verdicts.descriptive import mean_interval


def _student_t(x):
    x = np.asarray(x, dtype=float)
    half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
    return x.mean() - half, x.mean() + half


@pytest.mark.parametrize("values, bounds", [
    ([0.0, 0.1, 0.227], (0.0, 100.0)),      # BLEU of a model that does not translate: Student-t's ran below 0
    ([0.99, 0.6, 0.95], (0.0, 1.0)),        # an accuracy near 1: Student-t's ran above 1
    ([1.0, 1.0, 0.9], (0.0, 1.0)),
    ([0.02, 3.0], (0.0, math.inf)),         # a ratio, bounded below only
    ([-0.99, -0.2, -0.97, -0.95], (-1.0, 1.0)),
])
def test_the_interval_stays_inside_the_range_where_student_t_leaves_it(values, bounds):
    low_t, high_t = _student_t(values)
    assert low_t < bounds[0] or high_t > bounds[1]           # the hand case fails the old interval
    mean, low, high = mean_interval(values, bounds)
    assert mean == pytest.approx(np.mean(values))
    assert bounds[0] < low <= mean <= high < bounds[1]       # inside, and off the bounds no seed sits on


def test_far_from_the_bounds_it_is_student_t_and_unbounded_it_is_exactly_student_t():
    x = [0.50, 0.51, 0.49, 0.505]
    _, low, high = mean_interval(x, (0.0, 1.0))
    assert (low, high) == pytest.approx(_student_t(x), abs=2e-4)
    assert mean_interval([1.0, 3.0, 2.5])[1:] == pytest.approx(_student_t([1.0, 3.0, 2.5]))


def test_near_a_bound_it_is_short_on_the_bounds_side():
    mean, low, high = mean_interval([0.98, 0.99, 0.95], (0.0, 1.0))
    assert high - mean < mean - low


def test_degenerate_cases():
    assert mean_interval([1.0, 1.0, 1.0], (0.0, 1.0)) == (1.0, 1.0, 1.0)   # every seed on the bound
    assert mean_interval([0.4, 0.4], (0.0, 1.0)) == (0.4, 0.4, 0.4)
    mean, low, high = mean_interval([0.7], (0.0, 1.0))
    assert mean == 0.7 and math.isnan(low) and math.isnan(high)
    assert all(math.isnan(v) for v in mean_interval([], (0.0, 1.0)))
    assert mean_interval([0.2, np.nan, 0.4], (0.0, 1.0))[0] == pytest.approx(0.3)


def test_a_value_outside_the_range_is_an_error_naming_it():
    with pytest.raises(ValueError, match=r"1\.2 leave the measure's range \[0, 1\]"):
        mean_interval([0.5, 1.2], (0.0, 1.0))
    assert mean_interval([1.0 + 2e-16, 1.0, 1.0], (0.0, 1.0)) == (1.0, 1.0, 1.0)   # a rounding error is on it


def test_coverage_the_docstring_quotes():
    """2,000 seeded draws of three seeds from Beta(20, 1): this interval covers the mean in 94% of draws,
    Student-t's in 89% (and runs past 1 in most of them), the percentile bootstrap over seeds in 70%."""
    rng = np.random.default_rng(0)
    mu, draws = 20 / 21, 2000
    ours = t_cover = t_past = boot = 0
    for _ in range(draws):
        x = rng.beta(20, 1, 3)
        _, low, high = mean_interval(x, (0.0, 1.0))
        ours += low <= mu <= high
        lt, ht = _student_t(x)
        t_cover += lt <= mu <= ht
        t_past += ht > 1
        means = rng.choice(x, (400, 3)).mean(1)
        boot += np.quantile(means, 0.025) <= mu <= np.quantile(means, 0.975)
    assert ours / draws == pytest.approx(0.94, abs=0.015)
    assert t_cover / draws == pytest.approx(0.89, abs=0.015) and t_past / draws > 0.5
    assert boot / draws == pytest.approx(0.70, abs=0.02)
