"""What a workflow job asks a Slurm cluster for: its GPUs, in the one form the site's profile names.

The rules say how many GPUs a job needs; ``slurm/config.yaml`` says how the site wants them asked for, in its
default resource ``gpu_request``. snakemake-executor-plugin-slurm (2.8) turns the resource ``gpu`` (with
``gpu_model``) into ``--gpus`` and ``gres`` into ``--gres``, and sends both when a job carries both: a double
request that many sites reject. So a job carries exactly one of them, built here.
"""

from __future__ import annotations

import re

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
