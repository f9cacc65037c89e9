"""bench/gpu.py's arithmetic: the paper config's GPU-hours from measured seconds per step, the
evaluation overhead from the copy block's own jobs, and the one JSON collected from a device run's files."""

import json
import sys
import tarfile

import pytest
import yaml

from tests.helpers import ROOT, import_script

gpu = import_script("bench/gpu.py")

PAPER = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())


def test_gpu_hours_is_steps_times_seconds_per_step_times_overhead():
    jobs = [{"rule": "train", "job": "a", "shape": "s1", "steps": 1000},
            {"rule": "train", "job": "b", "shape": "s1", "steps": 3000},
            {"rule": "snell2021_train", "job": "c", "shape": "s2", "steps": 200},
            {"rule": "snell2021_train", "job": "d", "shape": "s3", "steps": 200}]
    shapes = {"s1": {"s_per_step": 0.02, "peak_gpu_mb": 500.0}, "s2": {"s_per_step": 0.5, "peak_gpu_mb": 9000.0},
              "s3": {"error": "corpus imdb needs a download"}}
    rows, rules = gpu.gpu_hours(jobs, shapes, overhead=1.5)
    assert [r["s"] for r in rows[:3]] == pytest.approx([30.0, 90.0, 150.0]) and rows[3]["s"] is None
    assert rows[3]["why_not"] == "corpus imdb needs a download"
    assert rules["train"] == pytest.approx({"gpu_hours": 120 / 3600, "jobs": 2, "not_timed": 0, "largest_s": 90.0,
                                            "largest_peak_gpu_mb": 500.0})
    assert rules["snell2021_train"]["not_timed"] == 1 and rules["snell2021_train"]["gpu_hours"] == \
        pytest.approx(150 / 3600)


def test_block_overhead_is_the_median_job_over_its_steps():
    jobs = [{"rule": "snell2021_train", "job": n, "shape": "s", "steps": 100} for n in ("x", "y", "z")]
    shapes = {"s": {"s_per_step": 0.1}}
    assert gpu.block_overhead({"x": 12.0, "y": 15.0, "z": 30.0, "other": 1.0}, jobs, shapes) == pytest.approx(1.5)
    assert gpu.block_overhead({}, jobs, shapes) is None


def test_every_training_job_of_the_paper_config_has_a_shape_paper_cost_measures():
    import paper_cost

    jobs = gpu.training_jobs(PAPER)
    assert {j["job"] for j in jobs if j["rule"] == "train"} == set(PAPER["experiments"])
    measured = {paper_cost.shape(PAPER, n) for n in PAPER["experiments"]}
    assert {j["shape"] for j in jobs if j["rule"] == "train"} == measured
    assert all(j["steps"] > 0 for j in jobs)
    assert not [j for j in jobs if j["job"].startswith("multihead_")]


def test_collect_reads_a_device_run_and_says_what_is_missing(tmp_path, monkeypatch):
    jobs = gpu.training_jobs(PAPER)
    copy_same = next(j for j in jobs if j["job"] == "copy_same")
    (tmp_path / "gpu_step_times.json").write_text(json.dumps({"shapes": {copy_same["shape"]: {
        "s_per_step": 0.05, "peak_gpu_mb": 2000.0}}}))
    bench = tmp_path / "results_paper" / "benchmarks" / "snell2021" / "train"
    bench.mkdir(parents=True)
    (bench / "copy_same.tsv").write_text("s\th:m:s\n" + f"{copy_same['steps'] * 0.05 * 2:.1f}\t0:00:20\n")
    with tarfile.open(tmp_path / "snell_run.tgz", "w:gz") as tar:
        tar.add(tmp_path / "results_paper", arcname="results_paper")
    out = tmp_path / "gpu.json"
    monkeypatch.setattr(sys, "argv", ["gpu.py", "collect", "--from", str(tmp_path), "--out", str(out)])
    gpu.main()
    got = json.loads(out.read_text())
    assert got["missing"] == ["gpu_snell.json", "gpu_stacked_training.json"]
    assert got["eval_overhead"] == pytest.approx(2.0) and got["copy_block_job_s"] == {"copy_same": pytest.approx(
        copy_same["steps"] * 0.1)}
    row = next(r for r in got["jobs"] if r["job"] == "copy_same")
    assert row["s"] == pytest.approx(copy_same["steps"] * 0.05 * 2.0) and row["peak_gpu_mb"] == 2000.0


def test_the_benchmark_summary_reads_the_gpu_ratios_from_gpu_json(tmp_path):
    import run_all

    assert "bench/gpu_device.sh" in run_all.gpu_row(tmp_path / "absent.json")
    g = {"device": {"device": "NVIDIA H200"}, "snell_copy": {"speedup_vs_sequential": 12.0},
         "aitken_stacked_vs_sequential": [{"cell": "gru", "speedup": 14.2}, {"cell": "lstm", "speedup": 9.5}]}
    (tmp_path / "gpu.json").write_text(json.dumps(g))
    row = run_all.gpu_row(tmp_path / "gpu.json")
    assert "NVIDIA H200: gru 14.2×, lstm 9.5×, Snell copy 12.0×" in row and row.endswith("| **missed** |")
    g["aitken_stacked_vs_sequential"][1]["speedup"] = 10.5
    (tmp_path / "gpu.json").write_text(json.dumps(g))
    assert run_all.gpu_row(tmp_path / "gpu.json").endswith("| met |")

