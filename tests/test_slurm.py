"""The workflow on a real single-node Slurm cluster (munge, slurmctld, slurmd, slurmdbd + MariaDB, two fake
GPUs as gres) that tests/slurm/start_slurm.sh installs and starts. Needs root on Debian; runs when
ATTNREPRO_SLURM=1 (CI sets it). The cluster's daemons that the harness started are stopped at the end."""

import os
import re
import subprocess
import sys
import time

import pandas as pd
import pytest
import torch

from conftest import CORE_EXPERIMENTS, ROOT, core_config, long_training_config, tool_env

pytestmark = [
    pytest.mark.slurm,
    pytest.mark.skipif(os.environ.get("ATTNREPRO_SLURM") != "1",
                       reason="set ATTNREPRO_SLURM=1 to start a private Slurm cluster (root, Debian)"),
]

HARNESS = ROOT / "tests" / "slurm"
# what a user edits in slurm/config.yaml, given on the command line instead (the harness's account)
CLUSTER_ARGS = ["--default-resources", "slurm_account=testacct", "slurm_partition=cpu", "mem_mb=1000", "runtime=30",
                "--slurm-init-seconds-before-status-checks", "1", "--seconds-between-status-checks", "2"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    started = tmp_path_factory.mktemp("slurm") / "started"
    env = {**os.environ, "SLURM_STARTED_FILE": str(started)}
    subprocess.run(["bash", str(HARNESS / "start_slurm.sh")], check=True, env=env, timeout=600)
    yield
    subprocess.run(["bash", str(HARNESS / "stop_slurm.sh")], env=env, timeout=120)


def profile_run(work, *args, timeout=600, check=True):
    """`snakemake --profile slurm` from the repository root, as the README says, working in ``work``."""
    cmd = [sys.executable, "-m", "snakemake", "--profile", "slurm", "--directory", str(work), *args]
    proc = subprocess.run(cmd, cwd=ROOT, env=tool_env(), capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(proc.stdout[-4000:] + proc.stderr[-4000:])
    return proc


def sacct_jobs() -> pd.DataFrame:
    out = subprocess.run(["sacct", "-n", "-X", "-P", "-o", "jobid,jobname,partition,alloctres,state,comment"],
                         capture_output=True, text=True, check=True).stdout
    rows = [line.split("|") for line in out.splitlines() if line]
    return pd.DataFrame(rows, columns=["jobid", "name", "partition", "tres", "state", "comment"])


def test_smoke_workflow_on_slurm_matches_a_local_run(cluster, smoke_run, tmp_path):
    local, _ = smoke_run
    before = set(sacct_jobs().jobid)
    core_config(tmp_path)  # the smoke config's two one-to-one experiments, which the local run also trained
    proc = profile_run(tmp_path, "--configfile", str(tmp_path / "core.yaml"), *CLUSTER_ARGS)
    jobs = sacct_jobs()
    jobs = jobs[~jobs.jobid.isin(before)]
    # data, 2 train, 2 export, 2 analyze went through Slurm; figures, claims and all ran locally
    assert len(jobs) == 7, jobs
    assert (jobs.state == "COMPLETED").all(), jobs
    gpu_jobs = jobs[jobs.tres.str.contains("gres/gpu=1")]
    assert len(gpu_jobs) == 4 and (gpu_jobs.partition == "gpu").all(), jobs
    assert (jobs[~jobs.tres.str.contains("gres/gpu")].partition == "cpu").all()
    assert re.search(r"localrule figure_aitken2021", proc.stdout + proc.stderr)
    # outputs the local run also made, and (CPU, same seeds) the same numbers
    def files(d):
        return sorted(p.relative_to(d).as_posix() for p in (d / "results").rglob("*")
                      if p.is_file() and "benchmarks" not in p.parts and "logs" not in p.parts
                      and "checkpoints" not in p.parts and "figures" not in p.parts
                      and not p.name.startswith("artifact"))
    assert set(files(tmp_path)) <= set(files(local))
    ours = pd.read_csv(tmp_path / "results" / "claims.csv")
    theirs = pd.read_csv(local / "results" / "claims.csv")
    theirs = theirs[theirs.experiment.isin(CORE_EXPERIMENTS) & theirs.claim_id.isin(ours.claim_id)]
    pd.testing.assert_frame_equal(ours.reset_index(drop=True), theirs.reset_index(drop=True))
    for chunk in ("s0-1",):
        rel = f"results/models/aed_gru_one_to_one/{chunk}/metrics.csv"
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / rel), pd.read_csv(local / rel))


