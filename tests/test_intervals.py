"""Intervals by the kind of measure, and the verdicts they give: hand cases with known answers."""

import numpy as np
import pytest
from scipy import stats

from attnrepro.intervals import (INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, UNDECIDABLE, Rule, clopper_pearson,
                                 interval, replicates_to_decide, size_vs_reference, student_t, verdict)


def decide(values, kind, direction, threshold):
    rule = Rule(direction, threshold)
    iv = interval(np.asarray(values, dtype=float), kind, rule)
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
    assert n == 72  # the smallest n with 1 − 0.025^(1/n) < 0.05


def test_unanimous_six_of_six_decides_a_majority_but_three_of_three_does_not():
    assert decide([1] * 6, "proportion", ">", 0.5)[1] == REPRODUCED
    iv, v, n = decide([1] * 3, "proportion", ">", 0.5)
    assert v == UNDECIDABLE and n == 6 and iv.low == pytest.approx(0.025 ** (1 / 3))
    assert decide([0] * 6, "proportion", ">", 0.5)[1] == NOT_REPRODUCED


def test_three_of_six_is_inconclusive_for_a_majority_and_reproduces_sometimes():
    iv, v, n = decide([1, 0, 1, 0, 0, 1], "proportion", ">", 0.5)
    assert v == INCONCLUSIVE and np.isnan(n)  # a rate of exactly ½ never decides
    assert decide([1, 0, 1, 0, 0, 1], "proportion", "between", (0.0, 1.0))[1] == REPRODUCED
    # "sometimes" is seen only when both outcomes occur: one outcome alone stays open, at any n
    for values in ([0] * 6, [1] * 6):
        iv, v, n = decide(values, "proportion", "between", (0.0, 1.0))
        assert v == INCONCLUSIVE and np.isnan(n)


def test_proportion_intervals_stay_in_the_unit_interval():
    for k in range(7):
        iv = interval(np.array([1.0] * k + [0.0] * (6 - k)), "proportion", Rule(">", 0.5))
        assert 0.0 <= iv.low < iv.high <= 1.0
    with pytest.raises(ValueError, match="0/1 outcomes"):
        interval(np.array([0.5, 1.0]), "proportion", Rule(">", 0.5))


def test_continuous_values_get_the_student_t_interval():
    x = [0.8, 0.9, 0.85, 0.95]
    iv, v, _ = decide(x, "continuous", ">", 0.5)
    half = stats.t.ppf(0.975, 3) * np.std(x, ddof=1) / 2
    assert iv.method == "t" and (iv.low, iv.high) == pytest.approx((0.875 - half, 0.875 + half))
    assert v == REPRODUCED
    assert decide([0.2, 0.22, 0.21], "continuous", ">", 0.5)[1] == NOT_REPRODUCED
    iv, v, n = decide([0.1, 0.9, 0.5], "continuous", ">", 0.45)
    assert v == INCONCLUSIVE and n > 3  # the same mean and spread would decide with more seeds


def test_saturated_continuous_values_fall_back_to_the_sign_test():
    # every seed at 1.0: a t-interval of zero width would decide; the sign test needs 6 seeds at 95%
    iv, v, n = decide([1.0, 1.0, 1.0], "continuous", ">", 0.98)
    assert iv.method == "sign" and iv.high > iv.low and v == UNDECIDABLE and n == 6
    assert decide([1.0] * 6, "continuous", ">", 0.98)[1] == REPRODUCED
    assert decide([0.5] * 6, "continuous", ">", 0.98)[1] == NOT_REPRODUCED
    assert decide([0.7], "continuous", ">", 0.5)[1] == UNDECIDABLE  # one seed decides nothing


def test_no_decided_verdict_comes_from_a_zero_width_interval():
    rng = np.random.default_rng(0)
    cases = [rng.integers(0, 2, n).astype(float) for n in range(1, 9)] + [np.full(n, 0.3) for n in range(1, 9)]
    for values in cases:
        for kind in ("proportion", "continuous"):
            if kind == "proportion" and not np.isin(values, (0, 1)).all():
                continue
            rule = Rule(">", 0.5)
            iv = interval(values, kind, rule)
            if verdict(iv, rule) in (REPRODUCED, NOT_REPRODUCED):
                assert iv.high > iv.low


def test_rule_checks_its_threshold():
    with pytest.raises(ValueError):
        Rule("between", 0.5)
    with pytest.raises(ValueError):
        Rule(">", (0.0, 1.0))
    assert str(Rule("between", (0.0, 1.0))) == "0 < · < 1"


def test_size_against_the_papers_number():
    iv = interval(np.array([0.1, 0.12, 0.14]), "continuous", Rule(">", 0.0))
    assert size_vs_reference(iv, 0.4) == "below paper"
    assert size_vs_reference(iv, 0.12) == "as paper"
    assert size_vs_reference(iv, 0.01) == "above paper"
    assert size_vs_reference(iv, None) == ""


def test_student_t_needs_two_values():
    mean, low, high = student_t(np.array([0.7]))
    assert mean == 0.7 and np.isnan(low) and np.isnan(high)
