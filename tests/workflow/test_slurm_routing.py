"""Where the Slurm profile sends every job of config/paper.yaml, read from the sbatch lines that the real
snakemake-executor-plugin-slurm writes. Stand-in Slurm commands (tests/slurm/fake_slurm.py) record each line and
let every job fail, so nothing runs; no cluster, no root. The profile is slurm/ as a user edits it: their account,
and each of the two GPU routes (gpu_request: gpus, and gres with a GPU type)."""

import json
import math
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass

import pytest

from tests.helpers import ROOT, tool_env, user_profile

import yaml

from attnrepro.run.cluster import MARGIN, predicted_seconds, read_resources
from attnrepro.run.config import experiment_spec
from attnrepro.snell2021.config import runs as snell_runs

PAPER = ROOT / "config" / "paper.yaml"
RESOURCES = read_resources(ROOT / "workflow" / "resources.yaml")


def local_rules() -> set[str]:
    """Rule names listed under `localrules:` in the Snakefile and the rule files (they never reach sbatch)."""
    names = set()
    for path in [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]:
        for block in re.findall(r"^[ \t]*localrules:\n((?:[ \t]+\w+,?\n)+)", path.read_text(), flags=re.M):
            names.update(re.findall(r"\w+", block))
    return names


@dataclass
class Submission:
    rule: str
    job: str  # the rule and its wildcards (the plugin's --comment)
    attempt: int
    partition: str
    runtime: int
    cpus: int
    gpu_flags: list
    requeue: bool  # sbatch --requeue: a preempted job goes back to the queue

    @classmethod
    def parse(cls, args: list[str]) -> "Submission":
        opts = dict(zip(args, args[1:]))
        comment = opts["--comment"]
        wrap = next(a for a in args if a.startswith("--wrap="))
        return cls(rule=comment.removeprefix("rule_").split("_wildcards_")[0], job=comment,
                   attempt=int(re.search(r"--attempt (\d+)", wrap).group(1)), partition=opts.get("-p", ""),
                   runtime=int(opts["-t"]), cpus=int(next(a for a in args if a.startswith("--cpus-per-task="))
                                                    .split("=")[1]),
                   gpu_flags=[a for a in args if a.startswith(("--gpus", "--gres", "--gpus-per"))],
                   requeue="--requeue" in args)


@pytest.fixture(scope="module")
def paper_tree(tmp_path_factory):
    """A working directory holding every output of the paper config's DAG (empty files, all of one age), and
    the stand-in Slurm commands."""
    base = tmp_path_factory.mktemp("paper_routing")
    work = base / "work"
    summary = subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
                              "--configfile", str(PAPER), "--directory", str(work), "--summary"],
                             cwd=ROOT, env=tool_env(), capture_output=True, text=True, check=True).stdout
    rows = [line.split("\t") for line in summary.splitlines()[1:] if line]
    fake = base / "fake"
    (fake / "bin").mkdir(parents=True)
    for command in ("sbatch", "squeue", "sacct", "sacctmgr", "sshare", "sinfo", "scontrol", "scancel"):
        (fake / "bin" / command).symlink_to(ROOT / "tests" / "slurm" / "fake_slurm.py")
    return work, [row[0] for row in rows], {row[2] for row in rows}, fake


def submit_wave(paper_tree, profile, forced: set[str]) -> list[Submission]:
    """Every output in place, then `--forcerun` the given rules: the plugin submits their jobs that wait for no
    other forced job; each fails, is retried once (attempt 2), fails again."""
    work, outputs, _, fake = paper_tree
    stamp = time.time() - 3600
    for out in outputs:  # Snakemake deletes a job's outputs before it runs: put them back for every wave
        path = work / out
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        os.utime(path, (stamp, stamp))
    (fake / "sbatch.jsonl").unlink(missing_ok=True)
    env = {**tool_env(), "FAKE_SLURM_DIR": str(fake)}
    env["PATH"] = f"{fake / 'bin'}{os.pathsep}{env['PATH']}"
    # what the README runs, plus: the forced rules, and short waits (the stand-in answers at once)
    cmd = [sys.executable, "-m", "snakemake", "--profile", str(profile), "--configfile", str(PAPER),
           "--directory", str(work), "--forcerun", *sorted(forced), "--jobs", "500", "--latency-wait", "0",
           "--slurm-init-seconds-before-status-checks", "1", "--seconds-between-status-checks", "1"]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    log = fake / "sbatch.jsonl"
    assert log.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return [Submission.parse(json.loads(line)) for line in log.read_text().splitlines()]


