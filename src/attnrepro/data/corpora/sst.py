"""Stanford Sentiment Treebank (Socher et al. 2013), ``trainDevTestTrees_PTB.zip``: ``trees/{train,dev,test}.txt``,
one labelled parse tree a line, ``(3 (2 It) (4 (2 's) ...))``. The class is the root's label 0-4, which is the
paper's 1-5 scale less one (Snell et al.'s "1-2 vs 4-5" is classes 0,1 vs 3,4 here); the words are the leaves."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from ...errors import AttnReproError

FAMILY = "classification"
ARCHIVE = "trainDevTestTrees_PTB.zip"
PARTS = {"train": "train", "valid": "dev", "test": "test"}
_LEAF = re.compile(r"\(\d ([^()\s]+)\)")


def files(c: dict) -> list[str]:
    return [ARCHIVE]


def _trees(path: Path, part: str):
    with zipfile.ZipFile(path) as z:
        try:
            lines = z.read(f"trees/{part}.txt").decode("utf-8").splitlines()
        except KeyError:
            raise AttnReproError(f"{path}: no member trees/{part}.txt; not the SST trees archive") from None
    for line in lines:
        if line.strip():
            yield " ".join(_LEAF.findall(line)), line[1]


def read(c: dict, raw: Path):
    return {split: _trees(raw / ARCHIVE, part) for split, part in PARTS.items()}
