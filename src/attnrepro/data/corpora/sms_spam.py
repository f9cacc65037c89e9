"""The SMS Spam Collection v.1 (Almeida, Gómez Hidalgo and Yamakami 2011), Snell et al. 2021's App. A.9 set: the UCI
archive (``smsspamcollection.zip``) holding ``SMSSpamCollection``, one message a line, ``ham`` or ``spam``, a tab,
the text (5,574 lines). The release has no split: a seeded held-out ``valid_fraction`` (the paper: a 3,500-message
training set, so 0.372 of 5,574) serves as validation and test set, as :mod:`.news_commentary`'s."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

from ...errors import AttnReproError
from .text import holdout

FAMILY = "classification"
ARCHIVE = "smsspamcollection.zip"
MEMBER = "SMSSpamCollection"
LABELS = ("ham", "spam")
KEYS = ("valid_fraction",)   # beyond the family's keys (attnrepro.run.config.check_corpora)


def files(c: dict) -> list[str]:
    return [ARCHIVE]


def _decode(line: bytes) -> str:
    # the release is UTF-8 save a few Latin-1 bytes; every byte string reads as Latin-1
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode("latin-1")


def messages(path: Path) -> list[tuple[str, str]]:
    """(text, label) of every line of the archive's ``SMSSpamCollection``; a line that is not ``ham|spam<TAB>text``
    is an error naming the file and line (the release has none)."""
    with zipfile.ZipFile(path) as z:
        try:
            raw = z.read(MEMBER)
        except KeyError:
            raise AttnReproError(f"{path}: no member {MEMBER} (the UCI archive of the SMS Spam Collection)") from None
    out = []
    for number, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        label, tab, text = _decode(line).partition("\t")
        if not tab or label not in LABELS:
            raise AttnReproError(f"{path}:{MEMBER} line {number}: expected 'ham' or 'spam', a tab, the message; "
                                 f"got {line[:60]!r}")
        out.append((text.strip(), label))
    return out


def read(c: dict, raw: Path):
    rows = messages(raw / ARCHIVE)
    train, held = holdout(rows, c["valid_fraction"], c["seed"])
    print(f"{ARCHIVE}: {len(rows)} messages, {len(train)} for training, {len(held)} held out", file=sys.stderr)
    return {"train": train, "valid": held, "test": held}
