"""The one-to-one translation task of Aitken et al. 2021, §3, and its reversed variant.

Each of ``n_words`` input words (``A``, ``B``, ...) translates to exactly one output word (``1``, ``2``, ...);
inputs have a length drawn uniformly from ``[min_len, max_len]`` and outputs have the same length (T = S).
The reversed variant (§3, "Additional Tasks") emits the translation in reverse order, so the ideal attention is
anti-diagonal.
"""

from __future__ import annotations

import numpy as np

from .words import letters


def source_words(n_words: int) -> list[str]:
    return letters(n_words)


def target_words(n_words: int) -> list[str]:
    return [str(i + 1) for i in range(n_words)]


def one_to_one(n_words: int, min_len: int, max_len: int, n: int, seed: int,
               reverse: bool = False, reverse_source: bool = False) -> tuple[list[list[str]], list[list[str]]]:
    """Draw ``n`` (source, target) pairs; ``{B, A, C} -> {2, 1, 3}`` (or ``{3, 1, 2}`` when ``reverse``, or
    ``{C, A, B} -> {2, 1, 3}`` when ``reverse_source``: the source read backwards, Sutskever et al. 2014)."""
    rng = np.random.default_rng(seed)
    src_vocab, tgt_vocab = source_words(n_words), target_words(n_words)
    lengths = rng.integers(min_len, max_len + 1, size=n)
    sources, targets = [], []
    for length in lengths:
        ids = rng.integers(0, n_words, size=length)
        out = ids[::-1] if reverse else ids
        sources.append([src_vocab[i] for i in (ids[::-1] if reverse_source else ids)])
        targets.append([tgt_vocab[i] for i in out])
    return sources, targets
