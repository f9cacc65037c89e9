"""Intervals by the kind of measure, and the verdicts they give: hand cases with known answers."""

import numpy as np
import pytest
from scipy import stats

from attnrepro.verdicts.intervals import (BOTH_WAYS, INCONCLUSIVE, NEITHER, NOT_REPRODUCED, ONLY_NOT_REPRODUCED,
                                          ONLY_REPRODUCED, REPRODUCED, UNDECIDABLE, Rule, can_decide,
                                          clopper_pearson, decides_from, interval, rank_depth, size_vs_reference,
                                          verdict)


def decide(values, kind, direction, threshold, bounds=(-np.inf, np.inf)):
    """(interval, verdict, (which verdicts this n can reach, the smallest n that can go both ways))."""
    rule = Rule(direction, threshold)
    iv = interval(np.asarray(values, dtype=float), kind, rule, bounds=bounds)
    return iv, verdict(iv, rule, bounds=bounds), (can_decide(kind, rule, iv.n, bounds),
                                                  decides_from(kind, rule, bounds, both=True))


def test_clopper_pearson_known_values():
    # 0/6: upper bound 1 − 0.025^(1/6); 6/6: lower bound 0.025^(1/6); 3/6: symmetric about ½
    assert clopper_pearson(0, 6) == pytest.approx((0.0, 1 - 0.025 ** (1 / 6)))
    assert clopper_pearson(6, 6) == pytest.approx((0.025 ** (1 / 6), 1.0))
    low, high = clopper_pearson(3, 6)
    assert low == pytest.approx(1 - high) and (low, high) == pytest.approx((0.1181, 0.8819), abs=1e-4)


def test_unanimous_zero_of_six_cannot_show_a_rate_below_five_percent_but_six_of_six_would_refute_it():
    """The old rule called this row undecidable (its data lean to the side it cannot reach); six failures of six
    would refute "below 5%", so the row is inconclusive and says it can only be refuted at n = 6."""
    iv, v, n = decide([0] * 6, "proportion", "<", 0.05)
    assert iv.low == 0 and iv.high == pytest.approx(0.4593, abs=1e-4) and iv.high > iv.low
    assert v == INCONCLUSIVE
    assert n == (ONLY_NOT_REPRODUCED, 72)  # 72: the smallest n with 1 − 0.025^(1/n) < 0.05
    assert decide([1] * 6, "proportion", "<", 0.05)[1] == NOT_REPRODUCED  # the outcome that refutes it
    assert 1 - 0.025 ** (1 / 71) >= 0.05 > 1 - 0.025 ** (1 / 72)


def test_unanimous_six_of_six_decides_a_majority_but_three_of_three_does_not():
    assert decide([1] * 6, "proportion", ">", 0.5)[1] == REPRODUCED
    iv, v, n = decide([1] * 3, "proportion", ">", 0.5)
    # neither way at 3: 3/3's lower bound 0.29 and 0/3's upper bound 0.71 both straddle ½
    assert v == UNDECIDABLE and n == (NEITHER, 6) and iv.low == pytest.approx(0.025 ** (1 / 3))
    assert decide([0] * 6, "proportion", ">", 0.5)[1] == NOT_REPRODUCED


def test_three_of_six_is_inconclusive_for_a_majority_and_reproduces_sometimes():
    iv, v, n = decide([1, 0, 1, 0, 0, 1], "proportion", ">", 0.5)
    assert v == INCONCLUSIVE and n == (BOTH_WAYS, 6)
    # "sometimes" read as between 5% and 95%: failing always, or almost never, refutes it at enough runs
    assert decide([1, 0] * 30, "proportion", "between", (0.05, 0.95))[1] == REPRODUCED
    assert decide([1] * 100, "proportion", "between", (0.05, 0.95))[1] == NOT_REPRODUCED
    assert decide([1] + [0] * 999, "proportion", "between", (0.05, 0.95))[1] == NOT_REPRODUCED
    # 0 of 6 against "sometimes": the old rule said undecidable; 3 of 6 would reproduce it (0.12–0.88), no count
    # of 6 refutes it, so it can only be reproduced at 6, and goes both ways from 72 (0 of 72: below 0.05)
    iv, v, n = decide([0] * 6, "proportion", "between", (0.05, 0.95))
    assert v == INCONCLUSIVE and n == (ONLY_REPRODUCED, 72)
    assert decide([1, 0] * 3, "proportion", "between", (0.05, 0.95))[1] == REPRODUCED


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
    assert v == INCONCLUSIVE and n == (BOTH_WAYS, 6)  # 6 of 7 above: 7 of 7 would decide


def test_unanimous_and_near_unanimous_replicates_get_the_same_verdict():
    for n in (3, 6, 9):
        for threshold in (0.98, 0.5):
            a, b = decide([1.0] * n, "continuous", ">", threshold, (0, 1)), \
                decide([1.0] * (n - 1) + [0.9995], "continuous", ">", threshold, (0, 1))
            assert a[1] == b[1] and a[2] == b[2]
    assert decide([1.0] * 3, "continuous", ">", 0.98, (0, 1))[1:] == (UNDECIDABLE, (NEITHER, 6))
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


