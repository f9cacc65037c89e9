"""Keep freed memory in the process, so that a training step does not page-fault its way through every buffer.

glibc's malloc hands a block above its mmap threshold (128 KiB, rising to at most 32 MiB as large blocks are
freed) straight to the kernel with ``mmap`` and gives it back with ``munmap`` when freed, and trims the heap's top
beyond its trim threshold. A training step of the recurrent op allocates the same few hundred buffers in every
step (the stacked gate pre-activations of Snell et al.'s copy model are 430 MB; one step's gate blocks are 2.6 MB
each), so by default each of them is fresh memory the kernel has to map and zero, page by page, every step.
Raising both thresholds keeps freed blocks on the heap for the next step's same-sized allocation.

It changes no number a model computes (allocation only): it saves the large shapes' page faults (Snell's copy
model, the Aitken AED at H = 128) and does nothing at the default config's, whose buffers malloc already reuses.
The price is resident memory: a freed block is kept rather than returned, and blocks of the same size do not always
fit one another again (malloc pads an aligned request), so the heap settles above the live set. Both, measured:
docs/speed.md (measured by bench/kernel_profile.py).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform

from ..errors import AttnReproError

# mallopt's parameter numbers (glibc's malloc.h)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
# mallopt takes a C int: blocks below 2 GiB stay on the heap, and the heap's top is never given back below it
LIMIT = 2**31 - 1

ENV = "ATTNREPRO_HOLD_FREED_MEMORY"  # "0": leave malloc as it is (a before/after benchmark, a tight memory limit)

_held: bool | None = None  # the first call's answer


def hold_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds for this process (once; later calls return the first answer). True
    if they were set; False where :data:`ENV` is "0" or the C library is not glibc (macOS, musl), where nothing
    is changed."""
    global _held
    if _held is None:
        wanted = os.environ.get(ENV, "1")
        if wanted not in ("0", "1"):
            raise AttnReproError(f"{ENV}={wanted!r}; set it to 1 (hold freed memory, the default) or 0")
        _held = False
        if wanted == "1" and platform.libc_ver()[0] == "glibc":
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _held = bool(libc.mallopt(M_MMAP_THRESHOLD, LIMIT)) and bool(libc.mallopt(M_TRIM_THRESHOLD, LIMIT))
    return _held
