"""Multi30k, task 1 (Elliott et al. 2016): the raw gzipped text files of the official repository, one sentence a
line, line-aligned across languages. Splits as released: train (29,000), val (1,014), test_2016_flickr (1,000)."""

from __future__ import annotations

import gzip
from pathlib import Path

from .text import aligned

FAMILY = "pieces"
PARTS = {"train": "train", "valid": "val", "test": "test_2016_flickr"}


def files(c: dict) -> list[str]:
    return [f"{part}.{lang}.gz" for part in PARTS.values() for lang in (c["src"], c["tgt"])]


def read(c: dict, raw: Path) -> dict[str, list[tuple[str, str]]]:
    out = {}
    for split, part in PARTS.items():
        sides = []
        for lang in (c["src"], c["tgt"]):
            with gzip.open(raw / f"{part}.{lang}.gz", "rt", encoding="utf-8") as f:
                sides.append(f.read().splitlines())
        out[split] = aligned(*sides, where=str(raw / f"{part}.*.gz"))
    return out
