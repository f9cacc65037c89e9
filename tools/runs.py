"""A whole workflow run from scratch in a folder of its own, and the digests of what it wrote: shared by
tools/byte_identical.py (two runs of one config, the same bytes?), bench/workflow.py (the run's wall time) and
bench/training_time.py (two runs' trained models, the same bytes?)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
NOT_COMPARED = ("logs", "benchmarks", "checkpoints")  # timings and resume state, by design different


def results_root(config: Path) -> str:
    """The folder a config writes under (its ``results`` key; attnrepro.io.RESULTS, the default)."""
    from attnrepro.io import RESULTS as DEFAULT

    return str(yaml.safe_load(config.read_text()).get("results", DEFAULT)).rstrip("/")


def run_workflow(config: Path, work: str | Path, cores: int) -> float:
    """Snakemake on ``config`` from scratch in ``work`` (this interpreter's bin first on PATH, so jobs find
    ``attnrepro``); returns the wall time in seconds."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "--directory",
                    str(work), "--cores", str(cores), "--configfile", str(config), "--quiet"], check=True, env=env)
    return time.perf_counter() - t0


def digests(results: Path, skip: tuple[str, ...] = NOT_COMPARED) -> tuple[dict[str, str], int]:
    """relative path -> SHA-256 of every file but those under the top folders ``skip``; and how many were left out."""
    out, skipped = {}, 0
    for path in sorted(p for p in results.rglob("*") if p.is_file()):
        rel = path.relative_to(results).as_posix()
        if rel.split("/")[0] in skip:
            skipped += 1
            continue
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out, skipped
