import numpy as np
import pandas as pd
import pytest

from attnrepro.verdicts.claims import COLUMNS, Claim, model_quality, summarize
from attnrepro.verdicts.papers import CLAIMS
from attnrepro.verdicts.markdown import to_markdown
from attnrepro.verdicts.intervals import NOT_REPRODUCED, REPRODUCED, UNDECIDABLE

BASE = dict(paper="p", claim_id="c", section="§1", quote="q", reading="r", measure="m", kind="continuous",
            direction=">", threshold=0.5, task_kinds=("one_to_one",), archs=("aed",), reference_value=0.9,
            bounds=(0.0, 1.0))
SIX = [0, 1, 2, 3, 4, 5]
CLAIM = Claim(**BASE)


def test_summarize_rows_only_for_matching_experiments():
    summaries = {
        "a": pd.DataFrame({"seed": SIX, "m": [0.8, 0.82, 0.81, 0.8, 0.83, 0.85]}),
        "b": pd.DataFrame({"seed": SIX, "m": [0.1, 0.12, 0.11, 0.1, 0.1, 0.2]}),
        "c": pd.DataFrame({"seed": [0, 1], "m": [0.9, 0.9]}),
    }
    experiments = {"a": ("one_to_one", "aed"), "b": ("one_to_one", "aed"), "c": ("sort", "aed")}
    table = summarize(summaries, experiments, claims=(CLAIM,))
    assert list(table.columns) == COLUMNS
    assert table.experiment.tolist() == ["a", "b"]
    assert table.n.tolist() == [6, 6] and table.unit.tolist() == ["seed", "seed"]
    assert table.tested_on.tolist() == ["paper", "paper"] and table.samples.tolist() == ["training seeds"] * 2
    # at 6 seeds a decision needs all six on its side: one replicate falling the other way moves it
    assert (table["range"] == "[0, 1]").all() and (table.swing == 1).all()
    assert table.claimed_side.tolist() == ["6 of 6", "0 of 6"] and table.independent.all()
    assert table.verdict.tolist() == [REPRODUCED, NOT_REPRODUCED]
    assert table.size_vs_paper.tolist() == ["below paper", "below paper"]
    assert (table.can_decide == "both ways").all() and (table.both_ways_from == 6).all() and (table.note == "").all()


def test_registered_claims_are_unique_and_quote_the_paper():
    ids = [(c.paper, c.claim_id) for c in CLAIMS]
    assert len(ids) == len(set(ids))
    for c in CLAIMS:
        assert c.section and c.quote and c.reading and c.origin in ("paper", "extension")
        assert c.kind in ("proportion", "continuous", "fisher")
        lo, hi = c.measure_range
        assert lo < hi  # every claim declares its measure's range
    # the background post's sentences are its claims (it names no setup); Table 2 on copying and AER on synthetic
    # tasks are ours
    assert {c.origin for c in CLAIMS if c.paper == "blog003"} == {"paper"}
    assert all(c.origin == "extension" for c in CLAIMS if "copy_table2" in c.task_kinds or c.claim_id.endswith("_synthetic"))
    # count tables are flat by construction: no claim can rest on them
    assert not [c for c in CLAIMS if c.measure.startswith("diag_excess")]


def test_claims_over_0_1_outcomes_are_proportions():
    binary = {"failed", "success", "hyp2_early", "obs3_final", "obs3_converged", "reached_good"}
    assert {c.kind for c in CLAIMS if c.measure in binary} == {"proportion", "fisher"}


