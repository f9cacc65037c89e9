"""IMDB movie reviews (Maas et al. 2011), ``aclImdb_v1.tar.gz``: one review a file,
``aclImdb/{train,test}/{pos,neg}/<id>_<stars>.txt``; classes ``neg`` and ``pos``. HTML line breaks become spaces."""

from __future__ import annotations

import re
import tarfile
from pathlib import Path

FAMILY = "classification"
ARCHIVE = "aclImdb_v1.tar.gz"
_MEMBER = re.compile(r"aclImdb/(train|test)/(pos|neg)/\d+_\d+\.txt")


def files(c: dict) -> list[str]:
    return [ARCHIVE]


def _reviews(path: Path, split: str):
    with tarfile.open(path) as tar:
        for member in tar:  # streamed: the archive is read once per split, never unpacked
            m = _MEMBER.fullmatch(member.name)
            if m and m.group(1) == split:
                text = tar.extractfile(member).read().decode("utf-8")
                yield text.replace("<br />", " "), m.group(2)


def read(c: dict, raw: Path):
    return {split: _reviews(raw / ARCHIVE, split) for split in ("train", "test")}
