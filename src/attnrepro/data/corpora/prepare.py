"""Preparation of a downloaded corpus into the project's layout (see the package docstring for the families)."""

from __future__ import annotations

import sys
import tarfile
import zipfile
import zlib
from pathlib import Path
from typing import Any

from ... import seeding
from ..vocab import Vocab
from ...errors import AttnReproError
from ..tokens import PAD, UNK, map_unk, words
from . import FORMATS, SPLITS, pieces, text


def prepare(corpus: dict[str, Any], raw: Path) -> dict[str, Any]:
    """Read the downloaded files of one corpus from ``raw``; returns ``{"splits": {split: DataFrame},
    "vocab": dict, "spm": bytes | None}``."""
    import pandas as pd

    fmt = FORMATS[corpus["format"]]
    try:
        raw_splits = fmt.read(corpus, raw)
    except (EOFError, OSError, zlib.error, tarfile.TarError, zipfile.BadZipFile, UnicodeDecodeError) as err:
        # the digests passed (download.verify_download): the release itself is not what its format expects
        raise AttnReproError(f"{raw}: the downloaded files of format {corpus['format']!r} do not read "
                             f"({type(err).__name__}: {err}); delete them to download again") from err
    if fmt.FAMILY == "pieces":
        sp = pieces.processor(pieces.train([s for pair in raw_splits["train"] for s in pair],
                                           corpus["vocab_size"], corpus.get("seed", 0)))
        vocab = pieces.vocabulary(sp)
        splits = {s: pd.DataFrame({"src": pieces.encode(sp, [p[0] for p in raw_splits[s]]),
                                   "tgt": pieces.encode(sp, [p[1] for p in raw_splits[s]])}) for s in SPLITS}
        print(f"sentencepiece: {len(vocab)} pieces", file=sys.stderr)
        return {"splits": splits, "vocab": Vocab.from_words(vocab, vocab).to_dict(), "spm": sp.serialized_model_proto()}
    if fmt.FAMILY == "words":
        train = raw_splits["train"]
        src_vocab = text.top_vocab((p[0] for p in train), corpus["vocab_size"])
        tgt_vocab = text.top_vocab((p[1] for p in train), corpus["vocab_size"])
        splits = {s: pd.DataFrame({"src": map_unk((p[0] for p in raw_splits[s]), src_vocab),
                                   "tgt": map_unk((p[1] for p in raw_splits[s]), tgt_vocab)}) for s in SPLITS}
        vocab = Vocab.from_words([UNK, *src_vocab], [UNK, *tgt_vocab])
        return {"splits": splits, "vocab": vocab.to_dict(), "spm": None}
    return _classification(corpus, raw_splits)


def _classification(corpus: dict[str, Any], raw_splits: dict) -> dict[str, Any]:
    import pandas as pd

    groups = [[str(c) for c in group] for group in corpus["classes"]]
    label_of = {c: i for i, group in enumerate(groups) for c in group}
    max_words = corpus.get("max_words")
    seed = corpus["seed"]

    def examples(rows):
        for raw_text, cls in rows:
            if str(cls) in label_of:
                ws = words(raw_text)
                if ws and (max_words is None or len(ws) <= max_words):
                    yield ws, label_of[str(cls)]

    n_valid, n_test = corpus.get("max_valid", 4000), corpus.get("max_test", 4000)
    stream = lambda name: seeding.stream_seed(seed, name)  # noqa: E731
    train = text.bottom_k(examples(raw_splits["train"]), corpus.get("max_train") or sys.maxsize,
                          stream("corpus_train"))
    if "valid" in raw_splits:
        valid = text.bottom_k(examples(raw_splits["valid"]), n_valid, stream("corpus_valid"))
        test = text.bottom_k(examples(raw_splits["test"]), n_test, stream("corpus_test"))
    else:  # disjoint validation and test samples of the release's one held-out set
        held = text.bottom_k(examples(raw_splits["test"]), n_valid + n_test, stream("corpus_heldout"))
        valid, test = held[:n_valid], held[n_valid:]
    parts = {"train": train, "valid": valid, "test": test}
    for name, part in parts.items():
        if not part:
            raise AttnReproError(f"corpus {corpus['format']}: the {name} split has no example of the classes {groups}")
    vocab = text.min_count_vocab((ws for ws, _ in train), corpus.get("min_count", 3))
    splits = {s: pd.DataFrame({"text": map_unk((ws for ws, _ in part), vocab),
                               "label": [label for _, label in part]}) for s, part in parts.items()}
    labels = ["+".join(group) for group in groups]
    return {"splits": splits, "vocab": {"words": [PAD, UNK, *vocab], "labels": labels}, "spm": None}
