"""attnrepro.nn.allocator: a freed large block stays in the process for the next allocation, not given back.

The setting is process-wide, so each case runs in a fresh interpreter: it mallocs a 64 MiB block, writes it, frees
it, and counts the minor page faults of doing the same again. With malloc as glibc sets it (a block above 32 MiB is
always its own mapping), the second block is fresh memory, every page faulted in anew (16,384 of them); with freed
memory held, it is the heap memory the first block left (none). This is what a training step's large buffers do
every step (the benchmark of the whole step: bench/kernel_profile.py).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from attnrepro.nn import allocator
from attnrepro.errors import AttnReproError

PROBE = """
import ctypes, ctypes.util, json, resource
from attnrepro.nn.allocator import hold_freed_memory
held = hold_freed_memory()
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
size = 64 << 20
block = libc.malloc(size)
libc.memset(block, 1, size)
libc.free(block)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
block = libc.malloc(size)
libc.memset(block, 1, size)
print(json.dumps({"held": held, "faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before}))
"""

glibc_only = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")


def probe(env_value: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                          env={**os.environ, allocator.ENV: env_value})
    return json.loads(done.stdout.strip().splitlines()[-1])


@glibc_only
def test_a_freed_block_is_reused_without_page_faults():
    held, default = probe("1"), probe("0")
    assert held["held"] is True and default["held"] is False
    assert default["faults"] > 10_000     # every page of a fresh mapping
    assert held["faults"] < 100           # the first block's pages, still mapped


def test_bad_setting_names_the_variable(monkeypatch):
    monkeypatch.setattr(allocator, "_held", None)
    monkeypatch.setenv(allocator.ENV, "yes")
    with pytest.raises(AttnReproError, match="ATTNREPRO_HOLD_FREED_MEMORY='yes'"):
        allocator.hold_freed_memory()


def test_off_changes_nothing(monkeypatch):
    monkeypatch.setattr(allocator, "_held", None)
    monkeypatch.setenv(allocator.ENV, "0")
    assert allocator.hold_freed_memory() is False
