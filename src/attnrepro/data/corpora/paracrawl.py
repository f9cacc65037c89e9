"""ParaCrawl English-French (Bañón et al. 2020), the release-4 file ``en-fr.bicleaner07.txt.gz`` that TensorFlow
Datasets' ``para_crawl/enfr`` reads (31M pairs; Aitken et al. used "a subset of the para_crawl dataset consisting
of over 30 million parallel sentences"): one pair a line, English, a tab, French. Aitken et al.: word-level tokens,
sentences of up to 15 tokens. The subset is a seeded uniform sample of the pairs whose both sides fit."""

from __future__ import annotations

import gzip
from pathlib import Path

from ..tokens import words
from .text import bottom_k

FAMILY = "words"
FILE = "en-fr.bicleaner07.txt.gz"


def files(c: dict) -> list[str]:
    return [FILE]


def _pairs(path: Path, src: str, max_len: int):
    si = 0 if src == "en" else 1
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 2:
                continue
            s, t = words(fields[si]), words(fields[1 - si])
            if 0 < len(s) <= max_len and 0 < len(t) <= max_len:
                yield s, t


def read(c: dict, raw: Path) -> dict[str, list[tuple[list[str], list[str]]]]:
    n = {split: c[f"n_{split}"] for split in ("train", "valid", "test")}
    sample = bottom_k(_pairs(raw / FILE, c["src"], c["max_len"]), sum(n.values()), c["seed"])
    return {"train": sample[: n["train"]], "valid": sample[n["train"]: n["train"] + n["valid"]],
            "test": sample[n["train"] + n["valid"]:]}
