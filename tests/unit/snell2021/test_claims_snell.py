"""The Snell et al. 2021 claims of :data:`attnrepro.snell2021.claims.APPENDIX_CLAIMS`: each measure on a hand case,
and each claim through :func:`attnrepro.verdicts.claims.summarize` on a case where it must fail and one where it
holds."""

import numpy as np
import pandas as pd
import pytest

from attnrepro.verdicts.claims import summarize, unmeasured
from attnrepro.verdicts.intervals import NOT_REPRODUCED, REPRODUCED
from attnrepro.verdicts.papers import CLAIMS
from attnrepro.snell2021 import count_table as ct
from attnrepro.snell2021.agreement import relative_spread
from attnrepro.snell2021.agreement_table import (checkpoint_bleu, second_run_curve, table2_row, table2_table,
                                                train_split_row)
from attnrepro.snell2021.claims import APPENDIX_CLAIMS
from attnrepro.snell2021.config import SMS_SET, claim_experiments
from attnrepro.snell2021.run_tables import curve_summary, multihead_summary


def _claim(claim_id):
    return next(c for c in CLAIMS if c.claim_id == claim_id)


def _row(claim_id, values):
    claim = _claim(claim_id)
    summaries = {"x": pd.DataFrame({"seed": range(len(values)), claim.measure: values})}
    return summarize(summaries, {"x": (claim.task_kinds[0], claim.archs[0])}, (claim,)).iloc[0]