def test_scancelled_training_job_resumes_on_rerun(cluster, tmp_path):
    """scancel a running training job, stop Snakemake, rerun: the job resumes from its last checkpoint.

    Snakemake must be stopped by hand here because the Slurm executor plugin (2.8.0) reads sacct's state
    'CANCELLED by <uid>' as still running and would wait forever; a user meets the same and reruns."""
    import signal

    long_training_config(tmp_path, 2000)

    work = tmp_path / "run"
    args = ["--configfile", str(tmp_path / "long.yaml"), *CLUSTER_ARGS]
    cmd = [sys.executable, "-m", "snakemake", "--profile", "slurm", "--directory", str(work), *args]
    log_path = tmp_path / "snakemake.log"
    with open(log_path, "w") as log_file:  # a file, not a pipe: an unread pipe fills up and blocks snakemake
        run = subprocess.Popen(cmd, cwd=ROOT, env=tool_env(), stdout=log_file, stderr=subprocess.STDOUT)
        ckpt_dir = work / "results" / "checkpoints" / "aed_gru_one_to_one" / "s0"
        deadline = time.time() + 300
        while time.time() < deadline and not list(ckpt_dir.glob("ckpt_*.pt")):
            assert run.poll() is None, log_path.read_text()[-4000:]
            time.sleep(0.2)
        assert list(ckpt_dir.glob("ckpt_*.pt")), "no checkpoint appeared"
        queue = subprocess.run(["squeue", "-h", "-o", "%i %P"], capture_output=True, text=True, check=True).stdout
        train_jobs = [line.split()[0] for line in queue.splitlines() if line.split()[1] == "gpu"]
        assert len(train_jobs) == 1, queue
        subprocess.run(["scancel", train_jobs[0]], check=True)
        deadline = time.time() + 60
        while time.time() < deadline and "CANCELLED" not in subprocess.run(
                ["sacct", "-n", "-X", "-P", "-j", train_jobs[0], "-o", "state"], capture_output=True,
                text=True).stdout:
            time.sleep(0.5)
        run.send_signal(signal.SIGINT)
        try:
            run.wait(timeout=120)
        except subprocess.TimeoutExpired:  # the plugin may wait on the cancelled job for good: stop it harder,
            run.kill()                     # and unlock the directory as a user would
            run.wait()
            subprocess.run([sys.executable, "-m", "snakemake", "--unlock", "--directory", str(work), *args[:2]],
                           cwd=ROOT, env=tool_env(), check=True, capture_output=True)
    assert not (work / "results" / "models" / "aed_gru_one_to_one" / "s0" / "model.pt").exists()
    killed_at = int(sorted(ckpt_dir.glob("ckpt_*.pt"))[-1].stem.split("_")[1])
    assert 0 < killed_at < 2000

    profile_run(work, *args)
    log = (work / "results" / "logs" / "train" / "aed_gru_one_to_one" / "s0.log").read_text()
    assert f"resuming from step {killed_at}" in log, log[-2000:]

    # identical final weights to an uninterrupted run of the same job
    ref = tmp_path / "ref"
    subprocess.run([sys.executable, "-m", "snakemake", "results/models/aed_gru_one_to_one/s0/model.pt", "--cores", "2",
                    "--directory", str(ref), "--configfile", str(tmp_path / "long.yaml")],
                   cwd=ROOT, env=tool_env(), check=True, capture_output=True)
    a = torch.load(work / "results/models/aed_gru_one_to_one/s0/model.pt", weights_only=False)["state_dict"]
    b = torch.load(ref / "results/models/aed_gru_one_to_one/s0/model.pt", weights_only=False)["state_dict"]
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_profile_with_unset_account_fails_before_any_compute(cluster, tmp_path):
    proc = profile_run(tmp_path, "--configfile", str(ROOT / "config" / "smoke.yaml"),
                       "--slurm-init-seconds-before-status-checks", "1", check=False, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "account CHANGE_ME appears to be invalid" in out
    made = [p for p in (tmp_path / "results").rglob("*") if p.is_file()] if (tmp_path / "results").exists() else []
    # only the (empty) log Snakemake opened for the job it could not submit
    assert all("logs" in p.parts and p.stat().st_size == 0 for p in made), made
