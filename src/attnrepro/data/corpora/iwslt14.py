"""IWSLT'14 German-English TED talks, as the fairseq ``prepare-iwslt14.sh`` script prepares them from its archive
``de-en.tgz`` (folder ``de-en/``): training text from ``train.tags.de-en.{de,en}`` without the ``<url>``,
``<talkid>`` and ``<keywords>`` lines and with the ``<title>``/``<description>`` tags removed; every 23rd pair is
the validation set; the test set is dev2010, TEDX dev2012 and tst2010-2012 concatenated, read from the ``<seg>``
lines of their XML files. Lower-cased, as fairseq does. Not done (the paper names no tokeniser): the Moses
tokenisation and fairseq's length cleaning; sentencepiece pieces replace its BPE."""

from __future__ import annotations

import re
import tarfile
from pathlib import Path

from ...errors import AttnReproError
from .text import aligned

FAMILY = "pieces"
ARCHIVE = "de-en.tgz"
TEST_SETS = ("IWSLT14.TED.dev2010", "IWSLT14.TEDX.dev2012", "IWSLT14.TED.tst2010", "IWSLT14.TED.tst2011",
             "IWSLT14.TED.tst2012")
_DROP = ("<url>", "<talkid>", "<keywords>")
_TAGS = re.compile(r"</?(title|description)>")
_SEG = re.compile(r'<seg id="?\d+"?>\s*(.*?)\s*</seg>')


def files(c: dict) -> list[str]:
    return [ARCHIVE]


def _member(tar: tarfile.TarFile, name: str) -> list[str]:
    try:
        f = tar.extractfile(f"de-en/{name}")
    except KeyError:
        raise AttnReproError(f"{tar.name}: no member de-en/{name}; not the IWSLT'14 de-en archive") from None
    return f.read().decode("utf-8").splitlines()


def read(c: dict, raw: Path) -> dict[str, list[tuple[str, str]]]:
    langs = (c["src"], c["tgt"])
    with tarfile.open(raw / ARCHIVE) as tar:
        train = [
            [_TAGS.sub("", line).lower() for line in _member(tar, f"train.tags.de-en.{lang}")
             if not any(tag in line for tag in _DROP)]
            for lang in langs
        ]
        test = [[], []]
        for name in TEST_SETS:
            for side, lang in zip(test, langs):
                side += [m.group(1).replace("’", "'").lower()
                         for line in _member(tar, f"{name}.de-en.{lang}.xml") if (m := _SEG.search(line))]
    pairs = aligned(*train, where=f"{raw / ARCHIVE}: train.tags.de-en")
    return {
        "train": [p for i, p in enumerate(pairs, 1) if i % 23],
        "valid": [p for i, p in enumerate(pairs, 1) if not i % 23],
        "test": aligned(*test, where=f"{raw / ARCHIVE}: test sets"),
    }
