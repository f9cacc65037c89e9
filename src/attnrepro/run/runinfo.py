"""Where a job ran: host, device, torch and CUDA versions, as one record and as the one line every job's log
starts with; and the check that a job given a GPU finds one (a CPU-only torch on a GPU node would otherwise
train on the CPU for days, silently).

The line, e.g.::

    run: host gpu017  device cuda:0 (NVIDIA A100-SXM4-80GB)  torch 2.13.0+cu128  CUDA 12.8  python 3.12.3  attnrepro 0.1.0
"""

from __future__ import annotations

import os
import platform
import re
import socket
import sys
from importlib import metadata, util

from ..errors import AttnReproError

#: the variables a scheduler sets in a job that was given GPUs (Slurm's, with --gpus or --gres): GPU indices,
#: then GPU counts (where 0 means none)
GPU_INDICES = ("SLURM_JOB_GPUS", "SLURM_STEP_GPUS")
GPU_COUNTS = ("SLURM_GPUS_ON_NODE", "SLURM_GPUS")
#: set to 1 where a scheduler's GPUs are bookkeeping only (the Slurm test cluster's gres have no devices)
FAKE_GPUS = "ATTNREPRO_FAKE_GPUS"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _torch_cuda() -> str:
    """The CUDA version torch was built with ("none" for a CPU build), without importing torch when the command
    did not (an import costs a figure job seconds): torch/version.py records it."""
    if "torch" in sys.modules:
        return sys.modules["torch"].version.cuda or "none"
    spec = util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return "none"
    try:
        text = open(os.path.join(spec.submodule_search_locations[0], "version.py")).read()
    except OSError:
        return "unknown"
    found = re.search(r"^cuda\b[^=\n]*=\s*['\"]([^'\"]+)['\"]", text, flags=re.M)
    return found.group(1) if found else "none"


def gpu_given(environ=None) -> str | None:
    """``NAME=value`` of the scheduler variable saying this job was given a GPU, or None."""
    environ = os.environ if environ is None else environ
    for name in GPU_INDICES + GPU_COUNTS:
        value = environ.get(name, "").strip()
        if value and value != "(null)" and not (name in GPU_COUNTS and value == "0"):
            return f"{name}={value}"
    return None


def record(device=None) -> dict:
    """Host, device (``device``: a torch.device the job runs on; None: a job that runs no model, on the CPU),
    torch and its CUDA version, python, attnrepro."""
    name = "cpu"
    if device is not None:
        name = str(device)
        if getattr(device, "type", None) == "cuda":
            import torch

            name += f" ({torch.cuda.get_device_name(device)})"
    return {"host": socket.gethostname(), "device": name, "torch": _version("torch"), "cuda": _torch_cuda(),
            "python": platform.python_version(), "attnrepro": _version("attnrepro")}


def line(rec: dict) -> str:
    return (f"run: host {rec['host']}  device {rec['device']}  torch {rec['torch']}  CUDA {rec['cuda']}"
            f"  python {rec['python']}  attnrepro {rec['attnrepro']}")


def check_gpu(asked: str, environ=None) -> None:
    """Stop a job the scheduler gave a GPU when torch finds no CUDA, saying what to do, unless ``asked`` (its
    --device) is cpu. (``--device cuda`` without CUDA is stopped by :func:`attnrepro.cli.common.pick_device`.)"""
    environ = os.environ if environ is None else environ
    given = gpu_given(environ)
    if given is None or asked == "cpu" or environ.get(FAKE_GPUS) == "1":
        return
    import torch

    if torch.cuda.is_available():
        return
    why = "this torch was built without CUDA" if not torch.backends.cuda.is_built() else "torch sees no CUDA device"
    raise AttnReproError(f"the job was given a GPU ({given}) but {why}; install a CUDA build "
                         "(make install TORCH_INDEX=https://download.pytorch.org/whl/cu128) or set device: cpu")
