"""What the paper config's Fig. 6 block (Snell et al. 2021, §5.2) costs on this CPU, as a ratio to the
learned copy run ``copy_same`` whose real cost is known (1,558 s for its 200 steps of 20 stacked seeds with its 22
evaluations, docs/deviations.md).

The machine is shared with long runs, so absolute seconds are inflated; what is measured is a ratio within one
invocation. Three jobs of ``--config``'s ``snell2021`` block, each through the real code path
(:func:`attnrepro.snell2021.runs.train`, the engine, the run's own model, data, held-out set and probes), one after
the other, each in a child process of its own (so each has its own peak memory):

- ``copy_same``: the run as the workflow trains it (20 seeds, LSTM, L 40, width 256);
- ``candidates``: one round of :func:`attnrepro.snell2021.multihead.candidates` (candidate head seeds, trial data
  seeds and the backbone as round 0 builds them). The real round stacks ``candidates_per_round`` × ``trials``
  members; ``--candidates`` stacks fewer (the first candidates' trials) to keep this run short and in memory, and
  the prediction scales the round by members (a stacked step's work is per member);
- ``khead``: one K-head job (``n_combos`` models of ``heads`` heads, the random kind's spec; the heads are any
  distinct candidate seeds: the cost does not depend on their labels).

Each trains ``1 + --steps + 1`` steps with one evaluation, after the last: the first step is a warm-up (setup,
first allocations), the next ``--steps`` are timed one by one (``on_step``), and the last one's time less a
median step is the evaluation (the run's own held-out set and probes). A job's predicted seconds are those of
``copy_same`` scaled by (steps × s/step + evaluations × s/evaluation), each run's own counts, over the same
for ``copy_same``. The block: ``rounds`` candidates rounds (until ``n_good`` good and ``n_bad`` bad heads are
labelled, at most ``max_rounds``; the yield of good and bad heads at the paper's scale is not known before the run,
so the script reports the totals for every number of rounds, and the rounds the default config's measured yield
would need: studies/snell2021/results/snell_multihead_effects.json) and one K-head job per kind (three), one job
at a time on ``--cores 2``. Writes ``bench/results/snell_multihead_cost.json``; ``--predict-only`` recomputes its prediction.

    nice -n 10 python bench/snell_multihead_cost.py [--config config/paper.yaml] [--steps 3] [--candidates 32]
                                                    [--threads 4] [--copy-seconds 1558]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT / "src"))

# the default config's candidates round: its labels
YIELD = ROOT / "studies" / "snell2021" / "results" / "snell_multihead_effects.json"
COPY_SECONDS = 1558.0  # copy_same of config/paper.yaml on this CPU, 200 steps and 22 evaluations (docs/deviations.md)
JOBS = ("copy_same", "candidates", "khead")


def job_spec(block: dict, job: str, n_candidates: int | None) -> dict:
    """The spec ``job`` trains in the workflow (a candidates round: round 0's members, the first ``n_candidates``
    candidates with every trial)."""
    import numpy as np

    from attnrepro.snell2021 import config as snellcfg
    from attnrepro.snell2021 import multihead

    specs = snellcfg.runs(block)
    m = block["multihead"]
    if job == "copy_same":
        return specs["copy_same"]
    if job == "candidates":
        heads = multihead.candidate_heads(m["backbone_seed"], n_candidates or m["candidates_per_round"])
        return {**specs["multihead_candidates"], "members": multihead.round_members(m["backbone_seed"], heads,
                                                                                    m["trials"])}
    pool = multihead.candidate_heads(m["backbone_seed"], m["candidates_per_round"])
    sets = multihead.distinct_sets(np.random.default_rng(0), pool, m["heads"], m["n_combos"])
    return {**specs["multihead_random"], "members": multihead.khead_members(m["backbone_seed"], sets)}


def evaluations(train: dict) -> int:
    """How many evaluations a run of ``train`` makes (engine.is_eval_step over 0 … steps)."""
    from attnrepro.training.config import TrainConfig
    from attnrepro.training.engine import is_eval_step

    cfg = TrainConfig.from_dict(train)
    return sum(is_eval_step(cfg, s) for s in range(cfg.steps + 1))


def time_job(config: str, job: str, steps: int, n_candidates: int | None, threads: int) -> dict:
    """Seconds per training step and per evaluation of ``job`` (run in this process)."""
    import torch

    from attnrepro.snell2021 import runs

    torch.set_num_threads(threads)
    block = yaml.safe_load((ROOT / config).read_text())["snell2021"]
    spec = job_spec(block, job, n_candidates)
    real = spec["train"]
    total = steps + 2
    spec = {**spec, "train": {**real, "steps": total, "eval_every": total, "eval_at": [],
                              "checkpoint_every": total + 1}}
    marks = [time.perf_counter()]
    with tempfile.TemporaryDirectory() as ckpt:
        runs.train(spec, ckpt, name=job, log=io.StringIO(), on_step=lambda _: marks.append(time.perf_counter()))
    gaps = [b - a for a, b in zip(marks, marks[1:])]   # gaps[0]: setup + warm-up step; gaps[-1]: step + evaluation
    per_step = statistics.median(gaps[1:-1])
    return {"job": job, "members": len(spec["members"]), "threads": threads, "timed_steps": gaps[1:-1],
            "s_per_step": per_step, "s_per_eval": max(gaps[-1] - per_step, 0.0), "warmup_s": gaps[0],
            "real_steps": real["steps"], "real_evaluations": evaluations(real), "n_eval": real.get("n_eval"),
            "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def predict(measured: dict, block: dict, copy_seconds: float) -> dict:
    """Each job's seconds scaled from ``copy_same``'s known cost; the block's totals per number of rounds."""
    m = block["multihead"]

    def work(r: dict, scale: float = 1.0) -> float:
        return scale * (r["real_steps"] * r["s_per_step"] + r["real_evaluations"] * r["s_per_eval"])

    copy = measured["copy_same"]
    round_members = m["candidates_per_round"] * m["trials"]
    scale = round_members / measured["candidates"]["members"]
    per_round = copy_seconds * work(measured["candidates"], scale) / work(copy)
    khead = copy_seconds * work(measured["khead"]) / work(copy)
    rounds_min = -(-(m["n_good"] + m["n_bad"]) // m["candidates_per_round"])  # every candidate good or bad
    totals = {r: r * per_round + len(("all_bad", "one_good", "random")) * khead
              for r in range(rounds_min, m["max_rounds"] + 1)}
    expected = rounds_at_default_yield(m)
    return {"copy_seconds": copy_seconds,
            "ratio_step": {j: measured[j]["s_per_step"] / copy["s_per_step"] for j in ("candidates", "khead")},
            "ratio_eval": {j: measured[j]["s_per_eval"] / copy["s_per_eval"] for j in ("candidates", "khead")},
            "round_members": round_members, "candidates_scale": scale,
            "round_s": per_round, "khead_job_s": khead, "khead_jobs": 3,
            "rounds_min": rounds_min, "rounds_max": m["max_rounds"],
            "block_s_by_rounds": totals, "rounds_at_default_yield": expected,
            "block_s_at_default_yield": totals.get(expected["rounds"]) if expected else None,
            "peak_rss_mb_round_at_most": _rss_scaled(measured, scale)}


def rounds_at_default_yield(m: dict) -> dict | None:
    """The rounds the block would need if its candidates were labelled good and bad at the rates of the default
    config's one round (``YIELD``: 1 trial, L 20, width 64, LSTM; an assumption, not the paper scale's yield)."""
    if not YIELD.exists():
        return None
    lab = json.loads(YIELD.read_text())["labelling"]
    n, counts = lab["n_candidates"], lab["counts_ours"]
    rates = {k: counts.get(k, 0) / n for k in ("good", "bad")}
    per = m["candidates_per_round"]
    need = [-(-m[f"n_{k}"] // max(int(rates[k] * per), 1)) if rates[k] else None for k in ("good", "bad")]
    rounds = None if None in need else max(need)
    return {"source": str(YIELD.relative_to(ROOT)), "n_candidates": n, "counts": counts, "rates": rates,
            "rounds": rounds if rounds is not None and rounds <= m["max_rounds"] else None}


def _rss_scaled(measured: dict, scale: float) -> float:
    """An upper bound on a round's peak memory: the measured stack's peak times the members' ratio (the
    interpreter's and torch's own share scaled too)."""
    return measured["candidates"]["max_rss_mb"] * scale


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="config/paper.yaml")
    p.add_argument("--steps", type=int, default=3, help="timed steps after one warm-up")
    p.add_argument("--candidates", type=int, default=32, help="candidates stacked in the timed round (× trials)")
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: snell2021.threads)")
    p.add_argument("--copy-seconds", type=float, default=COPY_SECONDS)
    p.add_argument("--one", choices=JOBS, help=argparse.SUPPRESS)  # the child process's job
    p.add_argument("--predict-only", action="store_true", help="recompute the prediction of --out's measurements")
    p.add_argument("--out", default=str(RESULTS / "snell_multihead_cost.json"))
    args = p.parse_args()
    block = yaml.safe_load((ROOT / args.config).read_text())["snell2021"]
    threads = args.threads or block["threads"]
    if args.one:
        print(json.dumps(time_job(args.config, args.one, args.steps, args.candidates, threads)))
        return
    if args.predict_only:
        out = json.loads(Path(args.out).read_text())
        out["prediction"] = predict(out["measured"], block, args.copy_seconds)
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
        print(json.dumps(out["prediction"], indent=1))
        return
    out = {"benchmark": "snell_multihead_cost", "config": args.config, "threads": threads, "steps": args.steps,
           "load_average_before": os.getloadavg(), "measured": {}}
    for job in JOBS:
        proc = subprocess.run([sys.executable, __file__, "--one", job, "--config", args.config, "--steps",
                               str(args.steps), "--candidates", str(args.candidates), "--threads", str(threads)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"{job}: failed\n{proc.stderr[-2000:]}")
        out["measured"][job] = json.loads(proc.stdout.strip().splitlines()[-1])
        print(job, out["measured"][job], flush=True)
    out["load_average_after"] = os.getloadavg()
    out["prediction"] = predict(out["measured"], block, args.copy_seconds)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out["prediction"], indent=1))


if __name__ == "__main__":
    main()
