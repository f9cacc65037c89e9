"""Intervals by the kind of measure, and the verdicts they give: hand cases with known answers."""

import numpy as np
import pytest
from scipy import stats

from attnrepro.verdicts.intervals import (INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, UNDECIDABLE, Rule,
                                          clopper_pearson, fragile, interval, rank_depth, replicates_to_decide,
                                          size_vs_reference, verdict)


def decide(values, kind, direction, threshold, bounds=(-np.inf, np.inf)):
    rule = Rule(direction, threshold)
    iv = interval(np.asarray(values, dtype=float), kind, rule, bounds=bounds)
    return iv, verdict(iv, rule), replicates_to_decide(values, iv, rule)


def test_clopper_pearson_known_values():
    # 0/6: upper bound 1 − 0.025^(1/6); 6/6: lower bound 0.025^(1/6); 3/6: symmetric about ½
    assert clopper_pearson(0, 6) == pytest.approx((0.0, 1 - 0.025 ** (1 / 6)))
    assert clopper_pearson(6, 6) == pytest.approx((0.025 ** (1 / 6), 1.0))
    low, high = clopper_pearson(3, 6)
    assert low == pytest.approx(1 - high) and (low, high) == pytest.approx((0.1181, 0.8819), abs=1e-4)


def test_unanimous_zero_of_six_cannot_show_a_rate_below_five_percent():
    iv, v, n = decide([0] * 6, "proportion", "<", 0.05)
    assert iv.low == 0 and iv.high == pytest.approx(0.4593, abs=1e-4) and iv.high > iv.low
    assert v == UNDECIDABLE
    assert n == (72, REPRODUCED)  # the smallest n with 1 − 0.025^(1/n) < 0.05


def test_unanimous_six_of_six_decides_a_majority_but_three_of_three_does_not():
    assert decide([1] * 6, "proportion", ">", 0.5)[1] == REPRODUCED
    iv, v, n = decide([1] * 3, "proportion", ">", 0.5)
    assert v == UNDECIDABLE and n == (6, REPRODUCED) and iv.low == pytest.approx(0.025 ** (1 / 3))
    assert decide([0] * 6, "proportion", ">", 0.5)[1] == NOT_REPRODUCED


def test_three_of_six_is_inconclusive_for_a_majority_and_reproduces_sometimes():
    iv, v, n = decide([1, 0, 1, 0, 0, 1], "proportion", ">", 0.5)
    assert v == INCONCLUSIVE and np.isnan(n[0]) and n[1] == ""  # a rate of exactly ½ never decides
    # "sometimes" read as between 5% and 95%: failing always, or almost never, refutes it at enough runs
    assert decide([1, 0] * 30, "proportion", "between", (0.05, 0.95))[1] == REPRODUCED
    assert decide([1] * 100, "proportion", "between", (0.05, 0.95))[1] == NOT_REPRODUCED
    assert decide([1] + [0] * 999, "proportion", "between", (0.05, 0.95))[1] == NOT_REPRODUCED
    iv, v, n = decide([0] * 6, "proportion", "between", (0.05, 0.95))
    assert v == UNDECIDABLE and n == (72, NOT_REPRODUCED)


def test_proportion_intervals_stay_in_the_unit_interval():
    for k in range(7):
        iv = interval(np.array([1.0] * k + [0.0] * (6 - k)), "proportion", Rule(">", 0.5))
        assert 0.0 <= iv.low < iv.high <= 1.0
    with pytest.raises(ValueError, match="0/1 outcomes"):
        interval(np.array([0.5, 1.0]), "proportion", Rule(">", 0.5))


def test_continuous_values_get_the_order_statistic_interval_of_the_median():
    x = [0.8, 0.9, 0.85, 0.95, 0.7, 0.75, 0.99, 0.6]
    iv, v, _ = decide(x, "continuous", ">", 0.5)
    # n = 8: k = 2 (P(Bin(8, ½) ≤ 1) = 9/256 > 0.025 ≥ P(Bin ≤ 0)) ... so k = 1: [x_(1), x_(8)]
    assert iv.method == "rank" and iv.estimate == pytest.approx(np.median(x))
    assert (iv.low, iv.high) == (0.6, 0.99) and v == REPRODUCED
    assert rank_depth(8) == 1 and rank_depth(9) == 2 and rank_depth(5) == 0 and rank_depth(6) == 1
    # coverage of [x_(k), x_(n+1-k)] is 1 − 2 P(Bin(n, ½) ≤ k − 1) ≥ 95%, and k is the largest such
    for n in range(6, 60):
        k = rank_depth(n)
        assert 1 - 2 * stats.binom.cdf(k - 1, n, 0.5) >= 0.95 > 1 - 2 * stats.binom.cdf(k, n, 0.5)
    assert decide([0.2, 0.22, 0.21, 0.2, 0.25, 0.3], "continuous", ">", 0.5, (0, 1))[1] == NOT_REPRODUCED
    iv, v, n = decide([0.1, 0.9, 0.5, 0.8, 0.7, 0.6, 0.55], "continuous", ">", 0.45, (0, 1))
    assert v == INCONCLUSIVE and n[1] == REPRODUCED and n[0] > 7  # 6 of 7 above: more replicates would decide


