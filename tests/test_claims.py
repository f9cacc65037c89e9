import numpy as np
import pandas as pd
import pytest
from scipy import stats

from attnrepro.claims import CLAIMS, COLUMNS, Claim, confidence_interval, summarize, verdict

CLAIM = Claim(paper="p", claim_id="c", description="d", measure="m", direction=">", threshold=0.5,
              task_kinds=("one_to_one",), archs=("aed",), reference_value=0.9)


def test_confidence_interval_matches_student_t():
    x = np.array([0.8, 0.9, 0.85, 0.95])
    mean, low, high = confidence_interval(x)
    half = stats.t.ppf(0.975, 3) * x.std(ddof=1) / np.sqrt(4)
    assert mean == pytest.approx(0.875)
    assert (low, high) == pytest.approx((0.875 - half, 0.875 + half))


def test_one_seed_has_no_interval():
    mean, low, high = confidence_interval(np.array([0.7]))
    assert mean == 0.7 and np.isnan(low) and np.isnan(high)
    assert verdict(CLAIM, low, high) == "inconclusive"


@pytest.mark.parametrize("values, expected", [
    ([0.8, 0.82, 0.81], "reproduced"),
    ([0.2, 0.22, 0.21], "not reproduced"),
    ([0.1, 0.9, 0.5], "inconclusive"),
])
def test_verdicts(values, expected):
    _, low, high = confidence_interval(np.array(values))
    assert verdict(CLAIM, low, high) == expected


def test_less_than_claims_flip():
    below = Claim(**{**CLAIM.__dict__, "direction": "<"})
    assert verdict(below, 0.1, 0.2) == "reproduced"
    assert verdict(below, 0.6, 0.7) == "not reproduced"


def test_summarize_rows_only_for_matching_experiments():
    summaries = {
        "a": pd.DataFrame({"seed": [0, 1, 2], "m": [0.8, 0.82, 0.81]}),
        "b": pd.DataFrame({"seed": [0, 1, 2], "m": [0.1, 0.12, 0.11]}),
        "c": pd.DataFrame({"seed": [0, 1], "m": [0.9, 0.9]}),
    }
    experiments = {"a": ("one_to_one", "aed"), "b": ("one_to_one", "aed"), "c": ("sort", "aed")}
    table = summarize(summaries, experiments, claims=(CLAIM,))
    assert list(table.columns) == COLUMNS
    assert table.experiment.tolist() == ["a", "b"]
    assert table.n_seeds.tolist() == [3, 3]
    assert table.verdict.tolist() == ["reproduced", "not reproduced"]
    assert table.reference_value.tolist() == [0.9, 0.9]


def test_registered_claims_are_unique_and_well_formed():
    ids = [(c.paper, c.claim_id) for c in CLAIMS]
    assert len(ids) == len(set(ids))
    for c in CLAIMS:
        assert c.direction in {"<", ">"} and c.description


def test_versus_claims_compare_paired_seeds():
    claim = Claim(paper="blog003", claim_id="x", description="d", measure="gap", direction="<", threshold=0.0,
                  task_kinds=("bottleneck_reversed",), archs=("ved",), versus=("bottleneck", "ved"))
    summaries = {
        "rev": pd.DataFrame({"seed": [0, 1, 2], "gap": [0.10, 0.12, 0.11]}),
        "fwd": pd.DataFrame({"seed": [0, 1, 2, 3], "gap": [0.30, 0.35, 0.32, 9.0]}),  # seed 3 has no pair
    }
    table = summarize(summaries, {"rev": ("bottleneck_reversed", "ved"), "fwd": ("bottleneck", "ved")}, (claim,))
    row = table.iloc[0]
    assert row.experiment == "rev" and row.n_seeds == 3
    assert row.measured_mean == pytest.approx(np.mean([-0.20, -0.23, -0.21]))
    assert row.verdict == "reproduced" and "that of bottleneck/ved" in row.rule
    # with no experiment to compare against, the claim has no row
    assert summarize({"rev": summaries["rev"]}, {"rev": ("bottleneck_reversed", "ved")}, (claim,)).empty


def test_model_quality_reports_bleu_beside_accuracy_only_where_measured():
    from attnrepro.claims import model_quality, to_markdown

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
    md = to_markdown(summarize(summaries, {}), table)
    assert "| aed_gru_bible | 3 | 0.6 (" in md and "| 20 (" in md
    sort_row = next(line for line in md.splitlines() if line.startswith("| aed_gru_sort |"))
    assert sort_row.startswith("| aed_gru_sort | 2 | 0.95 (") and sort_row.endswith("| – |")  # no BLEU measured
