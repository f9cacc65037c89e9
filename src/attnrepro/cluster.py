"""What a workflow job asks a Slurm cluster for: memory and time per rule (``workflow/resources.yaml``), and its
GPUs, in the one form the site's profile names.

The rules say how many GPUs a job needs; ``slurm/config.yaml`` says how the site wants them asked for, in its
default resource ``gpu_request``. snakemake-executor-plugin-slurm (2.8) turns the resource ``gpu`` (with
``gpu_model``) into ``--gpus`` and ``gres`` into ``--gres``, and sends both when a job carries both: a double
request that many sites reject. So a job carries exactly one of them, built here.
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import AttnReproError

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
