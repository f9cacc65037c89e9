"""Preemption on a workstation: a training job SIGKILLed mid-run is retried by Snakemake (`retries:`) and resumes
from its checkpoint; Snakemake itself SIGKILLed leaves nothing that a rerun would reuse."""

import os
import signal
import subprocess
import sys
import time

import pytest
import torch
from tests.helpers import ROOT, job_counts, long_training_config, snakemake, tool_env

pytestmark = pytest.mark.slow


def start(work, *args):
    log = open(work / "snakemake.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
                             "--directory", str(work), *args], cwd=work, env=tool_env(), stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    return proc, log


def wait_for_checkpoint(work, proc, timeout=120):
    ckpt = work / "results" / "checkpoints" / "aed_gru_one_to_one" / "s0"
    deadline = time.time() + timeout
    while time.time() < deadline and not list(ckpt.glob("ckpt_*.pt")):
        assert proc.poll() is None, (work / "snakemake.log").read_text()[-3000:]
        time.sleep(0.1)
    assert list(ckpt.glob("ckpt_*.pt"))


def train_pids(work):
    """The python processes of `attnrepro train` jobs running in ``work`` (not their bash wrappers)."""
    out = subprocess.run(["pgrep", "-f", "attnrepro train"], capture_output=True, text=True).stdout
    pids = []
    for pid in map(int, out.split()):
        try:
            exe = os.path.basename(os.readlink(f"/proc/{pid}/exe"))
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if exe.startswith("python") and os.path.samefile(cwd, work):
            pids.append(pid)
    return pids


@pytest.fixture
def cleanup():
    procs = []
    yield procs
    for proc in procs:  # never leave a workflow running after a failed test
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_killed_training_is_retried_and_resumes(tmp_path, cleanup):
    name = long_training_config(tmp_path, 1500)
    proc, log = start(tmp_path, "results/models/aed_gru_one_to_one/s0/model.pt", "--cores", "1",
                      "--configfile", name)
    cleanup.append(proc)
    wait_for_checkpoint(tmp_path, proc)
    pids = train_pids(tmp_path)
    assert len(pids) == 1
    os.kill(pids[0], signal.SIGKILL)
    assert proc.wait(timeout=300) == 0, (tmp_path / "snakemake.log").read_text()[-3000:]
    log.close()
    text = (tmp_path / "snakemake.log").read_text()
    assert "Error in rule train" in text  # the kill was seen ...
    train_log = (tmp_path / "results" / "logs" / "train" / "aed_gru_one_to_one" / "s0.log").read_text()
    assert "resuming from step" in train_log  # ... and the retry resumed

    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / name).write_text((tmp_path / name).read_text())
    snakemake("results/models/aed_gru_one_to_one/s0/model.pt", "--cores", "1", "--configfile", name, cwd=ref)
    a = torch.load(tmp_path / "results/models/aed_gru_one_to_one/s0/model.pt", weights_only=False)["state_dict"]
    b = torch.load(ref / "results/models/aed_gru_one_to_one/s0/model.pt", weights_only=False)["state_dict"]
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_killed_workflow_leaves_nothing_to_reuse(tmp_path, cleanup):
    name = long_training_config(tmp_path, 1500)
    proc, log = start(tmp_path, "--cores", "1", "--configfile", name)
    cleanup.append(proc)
    wait_for_checkpoint(tmp_path, proc)
    os.killpg(proc.pid, signal.SIGKILL)  # snakemake and its job, at once
    proc.wait()
    log.close()
    model_dir = tmp_path / "results" / "models" / "aed_gru_one_to_one" / "s0"
    assert not (model_dir / "model.pt").exists() and not (model_dir / "metrics.csv").exists()
    dry = snakemake("-n", "--configfile", name, cwd=tmp_path)
    assert job_counts(dry.stdout)["train"] == 1  # planned again, from its checkpoint, not taken as done
