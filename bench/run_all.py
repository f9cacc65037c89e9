"""Run every benchmark of bench/ and write their results side by side: bench/results/*.json and the table
bench/results/summary.md (issue 7). Benchmarks are not tests; nothing here asserts a time.

Usage: python bench/run_all.py [--quick]
    --quick  fewer steps and repeats (a check that every benchmark runs, not numbers to publish)
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"


def commands(quick: bool) -> list[list[str]]:
    py = sys.executable
    reps = ["--repeats", "1"] if quick else ["--repeats", "3"]
    return [
        [py, "bench/export_layout.py", "--out", "bench/results/export_layout.json"],
        [py, "bench/stacked_training.py", "--steps", "3" if quick else "20", *reps],
        [py, "bench/snell_copy.py", *(["--seeds", "2", "--short", "1", "--long", "2"] if quick else []), *reps],
        [py, "bench/workflow.py", "--config", "config/smoke.yaml"],
        *([] if quick else [[py, "bench/workflow.py", "--config", "config/config.yaml"]]),
    ]


def summary_rows() -> list[str]:
    rows = ["| benchmark | result | target |", "|---|---|---|"]
    for path in sorted(RESULTS.glob("*.json")):
        r = json.loads(path.read_text())
        name = path.stem
        if name == "stacked_training":
            for row in r["rows"]:
                rows.append(f"| stacked training, AED-{row['cell'].upper()} H=128, {row['seeds']} seeds | "
                            f"{row['speedup']:.2f}× faster than sequential "
                            f"({row['stacked_s_per_step']:.3f} vs {row['sequential_s_per_step']:.3f} s/step) | ≥ 3× |")
        elif name.startswith("workflow_"):
            rows.append(f"| whole workflow, {r['config']}, --cores {r['cores']} | {r['wall_s'] / 60:.1f} min, "
                        f"largest job {r['peak_job_rss_mb'] / 1024:.2f} GB ({r['peak_job']}) | "
                        f"{'≤ 5 min' if 'smoke' in name else '≤ 30 min, ≤ 4 GB'} |")
        else:
            brief = {k: v for k, v in r.items() if isinstance(v, (int, float, str)) and len(str(v)) < 40}
            rows.append(f"| {name} | {', '.join(f'{k}={v}' for k, v in list(brief.items())[:6])} | see JSON |")
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    for cmd in commands(args.quick):
        print("+", " ".join(cmd[1:]), flush=True)
        subprocess.run(cmd, cwd=ROOT, check=True)
    head = [f"# Benchmarks", "", f"Machine: {platform.machine()}, {torch.get_num_threads()} threads, torch "
            f"{torch.__version__}. Each JSON beside this file holds the details (median of ≥ 3 runs).", ""]
    (RESULTS / "summary.md").write_text("\n".join(head + summary_rows()) + "\n")
    print((RESULTS / "summary.md").read_text())


if __name__ == "__main__":
    main()
