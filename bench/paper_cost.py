"""The paper config's cost, predicted from measurements (issue 17): seconds per training step of every distinct
model of config/paper.yaml on this CPU, and the paper slice's measured jobs for the rest.

``measure``: for each distinct training shape of ``--config`` (architecture, cell, width, depth, task), a short run
of the real ``attnrepro train`` command with the config's seeds per job, on a small sample of the task's data (the
step's cost does not depend on how many sequences the task holds; a vocabulary does, so a corpus task keeps its
own), timed between its 10th and 30th step; peak memory from ``/usr/bin/time``. Writes
``bench/results/paper_step_times.json``.

``table``: per paper.yaml rule, the jobs it runs, the predicted time and peak memory of one job and the total
core-hours. Training: steps × measured seconds per step × the evaluation overhead the paper slice measured
(its train jobs' wall time over steps × seconds per step). Other rules: the paper slice's own jobs
(bench/results/workflow_paper_slice.json, the papers' data sizes), scaled by seeds where a job handles every seed;
a rule the slice did not run says so. Writes ``bench/results/paper_cost.{json,md}``.

    python bench/paper_cost.py measure [--config config/paper.yaml] [--threads 2] [--only NAME ...]  (--only: merged)
    python bench/paper_cost.py table
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT / "src"))

from attnrepro import config as cfglib  # noqa: E402

STEPS, FIRST, LAST = 30, 10, 30


def shape(cfg: dict, name: str) -> str:
    """Experiments that cost the same per step: same model, same task (lengths and vocabulary)."""
    spec = cfglib.experiment_spec(cfg, name)
    m = spec["model"]
    return f"{m['arch']}-{m['cell']}-h{m['hidden']}-l{m.get('layers', 1)}-{spec['task']}"


def measure_one(cfg: dict, name: str, threads: int, work: Path) -> dict:
    spec = cfglib.experiment_spec(cfg, name)
    task = dict(cfglib.task_spec(cfg, spec["task"]))
    if "n_train" in task:  # a synthetic task: a small sample costs the same per step
        task.update(n_train=4000, n_valid=200, n_test=200)
    data = work / "data" / spec["task"]
    if not (data / "vocab.json").exists():
        subprocess.run(["attnrepro", "data", "--task-json", json.dumps(task), "--out-dir", str(data)], check=True,
                       capture_output=True)
    spec["train"].update(steps=STEPS, eval_every=FIRST, checkpoint_every=10 * STEPS, n_eval=200, eval_at=[])
    seeds = [str(s) for s in cfg["seeds"][: cfg["seeds_per_job"]]]
    cmd = ["/usr/bin/time", "-v", "attnrepro", "train", "--spec-json", json.dumps(spec), "--seeds", *seeds,
           "--data-dir", str(data), "--ckpt-dir", str(work / "ck" / name), "--model-out", str(work / f"{name}.pt"),
           "--metrics-out", str(work / f"{name}.csv"), "--name", name, "--device", "cpu", "--threads", str(threads)]
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    log = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise SystemExit(f"{name}: train failed\n{log[-2000:]}")
    at = {int(s): float(x) for s, x in re.findall(rf"step (\d+)/{STEPS}\s+([\d.]+) s", log)}
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", log).group(1)) / 1024
    return {"experiment": name, "seeds": len(seeds), "threads": threads,
            "s_per_step": (at[LAST] - at[FIRST]) / (LAST - FIRST), "wall_s": round(wall, 1), "max_rss_mb": rss}


def measure(args) -> None:
    cfg = yaml.safe_load((ROOT / args.config).read_text())
    names = args.only or list(cfg["experiments"])
    shapes = {}
    for name in names:
        shapes.setdefault(shape(cfg, name), name)
    out = {"benchmark": "paper_step_times", "config": args.config, "threads": args.threads,
           "load_average_before": os.getloadavg(), "shapes": {}}
    with tempfile.TemporaryDirectory() as work:
        for key, name in shapes.items():
            try:
                out["shapes"][key] = measure_one(cfg, name, args.threads, Path(work))
            except (subprocess.CalledProcessError, FileNotFoundError) as err:  # e.g. a corpus not downloaded here
                out["shapes"][key] = {"experiment": name, "error": str(err)[:300]}
            print(key, out["shapes"][key], flush=True)
    out["load_average_after"] = os.getloadavg()
    path = RESULTS / "paper_step_times.json"
    if args.only and path.exists():  # re-measure some shapes: keep the others' numbers
        old = json.loads(path.read_text())
        out = {**old, "shapes": {**old["shapes"], **out["shapes"]},
               "remeasured": sorted(set(old.get("remeasured", [])) | set(out["shapes"]))}
    path.write_text(json.dumps(out, indent=1) + "\n")


def _rule_jobs(slice_jobs: list[dict]) -> dict[str, list[dict]]:
    by_rule = {}
    for job in slice_jobs:
        by_rule.setdefault(job["job"].split("/")[0], []).append(job)
    return by_rule


def table(args) -> None:
    cfg = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    steps_json = json.loads((RESULTS / "paper_step_times.json").read_text())
    sl = json.loads((RESULTS / "workflow_paper_slice.json").read_text())
    slice_cfg = yaml.safe_load((ROOT / "config" / "paper_slice.yaml").read_text())
    jobs = _rule_jobs(sl["jobs"])
    per_step = {k: v for k, v in steps_json["shapes"].items() if "s_per_step" in v}
    # evaluation, checkpoints and start-up on top of the steps, from the slice's own train jobs
    overhead = []
    for job in jobs.get("train", []):
        name = job["job"].split("/")[1]
        key = shape(slice_cfg, name)
        if key in per_step:
            steps = cfglib.experiment_spec(slice_cfg, name)["train"]["steps"]
            overhead.append(job["s"] / (steps * per_step[key]["s_per_step"]))
    factor = sum(overhead) / len(overhead) if overhead else 1.0
    rows, scale = [], len(cfg["seeds"]) / len(slice_cfg["seeds"])
    for name in cfg["experiments"]:
        key = shape(cfg, name)
        steps = cfglib.experiment_spec(cfg, name)["train"]["steps"]
        m = per_step.get(key)
        rows.append({"rule": "train", "job": name, "s": steps * m["s_per_step"] * factor if m else None,
                     "max_rss_mb": m["max_rss_mb"] if m else None,
                     "source": f"{steps} steps × {m['s_per_step']:.3f} s/step × {factor:.2f}" if m else
                     "not measured (" + steps_json["shapes"].get(key, {}).get("error", "shape not timed")[:60] + ")"})
    n_exp = len(cfg["experiments"])
    for rule, scaled in (("data", False), ("export", True), ("analyze", True)):
        if rule in jobs:
            mean_s = sum(j["s"] for j in jobs[rule]) / len(jobs[rule])
            rows += [{"rule": rule, "job": f"{n_exp if rule != 'data' else len(cfg['tasks'])} jobs",
                      "s": mean_s * (scale if scaled else 1), "max_rss_mb": max(j["max_rss_mb"] for j in jobs[rule]),
                      "source": f"paper slice mean{f' × {scale:.2f} (seeds)' if scaled else ''}"}]
    out = {"benchmark": "paper_cost", "eval_overhead": factor, "threads": steps_json["threads"], "rows": rows}
    (RESULTS / "paper_cost.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = ["| rule | job | predicted s per job | peak memory (MB) | from |", "|---|---|---|---|---|"]
    lines += [f"| {r['rule']} | {r['job']} | {r['s']:.0f} | {r['max_rss_mb']:.0f} | {r['source']} |" if r["s"] else
              f"| {r['rule']} | {r['job']} | – | – | {r['source']} |" for r in rows]
    train = [r["s"] for r in rows if r["rule"] == "train" and r["s"]]
    lines += ["", f"Training, measured shapes: {len(train)} of {n_exp} jobs, {sum(train) / 3600 * steps_json['threads']:.1f} "
              f"core-hours on this CPU ({steps_json['threads']} threads per job)."]
    (RESULTS / "paper_cost.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--config", default="config/paper.yaml")
    m.add_argument("--threads", type=int, default=2)
    m.add_argument("--only", nargs="+")
    sub.add_parser("table")
    args = p.parse_args()
    measure(args) if args.cmd == "measure" else table(args)


if __name__ == "__main__":
    main()