def all_submissions(paper_tree, profile, rules: set[str]) -> list[Submission]:
    """The sbatch lines of every job of ``rules``, wave after wave down the DAG."""
    seen, subs = set(), []
    while rules - seen:
        wave = submit_wave(paper_tree, profile, rules - seen)
        new = {s.rule for s in wave} - seen
        assert new, f"no job of {sorted(rules - seen)} was submitted"
        subs += [s for s in wave if s.rule in new]
        seen |= new
    return subs


# the rules whose command picks a torch device: every one of them trains or runs a model (config device: auto)
DEVICE_RULES = {"train", "export", "evaluate", "snell2021_train", "snell2021_candidates", "snell2021_multihead",
                "snell2021_export"}


@pytest.fixture(scope="module")
def dry_run_resources(tmp_path_factory):
    """Rule -> the resources and command of each of its jobs in a dry run of config/paper.yaml, as printed."""
    out = subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "-n", "-p",
                          "--configfile", str(PAPER), "--directory", str(tmp_path_factory.mktemp("paper_dry"))],
                         cwd=ROOT, env=tool_env(), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    jobs: dict[str, list[tuple[str, str]]] = {}
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", out.stdout):
        head = re.match(r"(?:local)?rule (\w+):", block)
        resources = re.search(r"^\s+resources: (.*)$", block, flags=re.M)
        if head:
            jobs.setdefault(head.group(1), []).append((resources.group(1) if resources else "", block))
    return jobs


def gpu_rules(jobs) -> set[str]:
    """The rules whose jobs ask for a GPU, read from their resources (the rules say it, no list here)."""
    return {rule for rule, js in jobs.items() if any(re.search(r"\b(gpu|gres)=", r) for r, _ in js)}


def test_every_job_that_runs_a_model_asks_for_one_gpu(dry_run_resources):
    """Every train, export and evaluation job of the three papers (Snell's included): one GPU; nothing else."""
    jobs = dry_run_resources
    rules = gpu_rules(jobs)
    by_command = {rule for rule, js in jobs.items() if any(" --device " in cmd for _, cmd in js)}
    assert rules == by_command and DEVICE_RULES <= rules, (sorted(rules), sorted(by_command))
    for rule in rules:
        assert all(re.search(r"\bgpu=1\b", r) for r, _ in jobs[rule]), rule


def check_routing(subs: list[Submission], gpu_flag: str, gpu_rules: set[str]):
    assert all(s.requeue for s in subs)  # the profile's slurm-requeue
    for s in subs:
        if s.gpu_flags:  # any job that asks for a GPU, whichever rule: on the GPU partition, one request
            assert s.partition == "gpu" and s.gpu_flags == [gpu_flag], s
        else:
            assert s.partition == "cpu", s
    assert {s.rule for s in subs if s.gpu_flags} == gpu_rules
    assert all(s.cpus == 4 for s in subs if s.rule in gpu_rules)  # paper.yaml's threads
    # a retry (the next segment of a long run, or a second try) asks for the time of the first attempt, never
    # more than the partition allows (slurm/partitions.yaml's max_runtime)
    first = {s.job: s.runtime for s in subs if s.attempt == 1}
    again = [(first[s.job], s.runtime) for s in subs if s.attempt == 2]
    assert again and all(t2 == t1 for t1, t2 in again), again
    caps = yaml.safe_load((ROOT / "slurm" / "partitions.yaml").read_text())["partitions"]
    assert all(s.runtime <= caps[s.partition]["max_runtime"] for s in subs)


