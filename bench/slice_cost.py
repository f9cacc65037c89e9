"""What the paper slice and its two companion configs (its other cells; the authors' options one at a time) would
cost on this 2-core CPU at a given number of seeds, predicted from the measurements the cost table rests on.

A training job: its steps × the measured seconds per step of its shape (bench/results/paper_step_times.json, the
cost table's source: 10 seeds stacked, 2 threads) × c, where c is the paper slice's own train jobs (6 seeds, one
thread each, two side by side: bench/results/workflow_paper_slice.json) over that same prediction — a job whose
recorded time is under half its prediction is left out: Snakemake keeps a retried job's last attempt only, so a
job resumed from its checkpoint records its last segment. A shape never timed (the LSTM and UGRNN sort variants)
takes the GRU shape of its task × the cell's ratio on the task kind's timed shape. Seeds: a stacked step costs
a + b·n for n seeds, per cell, fitted to bench/results/stacked_training.json (one seed and eight). Export and
analysis: the slice's mean job × n / 6 (one pass per seed); data, figures, claims and the Kobayashi block: the
slice's own jobs. Wall time on 2 cores: the slice's measured wall over its predicted job time (≈ 0.7: two jobs side
by side, the dependencies between them, a shared machine) × the config's predicted job time; beside it the bound
of two jobs always running (half the job time, or the longest chain of jobs if longer).

    python bench/slice_cost.py [--seeds 6 8] [--out bench/results/slice_cost.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from paper_cost import _slice_jobs, shape  # noqa: E402  (bench/paper_cost.py: the cost table's own keys)

from attnrepro.aitken2021 import panels  # noqa: E402
from attnrepro.run import config as cfglib  # noqa: E402

CONFIGS = ("paper_slice", "paper_slice_lstm", "paper_slice_ugrnn", "paper_slice_options")
SLICE_SEEDS = 6
RESUMED = 0.5  # a train job recorded under this share of its prediction was resumed (its last segment only)
HOURS_3 = 3 * 3600


def load(name: str) -> dict:
    return yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())


def seed_factors(stacked: dict, n: int) -> dict[str, float]:
    """Per cell, the cost of a step of n stacked seeds over one of SLICE_SEEDS (a + b·n through one seed and the
    benchmark's stacked count, the chosen kernel's rows)."""
    out = {}
    for row in stacked["rows"]:
        if row.get("chosen", True):
            b = (row["stacked_s_per_step"] - row["one_seed_s_per_step"]) / (row["seeds"] - 1)
            a = row["one_seed_s_per_step"] - b
            out[row["cell"]] = (a + b * n) / (a + b * SLICE_SEEDS)
    return out


def step_seconds(cfg: dict, name: str, shapes: dict) -> tuple[float, str]:
    """Measured seconds per step of an experiment's shape, or its GRU twin's × the cell's ratio on the task kind's
    timed shape; with where the number comes from."""
    key = shape(cfg, name)
    if key in shapes:
        return shapes[key], key
    cell = key.split("-")[1]
    gru = key.replace(f"-{cell}-", "-gru-", 1)
    kind = cfglib.task_spec(cfg, cfglib.experiment_spec(cfg, name)["task"])["kind"]
    mine = f"{key.rsplit('-', 1)[0]}-{kind}"  # the shape of the task named as its kind (paper.yaml's own)
    theirs = mine.replace(f"-{cell}-", "-gru-", 1)
    if gru in shapes and mine in shapes and theirs in shapes:
        return shapes[gru] * shapes[mine] / shapes[theirs], f"{gru} × ({mine} / {theirs})"
    raise SystemExit(f"{name}: shape {key} not timed (bench/paper_cost.py measure --only {name})")


def calibration(slice_cfg: dict, slice_json: dict, shapes: dict) -> tuple[float, list[str], list[str]]:
    """c over the slice's fully recorded train jobs; the jobs used and the resumed ones left out."""
    ratios, used, resumed = [], [], []
    for job in _slice_jobs(slice_json).get("train", []):
        name = job["job"].split("/")[1]
        steps = cfglib.experiment_spec(slice_cfg, name)["train"]["steps"]
        r = job["s"] / (steps * step_seconds(slice_cfg, name, shapes)[0])
        (ratios.append(r) or used.append(name)) if r >= RESUMED else resumed.append(name)
    return sum(ratios) / len(ratios), used, resumed


