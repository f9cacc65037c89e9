"""The test-set measurement's own helpers (studies/aitken2021/aitken_deviation_effects.py --measure testset, docs/deviations.md
Aitken row "test set"): seeded subsets of the exported examples, the exports cut to them, and the spread and
verdict counts it reports, on hand cases."""

import numpy as np
import pyarrow as pa
import pytest

from tests.helpers import ROOT, import_script

ade = import_script("studies/aitken2021/aitken_deviation_effects.py")


def test_draw_subsets_are_seeded_sorted_and_without_replacement():
    examples = np.array([7, 3, 3, 5, 1, 9, 0, 2, 4, 8, 6])  # ten distinct ids, one repeated (a second seed's rows)
    draws = ade.draw_subsets(examples, 4, 3, seed=11)
    assert len(draws) == 3
    for d in draws:
        assert len(d) == 4 and len(set(d.tolist())) == 4
        assert set(d.tolist()) <= set(range(10)) and list(d) == sorted(d)
    again = ade.draw_subsets(examples, 4, 2, seed=11)  # each draw has its own generator: fewer draws repeat them
    assert all(np.array_equal(x, y) for x, y in zip(again, draws))
    assert np.array_equal(ade.draw_subsets(examples, 10, 1)[0], np.arange(10))  # the whole pool
    with pytest.raises(ValueError, match="--sample 11"):
        ade.draw_subsets(examples, 11, 1)


def test_subset_group_keeps_the_rows_of_the_chosen_examples():
    enc = pa.table({"seed": [0, 0, 0, 0], "example": [0, 0, 1, 2], "t": [0, 1, 0, 0]})
    dec = pa.table({"seed": [0, 0, 0, 0], "example": [0, 1, 1, 2], "s": [0, 0, 1, 0]})
    readout = pa.table({"seed": [0], "token": ["a"]})
    e, d, r = ade.subset_group((enc, dec, readout), np.array([2, 0]))
    # examples 0 and 2 kept, renumbered 0 and 1 in their order (the analysis sizes its matrices by the largest id)
    assert e.column("example").to_pylist() == [0, 0, 1] and e.column("t").to_pylist() == [0, 1, 0]
    assert d.column("example").to_pylist() == [0, 1] and d.column("s").to_pylist() == [0, 0]
    assert e.schema == enc.schema and r is readout
    e, d, _ = ade.subset_group((enc, dec, readout), np.array([1]))
    assert e.column("example").to_pylist() == [0] and d.column("s").to_pylist() == [0, 1]


def test_spread_and_verdict_counts():
    s = ade.spread([1.0, 2.0, 3.0, float("nan")])
    assert s["mean"] == 2.0 and s["sd"] == 1.0 and s["nan"] == 1
    assert s["p2_5"] == pytest.approx(1.05) and s["p97_5"] == pytest.approx(2.95)  # linear, 0.05 and 1.95 of 2 gaps
    assert ade.spread([float("nan")])["mean"] is None
    v = ade.verdict_counts("reproduced", ["reproduced", "inconclusive", "inconclusive", ade.NO_ROW])
    assert v == {"full": "reproduced", "differ": 3, "draws": 4,
                 "counts": {"inconclusive": 2, ade.NO_ROW: 1, "reproduced": 1}}


def test_committed_measurement_checked_its_full_set():
    """studies/aitken2021/results/aitken_testset_effect.json: the whole export reproduced the run's summary.csv and claims.csv
    before any subset was read (the row's numbers rest on the same analysis)."""
    import json

    out = json.loads((ROOT / "studies" / "aitken2021" / "results" / "aitken_testset_effect.json").read_text())
    assert out["sample"] == 200 and out["exported"] == 1000 and out["draws"] >= 30
    assert all(c["max_abs_diff_vs_summary_csv"] == 0.0 for c in out["check"].values())
    assert out["check_claims_csv"]["verdicts_differ"] == 0 and out["check_claims_csv"]["rows"] == len(out["rows"])
    assert all(r["verdict"]["draws"] == out["draws"] for r in out["rows"])
