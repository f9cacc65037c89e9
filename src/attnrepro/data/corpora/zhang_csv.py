"""The text-classification CSV archives of Zhang et al. 2015 (AG News, Amazon review polarity, Yelp review full,
...): ``<name>.tgz`` or ``.tar.gz`` holding ``<name>/train.csv`` and ``<name>/test.csv``, rows of a class number
(from 1) and one or more quoted text fields (title, description / review) with ``\\n`` written for a line break."""

from __future__ import annotations

import csv
import io
import tarfile
from pathlib import Path

from ...errors import AttnReproError

FAMILY = "classification"


def files(c: dict) -> list[str]:
    return list(c["files"])[:1]


def _folder(archive: str) -> str:
    for ext in (".tar.gz", ".tgz"):
        if archive.endswith(ext):
            return archive[: -len(ext)]
    raise AttnReproError(f"{archive}: expected a .tgz or .tar.gz archive of Zhang et al.'s CSV format")


def _rows(path: Path, split: str):
    with tarfile.open(path) as tar:
        name = f"{_folder(path.name)}/{split}.csv"
        try:
            f = tar.extractfile(name)
        except KeyError:
            raise AttnReproError(f"{path}: no member {name}") from None
        for row in csv.reader(io.TextIOWrapper(f, encoding="utf-8", newline="")):
            yield " ".join(row[1:]).replace("\\n", " "), row[0]


def read(c: dict, raw: Path):
    path = raw / files(c)[0]
    return {split: _rows(path, split) for split in ("train", "test")}