def predict(cfg: dict, seeds: int, c: float, shapes: dict, jobs: dict, factors: dict) -> dict:
    """Predicted job seconds of ``cfg`` at ``seeds`` seeds, by rule and per training job, and its longest chain."""
    mean = lambda rule: sum(j["s"] for j in jobs[rule]) / len(jobs[rule])  # noqa: E731
    data = {j["job"].split("/")[1]: j["s"] for j in jobs["data"]}
    per_seed = seeds / SLICE_SEEDS
    train = {}
    for name in cfg["experiments"]:
        spec = cfglib.experiment_spec(cfg, name)
        s_step, source = step_seconds(cfg, name, shapes)
        train[name] = {"s": spec["train"]["steps"] * s_step * c * factors[spec["model"]["cell"]],
                       "steps": spec["train"]["steps"], "s_per_step_10_seeds": round(s_step, 4), "shape": source}
    figures = [j for rule, js in jobs.items() if rule.startswith("figures/") for j in js]
    n_panels = len(panels.panels_of(cfg["figures"].get("aitken2021", {})))
    by_rule = {
        "train": sum(t["s"] for t in train.values()),
        "data": sum(data.get(t, mean("data")) for t in cfg["tasks"]),
        "export": mean("export") * per_seed * len(train),
        "analysis": mean("analysis") * per_seed * len(train),
        "figures": sum(j["s"] for j in figures) / len(figures) * n_panels,
        "claims": sum(j["s"] for rule in ("claims", "report/claims") for j in jobs.get(rule, [])),
        "kobayashi2020": (sum(j["s"] for rule, js in jobs.items() if rule.startswith("kobayashi2020/") for j in js)
                          if "kobayashi2020" in cfg else 0.0),
    }
    chain = max(data.get(cfg["experiments"][n]["task"], mean("data")) + t["s"] for n, t in train.items()) \
        + (mean("export") + mean("analysis")) * per_seed + by_rule["claims"]
    return {"by_rule_s": by_rule, "job_s": sum(by_rule.values()), "longest_chain_s": chain, "train": train}


def build(seeds: list[int]) -> dict:
    """The prediction of every config in CONFIGS at each seed count, from the committed measurements."""
    steps_json = json.loads((RESULTS / "paper_step_times.json").read_text())
    slice_json = json.loads((RESULTS / "workflow_paper_slice.json").read_text())
    stacked = json.loads((RESULTS / "stacked_training.json").read_text())
    shapes = {k: v["s_per_step"] for k, v in steps_json["shapes"].items() if "s_per_step" in v}
    jobs = _slice_jobs(slice_json)
    slice_cfg = load("paper_slice")
    c, used, resumed = calibration(slice_cfg, slice_json, shapes)
    own = predict(slice_cfg, SLICE_SEEDS, c, shapes, jobs, seed_factors(stacked, SLICE_SEEDS))
    k = slice_json["wall_s"] / own["job_s"]
    out = {"benchmark": "slice_cost", "cores": slice_json["cores"],
           "what": "predicted cost on 2 cores of config/paper_slice*.yaml at each seed count (bench/slice_cost.py)",
           "sources": ["bench/results/paper_step_times.json", "bench/results/workflow_paper_slice.json",
                       "bench/results/stacked_training.json"],
           "calibration": {"c": round(c, 4), "train_jobs_used": used, "train_jobs_resumed": resumed,
                           "slice_wall_s": slice_json["wall_s"], "slice_job_s_predicted": round(own["job_s"]),
                           "wall_per_job_s": round(k, 4)},
           "configs": {}}
    for name in CONFIGS:
        cfg = load(name)
        for n in seeds:
            pr = predict(cfg, n, c, shapes, jobs, seed_factors(stacked, n))
            wall = k * pr["job_s"]
            out["configs"][f"{name}@{n}"] = {
                "config": f"config/{name}.yaml", "seeds": n, "experiments": len(cfg["experiments"]),
                "wall_s": round(wall), "fits_3_h": wall <= HOURS_3,
                "wall_two_jobs_always_s": round(max(pr["job_s"] / slice_json["cores"], pr["longest_chain_s"])),
                "job_s": round(pr["job_s"]), "longest_chain_s": round(pr["longest_chain_s"]),
                "by_rule_s": {r: round(s) for r, s in pr["by_rule_s"].items()},
                "train": {e: {**t, "s": round(t["s"])} for e, t in pr["train"].items()}}
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[6, 8])
    p.add_argument("--out", type=Path, default=RESULTS / "slice_cost.json")
    args = p.parse_args()
    out = build(args.seeds)
    args.out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    for key, row in out["configs"].items():
        print(f"{key:28s} {row['experiments']:2d} experiments  wall {row['wall_s'] / 60:6.1f} min "
              f"(two jobs always: {row['wall_two_jobs_always_s'] / 60:6.1f})  job time {row['job_s'] / 3600:5.2f} h")


if __name__ == "__main__":
    main()
