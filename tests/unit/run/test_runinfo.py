"""The run line every job's log starts with (host, device, torch, CUDA), the stop of a job that was given a GPU
torch cannot use, and `make install TORCH_INDEX=…` changing torch in an existing environment."""

import os
from pathlib import Path
import socket
import stat
import subprocess

import pytest
import torch

from attnrepro.run import runinfo
from attnrepro.cli import main
from tests.helpers import ROOT


def test_the_record_and_its_line_name_host_device_torch_and_cuda():
    rec = runinfo.record(torch.device("cpu"))
    assert rec["host"] == socket.gethostname() and rec["device"] == "cpu"
    assert rec["torch"].split("+")[0] == torch.__version__.split("+")[0]
    assert rec["cuda"] == (torch.version.cuda or "none")
    line = runinfo.line(rec)
    assert line.startswith("run: ") and "\n" not in line
    assert f"host {rec['host']}" in line and f"torch {rec['torch']}" in line and f"CUDA {rec['cuda']}" in line


def test_cuda_version_is_read_without_importing_torch(monkeypatch):
    import sys

    monkeypatch.delitem(sys.modules, "torch")
    assert runinfo._torch_cuda() == (torch.version.cuda or "none")


@pytest.mark.parametrize("env, given", [
    ({}, None), ({"SLURM_GPUS_ON_NODE": "0"}, None), ({"SLURM_JOB_GPUS": "0"}, "SLURM_JOB_GPUS=0"),
    ({"SLURM_GPUS_ON_NODE": "1"}, "SLURM_GPUS_ON_NODE=1"), ({"SLURM_STEP_GPUS": "(null)"}, None)])
def test_a_gpu_given_by_the_scheduler_is_read_from_its_variables(env, given):
    assert runinfo.gpu_given(env) == given


