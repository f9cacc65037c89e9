"""The one progress line every long job writes: one line per evaluation, at least every few minutes between them
(:data:`HEARTBEAT_SECONDS`) and at each checkpoint, ending in a newline (no carriage-return bar that a log viewer
or a later line would garble), e.g.

    14:03:12  aed_gru_one_to_one  step 300/1000  41.2 s  ETA 1.6 min  cuda  loss 0.4213  acc 0.8731
"""

from __future__ import annotations

import math
import sys
import time
from typing import TextIO

HEARTBEAT_SECONDS = 120.0  # the longest a long run stays silent


def eta(seconds: float, step: int, total: int) -> str | None:
    """The time left at this run's mean rate so far; None before the first step or after the last."""
    if step <= 0 or step >= total:
        return None
    left = seconds / step * (total - step)
    return f"{left:.0f} s" if left < 120 else f"{left / 60:.1f} min" if left < 7200 else f"{left / 3600:.1f} h"


def progress(job: str, step: int, total: int, seconds: float, log: TextIO | None = None, *,
             device: str | None = None, note: str = "", **values: float) -> str:
    """Write (and return) the progress line of ``job`` at ``step`` of ``total`` after ``seconds`` of work: the time
    of day, the ETA, the device, named values (``loss``, ``acc``, ...) in the order given — a value that is not a
    number yet (the loss before the first step) is left out — and a ``note`` (a checkpoint written)."""
    parts = [time.strftime("%H:%M:%S"), job, f"step {step}/{total}", f"{seconds:.1f} s"]
    left = eta(seconds, step, total)
    parts += [f"ETA {left}"] if left else []
    parts += [device] if device else []
    for name, value in values.items():
        if isinstance(value, float):
            if not math.isnan(value):
                parts.append(f"{name} {value:.4f}")
        else:
            parts.append(f"{name} {value}")
    parts += [note] if note else []
    line = "  ".join(parts)
    print(line, file=log if log is not None else sys.stderr, flush=True)
    return line
