"""The predicted cost of the paper slice and its companion configs (bench/slice_cost.py): the committed
bench/results/slice_cost.json is today's arithmetic on today's configs and measurements, and the arithmetic is
what its docstring says."""

import json

import pytest

from tests.helpers import ROOT, import_script

slice_cost = import_script("bench/slice_cost.py")
COMMITTED = json.loads((ROOT / "bench" / "results" / "slice_cost.json").read_text())


def test_the_committed_prediction_is_todays():
    """A config or a measurement changed without `python bench/slice_cost.py` fails here."""
    assert slice_cost.build([6, 8]) == COMMITTED


def test_the_slice_at_its_own_seeds_predicts_its_measured_wall():
    own = COMMITTED["configs"]["paper_slice@6"]
    assert own["wall_s"] == pytest.approx(COMMITTED["calibration"]["slice_wall_s"], abs=1)
    # the resumed jobs (their benchmark holds the last segment only) are not what c rests on
    cal = COMMITTED["calibration"]
    assert set(cal["train_jobs_resumed"]).isdisjoint(cal["train_jobs_used"]) and len(cal["train_jobs_used"]) >= 3


def test_seed_factors_are_one_at_six_and_near_proportional():
    stacked = json.loads((ROOT / "bench" / "results" / "stacked_training.json").read_text())
    assert all(f == pytest.approx(1.0) for f in slice_cost.seed_factors(stacked, 6).values())
    eight = slice_cost.seed_factors(stacked, 8)
    assert set(eight) == {"gru", "lstm", "ugrnn"}
    assert all(1.25 < f <= 8 / 6 + 1e-9 for f in eight.values()), eight


def test_a_resumed_job_is_left_out_of_the_calibration():
    steps = {"aed-gru-h128-l1-sort": 0.2, "aed-gru-h128-l1-escan": 0.1}
    cfg = {"tasks": {"sort": {"kind": "sort"}, "escan": {"kind": "escan"}}, "train": {"steps": 100},
           "experiments": {"a": {"task": "sort", "model": {"arch": "aed", "cell": "gru", "hidden": 128}},
                           "b": {"task": "escan", "model": {"arch": "aed", "cell": "gru", "hidden": 128}}}}
    jobs = {"jobs": [{"job": "train/a/s0", "s": 22.0}, {"job": "train/b/s0", "s": 1.0}]}
    c, used, resumed = slice_cost.calibration(cfg, jobs, steps)
    assert (c, used, resumed) == (pytest.approx(1.1), ["a"], ["b"])


def test_an_untimed_shape_takes_its_gru_twin_times_the_cells_ratio():
    steps = {"aed-gru-h128-l1-sort_short": 0.1, "aed-gru-h128-l1-sort": 0.4, "aed-lstm-h128-l1-sort": 0.6}
    cfg = {"tasks": {"sort_short": {"kind": "sort"}}, "train": {"steps": 100},
           "experiments": {"x": {"task": "sort_short", "model": {"arch": "aed", "cell": "lstm", "hidden": 128}}}}
    s, source = slice_cost.step_seconds(cfg, "x", steps)
    assert s == pytest.approx(0.15) and "aed-gru-h128-l1-sort_short" in source
