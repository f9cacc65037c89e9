"""bench/training_time.py (issue 31): two runs' training jobs compared job by job, beside the other jobs both ran,
whose change is the machine's load where their code is the same."""

import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import training_time  # noqa: E402


def run_dir(root, seconds: dict):
    for job, s in seconds.items():
        tsv = root / "results" / "benchmarks" / f"{job}.tsv"
        tsv.parent.mkdir(parents=True, exist_ok=True)
        tsv.write_text(f"s\th:m:s\tmax_rss\n{s}\t0:00:{s}\t100\n")
    return root


def test_training_is_compared_beside_the_other_jobs(tmp_path):
    new = run_dir(tmp_path / "new", {"train/a/s0": 90, "snell2021/train/b": 30, "data/x": 12, "figures/y": 10,
                                     "only/new": 5})
    old = run_dir(tmp_path / "old", {"train/a/s0": 100, "snell2021/train/b": 50, "data/x": 10, "figures/y": 10})
    new_jobs, old_jobs = training_time.job_seconds(new), training_time.job_seconds(old)
    out = training_time.compare(training_time.training_jobs(new_jobs, new), training_time.training_jobs(old_jobs, old))
    assert out["n_jobs"] == 2 and out["change"] == pytest.approx(120 / 150 - 1)
    assert out["by_rule"]["train"]["change"] == pytest.approx(-0.1)
    assert training_time.control(new_jobs, old_jobs) == {"n_jobs": 2, "new_s": 22.0, "old_s": 20.0, "change": 0.1}


def test_runs_that_trained_different_jobs_are_refused(tmp_path):
    new = run_dir(tmp_path / "new", {"train/a/s0": 90})
    old = run_dir(tmp_path / "old", {"train/b/s0": 90})
    with pytest.raises(SystemExit, match="different jobs"):
        training_time.compare(training_time.training_jobs(training_time.job_seconds(new), new),
                              training_time.training_jobs(training_time.job_seconds(old), old))


def test_models_of_the_two_runs_are_compared_byte_for_byte(tmp_path):
    for run, content in (("new", {"a/model.pt": b"1", "a/metrics.csv": b"x", "b/model.pt": b"2"}),
                         ("old", {"a/model.pt": b"1", "a/metrics.csv": b"y", "c/model.pt": b"3"})):
        for name, data in content.items():
            path = tmp_path / run / "results" / "models" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    assert training_time.identical_models(tmp_path / "new", tmp_path / "old") == {
        "n_files": 2, "differ": ["a/metrics.csv"], "one_run_only": ["b/model.pt", "c/model.pt"]}