def _six(*values):
    return [v for v in values for _ in range(6 // len(values))]


@pytest.mark.parametrize("claim_id, failing, holding", [
    ("classification_xi_alpha_beta_non_trivial", _six(0.1, 0.05, 0.12), _six(0.8, 0.85, 0.9)),
    ("translation_xi_alpha_beta_non_trivial", _six(0.0, 0.1, 0.05), _six(0.5, 0.6, 0.55)),
    ("classification_kendall_proxy_agrees", _six(-0.05, -0.02, -0.04), _six(0.3, 0.32, 0.28)),
    ("translation_kendall_saliency_agrees", _six(-0.05, -0.02, -0.04), _six(0.04, 0.05, 0.03)),
    ("translation_saliency_agrees_with_beta_uf", _six(-0.03, -0.01, -0.02), _six(0.2, 0.22, 0.18)),
    ("translation_train_split_alpha_agrees_with_beta_uf", _six(-0.03, -0.01, -0.02), _six(0.25, 0.27, 0.2)),
    ("translation_xi_bleu_non_trivial", _six(-0.1, -0.05, -0.08), _six(0.3, 0.25, 0.35)),
    ("translation_alpha_opt_agrees_with_beta", _six(-0.03, -0.01, -0.02), _six(0.45, 0.5, 0.4)),
    ("copy_same_proxy_flat_over_positions", _six(0.9, 0.85, 0.95), _six(0.02, 0.05, 0.03)),
    ("eq15_gradient_subset", _six(0.2, 0.3, 0.1), _six(0.99, 0.98, 0.99)),
    ("multihead_random_has_good_head", [1, 0, 1, 0, 0, 0, 1, 0], [1] * 20),
    ("sms_attention_unstable_across_seeds", _six(0.4, 0.45, 0.5), _six(0.01, 0.02, 0.0)),
    # Table 2, 3, 7 and 10 and App. A.7 claims
    ("classification_proxy_agrees_with_beta_uf", _six(-0.03, -0.01, -0.02), _six(0.3, 0.32, 0.28)),
    ("translation_proxy_agrees_with_beta_uf", _six(-0.03, -0.01, -0.02), _six(0.3, 0.32, 0.28)),
    ("classification_kendall_agrees", _six(-0.05, -0.02, -0.04), _six(0.3, 0.32, 0.28)),
    ("translation_kendall_agrees", _six(-0.05, -0.02, -0.04), _six(0.3, 0.32, 0.28)),
    ("frozen_beta_attention_agrees_less", _six(-0.2, -0.25, -0.15), _six(0.2, 0.25, 0.15)),
    ("translation_xi_non_trivial", _six(0.0, 0.05, 0.02), _six(0.6, 0.55, 0.65)),
    ("translation_beta_uf_agreement_peaks", _six(-0.01, -0.02, -0.015), _six(0.1, 0.12, 0.09)),
    ("classification_kendall_saliency_agrees", _six(-0.05, -0.02, -0.04), _six(0.1, 0.12, 0.09)),
    ("classification_train_split_alpha_agrees_with_beta_uf", _six(-0.03, -0.01, -0.02), _six(0.15, 0.13, 0.14)),
    ("translation_kendall_proxy_agrees", _six(-0.05, -0.02, -0.04), _six(0.3, 0.32, 0.28)),
])
def test_new_claims_can_fail_and_hold(claim_id, failing, holding):
    assert _row(claim_id, failing).verdict == NOT_REPRODUCED
    assert _row(claim_id, holding).verdict == REPRODUCED


def test_new_claims_are_papers_and_rows_of_one_paper_claim_share_a_group():
    assert all(c.origin == "paper" and c.paper == "snell2021" for c in APPENDIX_CLAIMS)
    groups = {c.claim_id: c.group for c in CLAIMS if c.paper == "snell2021"}
    # Table 2's A(Δ, β^uf) column is one claim over classification and translation
    assert groups["translation_saliency_agrees_with_beta_uf"] == groups["classification_saliency_agrees_with_beta_uf"]
    assert groups["eq15_gradient_subset"] == groups["eq15_gradient_mixture"]


def test_a_claim_the_demo_cannot_measure_names_its_config():
    claim = _claim("translation_xi_bleu_non_trivial")
    summaries = {"mt": pd.DataFrame({"seed": [0, 1], "bleu": [20.0, 21.0]})}
    why = unmeasured(pd.DataFrame(columns=["paper", "claim_id"]), summaries, {"mt": ("translation", "lstm_attention")},
                     (claim,)).why.iloc[0]
    assert "not measured on mt" in why and "config/paper.yaml" in why


def test_sms_set_is_apart_from_the_table2_sets():
    block = {"copy": {}, "classification": {"sets": {SMS_SET: {}, "rotten_tomatoes": {}}}}
    exps = claim_experiments(block)
    assert exps[f"snell2021_cls_{SMS_SET}"][0] == "classification_sms"
    assert exps["snell2021_cls_rotten_tomatoes"][0] == "classification"


def _curve(alpha_ref, alpha_b, perf_b):
    return second_run_curve(alpha_ref, alpha_b, perf_b, np.arange(len(perf_b)) * 10)


def test_table2_row_kendall_excesses_seed_agreement_and_xi_alpha_beta_progress():
    rng = np.random.default_rng(2)
    noise = lambda: rng.random((200, 40))  # noqa: E731
    a = noise()
    alpha, perf = np.stack([noise(), a]), np.array([0.2, 0.9])
    # β^uf and β^px equal α (they agree), Δ is noise (it does not); run B's attention is α only at its end
    alpha_b, perf_b = np.stack([noise(), noise(), a]), np.array([0.5, 0.7, 0.9])
    beta_b = np.stack([noise(), 0.7 * a + 0.3 * noise()])        # B's β agrees partly: reached mid-curve
    row = table2_row(alpha, perf, beta_b, np.stack([a]), a, noise(), alpha_b, perf_b, _curve(a, alpha_b, perf_b),
                     seed=5)
    assert row["tau_beta_uf_beta_px_excess"] == pytest.approx(1.0 - row["tau_hat"])
    assert abs(row["tau_delta_beta_uf_excess"]) < 0.05           # unrelated saliency: no excess
    assert row["A_alpha_alpha_seeds"] == pytest.approx(1.0)        # both seeds' best attention is a
    assert row["A_alpha_alpha_seeds_excess"] > 0.9
    assert row["xi_alpha_beta"] == 0.9 and row["xi_alpha_beta_progress"] == pytest.approx(1.0)
    # B's attention never becomes α: the seeds disagree, the SMS claim's measure is near 0
    unstable = table2_row(alpha, perf, beta_b, np.stack([a]), a, noise(), np.stack([noise(), noise()]),
                          np.array([0.5, 0.9]), _curve(a, alpha_b, perf_b), seed=5)
    assert abs(unstable["A_alpha_alpha_seeds_excess"]) < 0.06


def _failing_table2_rows(seed, full_reversal=False):
    """table2_row on probes where the Table 2 / 3 / 7 / 10 claims must fail, two hand cases of one seed; ``rev``
    ranks the input positions against α (τ ≈ −0.5, or exactly −1 with ``full_reversal``).

    *rising*: β^uf's checkpoints go from ``rev`` through noise to α itself — A(α, β^uf) only rises, no peak inside
    training (App. A.7) — and β^px and Δ are ``rev`` where β^uf is α.
    *reversed*: β^uf is ``rev``, a frozen-β run's attention is α itself, and the second run's attention already
    agrees with α more than β^uf does at its first checkpoint (ξ at p̂(0))."""
    rng = np.random.default_rng(seed)
    noise = lambda: rng.random((200, 40))  # noqa: E731
    a = noise()
    rev = 1.0 - a if full_reversal else 1.0 - a + noise()
    alpha, perf = np.stack([noise(), a]), np.array([0.2, 0.9])
    alpha_b, perf_b = np.stack([noise(), noise(), a]), np.array([0.1, 0.5, 0.9])
    curve = _curve(a, alpha_b, perf_b)
    rising = table2_row(alpha, perf, np.stack([a]), np.stack([rev, noise(), a]), rev, rev, alpha_b, perf_b, curve,
                        seed=seed)
    reversed_ = table2_row(alpha, perf, np.stack([a]), np.stack([rev]), a, a, alpha_b, perf_b, curve, seed=seed,
                           alpha_fr=np.stack([a]))
    return rising, reversed_


TABLE2_FAILING = [
    ("classification_proxy_agrees_with_beta_uf", 0, "A_beta_uf_beta_px_excess"),
    ("translation_proxy_agrees_with_beta_uf", 0, "A_beta_uf_beta_px_excess"),
    ("classification_kendall_saliency_agrees", 0, "tau_delta_beta_uf_excess"),
    ("translation_kendall_proxy_agrees", 0, "tau_beta_uf_beta_px_excess"),
    ("translation_beta_uf_agreement_peaks", 0, "A_alpha_beta_uf_peak_excess"),
    ("classification_kendall_agrees", 1, "tau_alpha_beta_uf_excess"),
    ("translation_kendall_agrees", 1, "tau_alpha_beta_uf_excess"),
    ("frozen_beta_attention_agrees_less", 1, "A_beta_uf_minus_alpha_fr"),
    ("translation_xi_non_trivial", 1, "xi_alpha_beta_uf_progress"),
]


@pytest.mark.parametrize("claim_id, case, column", TABLE2_FAILING)
def test_table2_measures_on_probes_where_the_claims_must_fail(claim_id, case, column):
    claim = _claim(claim_id)
    values = [_failing_table2_rows(seed)[case][column] for seed in range(6)]
    assert max(values) < (0.0 if claim.threshold == 0.0 else claim.threshold)
    assert _row(claim_id, values).verdict == NOT_REPRODUCED


@pytest.mark.parametrize("claim_id, case, column", [c for c in TABLE2_FAILING if "tau" in c[2]])
def test_kendall_claims_judge_a_fully_reversed_ranking(claim_id, case, column):
    # τ − τ̂ lies in [−2, 2]: with the agreements' [−1, 1] this case was refused as out of range
    values = [_failing_table2_rows(seed, full_reversal=True)[case][column] for seed in range(6)]
    assert min(values) < -1.0  # τ = −1 minus a shuffled baseline that is sometimes above 0
    assert _row(claim_id, values).verdict == NOT_REPRODUCED


def test_copy_curves_where_the_copy_claims_must_fail():
    """curve_summary on hand learning curves of six seeds: every copy-mixture seed learns while every copy-subset
    seed fails (the mixture fails less than its control, not more); copy-subset seeds that plateau at 0.9 never
    reach the good-head line 0.95."""
    def run(final):
        return curve_summary(pd.DataFrame({"step": [0, 100, 190] * 6, "member": np.repeat(range(6), 3),
                                           "seed": np.repeat(range(6), 3), "token_acc": [0.1, 0.5, final] * 6,
                                           "valid_loss": 1.0, "diverged": False}), 0.6, 0.95)
    mixture, subset, plateau = run(1.0), run(0.3), run(0.9)
    assert mixture.failed.sum() == 0 and subset.failed.sum() == 6 and plateau.reached_good.sum() == 0
    claim = _claim("copy_mixture_fails_more_than_control")
    table = summarize({"mix": mixture, "sub": subset},
                      {"mix": (claim.task_kinds[0], claim.archs[0]), "sub": claim.versus}, (claim,))
    assert table.set_index("experiment").loc["mix", "verdict"] == NOT_REPRODUCED
    assert _row("copying_reaches_perfect_accuracy", plateau.reached_good.tolist()).verdict == NOT_REPRODUCED


def test_relative_spread_is_zero_for_a_flat_probe_and_large_where_one_position_stands_out():
    flat = np.full((4, 5), 0.2)
    assert relative_spread(flat) == pytest.approx(0.0)
    peaked = np.array([[0.9, 0.01, 0.01, 0.01, 0.07], [0.05, 0.8, 0.05, 0.05, 0.05]])
    assert relative_spread(peaked) > 0.9
    # padding is ignored: a flat row padded with zeros stays flat
    assert relative_spread(np.array([[0.5, 0.5, 0.0]]), np.array([2])) == pytest.approx(0.0)


def test_eq15_initial_gradient_follows_the_count_table_only_at_large_width():
    rng = np.random.default_rng(0)
    # pairs copying 4 of 8 words: C has a diagonal, C − mean(C) is informative
    src = np.stack([rng.choice(8, 4, replace=False) for _ in range(300)])
    c = ct.count_table_dense(src, src, 8, 8)
    wide = ct.eq15_agreement(ct.initial_gradient(src, src, 8, 8, 2048, seed=0), c)
    narrow = ct.eq15_agreement(ct.initial_gradient(src, src, 8, 8, 1, seed=0), c)
    assert wide > 0.95                       # Eq. 15 holds as d → ∞
    assert narrow < 0.9                      # at d = 1 the initial draw dominates: the claim's reading fails
    # Eq. 15 against a count table of other pairs: no agreement
    other = ct.count_table_dense(np.roll(src, 1, axis=1) % 8, (src + 3) % 8, 8, 8)
    assert ct.eq15_agreement(ct.initial_gradient(src, src, 8, 8, 2048, seed=0), other) < 0.5
    # a flat C (permutations of one set) has nothing to be proportional to
    perm = np.stack([rng.permutation(6) for _ in range(30)])
    assert np.isnan(ct.eq15_agreement(ct.initial_gradient(perm, perm, 6, 6, 64, seed=0),
                                      ct.count_table_dense(perm, perm, 6, 6)))


def test_count_tables_report_eq15_where_c_is_not_flat():
    _, summary = ct.count_tables({"length": 4, "subset_words": 8, "n_samples": 200, "em_iterations": 1}, [0])
    assert "eq15_corr_same" not in summary.columns
    assert summary.eq15_corr_subset.iloc[0] > 0.9 and summary.eq15_corr_mixture.iloc[0] > 0.9


def test_multihead_summary_marks_models_holding_a_good_head():
    steps = [0, 10]
    metrics = pd.DataFrame({"step": steps * 2, "member": [0, 0, 1, 1], "seed": [0, 0, 1, 1],
                            "token_acc": [0.1, 0.99, 0.1, 0.3], "valid_loss": 1.0, "diverged": False})
    heads = pd.DataFrame({"step": [10] * 4, "member": [0, 0, 1, 1], "head": [0, 1, 0, 1],
                          "head_seed": [11, 12, 12, 13], "align_acc": [0.9, 0.1, 0.2, 0.1]})
    candidates = pd.DataFrame({"candidate": [0, 1, 2], "head_seed": [11, 12, 13], "round": 0,
                               "label": ["good", "bad", "unclear"], "min_best_acc": [0.99, 0.2, 0.7],
                               "max_final_acc": [0.99, 0.3, 0.8], "diverged": False})
    s = multihead_summary(metrics, heads, candidates, "random", 0.6, 0.95)
    assert list(s.has_good_head) == [1.0, 0.0]             # an "unclear" head is not a good one
    assert list(s.n_good_heads) == [1.0, 0.0]


def test_multihead_judge_step_moves_labels_and_success_to_the_authors_last_evaluation():
    """multihead.py evaluates before the update at 0, 10, ..., 190: its last reading is after 190 updates, and our
    engine's evaluation after 200 must move neither a candidate's label nor a K-head model's success."""
    from attnrepro.snell2021.multihead import label

    steps = [0, 180, 190, 200]
    def trials(*accs):   # two trials (members) of one candidate, the same curve
        return pd.DataFrame({"step": steps * 2, "member": [0] * 4 + [1] * 4, "token_acc": list(accs) * 2,
                             "diverged": False})
    late_good = trials(0.1, 0.5, 0.9, 0.97)       # reaches 0.95 only after 200 updates
    late_bad = trials(0.1, 0.3, 0.5, 0.7)         # below 0.6 at 190, above at 200
    assert label(late_good, 0.95, 0.6) == "good" and label(late_good, 0.95, 0.6, judge_step=190) == "unclear"
    assert label(late_bad, 0.95, 0.6) == "unclear" and label(late_bad, 0.95, 0.6, judge_step=190) == "bad"
    assert label(late_good, 0.95, 0.6, judge_step=195) == "unclear"   # the last evaluation at or before it

    metrics = pd.DataFrame({"step": steps, "member": 0, "seed": 0, "token_acc": [0.1, 0.9, 0.93, 0.96],
                            "valid_loss": 1.0, "diverged": False})
    heads = pd.DataFrame({"step": [190, 190, 200, 200], "member": 0, "head": [0, 1, 0, 1], "head_seed": [11, 12] * 2,
                          "align_acc": [0.3, 0.5, 0.9, 0.4]})
    candidates = pd.DataFrame({"candidate": [0, 1], "head_seed": [11, 12], "round": 0, "label": ["good", "bad"],
                               "min_best_acc": [0.97, 0.2], "max_final_acc": [0.97, 0.3], "diverged": False})
    last = multihead_summary(metrics, heads, candidates, "one_good", 0.6, 0.95).iloc[0]
    judged = multihead_summary(metrics, heads, candidates, "one_good", 0.6, 0.95, judge_step=190).iloc[0]
    assert (last.success, last.final_acc, last.good_head_align, last.good_head_is_best) == (1.0, 0.96, 0.9, 1.0)
    assert (judged.success, judged.final_acc, judged.good_head_align, judged.good_head_is_best) == (0.0, 0.93, 0.3, 0.0)


def test_sms_gate_is_above_the_majority_class():
    # the SMS Spam Collection is 87% ham: a model that always says "ham" must not test App. A.9's claim
    from attnrepro.verdicts import papers
    from attnrepro.verdicts.intervals import NOT_TESTED

    claim = _claim("sms_attention_unstable_across_seeds")
    def row(acc):
        df = pd.DataFrame({"seed": range(6), claim.measure: _six(0.01, 0.02, 0.0), "token_acc": acc})
        return summarize({"sms": df}, {"sms": ("classification_sms", "bilstm_attention")}, (claim,),
                         checks=papers.model_check).iloc[0]
    assert row(0.87).verdict == NOT_TESTED and "0.95" in row(0.87).model_check
    assert row(0.97).verdict == REPRODUCED


def test_xi_progress_rows_cite_no_paper_ratio_as_progress():
    # Table 2 / 6 print ξ and ξ*, not p̂(0): no paper number sits on the progress scale (ξ − p̂(0)) / (ξ* − p̂(0))
    for claim_id in ("classification_xi_alpha_beta_non_trivial", "translation_xi_alpha_beta_non_trivial",
                     "classification_xi_non_trivial", "translation_xi_bleu_non_trivial"):
        claim = _claim(claim_id)
        assert claim.reference_value is None and "/55" not in claim.reading


def _train_split_cases(seed):
    """Table 7 on training-pair probes of one seed (200 pairs, 40 positions): α's checkpoint is the one of best
    held-out performance (the second; the first ranks the positions the other way round); β^uf agrees with it
    (*agrees*), with the first checkpoint only (*stale*: the held-out column's choice of α is kept), or ranks the
    positions against it at every checkpoint (*reversed*)."""
    rng = np.random.default_rng(seed)
    noise = lambda: rng.random((200, 40))  # noqa: E731
    best = noise()
    early = 1.0 - best
    alpha, perf = np.stack([early, best]), np.array([0.3, 0.9])
    alpha_b, perf_b = np.stack([noise(), noise()]), np.array([0.2, 0.8])
    beta_b = np.stack([noise(), noise()])
    return {name: train_split_row(alpha, perf, beta_b, beta_uf, alpha_b, perf_b, seed=seed)
            for name, beta_uf in (("agrees", np.stack([noise(), best])), ("stale", np.stack([early])),
                                  ("reversed", np.stack([1.0 - best, 1.0 - best ** 2])))}


@pytest.mark.parametrize("claim_id", ["classification_train_split_alpha_agrees_with_beta_uf",
                                      "translation_train_split_alpha_agrees_with_beta_uf"])
def test_table7_measure_on_training_pairs_fails_and_holds(claim_id):
    claim = _claim(claim_id)
    assert claim.measure == "A_alpha_beta_uf_train_excess" and claim.measured_by.startswith("config/paper.yaml")
    cases = [_train_split_cases(seed) for seed in range(6)]
    assert all(c["agrees"]["A_alpha_beta_uf_train"] == 1.0 for c in cases)
    for failing in ("stale", "reversed"):  # β^uf agrees with a checkpoint of α the held-out column does not read
        values = [c[failing][claim.measure] for c in cases]
        assert max(values) <= 0.0
        assert _row(claim_id, values).verdict == NOT_REPRODUCED
    values = [c["agrees"][claim.measure] for c in cases]
    assert min(values) > 0.9 and _row(claim_id, values).verdict == REPRODUCED
    # the same null as the held-out column: the maximum over β^uf's checkpoints against shuffled partners
    assert all(c["agrees"]["A_alpha_beta_uf_train_excess_null"] > 0.85 for c in cases)


def _bleu_rows(reached_at):
    """table2_table with a BLEU curve on three seeds of one hand case: every seed's attention is α itself from
    checkpoint ``reached_at`` on (noise before it), BLEU 0.5, 10, 25, 30 over the four checkpoints; β^uf agrees
    with α on half the target tokens (A(α, β^uf) = ½), so ξ(α, β^uf) is the BLEU where α is reached."""
    rng = np.random.default_rng(reached_at)
    a = rng.random((100, 30))
    alpha = np.stack([np.stack([a if c >= reached_at else rng.random((100, 30)) for c in range(4)])
                      for _ in range(3)])
    perf = np.tile([0.1, 0.4, 0.6, 0.7], (3, 1))
    bleu = np.tile([0.5, 10.0, 25.0, 30.0], (3, 1))
    half = np.concatenate([a[:50], 1.0 - a[50:]])
    beta_uf = np.stack([np.stack([half])] * 3)
    return table2_table([0, 1, 2], np.array([0, 10, 20, 30]), perf, alpha, alpha, beta_uf, a, np.stack([a] * 3),
                        None, bleu=bleu)


def test_bleu_xi_fails_when_alpha_is_reached_only_at_the_start_and_holds_later():
    claim = _claim("translation_xi_bleu_non_trivial")
    assert claim.measure == "xi_alpha_beta_uf_bleu_progress" and "bleu_curve" in claim.measured_by
    start, _ = _bleu_rows(0)
    late, curves = _bleu_rows(2)
    assert set(curves.columns) >= {"agreement", "performance", "bleu"}
    # α is reached at p̂(0): ξ = BLEU(0), no progress along the BLEU curve; reached at the third checkpoint: 25
    for rows, xi_bleu in ((start, 0.5), (late, 25.0)):
        assert (rows["A_alpha_beta_uf"] == 0.5).all() and not rows["xi_alpha_beta_uf_bleu_starred"].any()
        assert rows["xi_star_bleu"].tolist() == [30.0] * 3 and rows["xi_alpha_beta_uf_bleu"].tolist() == [xi_bleu] * 3
    values = start[claim.measure].tolist() * 2
    assert max(values) <= 0.0 and _row(claim.claim_id, values).verdict == NOT_REPRODUCED
    values = late[claim.measure].tolist() * 2
    assert values == pytest.approx([(25.0 - 0.5) / (30.0 - 0.5)] * 6)
    assert _row(claim.claim_id, values).verdict == REPRODUCED


def test_bleu_xi_is_the_token_accuracy_xi_on_another_curve():
    # the same ξ implementation: with BLEU set to the token accuracy, every BLEU column equals its token column
    rng = np.random.default_rng(3)
    a = rng.random((50, 20))
    alpha = np.stack([np.stack([rng.random((50, 20)), a, a]) for _ in range(2)])
    perf = np.array([[0.1, 0.5, 0.8], [0.2, 0.6, 0.7]])
    beta_uf = np.stack([np.stack([a, a])] * 2) * 0.5 + rng.random((2, 2, 50, 20)) * 0.5
    same, _ = table2_table([0, 1], np.array([0, 5, 10]), perf, alpha, alpha, beta_uf, a, np.stack([a, a]), None,
                           bleu=perf)
    for name in ("xi_alpha_beta_uf", "xi_alpha_beta", "xi_star", "xi_alpha_beta_uf_progress"):
        bleu_name = name.replace("_progress", "_bleu_progress") if name.endswith("_progress") else f"{name}_bleu"
        assert same[bleu_name].tolist() == same[name].tolist(), name


def test_checkpoint_bleu_scores_each_member_at_each_step():
    words = ["<pad>", "<unk>", "<sos>", "<eos>", "the", "cat", "sat", "on", "mat"]
    refs = pd.DataFrame({"example": [0, 1], "tgt": [np.array([4, 5, 6, 7, 4, 8, 3]), np.array([4, 8, 6, 3])]})
    good = [np.array([4, 5, 6, 7, 4, 8, 3]), np.array([4, 8, 6, 3, 0, 0, 0])]
    bad = [np.array([7, 7, 7, 3, 0, 0, 0]), np.array([6, 3, 0, 0, 0, 0, 0])]
    decodes = pd.DataFrame({"member": [0, 0, 1, 1] * 2, "step": [0] * 4 + [5] * 4, "example": [0, 1] * 4,
                            "predicted": bad + good + good + good})
    out = checkpoint_bleu(refs, decodes, words)
    assert list(out.columns) == ["member", "step", "bleu"]
    got = out.set_index(["member", "step"]).bleu
    assert got[(0, 0)] < 1.0 and got[(1, 0)] == got[(0, 5)] == got[(1, 5)] == pytest.approx(100.0)


def test_a_classification_row_says_when_its_set_is_not_the_papers_data():
    """Amazon and Yelp are Zhang et al.'s sets here (the only pinned downloads), not the paper's
    Multi-Domain Sentiment reviews and Yelp sample; the row says so. SST is the paper's own set, whose numbers the
    classification rows are compared with: its row is on the paper's setup."""
    from attnrepro.snell2021.claims import tested_on

    amazon = tested_on("snell2021_cls_amazon", "classification", "bilstm_attention")
    assert "amazon_polarity" in amazon and "Multi-Domain Sentiment" in amazon
    assert "yelp_review_full" in tested_on("snell2021_cls_yelp", "classification", "bilstm_attention")
    assert tested_on("snell2021_cls_sst", "classification", "bilstm_attention") == "paper"
    assert tested_on("snell2021_cls_imdb", "classification", "bilstm_attention") == \
        "imdb for SST (and the paper's other classification sets)"


def test_table2_references_are_the_papers_printed_numbers_at_their_precision():
    """Table 2 rounds to integers; Table 5 prints the same numbers to two decimals. SST's excesses over Â are
    Table 5's (19.85 − 8.39 = 11.46 points, not Table 2's 20 − 8 = 12), and each reading cites its table."""
    refs = {c.claim_id: c for c in CLAIMS if c.paper == "snell2021" and c.reference_value is not None}
    assert [refs[f"classification_{k}"].reference_value for k in (
        "alpha_agrees_with_beta_uf", "proxy_agrees_with_beta_uf", "alpha_agrees_with_beta",
        "saliency_agrees_with_beta_uf")] == [0.1146, 0.2518, 0.1694, 0.1406]
    assert refs["translation_alpha_agrees_with_beta_uf"].reference_value == 0.2391    # 31.02 − 7.11
    assert refs["classification_train_split_alpha_agrees_with_beta_uf"].reference_value == 0.1334   # Table 7
    for claim in refs.values():   # at most the tables' two decimals of a percentage
        assert round(claim.reference_value, 4) == claim.reference_value, claim.claim_id
    for claim_id in ("classification_alpha_agrees_with_beta_uf", "translation_saliency_agrees_with_beta_uf",
                     "classification_kendall_proxy_agrees", "translation_train_split_alpha_agrees_with_beta_uf"):
        assert "Table " in refs[claim_id].reading and "the paper's " in refs[claim_id].reading, claim_id
    # the transcription against Table 2's integers: Table 5 rounds to them
    from attnrepro.snell2021.claims import PRINTED

    table2 = {"SST": (20, 34, 22, 25, 8), "Multi30k": (31, 34, 27, 49, 7)}
    columns = ("A_alpha_beta_uf", "A_beta_uf_beta_px", "A_delta_beta_uf", "A_alpha_beta", "A_hat")
    for row, integers in table2.items():
        assert tuple(round(PRINTED["Table 5"][row][c]) for c in columns) == integers
