"""The alphabetical sort task of Aitken et al. 2021, §3: ``{B, C, A, D} -> {A, B, C, D}``.

As in the paper's example, an input holds distinct letters (``distinct=True``): the output is then the sorted set
and the word at output step s depends on which letters occur, not on s alone. With letters drawn with repetition
from a few words the output letter is nearly fixed by its position, so the task no longer needs the
input-dependent attention the paper studies (Fig. 2h, where Δh^D·χ^E dominates; docs/deviations.md, sort task).
"""

from __future__ import annotations

import numpy as np

from .words import letters


def source_words(n_words: int) -> list[str]:
    return letters(n_words)


def target_words(n_words: int) -> list[str]:
    return letters(n_words)


def sort(n_words: int, min_len: int, max_len: int, n: int, seed: int, distinct: bool = True
         ) -> tuple[list[list[str]], list[list[str]]]:
    """``n`` (letters, sorted letters) pairs of lengths in [min_len, max_len]; distinct letters need
    ``n_words ≥ max_len``."""
    if distinct and n_words < max_len:
        raise ValueError(f"distinct letters need n_words ({n_words}) ≥ max_len ({max_len})")
    rng = np.random.default_rng(seed)
    words = letters(n_words)
    lengths = rng.integers(min_len, max_len + 1, size=n)
    sources, targets = [], []
    for length in lengths:
        ids = rng.choice(n_words, size=length, replace=False) if distinct else rng.integers(0, n_words, size=length)
        sources.append([words[i] for i in ids])
        targets.append([words[i] for i in np.sort(ids)])
    return sources, targets
