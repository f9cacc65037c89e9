"""bench/training_time.py: two runs' training jobs compared job by job, beside the other jobs both ran,
whose change is the machine's load where their code is the same."""

import json

import pandas as pd
import pytest

from tests.helpers import ROOT, import_script

training_time = import_script("bench/training_time.py")


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


def test_raised_seeds_scale_each_changed_job_by_its_own_pair(tmp_path):
    new = run_dir(tmp_path / "new", {"train/a/s0": 60, "snell2021/train/b": 30})
    old = run_dir(tmp_path / "old", {"train/a/s0": 100, "snell2021/train/b": 50})
    compared = training_time.compare(training_time.training_jobs(training_time.job_seconds(new), new),
                                     training_time.training_jobs(training_time.job_seconds(old), old))
    raised = run_dir(tmp_path / "raised", {"snell2021/train/b": 66, "data/x": 3})  # measured under a heavier load
    same = run_dir(tmp_path / "same", {"snell2021/train/b": 33})
    out = training_time.seeds_raised(compared, *(training_time.training_jobs(training_time.job_seconds(d), d)
                                                 for d in (raised, same)))
    assert out["new_s"] == pytest.approx(60 + 30 * 2) and out["change"] == pytest.approx(120 / 150 - 1)
    assert out["jobs"] == [{"job": "snell2021/train/b", "raised_s": 66.0, "same_s": 33.0, "ratio": 2.0}]
    other = run_dir(tmp_path / "other", {"snell2021/train/c": 33})
    with pytest.raises(SystemExit, match="different jobs"):
        training_time.seeds_raised(compared, training_time.job_seconds(raised)[["snell2021/train/b"]],
                                   training_time.job_seconds(other))


def test_summary_reads_the_raised_seeds_beside_the_comparison(tmp_path, monkeypatch):
    import run_all
    new = run_dir(tmp_path / "new", {"train/a/s0": 60})
    old = run_dir(tmp_path / "old", {"train/a/s0": 100})
    r = {"benchmark": "training_time", "new": "now", "old": "filing",
         **training_time.compare(training_time.job_seconds(new), training_time.job_seconds(old))}
    r["seeds_raised"] = training_time.seeds_raised(r, pd.Series({"train/a/s0": 120.0}),
                                                   pd.Series({"train/a/s0": 60.0}))
    (tmp_path / "training_time_x.json").write_text(json.dumps(r))
    monkeypatch.setattr(run_all, "RESULTS", tmp_path)
    rows = [row for row in run_all.summary_rows() if "training_time_x" in row or "raised seeds" in row]
    assert rows[0].endswith("| met |") and "(-40.0%" in rows[0]
    assert "2.0 vs 1.7 min (+20.0%)" in rows[1] and rows[1].endswith("| **missed** |")


@pytest.mark.parametrize("args, says", [([], "training_time_ab.sh stage OLD_TREE"),
                                        (["stage", "a"], "stage needs OLD_TREE"),
                                        (["pairs", "a", "b"], "pairs needs TREE")])
def test_the_ab_script_names_what_it_needs(args, says):
    import subprocess
    out = subprocess.run(["bash", str(ROOT / "bench" / "training_time_ab.sh"), *args], capture_output=True, text=True)
    assert out.returncode == 2 and says in out.stderr