def test_unanimous_and_near_unanimous_replicates_get_the_same_verdict():
    for n in (3, 6, 9):
        for threshold in (0.98, 0.5):
            a, b = decide([1.0] * n, "continuous", ">", threshold, (0, 1)), \
                decide([1.0] * (n - 1) + [0.9995], "continuous", ">", threshold, (0, 1))
            assert a[1] == b[1] and a[2] == b[2]
    assert decide([1.0] * 3, "continuous", ">", 0.98, (0, 1))[1:] == (UNDECIDABLE, (6, REPRODUCED))
    assert decide([1.0] * 6, "continuous", ">", 0.98, (0, 1))[1] == REPRODUCED
    assert decide([0.5] * 6, "continuous", ">", 0.98, (0, 1))[1] == NOT_REPRODUCED
    assert decide([0.7], "continuous", ">", 0.5, (0, 1))[1] == UNDECIDABLE  # one seed decides nothing


def test_no_interval_leaves_its_measures_range():
    rng = np.random.default_rng(0)
    for bounds in ((0.0, 1.0), (-1.0, 1.0), (0.0, np.inf)):
        for n in range(1, 12):
            hi = 1.0 if np.isfinite(bounds[1]) else 50.0
            values = rng.uniform(bounds[0], hi, n)
            iv = interval(values, "continuous", Rule(">", 0.5), bounds=bounds)
            assert bounds[0] <= iv.low <= iv.high <= bounds[1]
    # a correlation near 1 at three seeds: Student-t gave 0.37–1.39; the rank interval stays in [−1, 1]
    iv = interval(np.array([0.99, 0.6, 0.95]), "continuous", Rule(">", 0.8), bounds=(-1.0, 1.0))
    assert (iv.low, iv.high) == (-1.0, 1.0)
    with pytest.raises(ValueError, match="leave the measure's range"):
        interval(np.array([0.5, 1.2]), "continuous", Rule(">", 0.5), bounds=(0.0, 1.0))
    # proportions and odds ratios too
    for k in range(7):
        iv = interval(np.array([1.0] * k + [0.0] * (6 - k)), "fisher", Rule(">", 1.0), control=np.zeros(6))
        assert 0.0 <= iv.low <= iv.high <= np.inf


def test_rank_verdicts_are_the_sign_tests():
    """A decided rank verdict is the sign test's: the Clopper–Pearson interval of the share of replicates on the
    claimed side excludes ½ — so a tie-made zero-width interval of the median still rests on a binomial count."""
    rng = np.random.default_rng(1)
    rule = Rule(">", 0.5)
    for n in range(1, 20):
        for _ in range(20):
            values = rng.choice([0.2, 0.5, 0.7, 1.0], n)
            v = verdict(interval(values, "continuous", rule, bounds=(0, 1)), rule)
            low, high = clopper_pearson(int(rule.holds(values).sum()), n)
            sign = REPRODUCED if low > 0.5 else NOT_REPRODUCED if high < 0.5 else None
            if v in (REPRODUCED, NOT_REPRODUCED):
                assert v == sign
            else:
                assert sign is None


def test_replicates_to_decide_is_the_n_for_80_percent_power():
    # 5 of 6 seeds above the threshold: at n the rank interval clears it when ≤ k(n) − 1 fall below
    values = np.array([0.9, 0.95, 0.85, 0.99, 0.92, 0.1])
    rule = Rule(">", 0.5)
    iv = interval(values, "continuous", rule, bounds=(0, 1))
    n, would = replicates_to_decide(values, iv, rule)
    power = lambda m: stats.binom.cdf(rank_depth(m) - 1, m, 1 / 6) if rank_depth(m) else 0.0  # noqa: E731
    assert would == REPRODUCED and power(n) >= 0.8 and all(power(m) < 0.8 for m in range(1, int(n)))
    # a proportion: 4/6 for "> ½" (exact binomial power over the Clopper–Pearson decisions)
    vals = np.array([1, 1, 1, 1, 0, 0.0])
    iv = interval(vals, "proportion", rule)
    n, would = replicates_to_decide(vals, iv, rule)
    assert would == REPRODUCED and 20 < n < 200


def test_leaving_one_replicate_out_marks_fragile_verdicts():
    rule = Rule(">", 0.5)
    assert fragile(np.ones(6), "continuous", rule, bounds=(0, 1))        # 5 seeds cannot decide
    assert not fragile(np.ones(12), "continuous", rule, bounds=(0, 1))
    assert not fragile(np.full(3, 0.9), "continuous", rule, bounds=(0, 1))  # undecided with or without any one


def test_rule_checks_its_threshold():
    with pytest.raises(ValueError):
        Rule("between", 0.5)
    with pytest.raises(ValueError):
        Rule(">", (0.0, 1.0))
    assert str(Rule("between", (0.0, 1.0))) == "0 < · < 1"


def test_size_against_the_papers_number():
    iv = interval(np.array([0.1, 0.12, 0.14, 0.1, 0.12, 0.14]), "continuous", Rule(">", 0.0))
    assert size_vs_reference(iv, 0.4) == "below paper"
    assert size_vs_reference(iv, 0.12) == "as paper"
    assert size_vs_reference(iv, 0.01) == "above paper"
    assert size_vs_reference(iv, None) == ""
