"""News Commentary v14 (WMT): one gzipped TSV per language pair, ``news-commentary-v14.{a}-{b}.tsv.gz``, a sentence
of language a, a tab, its translation in language b. Snell et al.: lines without a letter (empty or purely
numerical) are removed, then a seeded 90/10 split. The paper measures on the held-out 10%, so the test split is
that same held-out set (there is no separate test set)."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

from ...errors import AttnReproError
from .text import has_letter, holdout

FAMILY = "pieces"


def files(c: dict) -> list[str]:
    return [f"news-commentary-v14.{c['pair']}.tsv.gz"]


def read(c: dict, raw: Path) -> dict[str, list[tuple[str, str]]]:
    path = raw / files(c)[0]
    columns = c["pair"].split("-")
    for lang in (c["src"], c["tgt"]):
        if lang not in columns:
            raise AttnReproError(f"{path}: language {lang!r} is not one of the pair {c['pair']!r}")
    si, ti = columns.index(c["src"]), columns.index(c["tgt"])
    pairs, malformed, dropped = [], 0, 0
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 2:
                malformed += 1
                continue
            s, t = fields[si].strip(), fields[ti].strip()
            if has_letter(s) and has_letter(t):
                pairs.append((s, t))
            else:
                dropped += 1
    print(f"{path.name}: {len(pairs)} pairs; {dropped} empty or numerical, {malformed} malformed lines removed",
          file=sys.stderr)
    train, held = holdout(pairs, c.get("valid_fraction", 0.1), c["seed"])
    return {"train": train, "valid": held, "test": held}
