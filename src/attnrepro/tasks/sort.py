"""The alphabetical sort task of Aitken et al. 2021, §3: ``{B, C, A, D} -> {A, B, C, D}``.

There is no correlation between input and output position, so the average attention matrix says little about
any one example's attention; the paper finds Δh^D·χ^E dominates the alignment (Fig. 2h).
"""

from __future__ import annotations

import numpy as np

from .words import letters


def source_words(n_words: int) -> list[str]:
    return letters(n_words)


def target_words(n_words: int) -> list[str]:
    return letters(n_words)


def sort(n_words: int, min_len: int, max_len: int, n: int, seed: int) -> tuple[list[list[str]], list[list[str]]]:
    rng = np.random.default_rng(seed)
    words = letters(n_words)
    lengths = rng.integers(min_len, max_len + 1, size=n)
    sources, targets = [], []
    for length in lengths:
        ids = rng.integers(0, n_words, size=length)
        sources.append([words[i] for i in ids])
        targets.append([words[i] for i in np.sort(ids)])
    return sources, targets
