"""What a workflow job asks a Slurm cluster for: memory and time per rule (``workflow/resources.yaml``), and its
GPUs, in the one form the site's profile names.

The rules say how many GPUs a job needs; ``slurm/config.yaml`` says how the site wants them asked for, in its
default resource ``gpu_request``. snakemake-executor-plugin-slurm (2.8) turns the resource ``gpu`` (with
``gpu_model``) into ``--gpus`` and ``gres`` into ``--gres``, and sends both when a job carries both: a double
request that many sites reject. So a job carries exactly one of them, built here.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from ..errors import AttnReproError

#: the values ``gpu_request`` may take, and the sbatch flag each gives a job that needs one GPU
GPU_REQUESTS = {
    "gpus": "--gpus=1",
    "gpus:<type>": "--gpus=<type>:1",
    "gres": "--gres=gpu:1",
    "gres:<type>": "--gres=gpu:<type>:1",
}
_REQUEST = re.compile(r"(gpus|gres)(?::([A-Za-z0-9_.]+))?")


def gpu_resources(request: str | None, n: int) -> dict:
    """Snakemake resources for a job that needs ``n`` GPUs, in the form ``request`` (None: ``gpus``) names."""
    match = _REQUEST.fullmatch((request or "gpus").strip("'\" "))
    if match is None:
        allowed = ", ".join(GPU_REQUESTS)
        raise AttnReproError(f"default resource gpu_request={request!r}: use one of {allowed} (e.g. gres:a100)")
    if n == 0:
        return {}
    form, gpu_type = match.groups()
    if form == "gpus":
        return {"gpu": n, **({"gpu_model": gpu_type} if gpu_type else {})}
    return {"gres": f"gpu:{gpu_type}:{n}" if gpu_type else f"gpu:{n}"}


def read_resources(path: str | Path) -> dict[str, dict[str, int]]:
    """Rule -> {mem_mb, runtime} (MB, minutes of the first attempt) from ``path``, every value a positive integer."""
    import yaml

    path = Path(path)
    try:
        table = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as err:
        raise AttnReproError(f"{path}: unreadable ({err})") from None
    if not isinstance(table, dict):
        raise AttnReproError(f"{path}: expected a mapping rule -> {{mem_mb, runtime}}")
    for rule, need in table.items():
        if not isinstance(need, dict) or set(need) != {"mem_mb", "runtime"}:
            raise AttnReproError(f"{path}: {rule}: expected exactly the keys mem_mb and runtime")
        for key, value in need.items():
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise AttnReproError(f"{path}: {rule}.{key}: expected a positive integer, got {value!r}")
    return table


#: predicted time × MARGIN is what a job asks for: the predictions are CPU times on 2 threads measured at a load
#: of ~2 (workflow/reference/paper_cost.json), a GPU node is faster, and 1.5× covers a slower CPU node or a busier disk
MARGIN = 1.5


def memory_mb(need_bytes: float, floor_mb: int) -> int:
    """What a job whose peak is estimated at ``need_bytes`` asks for: MARGIN × the estimate in whole GiB (as
    workflow/resources.yaml's measured entries), never below the rule's entry ``floor_mb``."""
    return max(floor_mb, 1024 * math.ceil(MARGIN * need_bytes / 2**30))


#: minutes a segmented job keeps for its last checkpoint and exit before the scheduler's limit
RESERVE_MINUTES = 10
_STEPS = re.compile(r"^(\d+) steps × ")


def predicted_seconds(cost: dict, rule: str, job: str, steps: int | None) -> float | None:
    """A job's predicted seconds from the committed cost table (``workflow/reference/paper_cost.json``), rescaled to
    ``steps`` where the row was measured per step; a job the table did not measure (a corpus that needs a
    download): ``steps`` × the slowest measured step of its rule, an upper bound; None without either."""
    rows = {(r["rule"], r["job"]): r for r in cost["rows"]}
    row = rows.get((rule, job)) or rows.get((rule, "each"))
    if row is not None and row["s"] is not None:
        measured = _STEPS.match(row.get("source") or "")
        return row["s"] * steps / int(measured.group(1)) if measured and steps else row["s"]
    per_step = [r["s"] / int(m.group(1)) for r in cost["rows"]  # an unmeasured run: the rule's slowest step
                if r["rule"] == rule and r["s"] is not None and (m := _STEPS.match(r.get("source") or ""))]
    return max(per_step) * steps if per_step and steps else None


def partition_cap(path: str | Path, gpu: bool) -> int | None:
    """The longest runtime (minutes) a job may ask for: the largest ``max_runtime`` of the partitions of
    ``path`` (the profile's partitions.yaml) that can hold it (with GPUs for a GPU job); None if unlimited."""
    import yaml

    path = Path(path)
    try:
        parts = (yaml.safe_load(path.read_text()) or {})["partitions"]
    except (OSError, KeyError, TypeError, yaml.YAMLError) as err:
        raise AttnReproError(f"{path}: no readable partitions block ({err})") from None
    fit = [p for p in parts.values() if not gpu or (p or {}).get("max_gpu", 0) > 0]
    if not fit or any("max_runtime" not in (p or {}) for p in fit):
        return None
    return max(int(p["max_runtime"]) for p in fit)


#: most retries a training rule gets. Snakemake's retries belong to a rule, not a job: every job of the rule (a crash
#: as much as a segment's exit) is resubmitted as often as the rule's longest job needs, and one unmeasured run
#: predicted from CPU steps (transformer_wmt16: 170 day-long segments) would give every Aitken job 170 tries. A job
#: that needs more segments than this stops with its checkpoint in place; running the workflow again resumes it.
MAX_RETRIES = 8


def rule_retries(segments: list[int]) -> int:
    """A training rule's retries from its jobs' planned segments (plan_minutes): one per extra segment of its
    longest job and one for a failure, at most MAX_RETRIES."""
    return min(max(segments, default=1), MAX_RETRIES)


def plan_minutes(predicted_s: float | None, default: int, cap: int | None) -> tuple[int, int]:
    """(runtime asked for in minutes, number of segments) of a job predicted to take ``predicted_s`` seconds
    (None: the rule's ``default`` minutes): MARGIN × the prediction, at least 10 minutes, never above ``cap``; a
    job longer than ``cap`` runs in checkpointed segments of ``cap`` minutes, each ending RESERVE_MINUTES early."""
    want = default if predicted_s is None else max(10, math.ceil(MARGIN * predicted_s / 60))
    if cap is None or want <= cap:
        return want, 1
    return cap, math.ceil(want / (cap - RESERVE_MINUTES))