def test_versus_claims_compare_paired_seeds_of_the_same_cell():
    claim = Claim(**{**BASE, "measure": "gap", "direction": "<", "threshold": 0.0, "bounds": (-1.0, 1.0),
                     "task_kinds": ("bottleneck_reversed",), "archs": ("ved",), "versus": ("bottleneck", "ved")})
    summaries = {
        "rev": pd.DataFrame({"seed": SIX, "gap": [0.10, 0.12, 0.11, 0.1, 0.1, 0.1]}),
        "fwd": pd.DataFrame({"seed": SIX + [6], "gap": [0.30, 0.35, 0.32, 0.3, 0.3, 0.3, 9.0]}),  # 6 has no pair
        "fwd_lstm": pd.DataFrame({"seed": SIX, "gap": [0.0] * 6}),
    }
    exps = {"rev": ("bottleneck_reversed", "ved", "gru"), "fwd": ("bottleneck", "ved", "gru"),
            "fwd_lstm": ("bottleneck", "ved", "lstm")}
    row = summarize(summaries, exps, (claim,)).iloc[0]
    assert row.experiment == "rev" and row.n == 6
    assert row.measured_mean == pytest.approx(-0.2)
    assert row.verdict == REPRODUCED and "that of bottleneck/ved" in row.rule
    # no partner of the same cell, or none at all: no row
    assert summarize(summaries, {**exps, "rev": ("bottleneck_reversed", "ved", "ugrnn")}, (claim,)).empty
    assert summarize({"rev": summaries["rev"]}, {"rev": ("bottleneck_reversed", "ved")}, (claim,)).empty


def test_a_claim_of_named_cells_rows_only_their_experiments():
    """Claim.cells selects experiments by their third key; an experiment of no named cell tests only claims of
    every cell; a claim of no cells applies to all."""
    lstm = Claim(**{**BASE, "claim_id": "lstm", "cells": ("lstm",)})
    summaries = {n: pd.DataFrame({"seed": SIX, "m": [0.8] * 6}) for n in ("g", "l", "x")}
    exps = {"g": ("one_to_one", "aed", "gru"), "l": ("one_to_one", "aed", "lstm"), "x": ("one_to_one", "aed")}
    table = summarize(summaries, exps, (lstm, CLAIM))
    assert table[table.claim_id == "lstm"].experiment.tolist() == ["l"]
    assert table[table.claim_id == "c"].experiment.tolist() == ["g", "l", "x"]
    assert lstm.applies_to("one_to_one", "aed", "lstm") and not lstm.applies_to("one_to_one", "aed", "gru")
    assert not lstm.applies_to("one_to_one", "aed") and CLAIM.applies_to("one_to_one", "aed")
    from attnrepro.verdicts.claims import unmeasured
    why = unmeasured(table[table.claim_id == "c"], summaries, {"g": exps["g"]}, (lstm,)).why.tolist()
    assert why == ["no experiment of its task and model in this config"]


def test_versus_partner_of_one_tasks_variant_is_the_same_name_with_the_other_arch():
    """Sort variants: ved_gru_sort_short pairs with aed_gru_sort_short, not with aed_gru_sort (same kind and cell)."""
    claim = Claim(**{**BASE, "measure": "acc", "bounds": (-1.0, 1.0), "direction": "<", "threshold": 0.0, "task_kinds": ("sort",),
                     "archs": ("ved",), "versus": ("sort", "aed")})
    summaries = {n: pd.DataFrame({"seed": [0, 1], "acc": v}) for n, v in
                 {"ved_gru_sort_short": [0.5, 0.5], "aed_gru_sort_short": [0.9, 0.9], "aed_gru_sort": [0.6, 0.6]}.items()}
    exps = {n: ("sort", n.split("_")[0], "gru") for n in summaries}
    row = summarize(summaries, exps, (claim,)).iloc[0]
    assert row.experiment == "ved_gru_sort_short" and row.measured_mean == pytest.approx(-0.4)


def test_versus_partner_on_another_task_is_the_name_with_that_task():
    """One-to-one against sort where sort has variants: aed_gru_one_to_one pairs with aed_gru_sort."""
    claim = Claim(**{**BASE, "measure": "acc", "bounds": (-1.0, 1.0), "threshold": 0.0, "versus": ("sort", "aed")})
    summaries = {n: pd.DataFrame({"seed": [0, 1], "acc": v}) for n, v in
                 {"aed_gru_one_to_one": [0.9, 0.9], "aed_gru_sort_short": [0.1, 0.1], "aed_gru_sort": [0.6, 0.6]}.items()}
    exps = {n: ("sort" if "sort" in n else "one_to_one", "aed", "gru") for n in summaries}
    row = summarize(summaries, exps, (claim,)).iloc[0]
    assert row.experiment == "aed_gru_one_to_one" and row.measured_mean == pytest.approx(0.3)


