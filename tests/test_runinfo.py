"""The run line every job's log starts with (host, device, torch, CUDA), the stop of a job that was given a GPU
torch cannot use, and `make install TORCH_INDEX=…` changing torch in an existing environment (issue 30)."""

import os
import socket
import stat
import subprocess

import pytest
import torch

from attnrepro import runinfo
from attnrepro.cli import main
from conftest import ROOT


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
