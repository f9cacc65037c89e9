"""The workflow on a real Slurm cluster that tests/slurm/start_slurm.sh installs and starts on this machine:
munge, slurmctld, slurmdbd + MariaDB, and two slurmd, one node per partition: `cpu` (CPUs only, no gres: sbatch
rejects a job that asks it for a GPU) and `gpu` (two fake GPUs as gres). Needs root on Debian; runs when
ATTNREPRO_SLURM=1 (CI sets it). The daemons the harness started are stopped at the end."""

import os
import re
import subprocess
import sys
import time

import pandas as pd
import pytest
import torch
import yaml

from tests.helpers import CORE_EXPERIMENTS, ROOT, core_config, long_training_config, tool_env, user_profile

pytestmark = [
    pytest.mark.slurm,
    pytest.mark.skipif(os.environ.get("ATTNREPRO_SLURM") != "1",
                       reason="set ATTNREPRO_SLURM=1 to start a private Slurm cluster (root, Debian)"),
]

HARNESS = ROOT / "tests" / "slurm"
# status checks every few seconds instead of every 40 (the jobs here take seconds); MinJobAge (600 s) stays
# above 3 x the first wait, so the plugin keeps the profile's squeue status command
FAST_STATUS = ["--slurm-init-seconds-before-status-checks", "1", "--seconds-between-status-checks", "2"]
GPU_RULES = {"train", "export", "evaluate"}
MODEL = "results/models/aed_gru_one_to_one/s0/model.pt"  # the interrupted runs' one training job


