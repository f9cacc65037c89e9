"""The one progress line every long job writes: one line per evaluation, ending in a newline (no carriage-return
bar that a log viewer or a later line would garble), e.g.

    aed_gru_one_to_one  step 300/1000  41.2 s  loss 0.4213  acc 0.8731
"""

from __future__ import annotations

import sys
from typing import TextIO


def progress(job: str, step: int, total: int, seconds: float, log: TextIO | None = None, **values: float) -> str:
    """Write (and return) the progress line of ``job`` at ``step`` of ``total`` after ``seconds`` of work, with
    named values (``loss``, ``acc``, ...) in the order given; NaN values are written as ``nan``."""
    parts = [job, f"step {step}/{total}", f"{seconds:.1f} s"]
    parts += [f"{name} {value:.4f}" if isinstance(value, float) else f"{name} {value}" for name, value in values.items()]
    line = "  ".join(parts)
    print(line, file=log if log is not None else sys.stderr, flush=True)
    return line
