"""20 Newsgroups, the "bydate" version (``20news-bydate.tar.gz``): one post a file,
``20news-bydate-{train,test}/<newsgroup>/<number>``, Latin-1; the class is the newsgroup. The header block (up to
the first blank line) is dropped: its ``Newsgroups:`` line names the class."""

from __future__ import annotations

import tarfile
from pathlib import Path

FAMILY = "classification"
ARCHIVE = "20news-bydate.tar.gz"


def files(c: dict) -> list[str]:
    return [ARCHIVE]


def _posts(path: Path, split: str):
    with tarfile.open(path) as tar:
        for member in tar:
            parts = member.name.split("/")
            if member.isfile() and len(parts) == 3 and parts[0] == f"20news-bydate-{split}":
                text = tar.extractfile(member).read().decode("latin-1")
                yield text.partition("\n\n")[2], parts[1]


def read(c: dict, raw: Path):
    return {split: _posts(raw / ARCHIVE, split) for split in ("train", "test")}
