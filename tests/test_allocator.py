"""attnrepro.allocator: a freed large block is reused by the next allocation of its size, not mapped anew.

The setting is process-wide, so each case runs in a fresh interpreter: it allocates and touches a 64 MB tensor,
frees it, and counts the minor page faults of doing it again. With malloc as glibc sets it, the block is a fresh
``mmap`` each time (16,384 pages to fault in); with freed memory held, it is the same heap memory (none).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from attnrepro import allocator
from attnrepro.errors import AttnReproError

PROBE = """
import json, resource, torch
from attnrepro.allocator import hold_freed_memory
held = hold_freed_memory()
def touch():
    x = torch.ones(16 * 1024 * 1024)  # 64 MB
    del x
touch()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
touch()
print(json.dumps({"held": held, "faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before}))
"""

glibc_only = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")


def probe(env_value: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                          env={**os.environ, allocator.ENV: env_value})
    return json.loads(done.stdout.strip().splitlines()[-1])


@glibc_only
def test_held_memory_is_reused_without_page_faults():
    held, default = probe("1"), probe("0")
    assert held["held"] is True and default["held"] is False
    assert default["faults"] > 10_000     # every page of the fresh mapping
    assert held["faults"] < 1_000         # the heap block of the first allocation, already mapped


def test_bad_setting_names_the_variable(monkeypatch):
    monkeypatch.setattr(allocator, "_done", None)
    monkeypatch.setenv(allocator.ENV, "yes")
    with pytest.raises(AttnReproError, match="ATTNREPRO_HOLD_FREED_MEMORY='yes'"):
        allocator.hold_freed_memory()


def test_off_changes_nothing(monkeypatch):
    monkeypatch.setattr(allocator, "_done", None)
    monkeypatch.setenv(allocator.ENV, "0")
    assert allocator.hold_freed_memory() is False