def test_every_command_logs_the_run_line_first(tmp_path, capsys):
    assert main(["snell2021", "export", "--model", str(tmp_path / "none.pt"), "--out-dir", str(tmp_path),
                 "--device", "cpu"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("run: host ") and "device cpu" in err[0] and "none.pt" in err[1]


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_a_job_given_a_gpu_without_cuda_stops_with_the_run_line(tmp_path, capsys, monkeypatch):
    """Under Slurm with --gpus, a CPU-only torch and device: auto would train on the CPU: it stops instead."""
    monkeypatch.setenv("SLURM_JOB_GPUS", "0")
    rc = main(["snell2021", "train", "copy_same", "--spec-json", "{}", "--ckpt-dir", str(tmp_path / "c"),
               "--out-dir", str(tmp_path / "o"), "--device", "auto"])
    err = capsys.readouterr().err.splitlines()
    assert rc == 2 and err[0].startswith("run: ") and len(err) == 2, err
    assert "given a GPU (SLURM_JOB_GPUS=0)" in err[1] and "TORCH_INDEX" in err[1]
    assert not (tmp_path / "c").exists() and not (tmp_path / "o").exists()
    monkeypatch.setenv("SLURM_JOB_GPUS", "0")  # device: cpu, asked for explicitly, runs on the CPU
    assert runinfo.check_gpu("cpu") is None


def test_make_install_with_another_torch_index_reinstalls_torch(tmp_path):
    """An environment built from the CPU index; `make install TORCH_INDEX=<cuda index>` swaps torch (same
    version, other build) and records the index; the same command again changes nothing. A stand-in python
    records the pip calls."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    calls = tmp_path / "calls"
    fake = venv / "bin" / "python"
    fake.write_text(f'#!/bin/sh\necho "$*" >> {calls}\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    (venv / "bin" / "attnrepro").touch()  # newer than the lock: the environment is up to date
    (venv / "torch-index").write_text("https://download.pytorch.org/whl/cpu\n")
    cuda = "https://download.pytorch.org/whl/cu128"

    def make():
        return subprocess.run(["make", "-s", "install", f"VENV={venv}", f"TORCH_INDEX={cuda}"], cwd=ROOT,
                              capture_output=True, text=True, env={**os.environ, "MAKEFLAGS": ""}, check=True)

    make()
    pip = [c for c in calls.read_text().splitlines() if c.startswith("-m pip")]
    assert pip[0] == "-m pip uninstall --quiet --yes torch"
    assert pip[1].startswith(f"-m pip install --quiet --extra-index-url {cuda} -c requirements.txt torch==")
    assert (venv / "torch-index").read_text().strip() == cuda
    calls.unlink()
    make()
    assert not [c for c in calls.read_text().splitlines() if c.startswith("-m pip")]


def test_runtime_plan_uses_the_margin_the_cap_and_segments():
    from attnrepro.run.cluster import MARGIN, plan_minutes

    assert plan_minutes(600, 999, 1440) == (max(10, round(MARGIN * 10)), 1)  # 10 min predicted
    assert plan_minutes(60, 999, 1440) == (10, 1)                           # at least 10 minutes
    assert plan_minutes(None, 270, 1440) == (270, 1)                        # unmeasured: the rule's default
    minutes, parts = plan_minutes(3643 * 60, 999, 1440)                     # mt_bible_learned: 61 h
    assert minutes == 1440 and parts == -(-round(MARGIN * 3643) // (1440 - 10))
    assert plan_minutes(10**6, 999, None) == (-(-MARGIN * 10**6 // 60), 1)  # no cap: one job


def test_rule_retries_follow_the_longest_job_up_to_the_cap():
    from attnrepro.run.cluster import MAX_RETRIES, rule_retries

    assert rule_retries([]) == 1 and rule_retries([1, 1]) == 1
    assert rule_retries([1, 3, 2]) == 3                          # the longest job's segments
    assert rule_retries([1, MAX_RETRIES + 162]) == MAX_RETRIES   # never more: a crash is not retried 170 times


def test_predicted_seconds_rescale_to_the_config_steps_and_bound_unmeasured_runs():
    from attnrepro.run.cluster import predicted_seconds

    cost = {"rows": [{"rule": "t", "job": "a", "s": 100.0, "source": "10 steps × 9.5 s/step × 1.05"},
                     {"rule": "t", "job": "b", "s": 40.0, "source": "20 steps × 2 s/step"},
                     {"rule": "t", "job": "c", "s": None, "source": "not measured"},
                     {"rule": "e", "job": "each", "s": 7.0, "source": "paper slice"}]}
    assert predicted_seconds(cost, "t", "a", 20) == 200.0
    assert predicted_seconds(cost, "t", "c", 5) == 50.0  # the slowest step of the rule (a: 10 s) × 5
    assert predicted_seconds(cost, "e", "x", None) == 7.0
    assert predicted_seconds(cost, "z", "x", 5) is None


def test_partition_cap_is_the_longest_limit_that_holds_the_job(tmp_path):
    from attnrepro.run.cluster import partition_cap

    path = tmp_path / "p.yaml"
    path.write_text("partitions:\n  cpu: {max_gpu: 0, max_runtime: 300}\n  gpu: {max_gpu: 4, max_runtime: 2880}\n"
                    "  big: {max_gpu: 0, max_runtime: 600}\n")
    assert partition_cap(path, gpu=True) == 2880 and partition_cap(path, gpu=False) == 2880
    path.write_text("partitions:\n  gpu: {max_gpu: 4}\n")
    assert partition_cap(path, gpu=True) is None


def test_a_run_past_its_time_budget_checkpoints_exits_and_resumes_to_the_same_weights(tmp_path):
    """The segment of a long run: the budget ends the job with a checkpoint (status 75 from the CLI); the next
    attempt resumes and finishes with the weights of an uninterrupted run."""
    import io

    from attnrepro.training import engine
    from attnrepro.data import tasks
    from attnrepro.training.config import TrainConfig
    from attnrepro.data.vocab import Vocab, encode
    from attnrepro.seq2seq.model import ModelConfig
    from attnrepro.seq2seq.train import train

    task = dict(kind="one_to_one", n_words=3, min_len=3, max_len=5, n_train=32, n_valid=4, n_test=4, seed=0)
    vocab = Vocab.from_words(*tasks.words(task))
    splits = tasks.generate(task)
    tr, va = encode(splits["train"], vocab), encode(splits["valid"], vocab)
    cfg = ModelConfig("aed", "gru", 8, len(vocab.src), len(vocab.tgt), attention="dot")
    steps = TrainConfig.from_dict(dict(steps=6, batch_size=4, lr=0.01, lr_decay=1.0, betas=[0.9, 0.99], eps=1e-8,
                                       grad_clip=1.0, l2=0.0, checkpoint_every=100, eval_every=3, n_eval=4))

    def run(ckpt):
        return train(cfg, steps, [0, 1], tr, va, ckpt, sos=vocab.tgt.index("<sos>"), log=io.StringIO())

    whole, _ = run(tmp_path / "whole")
    engine.set_time_budget(1e-9)  # spent at once: stop after the first step
    try:
        with pytest.raises(engine.SegmentEnd, match="time budget spent at step 1/6"):
            run(tmp_path / "parts")
    finally:
        engine.set_time_budget(None)
    assert list((tmp_path / "parts").glob("ckpt_*.pt"))
    resumed, metrics = run(tmp_path / "parts")
    assert all(torch.equal(a, b) for a, b in zip(whole.state_dict().values(), resumed.state_dict().values()))


def test_jobs_run_the_attnrepro_of_the_snakemake_environment_whatever_path_holds(tmp_path):
    """`.venv/bin/snakemake` without activating the environment: PATH has no attnrepro, the job still finds it."""
    import shutil
    import sys

    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["PATH"] = "/usr/bin:/bin"
    assert shutil.which("attnrepro", path=env["PATH"]) is None
    cfg = (ROOT / "config" / "smoke.yaml").read_text()
    (tmp_path / "smoke.yaml").write_text(cfg)
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "--cores", "1",
                           "--directory", str(tmp_path), "results_smoke/data/one_to_one/vocab.json",
                           "--configfile", "smoke.yaml"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tmp_path / "results_smoke" / "data" / "one_to_one" / "vocab.json").is_file()
    log = (tmp_path / "results_smoke" / "logs").rglob("*.log")
    assert any(p.read_text().startswith("run: host ") for p in log)  # the job's log starts with the run line


def test_snakemake_from_an_environment_without_attnrepro_stops_before_any_job(tmp_path):
    """The same interpreter seen from a folder that has no attnrepro (as Snakemake of another environment)."""
    import sys
    import sysconfig

    base = tmp_path / "otherenv"
    (base / "bin").mkdir(parents=True)
    (base / "bin" / "python").symlink_to(sys.executable)
    (base / "pyvenv.cfg").write_text((Path(sys.prefix) / "pyvenv.cfg").read_text())
    (base / "lib").symlink_to(Path(sysconfig.get_paths()["purelib"]).parents[1])
    proc = subprocess.run([str(base / "bin" / "python"), "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
                           "-n", "--directory", str(tmp_path / "w"), "--configfile",
                           str(ROOT / "config" / "smoke.yaml")], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PATH": "/usr/bin:/bin"}, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "attnrepro is not installed in the environment running Snakemake" in out, out
    assert "Traceback" not in out and not (tmp_path / "w" / "results_smoke").exists()
