"""Activation export and the Aitken decomposition of one model at default scale (target: under 10 s;
MB/s written and read).

The default config's AED-GRU (hidden 64) on one-to-one, 3 stacked seeds trained briefly (timing does not depend on
how well it learnt), then the workflow's own commands run in this process — ``attnrepro export`` (greedy decode of
the 500 test examples, activations written to Parquet) and ``attnrepro aitken2021 analyze`` (read back, decompose, every
table of the analysis) — so Python start-up and imports are not counted; a Snakemake job adds them (the workflow
benchmark reports the jobs' full times).

Usage: python bench/export_analysis.py [--repeats 3] [--train-steps 50] [--out bench/results/export_analysis.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import torch
import yaml

from attnrepro.cli import main as attnrepro

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 10.0
EXPERIMENT = "aed_gru_one_to_one"


def run(*argv: str) -> float:
    t = time.perf_counter()
    if attnrepro([str(a) for a in argv]) != 0:
        raise SystemExit(f"attnrepro {argv[0]} failed")
    return time.perf_counter() - t


def megabytes(directory: Path) -> float:
    return sum(p.stat().st_size for p in directory.glob("*.parquet")) / 1e6


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--train-steps", type=int, default=50)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "export_analysis.json"))
    args = p.parse_args()
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    exp = config["experiments"][EXPERIMENT]
    task = config["tasks"][exp["task"]]
    n_examples, seeds = config["export"]["n_examples"], config["seeds"][:config["seeds_per_job"]]
    spec = {"task": exp["task"], "model": exp["model"],
            "train": {**config["train"], "steps": args.train_steps, "checkpoint_every": args.train_steps}}
    runs = []
    with tempfile.TemporaryDirectory() as work:
        w = Path(work)
        run("data", "--task-json", json.dumps(task), "--out-dir", w / "data")
        run("train", "--spec-json", json.dumps(spec), "--seeds", *seeds, "--data-dir", w / "data", "--ckpt-dir",
            w / "ckpt", "--model-out", w / "model.pt", "--metrics-out", w / "metrics.csv", "--device", "cpu",
            "--threads", args.threads)
        for r in range(args.repeats):
            export_dir, analysis_dir = w / f"export{r}", w / f"analysis{r}"
            export_s = run("export", "--model", w / "model.pt", "--data-dir", w / "data", "--n-examples", n_examples,
                           "--out-dir", export_dir, "--device", "cpu", "--threads", args.threads)
            analyze_s = run("aitken2021", "analyze", "--export-dirs", export_dir, "--data-dir", w / "data", "--arch",
                            exp["model"]["arch"], "--task-json", json.dumps(task), "--out-dir", analysis_dir)
            mb = megabytes(export_dir)  # written by export, then read back by analyze
            runs.append({"export_s": export_s, "analyze_s": analyze_s, "total_s": export_s + analyze_s,
                         "export_mb": mb, "analysis_mb": megabytes(analysis_dir),
                         "write_mb_per_s": mb / export_s, "read_and_analyze_mb_per_s": mb / analyze_s})
            print(json.dumps(runs[-1]), flush=True)
    total = statistics.median(r["total_s"] for r in runs)
    out = {"benchmark": "export_analysis", "experiment": EXPERIMENT, "seeds": len(seeds), "n_examples": n_examples,
           "median_total_s": total, "median_export_s": statistics.median(r["export_s"] for r in runs),
           "median_analyze_s": statistics.median(r["analyze_s"] for r in runs),
           "export_mb": runs[0]["export_mb"],
           "write_mb_per_s": statistics.median(r["write_mb_per_s"] for r in runs),
           "read_and_analyze_mb_per_s": statistics.median(r["read_and_analyze_mb_per_s"] for r in runs),
           "target_seconds": TARGET_SECONDS, "meets_target": total <= TARGET_SECONDS, "repeats": args.repeats,
           "machine": platform.machine(), "cpu_count": os.cpu_count(), "threads": torch.get_num_threads(),
           "torch": torch.__version__, "load_average_after": os.getloadavg(), "runs": runs}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps({k: out[k] for k in ("median_total_s", "write_mb_per_s", "meets_target")}))


if __name__ == "__main__":
    main()