def test_which_verdicts_n_can_reach_is_exhaustive_over_outcomes():
    """can_decide against brute force: every count k of n (proportions) or every split of n replicates between
    the regions (continuous) judged by the interval itself."""
    for rule in (Rule(">", 0.5), Rule("<", 0.05), Rule(">", 0.9), Rule("between", (0.05, 0.95))):
        for n in range(1, 30):
            verdicts = {verdict(interval(np.r_[np.ones(k), np.zeros(n - k)], "proportion", rule), rule)
                        for k in range(n + 1)}
            want = {(True, True): BOTH_WAYS, (True, False): ONLY_REPRODUCED, (False, True): ONLY_NOT_REPRODUCED,
                    (False, False): NEITHER}[(REPRODUCED in verdicts, NOT_REPRODUCED in verdicts)]
            assert can_decide("proportion", rule, n) == want, (rule, n)
    rule, bounds = Rule(">", 0.5), (0.0, 1.0)
    for n in range(1, 10):
        verdicts = {verdict(interval(np.r_[np.full(k, 0.9), np.full(n - k, 0.2)], "continuous", rule,
                                     bounds=bounds), rule, bounds=bounds) for k in range(n + 1)}
        assert (REPRODUCED in verdicts and NOT_REPRODUCED in verdicts) == (n >= 6)
        assert can_decide("continuous", rule, n, bounds) == (BOTH_WAYS if n >= 6 else NEITHER)
    assert decides_from("proportion", Rule(">", 0.9)) == 2 and decides_from("proportion", Rule(">", 0.9), both=True) == 36


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


def test_each_verdict_is_the_dual_of_a_one_sided_test():
    """p_reproduced ≤ α/2 exactly when the row is reproduced, p_not_reproduced ≤ α/2 exactly when it is not: the
    sign test for the rank interval, the binomial test for Clopper–Pearson, Fisher's one-sided tests (Holm reads
    these p-values when a claim joins rows)."""
    from attnrepro.verdicts.evidence import p_values

    rng = np.random.default_rng(2)
    for rule in (Rule(">", 0.5), Rule("<", 0.5), Rule("between", (0.3, 0.7))):
        for n in (3, 6, 7, 9, 14, 25):
            for _ in range(15):
                for kind, values in (("continuous", rng.choice([0.1, 0.3, 0.5, 0.6, 0.9], n)),
                                     ("proportion", (rng.random(n) < rng.random()).astype(float))):
                    v = verdict(interval(values, kind, rule, bounds=(0, 1)), rule, bounds=(0, 1))
                    up, down = p_values(values, kind, rule)
                    assert (v == REPRODUCED) == (up <= 0.025) and (v == NOT_REPRODUCED) == (down <= 0.025), \
                        (rule, kind, values)
    rule = Rule(">", 1.0)
    for k1, k2 in ((6, 0), (0, 6), (4, 1), (3, 3)):
        this, control = np.r_[np.ones(k1), np.zeros(6 - k1)], np.r_[np.ones(k2), np.zeros(6 - k2)]
        v = verdict(interval(this, "fisher", rule, control=control), rule)
        up, down = p_values(this, "fisher", rule, control)
        assert (v == REPRODUCED) == (up <= 0.025) and (v == NOT_REPRODUCED) == (down <= 0.025)


def test_swing_counts_the_replicates_that_would_move_a_verdict():
    """What replaces "fragile" (leave one out): the fewest replicates that, falling the other way, move the verdict.
    At 6 seeds every decision needs all six (swing 1); at 12 three must move; brute force on proportions."""
    from attnrepro.verdicts.evidence import claimed_count, swing

    rule, bounds = Rule(">", 0.5), (0.0, 1.0)
    assert swing(np.ones(6), "continuous", rule, bounds=bounds) == 1
    assert swing(np.ones(12), "continuous", rule, bounds=bounds) == rank_depth(12) == 3
    assert np.isnan(swing(np.full(3, 0.9), "continuous", rule, bounds=bounds))  # nothing 3 seeds give decides
    assert swing(np.r_[np.full(7, 0.9), 0.1], "continuous", rule, bounds=bounds) == 1  # 7 of 8: one more decides
    assert claimed_count(np.r_[np.full(7, 0.9), 0.1], "continuous", rule) == 7
    collapse = lambda v: v if v in (REPRODUCED, NOT_REPRODUCED) else "undecided"  # noqa: E731
    for n in (6, 10, 20):
        judged = [collapse(verdict(interval(np.r_[np.ones(j), np.zeros(n - j)], "proportion", rule), rule))
                  for j in range(n + 1)]
        for k in range(n + 1):
            moved = [abs(j - k) for j in range(n + 1) if judged[j] != judged[k]]
            got = swing(np.r_[np.ones(k), np.zeros(n - k)], "proportion", rule)
            assert got == min(moved) if moved else np.isnan(got), (n, k)