def _claim(claim_id: str) -> Claim:
    return next(c for c in CLAIMS if c.claim_id == claim_id)


def _row(claim_id, values, partner=None, column="seed"):
    """The verdict of registered claim ``claim_id`` on per-replicate ``values`` (and a versus partner's)."""
    claim = _claim(claim_id)
    kind, arch = claim.task_kinds[0], claim.archs[0]
    summaries = {"x": pd.DataFrame({column: range(len(values)), claim.measure: values})}
    experiments = {"x": (kind, arch, "gru")}
    if claim.versus:
        summaries["y"] = pd.DataFrame({"seed": range(len(partner)), claim.measure: partner})
        experiments["y"] = (*claim.versus, "gru")
    table = summarize(summaries, experiments, (claim,))
    return table.set_index("experiment").loc["x"]


# each re-specified claim with a case where it must fail, and one where it holds
def _six(*values):
    return [v for v in values for _ in range(6 // len(values))]


# each re-specified claim with a case where it must fail, and one where it holds
@pytest.mark.parametrize("claim_id, failing, holding, partner_fail, partner_hold", [
    ("copy_same_some_seeds_fail", [1.0] * 100, [1, 0, 0, 1, 0, 0] * 10, None, None),
    ("copy_mixture_some_seeds_fail", [0.0] * 80, [1, 1, 0, 1, 1, 1] * 10, None, None),
    ("copy_same_fails_more_than_control", [0.0] * 6, [1.0] * 6, [1.0] * 6, [0.0] * 6),
    ("copy_subset_no_seed_fails", [0, 1, 0, 1, 1, 0], [0] * 80, None, None),
    ("permutation_function_fails", [0, 1, 0, 0, 0, 0], [1] * 40, None, None),
    ("multihead_all_bad_heads_fail", [1, 1, 1, 1, 1, 1], [0] * 6, None, None),
    ("multihead_one_good_head_suffices", [0] * 6, [1] * 6, None, None),
    ("multihead_random_heads_converge", [1, 0, 1, 0, 0, 0, 1, 0], [1] * 20, None, None),
    ("keyword_hypothesis2_early", [0] * 6, [1] * 6, None, None),
    ("keyword_observation3_late", [0] * 6, [1] * 6, None, None),
    ("copy_same_converges_slower", _six(40, 65, 52), _six(150, 160, 170), _six(100, 120, 110),
     _six(100, 120, 110)),
    ("ved_delta_larger_than_aed", _six(0.2, 0.25, 0.22), _six(0.9, 0.88, 0.91), _six(0.5, 0.55, 0.52),
     _six(0.2, 0.25, 0.22)),
    ("sort_delta_chi_dominant", _six(-0.2, -0.18, -0.21), _six(0.3, 0.28, 0.35), None, None),
    ("sort_needs_attention", _six(0.9, 0.91, 0.88), _six(0.4, 0.45, 0.3), [0.9] * 6, [0.9] * 6),
    ("one_to_one_small_delta", _six(0.81, 0.85, 0.79), _six(0.2, 0.22, 0.21), None, None),
    ("one_to_one_diagonal", _six(0.1, 0.0, 0.2), _six(1.0, 0.95, 1.0), None, None),
    ("one_to_one_orthogonal", _six(0.01, 0.03, 0.02), _six(-0.05, -0.06, -0.04), None, None),
    ("reversed_antidiagonal", _six(0.1, 0.0, 0.2), _six(1.0, 0.95, 1.0), None, None),
    ("escan_word_accuracy", _six(0.93, 0.95, 0.94), _six(0.995, 0.996, 0.999), None, None),
    ("escan_variance_drop_aed", _six(0.5, 0.45, 0.55), _six(0.9, 0.88, 0.93), None, None),
    ("translation_variance_drop_aed", _six(0.5, 0.45, 0.55), _six(0.1, 0.05, 0.12), None, None),
    ("translation_no_term_dominates", _six(0.8, 0.7, 0.75), _six(0.3, 0.32, 0.28), None, None),
    ("escan_offset_prediction", _six(2.5, 3.6, 1.4), _six(0.2, 0.1, 0.5), None, None),
    ("escan_ao_left_ahead", _six(-0.8, -0.7, -0.9), _six(0.8, 0.9, 0.7), None, None),
    ("special_tokens_large_alpha_small_norm", _six(-0.1, -0.12, -0.09), _six(0.3, 0.31, 0.29), None, None),
    ("classification_xi_non_trivial", _six(0.1, 0.05, 0.12), _six(0.8, 0.85, 0.9), None, None),
    ("reversal_eases_bottleneck", _six(-0.1, -0.2, -0.15), _six(0.2, 0.3, 0.25), [0.0] * 6, [0.0] * 6),
    ("translation_offset_backwards", _six(2.5, 3.6, 1.4), _six(0.2, 0.1, 0.5), None, None),
    ("classification_beta_uf_agreement_peaks", _six(-0.01, -0.02, -0.015), _six(0.1, 0.12, 0.09), None, None),
    # the papers' claims: each rule on the wrong side of its line, and on the right side
    ("sort_mu_mu_negligible", _six(0.6, 0.55, 0.62), _six(0.02, 0.03, 0.01), None, None),
    ("escan_three_term_share", _six(0.5, 0.45, 0.55), _six(0.95, 0.96, 0.97), None, None),
    ("escan_variance_drop_ao", _six(0.3, 0.35, 0.28), _six(0.93, 0.95, 0.94), None, None),
    ("translation_variance_drop_ao", _six(0.9, 0.92, 0.95), _six(0.25, 0.24, 0.26), None, None),
    ("readout_dictionary", _six(0.3, 0.25, 0.35), _six(0.97, 0.98, 0.99), None, None),
    *[(claim_id, _six(0.3, 0.32, 0.28), _six(0.9, 0.92, 0.91), _six(0.9, 0.92, 0.91), _six(0.3, 0.32, 0.28))
      for claim_id in ("average_map_fit_one_to_one_vs_sort_ao", "average_map_fit_one_to_one_vs_escan_aed",
                       "average_map_fit_one_to_one_vs_escan_ao", "average_map_fit_escan_vs_bible_aed",
                       "average_map_fit_escan_vs_bible_ao", "average_map_fit_escan_vs_paracrawl_aed",
                       "average_map_fit_escan_vs_paracrawl_ao", "mu_mu_share_order_one_to_one_vs_escan_ao",
                       "mu_mu_share_order_escan_vs_bible_aed", "mu_mu_share_order_escan_vs_paracrawl_aed",
                       "mu_mu_share_order_escan_vs_paracrawl_ao")],
    ("ved_bottleneck", _six(0.0, 0.02, -0.01), _six(0.4, 0.45, 0.5), None, None),
    ("attention_removes_bottleneck", _six(0.4, 0.45, 0.5), _six(0.0, 0.01, -0.01), None, None),
    ("copy_mixture_fails_more_than_control", [0.0] * 6, [1.0] * 6, [1.0] * 6, [0.0] * 6),
    ("copying_reaches_perfect_accuracy", [1, 0, 0, 1, 0, 0], [1] * 40, None, None),
])
def test_respecified_claims_can_fail(claim_id, failing, holding, partner_fail, partner_hold):
    assert _row(claim_id, failing, partner_fail).verdict == NOT_REPRODUCED
    assert _row(claim_id, holding, partner_hold).verdict == REPRODUCED


def test_kobayashi_rows_count_folds():
    row = _row("fnorm_dispersion", [0.27, 0.26, 0.28, 0.27, 0.27, 0.26], column="fold")
    assert row.unit == "fold" and row.verdict == REPRODUCED and "not sampled" in row.samples


def test_summary_line_counts_the_papers_claims_only():
    summaries = {"a": pd.DataFrame({"seed": SIX, "m": [0.8, 0.82, 0.81, 0.8, 0.8, 0.9]}),
                 "b": pd.DataFrame({"seed": [0, 1, 2], "m": [1.0, 1.0, 1.0]})}
    ours = Claim(**{**BASE, "claim_id": "ext", "origin": "extension", "task_kinds": ("sort",)})
    table = summarize(summaries, {"a": ("one_to_one", "aed"), "b": ("sort", "aed")}, (CLAIM, ours))
    assert table.verdict.tolist() == [REPRODUCED, UNDECIDABLE]
    md = to_markdown(table)
    assert ("**The papers' claim rows: 1 of 1 reproduced (0 not reproduced, 0 inconclusive, 0 undecidable at this n, "
            "0 not tested; 0 of the reproduced on replicates that are not independent).**") in md
    assert "The project's own checks" in md and "0 of 1 reproduced" in md
    assert "| **ext** (extension), §1 | q |" in md
    # the unanimous three-seed row says that no outcome of 3 decides, and from how many seeds it could go both ways
    assert "| undecidable at this n: no outcome at n = 3 decides either way; both ways from n = 6 |" in md


def test_model_quality_reports_bleu_beside_accuracy_only_where_measured():
    summaries = {
        "aed_gru_bible": pd.DataFrame({"seed": [0, 1, 2], "token_acc": [0.5, 0.6, 0.7], "seq_acc": [0.1, 0.2, 0.3],
                                       "bleu": [10.0, 20.0, 30.0]}),
        "aed_gru_sort": pd.DataFrame({"seed": [0, 1], "token_acc": [0.9, 1.0], "seq_acc": [0.5, 0.7]}),
        "minilm": pd.DataFrame({"fold": [0, 1], "cv_norm": [0.2, 0.3]}),  # no model measure: no row
    }
    table = model_quality(summaries)
    assert table.experiment.tolist() == ["aed_gru_bible", "aed_gru_sort"]
    bible = table.set_index("experiment").loc["aed_gru_bible"]
    assert bible.bleu == pytest.approx(20.0) and bible.bleu_low < 20.0 < bible.bleu_high
    assert bible.n_seeds == 3
    assert np.isnan(table.set_index("experiment").loc["aed_gru_sort"].bleu)
    md = to_markdown(summarize(summaries, {}, CLAIMS), table)
    assert "| aed_gru_bible | 3 | 0.6 (" in md and "| 20 (" in md
    sort_row = next(line for line in md.splitlines() if line.startswith("| aed_gru_sort |"))
    assert sort_row.startswith("| aed_gru_sort | 2 | 0.95 (") and sort_row.endswith("| – |")  # no BLEU measured


def test_model_quality_intervals_stay_inside_each_measures_range():
    """A Bible model that does not translate (BLEU 0.109 over three seeds) and an accuracy near 1: the Student-t
    interval read BLEU 0.109 (−0.172 – 0.39) and token accuracy past 1."""
    summaries = {"mt": pd.DataFrame({"seed": [0, 1, 2], "bleu": [0.0, 0.1, 0.227], "token_acc": [0.99, 0.6, 0.95]})}
    row = model_quality(summaries).iloc[0]
    assert row.bleu == pytest.approx(0.109)
    assert 0.0 < row.bleu_low < row.bleu < row.bleu_high < 100.0
    assert 0.0 < row.token_acc_low < row.token_acc < row.token_acc_high < 1.0
    md = to_markdown(summarize(summaries, {}, CLAIMS), model_quality(summaries))
    line = next(x for x in md.splitlines() if x.startswith("| mt |"))
    assert "−" not in line and "(-" not in line and "– -" not in line


def test_a_claim_without_a_row_is_listed_with_its_reason():
    from attnrepro.verdicts.claims import unmeasured

    other = Claim(**{**BASE, "claim_id": "elsewhere", "task_kinds": ("sort",)})
    routed = Claim(**{**BASE, "claim_id": "routed", "task_kinds": ("wmt16",), "measured_by": "config/paper.yaml"})
    lost = Claim(**{**BASE, "claim_id": "renamed", "measure": "old_name"})
    empty = Claim(**{**BASE, "claim_id": "nan", "measure": "undefined"})
    summaries = {"a": pd.DataFrame({"seed": [0, 1], "m": [0.8, 0.9], "undefined": [np.nan, np.nan]})}
    experiments = {"a": ("one_to_one", "aed", "gru")}
    claims = (CLAIM, other, lost, empty, routed)
    table = summarize(summaries, experiments, claims=claims)
    missing = unmeasured(table, summaries, experiments, claims=claims)
    why = dict(zip(missing.claim_id, missing.why))
    assert set(why) == {"elsewhere", "renamed", "nan", "routed"}
    assert why["routed"].endswith("; measured by config/paper.yaml") and "measured by" not in why["elsewhere"]
    # a comparison with no partner in this run, or a value undefined at this scale, still names its config
    paired = Claim(**{**BASE, "claim_id": "paired", "versus": ("sort", "aed"), "measured_by": "config/paper.yaml"})
    late = Claim(**{**BASE, "claim_id": "late", "measure": "undefined", "measured_by": "config/paper.yaml"})
    more = unmeasured(summarize(summaries, experiments, claims=(paired, late)), summaries, experiments,
                      claims=(paired, late))
    why2 = dict(zip(more.claim_id, more.why))
    assert why2["paired"].startswith("no sort/aed experiment") and why2["paired"].endswith("measured by config/paper.yaml")
    assert "no value" in why2["late"] and why2["late"].endswith("measured by config/paper.yaml")
    assert "no experiment" in why["elsewhere"] and "old_name is not measured on a" in why["renamed"]
    assert "no value" in why["nan"]
    md = to_markdown(table, None, missing)
    assert "## Claims with no row in this run" in md and "| renamed | old_name is not measured" in md


def test_tables_of_one_experiment_join_on_seed_and_refuse_a_measure_twice():
    from attnrepro.verdicts.claims import merge_replicates
    from attnrepro.errors import AttnReproError

    a = pd.DataFrame({"seed": [0, 1], "m": [0.1, 0.2]})
    b = pd.DataFrame({"seed": [1, 0], "aer_best_gain": [0.3, 0.4]})
    merged = merge_replicates("x", [("a.csv", a), ("b.csv", b)]).sort_values("seed")
    assert merged.aer_best_gain.tolist() == [0.4, 0.3] and merged.m.tolist() == [0.1, 0.2]
    with pytest.raises(AttnReproError, match="both hold"):
        merge_replicates("x", [("a.csv", a), ("c.csv", a)])


def test_committed_tables_are_shown_beside_this_run_per_claim():
    from attnrepro.verdicts.markdown import beside

    experiments = {"a": ("one_to_one", "aed"), "b": ("one_to_one", "aed")}
    ours = summarize({"a": pd.DataFrame({"seed": SIX, "m": [0.8, 0.82, 0.81, 0.8, 0.8, 0.8]})},
                     {"a": experiments["a"]}, (CLAIM,))
    # the larger run measured the same claim on "a" (the other side of the threshold) and on "b" as well
    slice_ = summarize({"a": pd.DataFrame({"seed": SIX, "m": [0.1, 0.12, 0.11, 0.11, 0.11, 0.11]}),
                        "b": pd.DataFrame({"seed": SIX, "m": [0.7, 0.72, 0.71, 0.71, 0.71, 0.71]})}, experiments,
                       (CLAIM,))
    rows = beside(ours, {"paper slice": slice_})
    assert rows.experiment.tolist() == ["a", "b"]
    assert rows["this run: verdict"].tolist() == [REPRODUCED, "–"]
    assert rows["paper slice: verdict"].tolist() == [NOT_REPRODUCED, REPRODUCED]
    assert rows["paper slice: ours"][0].startswith("median 0.11 (")
    md = to_markdown(ours, references={"paper slice": slice_})
    assert "## Beside the committed runs" in md
    assert "| paper slice | 1 of 2 reproduced (1 not reproduced," in md
    assert "| c | a | 0.9 | median 0.8 (" in md and f"| {REPRODUCED} | median 0.11 (" in md
    assert f"| {NOT_REPRODUCED} |" in md
    assert "## Beside" not in to_markdown(ours)  # no references, no section


@pytest.mark.parametrize("values, verdict, text", [
    ([0.8] * 6, NOT_REPRODUCED, "median 0.8 (0.8 – 0.8: all 6 tie; on the claimed side 0 of 6, 0 – 0.459)"),
    ([1.0] * 6, REPRODUCED, "median 1 (1 – 1: all 6 tie; on the claimed side 6 of 6, 0.541 – 1)"),
    ([0.5] * 5 + [1.0] * 15, REPRODUCED, "median 1 (1 – 1: the middle 10 tie; on the claimed side at least 15 of 20, "
                                         "0.509 – 0.913)"),
    ([0.91, 0.95, 0.97, 0.99, 1.0, 1.0], REPRODUCED, "median 0.98 (0.91 – 1)"),
])
def test_a_zero_width_median_interval_shows_the_sign_test_it_rests_on(values, verdict, text):
    """The guide: no verdict rests on a zero-width interval. Tied replicates give the median's interval no width;
    the verdict is then the sign test's, whose share of replicates on the claimed side has a Clopper–Pearson
    interval, and the row shows it."""
    from attnrepro.verdicts.markdown import _ours
    from attnrepro.verdicts.intervals import Rule, interval
    from attnrepro.verdicts.intervals import verdict as judge

    rule = Rule(">", 0.9)
    iv = interval(np.array(values), "continuous", rule, 0.95, (0.0, 1.0))
    assert judge(iv, rule) == verdict
    row = pd.Series({"interval": iv.method, "measured_mean": iv.estimate, "ci_low": iv.low, "ci_high": iv.high,
                     "n": iv.n, "verdict": verdict})
    assert _ours(row) == text


def test_a_claim_is_undecidable_only_when_no_outcome_of_its_rows_decides_it_holm_included():
    """"all" over a 6-seed row and a 3-seed row: the 3-seed row can never reproduce, and the 6-seed row alone could
    refute (p ≥ 1/64) but not after Holm over two rows (≤ 0.0125): no outcome decides the claim. With 7 seeds it could
    (1/128), and one unanimous refuting row then decides it."""
    from attnrepro.verdicts.combine import by_claim

    exps = {"a": ("one_to_one", "aed"), "b": ("one_to_one", "aed")}

    def claim_of(n_a, values_a):
        return by_claim(summarize({"a": pd.DataFrame({"seed": range(n_a), "m": values_a}),
                                   "b": pd.DataFrame({"seed": range(3), "m": [0.9] * 3})}, exps, (CLAIM,))).iloc[0]

    c = claim_of(6, [0.6, 0.7, 0.55, 0.4, 0.9, 0.8])
    assert (c.verdict, c.held_by) == (UNDECIDABLE, "seeds, interval")
    c = claim_of(6, [0.1] * 6)  # refuted alone, not after Holm, and still no outcome could decide the claim
    assert (c.verdict, c.held_by) == (UNDECIDABLE, "seeds, Holm")
    c = claim_of(7, [0.6, 0.7, 0.55, 0.4, 0.9, 0.8, 0.7])
    assert c.verdict == "inconclusive"
    assert claim_of(7, [0.1] * 7).verdict == NOT_REPRODUCED


def test_a_claim_of_some_rows_is_reproduced_by_one_after_holm():
    """"any" ("some"): the mirror of "all" — one row reproducing decides it after Holm over the rows."""
    from attnrepro.verdicts.combine import by_claim

    some = Claim(**{**BASE, "combine": "any"})
    exps = {"a": ("one_to_one", "aed"), "b": ("one_to_one", "aed")}
    for n, want in ((6, "inconclusive"), (7, REPRODUCED)):
        table = summarize({"a": pd.DataFrame({"seed": range(n), "m": 0.9}),
                           "b": pd.DataFrame({"seed": range(n), "m": 0.1})}, exps, (some,))
        assert table.verdict.tolist() == [REPRODUCED, NOT_REPRODUCED]
        assert by_claim(table).verdict.tolist() == [want], n
    both_fail = summarize({"a": pd.DataFrame({"seed": range(6), "m": 0.1}),
                           "b": pd.DataFrame({"seed": range(6), "m": 0.1})}, exps, (some,))
    assert by_claim(both_fail).verdict.tolist() == [NOT_REPRODUCED]  # every row refuted: no correction needed
