"""Wall time of a whole workflow run from a clean ``results/`` and the peak memory of its largest job (targets:
default config ≤ 45 min with --cores 2, smoke ≤ 5 min, largest job ≤ 4 GB).

Usage: python bench/workflow.py --config config/smoke.yaml [--cores 2] [--out bench/results/workflow_smoke.json]
                                 [--keep DIR]
Runs Snakemake in a copy-free work directory (``--directory``; temporary unless ``--keep`` names one, which then
holds the run's ``results/`` for later reading) and reads every job's ``results/benchmarks/**.tsv`` (Snakemake's
own per-job wall time and max RSS): all of them are in the JSON (``jobs``), the cost table's source
(bench/paper_cost.py). The run's ``results/claims.md`` is kept as ``workflow/reference/claims_<config>.{md,csv}``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from runs import results_root, run_workflow  # noqa: E402  (tools/runs.py)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", required=True)
    p.add_argument("--cores", type=int, default=2)
    p.add_argument("--out")
    p.add_argument("--keep", help="work directory to run in and keep (default: a temporary one)")
    args = p.parse_args()
    config = Path(args.config).resolve()
    root = results_root(config)
    load_before = os.getloadavg()
    if args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
    with (contextlib.nullcontext(str(Path(args.keep).resolve())) if args.keep else tempfile.TemporaryDirectory()) as work:
        wall = run_workflow(config, work, args.cores)
        # the claims of the timed run are kept beside its timing: what that run reproduced
        for part, ext in (("", "md"), ("", "csv"), ("_by_claim", "csv")):
            claims = Path(work) / root / f"claims{part}.{ext}"
            if claims.exists():
                shutil.copyfile(claims, ROOT / "workflow" / "reference" / f"claims_{config.stem}{part}.{ext}")
        rows = []
        for tsv in (Path(work) / root / "benchmarks").rglob("*.tsv"):
            b = pd.read_csv(tsv, sep="\t").iloc[-1]
            rows.append({"job": tsv.relative_to(Path(work) / root / "benchmarks").as_posix()[:-4],
                         "s": float(b["s"]), "max_rss_mb": float(b["max_rss"])})
    jobs = pd.DataFrame(rows).sort_values("s", ascending=False)
    by_rule = jobs.assign(rule=jobs.job.str.split("/").str[0]).groupby("rule")["s"].sum().sort_values(ascending=False)
    out = {"benchmark": "workflow", "config": str(config.relative_to(ROOT)), "cores": args.cores,
           "wall_s": round(wall, 1), "n_jobs": len(jobs), "peak_job_rss_mb": float(jobs.max_rss_mb.max()),
           "peak_job": jobs.loc[jobs.max_rss_mb.idxmax(), "job"], "seconds_by_rule": by_rule.round(1).to_dict(),
           "slowest_jobs": jobs.head(10).to_dict("records"), "machine": platform.machine(),
           "cpu_count": os.cpu_count(), "load_average_before": load_before, "load_average_after": os.getloadavg(),
           "jobs": jobs.round(2).to_dict("records")}
    print(json.dumps(out, indent=2))
    name = args.out or f"bench/results/workflow_{config.stem}.json"
    Path(name).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
