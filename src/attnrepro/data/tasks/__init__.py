"""Task generators. Each task turns its config block (see ``workflow/schemas/config.schema.yaml``) and a seed
into train/valid/test splits of (source words, target words) pairs.

Synthetic splits are drawn from independent child seeds of the task's seed (numpy ``SeedSequence.spawn``), so
changing the size of one split never changes the others. A corpus (the EN→FR Bible) comes with its own splits
and a vocabulary counted on its training split.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from . import bible as _bible
from . import escan as _escan
from . import one_to_one as _one_to_one
from . import sort as _sort

SPLITS = ("train", "valid", "test")

Pairs = tuple[list[list[str]], list[list[str]]]


@dataclass(frozen=True)
class Kind:
    generate: Callable[[dict[str, Any], int, int], Pairs]     # (task config, n, seed) -> (sources, targets)
    words: Callable[[dict[str, Any]], tuple[list[str], list[str]]]  # task config -> (source, target) words


@dataclass(frozen=True)
class Corpus:
    """A task read from a corpus: all splits at once, and its words from the prepared training split."""
    splits: Callable[[dict[str, Any]], dict[str, pd.DataFrame]]


def _bible_splits(c):
    splits, _ = _bible.bible(c["english"], c["french"], c["max_len"], c["valid_books"], c["test_books"],
                             c["vocab_size"], c["min_count"], c["seed"])
    return splits


def _escan_args(c):
    return c.get("words", list(_escan.DEFAULT_WORDS)), c.get("separator", "<.>")


KINDS: dict[str, Kind | Corpus] = {
    "one_to_one": Kind(
        lambda c, n, s: _one_to_one.one_to_one(c["n_words"], c["min_len"], c["max_len"], n, s),
        lambda c: (_one_to_one.source_words(c["n_words"]), _one_to_one.target_words(c["n_words"]))),
    "reversed": Kind(
        lambda c, n, s: _one_to_one.one_to_one(c["n_words"], c["min_len"], c["max_len"], n, s, reverse=True),
        lambda c: (_one_to_one.source_words(c["n_words"]), _one_to_one.target_words(c["n_words"]))),
    "sort": Kind(
        lambda c, n, s: _sort.sort(c["n_words"], c["min_len"], c["max_len"], n, s, c.get("distinct", True)),
        lambda c: (_sort.source_words(c["n_words"]), _sort.target_words(c["n_words"]))),
    "escan": Kind(
        lambda c, n, s: _escan.escan(c["min_len"], c["max_len"], n, s, *_escan_args(c), c.get("window", "input"),
                                     c.get("max_in_len"), c.get("trailing_separator", False)),
        lambda c: (_escan.source_words(*_escan_args(c)), _escan.target_words(*_escan_args(c)))),
    "bible": Corpus(_bible_splits),
    # the background post's bottleneck study: one-to-one over a wide range of lengths, the source read forwards
    # or reversed (Sutskever et al. 2014); kinds of their own so that the one-to-one claims do not apply to them
    "bottleneck": Kind(
        lambda c, n, s: _one_to_one.one_to_one(c["n_words"], c["min_len"], c["max_len"], n, s),
        lambda c: (_one_to_one.source_words(c["n_words"]), _one_to_one.target_words(c["n_words"]))),
    "bottleneck_reversed": Kind(
        lambda c, n, s: _one_to_one.one_to_one(c["n_words"], c["min_len"], c["max_len"], n, s,
                                               reverse_source=True),
        lambda c: (_one_to_one.source_words(c["n_words"]), _one_to_one.target_words(c["n_words"]))),
}


def dictionary(task: dict[str, Any]) -> dict[str, str] | None:
    """Output word -> the input word it translates, where the task has such a dictionary (Fig. 2b, 5d); None for
    natural language."""
    kind = task["kind"]
    if kind in ("one_to_one", "reversed", "bottleneck", "bottleneck_reversed"):
        return dict(zip(_one_to_one.target_words(task["n_words"]), _one_to_one.source_words(task["n_words"])))
    if kind == "sort":
        return {w: w for w in _sort.source_words(task["n_words"])}
    if kind == "escan":
        words, separator = _escan_args(task)
        return _escan.dictionary(words, separator)
    return None


def generate(task: dict[str, Any]) -> dict[str, pd.DataFrame]:
    """Generate every split of ``task``; returns ``{split: DataFrame(src, tgt)}`` with lists of words."""
    kind = KINDS[task["kind"]]
    if isinstance(kind, Corpus):
        return kind.splits(task)
    children = np.random.SeedSequence(task["seed"]).spawn(len(SPLITS))
    out = {}
    for split, child in zip(SPLITS, children):
        seed = int(child.generate_state(1)[0])
        src, tgt = kind.generate(task, task[f"n_{split}"], seed)
        out[split] = pd.DataFrame({"src": src, "tgt": tgt})
    return out


def words(task: dict[str, Any], splits: dict[str, pd.DataFrame] | None = None) -> tuple[list[str], list[str]]:
    """The task's source and target words (without the special tokens); a corpus needs its generated ``splits``."""
    kind = KINDS[task["kind"]]
    if isinstance(kind, Corpus):
        if splits is None:
            raise ValueError(f"task kind {task['kind']!r} takes its words from its training split")
        train = splits["train"]
        return sorted({w for s in train.src for w in s}), sorted({w for s in train.tgt for w in s})
    return kind.words(task)