def test_gpu_route_sends_every_gpu_job_to_the_gpu_partition_with_one_request(paper_tree, dry_run_resources,
                                                                            tmp_path):
    _, _, rules, _ = paper_tree
    subs = all_submissions(paper_tree, user_profile(tmp_path / "slurm", "gpus"), rules - local_rules())
    assert {s.rule for s in subs} == rules - local_rules()  # every rule that runs on the cluster was seen
    check_routing(subs, "--gpus=1", gpu_rules(dry_run_resources))
    # each training job asks for its own predicted time (workflow/reference/paper_cost.json, rescaled to the job's
    # steps where the row was measured per step) × the margin, or the cap
    cost = json.loads((ROOT / "workflow" / "reference" / "paper_cost.json").read_text())
    cap = yaml.safe_load((ROOT / "slurm" / "partitions.yaml").read_text())["partitions"]["gpu"]["max_runtime"]
    cfg = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    steps = {**{name: experiment_spec(cfg, name)["train"]["steps"] for name in cfg["experiments"]},
             **{run: spec["train"]["steps"] for run, spec in snell_runs(cfg["snell2021"]).items()}}
    for s in (s for s in subs if s.rule in ("train", "snell2021_train") and s.attempt == 1):
        job = re.sub(r"_s[\d-]+$", "", s.job.split("_wildcards_")[1])  # the experiment (less its seeds) or run
        row = next((r for r in cost["rows"] if r["rule"] == s.rule and r["job"] == job and r["s"]), None)
        if row is not None:
            seconds = predicted_seconds(cost, s.rule, job, steps[job])
            assert s.runtime == min(cap, max(10, math.ceil(MARGIN * seconds / 60))), (s, row)


def test_gres_route_gives_one_gres_request_and_no_gpus_flag(paper_tree, dry_run_resources, tmp_path):
    """One wave (the GPU rules that wait for no other): every GPU rule's request comes from the same resources
    (the dry-run test above) through one mapping (the last test), so the first wave shows the route; the gpus
    route's test walks every wave."""
    wanted = gpu_rules(dry_run_resources)
    subs = submit_wave(paper_tree, user_profile(tmp_path / "slurm", "gres:a100"), wanted)
    first = {s.rule for s in subs if s.gpu_flags}
    assert {"train", "snell2021_train"} <= first, first
    check_routing(subs, "--gres=gpu:a100:1", first)


def test_a_cpu_config_asks_for_no_gpu(tmp_path):
    """device: cpu (the smoke config) trains on the CPU: its jobs ask for no GPU and go to the CPU partition."""
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "-n",
                           "--configfile", str(ROOT / "config" / "smoke.yaml"), "--directory", str(tmp_path)],
                          cwd=ROOT, env=tool_env(), capture_output=True, text=True, check=True)
    train = proc.stdout[proc.stdout.index("rule train:"):]
    resources = re.search(r"resources: (.*)", train).group(1)
    assert f"mem_mb={RESOURCES['train']['mem_mb']}," in resources and not re.search(r"\bgpu|gres", resources), resources


def test_profile_names_no_rule_and_rejects_an_unknown_gpu_request(tmp_path):
    """Routing lives in the partitions file, not in a list of rule names; a misspelt gpu_request stops the run
    with the allowed values before any job."""
    text = (ROOT / "slurm" / "config.yaml").read_text()
    assert "set-resources" not in text and not re.search(r"^\s*(train|export|evaluate):", text, flags=re.M)
    profile = user_profile(tmp_path / "slurm", "gpus:a100")
    bad = (profile / "config.yaml").read_text().replace('gpu_request: "gpus:a100"', 'gpu_request: "gpu:a100"')
    (profile / "config.yaml").write_text(bad)
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--profile", str(profile), "-n",
                           "--configfile", str(ROOT / "config" / "smoke.yaml"), "--directory", str(tmp_path / "w")],
                          cwd=ROOT, env=tool_env(), capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "gpu_request='gpu:a100'" in out and "gres:<type>" in out, out[-2000:]
    assert "Traceback" not in out and len(out.strip().splitlines()) < 8, out


def test_gpu_requests_map_to_one_plugin_resource():
    from attnrepro.run.cluster import gpu_resources

    assert gpu_resources(None, 1) == {"gpu": 1}
    assert gpu_resources("gpus:a100", 2) == {"gpu": 2, "gpu_model": "a100"}
    assert gpu_resources("gres", 1) == {"gres": "gpu:1"}
    assert gpu_resources("'gres:h100'", 1) == {"gres": "gpu:h100:1"}
    assert gpu_resources("gres:a100", 0) == {}
