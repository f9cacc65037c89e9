"""Task generators. Each task turns its config block (see ``workflow/schemas/config.schema.yaml``) and a seed
into train/valid/test splits of (source words, target words) pairs.

Splits are drawn from independent child seeds of the task's seed (numpy ``SeedSequence.spawn``), so changing the
size of one split never changes the others.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from . import one_to_one as _one_to_one
from . import sort as _sort

SPLITS = ("train", "valid", "test")

# kind -> (generator, source words, target words)
KINDS = {
    "one_to_one": (lambda c, n, s: _one_to_one.one_to_one(c["n_words"], c["min_len"], c["max_len"], n, s),
                   _one_to_one.source_words, _one_to_one.target_words),
    "reversed": (lambda c, n, s: _one_to_one.one_to_one(c["n_words"], c["min_len"], c["max_len"], n, s,
                                                        reverse=True),
                 _one_to_one.source_words, _one_to_one.target_words),
    "sort": (lambda c, n, s: _sort.sort(c["n_words"], c["min_len"], c["max_len"], n, s),
             _sort.source_words, _sort.target_words),
}


def generate(task: dict[str, Any]) -> dict[str, pd.DataFrame]:
    """Generate every split of ``task``; returns ``{split: DataFrame(src, tgt)}`` with lists of words."""
    generator = KINDS[task["kind"]][0]
    children = np.random.SeedSequence(task["seed"]).spawn(len(SPLITS))
    out = {}
    for split, child in zip(SPLITS, children):
        seed = int(child.generate_state(1)[0])
        src, tgt = generator(task, task[f"n_{split}"], seed)
        out[split] = pd.DataFrame({"src": src, "tgt": tgt})
    return out


def words(task: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The task's source and target words (without the special tokens)."""
    _, src_words, tgt_words = KINDS[task["kind"]]
    return src_words(task["n_words"]), tgt_words(task["n_words"])