def cluster_env() -> dict:
    """The test cluster's GPUs are gres entries without devices: a job given one trains on the CPU (runinfo)."""
    return {**tool_env(), "ATTNREPRO_FAKE_GPUS": "1"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    started = tmp_path_factory.mktemp("slurm") / "started"
    env = {**os.environ, "SLURM_STARTED_FILE": str(started)}
    subprocess.run(["bash", str(HARNESS / "start_slurm.sh")], check=True, env=env, timeout=900)
    yield
    subprocess.run(["bash", str(HARNESS / "stop_slurm.sh")], env=env, timeout=120)


def snakemake_cmd(profile, work, *args):
    """`snakemake --profile ...` from the repository root, as the README says, working in ``work``."""
    return [sys.executable, "-m", "snakemake", "--profile", str(profile), "--directory", str(work), *args]


def profile_run(profile, work, *args, timeout=600, check=True):
    proc = subprocess.run(snakemake_cmd(profile, work, *args), cwd=ROOT, env=cluster_env(), capture_output=True,
                          text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(proc.stdout[-4000:] + proc.stderr[-4000:])
    return proc


def sacct_jobs() -> pd.DataFrame:
    out = subprocess.run(["sacct", "-n", "-X", "-P", "-o", "jobid,partition,nodelist,alloctres,state,comment"],
                         capture_output=True, text=True, check=True).stdout
    rows = [line.split("|") for line in out.splitlines() if line]
    jobs = pd.DataFrame(rows, columns=["jobid", "partition", "node", "tres", "state", "comment"])
    jobs["rule"] = jobs.comment.str.removeprefix("rule_").str.split("_wildcards_").str[0]
    return jobs


def gpu_config(directory, cfg, name):
    """A config that trains on whatever device the job finds (device: auto), so its models ask for a GPU."""
    cfg["device"] = "auto"
    (directory / name).write_text(yaml.safe_dump(cfg))
    return str(directory / name)


def test_the_cpu_partition_rejects_a_gpu_job(cluster):
    """What makes a routing mistake visible: the CPU node has no GPU. And the partition file the README tells a
    user to generate from their cluster says the same."""
    bad = subprocess.run(["sbatch", "-A", "testacct", "-p", "cpu", "--gpus=1", "--wrap", "true"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "Requested node configuration is not available" in bad.stderr, bad
    generated = subprocess.run(["generate-slurm-partition-config"], env=cluster_env(), capture_output=True,
                               text=True, check=True).stdout
    partitions = yaml.safe_load(generated)["partitions"]
    assert partitions["gpu"]["max_gpu"] == 2 and partitions["cpu"].get("max_gpu", 0) == 0


def test_workflow_on_slurm_routes_gpu_jobs_and_matches_a_local_run(cluster, smoke_run, tmp_path):
    local, _ = smoke_run
    before = set(sacct_jobs().jobid)
    cfg = core_config()  # the smoke config's two one-to-one experiments, which the local run also trained
    # plus a small transformer: its test-split `evaluate` job is a GPU job too
    cfg["experiments"]["transformer_one_to_one"] = {
        "task": "one_to_one", "model": {"arch": "transformer", "cell": "ff", "hidden": 16, "layers": 1, "heads": 2,
                                        "max_positions": 32}}
    profile = user_profile(tmp_path / "slurm")
    proc = profile_run(profile, tmp_path, "--configfile", gpu_config(tmp_path, cfg, "core.yaml"), *FAST_STATUS)
    jobs = sacct_jobs()
    # Snakemake's jobs carry their rule in the comment; accounting may record the previous test's rejected sbatch
    # (no comment) only after `before` was read
    jobs = jobs[~jobs.jobid.isin(before) & jobs.comment.str.startswith("rule_")]
    assert (jobs.state == "COMPLETED").all(), jobs
    # data, 3 train, 2 export, 2 analyze, evaluate, the transformer's AER went through Slurm; figures, claims and
    # all ran where snakemake ran
    assert sorted(jobs.rule) == sorted(["data"] + ["train"] * 3 + ["export", "analyze"] * 2
                                       + ["evaluate", "kobayashi2020_aer"]), jobs
    on_gpu = jobs[jobs.tres.str.contains("gres/gpu")]
    assert set(on_gpu.rule) == GPU_RULES and len(on_gpu) == 6, jobs
    assert (on_gpu.tres.str.count("gres/gpu=1") == 1).all() and (on_gpu.partition == "gpu").all(), jobs
    assert (on_gpu.node == "gpunode").all(), jobs
    on_cpu = jobs[~jobs.tres.str.contains("gres/gpu")]
    assert (on_cpu.partition == "cpu").all() and (on_cpu.node == "cpunode").all(), jobs
    assert re.search(r"localrule figure_aitken2021", proc.stdout + proc.stderr)

    # outputs the local run also made, and (CPU, same seeds) the same numbers
    def files(d):
        return {p.relative_to(d).as_posix() for p in (d / "results").rglob("*")
                if p.is_file() and "benchmarks" not in p.parts and "logs" not in p.parts
                and "checkpoints" not in p.parts and "figures" not in p.parts
                and not p.name.startswith("artifact") and "transformer_one_to_one" not in p.parts}
    assert files(tmp_path) - {"results/claims.csv", "results/claims.md"} <= files(local)
    # compared as text: a column that is empty in the rows compared reads as float from one file, str from the other
    ours = pd.read_csv(tmp_path / "results" / "claims.csv", dtype=str, keep_default_na=False)
    ours = ours[ours.experiment.isin(CORE_EXPERIMENTS)]
    theirs = pd.read_csv(local / "results" / "claims.csv", dtype=str, keep_default_na=False)
    theirs = theirs[theirs.experiment.isin(CORE_EXPERIMENTS) & theirs.claim_id.isin(ours.claim_id)]
    pd.testing.assert_frame_equal(ours.reset_index(drop=True), theirs.reset_index(drop=True))
    rel = "results/models/aed_gru_one_to_one/s0-1/metrics.csv"
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / rel), pd.read_csv(local / rel))


def interrupted_training_run(tmp_path, interrupt):
    """The long training config through the profile, left alone but for ``interrupt(job_id)`` once the running
    training job has written a checkpoint; returns (work folder, config, the job's ID, its newest checkpoint's step
    when interrupted, the jobs submitted before)."""
    long_training_config(tmp_path, 2000)
    config = gpu_config(tmp_path, yaml.safe_load((tmp_path / "long.yaml").read_text()), "long_gpu.yaml")
    work = tmp_path / "run"
    # the trained model is the target: the rest of the DAG shows nothing about preemption
    cmd = snakemake_cmd(user_profile(tmp_path / "slurm"), work, "--configfile", config, *FAST_STATUS, MODEL)
    log_path = tmp_path / "snakemake.log"
    before = set(sacct_jobs().jobid)
    ckpt_dir = work / "results" / "checkpoints" / "aed_gru_one_to_one" / "s0"
    with open(log_path, "w") as log_file:  # a file, not a pipe: an unread pipe fills up and blocks snakemake
        run = subprocess.Popen(cmd, cwd=ROOT, env=cluster_env(), stdout=log_file, stderr=subprocess.STDOUT)
        try:
            deadline = time.time() + 300
            while time.time() < deadline and not list(ckpt_dir.glob("ckpt_*.pt")):
                assert run.poll() is None, log_path.read_text()[-4000:]
                time.sleep(0.2)
            assert list(ckpt_dir.glob("ckpt_*.pt")), "no checkpoint appeared"
            queue = subprocess.run(["squeue", "-h", "-o", "%i %P"], capture_output=True, text=True,
                                   check=True).stdout
            train_jobs = [line.split()[0] for line in queue.splitlines() if line.split()[1] == "gpu"]
            assert len(train_jobs) == 1, queue
            step = interrupt(train_jobs[0], ckpt_dir)
            assert run.wait(timeout=500) == 0, log_path.read_text()[-4000:]  # no Ctrl-C: it ends by itself
        finally:
            if run.poll() is None:
                run.kill()
    return work, config, train_jobs[0], step, before


def assert_uninterrupted_weights(work, config, tmp_path):
    """The final weights equal those of an uninterrupted local run of the same job."""
    ref = tmp_path / "ref"
    subprocess.run([sys.executable, "-m", "snakemake", MODEL, "--cores", "2",
                    "--directory", str(ref), "--configfile", config],
                   cwd=ROOT, env=cluster_env(), check=True, capture_output=True)
    a = torch.load(work / MODEL, weights_only=False)["state_dict"]
    b = torch.load(ref / MODEL, weights_only=False)["state_dict"]
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def newest_checkpoint(ckpt_dir) -> int:
    return int(sorted(ckpt_dir.glob("ckpt_*.pt"))[-1].stem.split("_")[1])  # training keeps the last


def test_scancelled_training_job_is_retried_by_snakemake_and_resumes(cluster, tmp_path):
    """scancel a running training job and leave Snakemake alone: with the profile's status command it sees the
    job fail, retries it, and the retry resumes from the last checkpoint to the weights of an uninterrupted run."""
    def cancel(job, ckpt_dir):
        subprocess.run(["scancel", job], check=True)
        deadline = time.time() + 60
        while time.time() < deadline and "CANCELLED" not in subprocess.run(
                ["sacct", "-n", "-X", "-P", "-j", job, "-o", "state"], capture_output=True, text=True).stdout:
            time.sleep(0.2)
        return newest_checkpoint(ckpt_dir)

    work, config, _, killed_at, before = interrupted_training_run(tmp_path, cancel)
    jobs = sacct_jobs()
    train = jobs[~jobs.jobid.isin(before) & (jobs.rule == "train")]
    assert sorted(train.state.str.split().str[0]) == ["CANCELLED", "COMPLETED"], train
    assert 0 < killed_at < 2000
    log = (work / "results" / "logs" / "train" / "aed_gru_one_to_one" / "s0.log").read_text()
    assert f"resuming from step {killed_at}" in log, log[-2000:]
    assert_uninterrupted_weights(work, config, tmp_path)


def test_profile_with_unset_account_fails_before_any_compute(cluster, tmp_path):
    proc = profile_run(ROOT / "slurm", tmp_path, "--configfile", str(ROOT / "config" / "smoke.yaml"),
                       "--slurm-init-seconds-before-status-checks", "1", check=False, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "account CHANGE_ME appears to be invalid" in out
    made = [p for p in tmp_path.glob("results*/**/*") if p.is_file()]  # the smoke config's own results root
    # only the (empty) log Snakemake opened for the job it could not submit
    assert all("logs" in p.parts and p.stat().st_size == 0 for p in made), made



def test_requeued_training_job_resumes_and_finishes_with_the_uninterrupted_weights(cluster, tmp_path):
    """Preemption with PreemptMode=REQUEUE, as `scontrol requeue` does it: the profile submits with --requeue, the
    job goes back to the queue under its ID, Snakemake waits for it (no retry spent), and the rerun resumes from
    its last checkpoint to the weights of an uninterrupted run."""
    def requeue(job, ckpt_dir):
        subprocess.run(["scontrol", "requeue", job], check=True)
        return newest_checkpoint(ckpt_dir)

    work, config, job, requeued_at, before = interrupted_training_run(tmp_path, requeue)
    jobs = sacct_jobs()
    train = jobs[~jobs.jobid.isin(before) & (jobs.rule == "train")]
    assert list(train.jobid) == [job] and list(train.state) == ["COMPLETED"], train  # one job, requeued
    assert 0 < requeued_at < 2000
    log = (work / "results" / "logs" / "train" / "aed_gru_one_to_one" / "s0.log").read_text()
    assert re.search(r"resuming from step \d+", log), log[-2000:]
    assert_uninterrupted_weights(work, config, tmp_path)
