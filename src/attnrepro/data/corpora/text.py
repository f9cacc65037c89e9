"""Vocabularies with ``<unk>`` and seeded subsets shared by every corpus format (words: :mod:`attnrepro.data.tokens`)."""

from __future__ import annotations

from collections import Counter
from itertools import islice
from typing import Iterable, TypeVar

import numpy as np

from ..tokens import UNK

T = TypeVar("T")


def has_letter(text: str) -> bool:
    """False for empty and purely numerical lines (digits, signs, punctuation only)."""
    return any(c.isalpha() for c in text)


def _ranked(counts: Counter) -> list[str]:
    # most frequent first, ties alphabetical: the vocabulary does not depend on the order of the corpus
    return sorted(counts, key=lambda w: (-counts[w], w))


def min_count_vocab(token_lists: Iterable[list[str]], min_count: int) -> list[str]:
    """Words seen at least ``min_count`` times (Snell et al.: words seen fewer than 3 times become <unk>)."""
    counts = Counter(w for ws in token_lists for w in ws)
    return [w for w in _ranked(counts) if counts[w] >= min_count and w != UNK]


def top_vocab(token_lists: Iterable[list[str]], size: int) -> list[str]:
    """The ``size`` most frequent words (Aitken et al.: 30k words per language)."""
    counts = Counter(w for ws in token_lists for w in ws)
    counts.pop(UNK, None)
    return _ranked(counts)[:size]


def bottom_k(items: Iterable[T], k: int, seed: int, chunk: int = 1 << 16) -> list[T]:
    """A uniform random subset of ``k`` items (all of them if fewer), in random order, in one pass over a stream
    of any length: each item gets a seeded random key and the ``k`` smallest keys are kept."""
    rng = np.random.default_rng(seed)
    kept: list[T] = []
    keys = np.empty(0)
    it = iter(items)
    while block := list(islice(it, chunk)):
        kept += block
        keys = np.concatenate([keys, rng.random(len(block))])
        if len(kept) > k:
            keep = np.argpartition(keys, k)[:k] if k else np.empty(0, dtype=int)
            kept = [kept[i] for i in keep]
            keys = keys[keep]
    order = np.argsort(keys, kind="stable")
    return [kept[i] for i in order]


def holdout(items: list[T], fraction: float, seed: int) -> tuple[list[T], list[T]]:
    """A seeded random split into (the rest, the held-out ``fraction``), each in corpus order."""
    n_held = int(round(len(items) * fraction))
    held = np.zeros(len(items), dtype=bool)
    held[np.random.default_rng(seed).permutation(len(items))[:n_held]] = True
    return [x for x, h in zip(items, held) if not h], [x for x, h in zip(items, held) if h]


def aligned(src: list[str], tgt: list[str], where: str) -> list[tuple[str, str]]:
    """Sentence pairs of two line-aligned files, without pairs that have an empty side."""
    from ...errors import AttnReproError

    if len(src) != len(tgt):
        raise AttnReproError(f"{where}: the two sides have {len(src)} and {len(tgt)} lines; not a parallel corpus")
    return [(s.strip(), t.strip()) for s, t in zip(src, tgt) if s.strip() and t.strip()]
