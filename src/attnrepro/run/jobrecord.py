"""Where and how a job ran, recorded by the job itself: one line ``attnrepro-job {json}`` at the end of its log.

The artifact's provenance (:mod:`attnrepro.archive.crate`) must name the node a job ran on — a Slurm GPU node, not the
login node that packs the artifact — so each ``attnrepro`` command appends this line to its own stderr, which every
rule sends to the job's log. Snakemake's benchmark file adds what only the scheduler sees (wall time, the memory of
the whole process tree) for jobs that are not ``attnrepro`` commands.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import resource
import sys
import time
from pathlib import Path

PREFIX = "attnrepro-job "


def iso_utc(seconds: float) -> str:
    """``seconds`` since the epoch as an ISO 8601 UTC time, to the second."""
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat(timespec="seconds")


def job_record(command: str, started: float) -> dict:
    """This process's record: the run line's host, device, torch, CUDA and python (:func:`attnrepro.run.runinfo.record`,
    the device it computed on), plus the Slurm job, start, end, peak RSS and, on a GPU, the peak of the memory
    torch allocated there (what a site sizes its GPU requests by; None on the CPU)."""
    from .runinfo import record

    torch = sys.modules.get("torch")  # not imported: the job never used torch, so it ran on the CPU
    used = torch.device("cuda", torch.cuda.current_device()) if torch is not None and torch.cuda.is_initialized() \
        else None
    run = record(used)
    # ru_maxrss is in KiB on Linux; children: a subprocess the command ran (git, a nested tool)
    peak_kib = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                   resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return {
        "command": command, "host": run["host"], "slurm_job": os.environ.get("SLURM_JOB_ID"), "device": run["device"],
        "torch": run["torch"], "cuda": None if run["cuda"] == "none" else run["cuda"], "python": run["python"],
        "start": iso_utc(started), "end": iso_utc(time.time()), "peak_rss_mb": round(peak_kib / 1024, 1),
        "peak_gpu_mb": round(torch.cuda.max_memory_allocated(used) / 2 ** 20, 1) if used is not None else None,
    }


def format_record(record: dict) -> str:
    return PREFIX + json.dumps(record, sort_keys=True)


def read_records(log: Path) -> dict | None:
    """The job's record from its log: the first start, the last end and the largest peak of its ``attnrepro``
    commands (a rule may run several); None for a log without one (a rule that runs no ``attnrepro`` command)."""
    try:
        lines = Path(log).read_text(errors="replace").splitlines()
    except OSError:
        return None
    records = []
    for line in lines:
        if line.startswith(PREFIX):
            try:
                records.append(json.loads(line[len(PREFIX):]))
            except json.JSONDecodeError:
                continue  # a line cut short by a killed job
    if not records:
        return None
    merged = dict(records[-1])
    merged["start"] = min(r["start"] for r in records)
    merged["peak_rss_mb"] = max(r["peak_rss_mb"] for r in records)
    gpu = [r["peak_gpu_mb"] for r in records if r.get("peak_gpu_mb") is not None]
    merged["peak_gpu_mb"] = max(gpu) if gpu else None
    merged["command"] = " && ".join(str(r.get("command")) for r in records)
    return merged
