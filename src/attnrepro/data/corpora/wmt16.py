"""WMT16 De-En (the news translation task's parallel training data) and the RWTH De-En gold alignments of
Vilar et al. (2006): the data of Kobayashi et al. 2020, §5 (Table 3, Fig. 7).

What the paper used: "Following Li et al. (2019), we trained the Transformer-based NMT system with the data used
in the WMT2016 news translation task (DE-EN)" (§5; http://www.statmt.org/wmt16/), "the same data and word
segmentation method as Li et al. (2019)" (App. D), i.e. byte-pair encoding (§5: "soft Byte-Pair Encoding
alignments ... converted to hard word alignment following the procedure in Li et al. (2019)"), scored by AER on
"the gold alignment data provided by Vilar et al. (2006)" (https://www-i6.informatik.rwth-aachen.de/goldAlignment/).
The WMT16 De-En parallel data are three releases: Europarl v7, Common Crawl and News Commentary v11 (the archives
of :data:`URLS`, as the task's page lists them).

What the project does: the ``words`` family (:mod:`attnrepro.data.corpora`), not BPE — each sentence is tokenised by
:func:`attnrepro.data.tokens.words` (lower-cased words and punctuation marks), pairs with a side longer than
``max_len`` words dropped, the ``vocab_size`` most frequent words per side kept, the rest ``<unk>``; so the
model's attention is read on words directly and no BPE-to-word merge is needed (docs/deviations.md). The gold
sentence pairs are taken out of the training data (RWTH's sentences are from Europarl, which WMT16 contains), as
Zenkel et al.'s preprocessing does; train/valid/test are a seeded sample of the rest (``n_train`` ...).

The RWTH archive ``DeEnGoldAlignment.tar.gz`` holds ``DeEn/de`` and ``DeEn/en`` (tokenised sentences, one per
line, Latin-1) and ``DeEn/alignmentDeEn.talp`` (one line per sentence pair, ``i-j`` sure and ``ipj`` possible,
German word i, English word j, counted from 1). Source of this description: the preprocessing of Zenkel et al.
(2019), whose fast_align AER (28.4) the paper quotes — github.com/lilt/alignment-scripts, preprocess/deen-test.sh
(un-tar, Latin-1 to UTF-8, drop empty lines) and scripts/combine.sh (``aer.py ... --oneRef``: the reference
counts from 1). :func:`gold_lines` reads the three members; :mod:`attnrepro.kobayashi2020.rwth` (the wing that
scores them) parses them into its gold structure.
"""

from __future__ import annotations

import io
import sys
import tarfile
from pathlib import Path
from typing import Iterator

from ...errors import AttnReproError
from ..tokens import words
from .text import bottom_k

FAMILY = "words"
GOLD_FILE = "DeEnGoldAlignment.tar.gz"
# name -> where it is published. The WMT16 page's links for De-En; the RWTH page serves the archive after its
# licence (if a server refuses a scripted download, put the file in downloads.local_dir: README).
URLS = {
    "training-parallel-europarl-v7.tgz": "https://www.statmt.org/wmt13/training-parallel-europarl-v7.tgz",
    "training-parallel-commoncrawl.tgz": "https://www.statmt.org/wmt13/training-parallel-commoncrawl.tgz",
    "training-parallel-nc-v11.tgz": "https://data.statmt.org/wmt16/translation-task/training-parallel-nc-v11.tgz",
    GOLD_FILE: "https://www-i6.informatik.rwth-aachen.de/goldAlignment/DeEnGoldAlignment.tar.gz",
}
# archive -> the members holding De-En text, as (German, English) name endings
_MEMBERS = {
    "training-parallel-europarl-v7.tgz": ("europarl-v7.de-en.de", "europarl-v7.de-en.en"),
    "training-parallel-commoncrawl.tgz": ("commoncrawl.de-en.de", "commoncrawl.de-en.en"),
    "training-parallel-nc-v11.tgz": ("news-commentary-v11.de-en.de", "news-commentary-v11.de-en.en"),
}
GOLD_MEMBERS = {"de": "DeEn/de", "en": "DeEn/en", "talp": "DeEn/alignmentDeEn.talp"}


def files(c: dict) -> list[str]:
    return list(URLS)


def _member(archive: tarfile.TarFile, path: Path, ending: str) -> tarfile.TarInfo:
    found = [m for m in archive.getmembers() if m.isfile() and (m.name == ending or m.name.endswith("/" + ending))]
    if len(found) != 1:
        raise AttnReproError(f"{path}: expected one member named {ending!r}, found "
                             f"{[m.name for m in found] or 'none'}")
    return found[0]


def _lines(archive: tarfile.TarFile, path: Path, ending: str, encoding: str = "utf-8") -> list[str]:
    with archive.extractfile(_member(archive, path, ending)) as f:
        return io.TextIOWrapper(f, encoding=encoding, errors="strict").read().splitlines()


def gold_lines(raw: Path) -> tuple[list[str], list[str], list[str], Path]:
    """The RWTH archive's three members as lines (German, English, talp) and the archive's path; parsed into
    links by :func:`attnrepro.kobayashi2020.rwth.parse_gold`."""
    path = raw / GOLD_FILE
    if not path.is_file():
        raise AttnReproError(f"{path}: the RWTH gold alignment archive is not there (download it: {URLS[GOLD_FILE]})")
    try:
        with tarfile.open(path) as archive:
            de = _lines(archive, path, GOLD_MEMBERS["de"], "latin-1")
            en = _lines(archive, path, GOLD_MEMBERS["en"], "latin-1")
            talp = _lines(archive, path, GOLD_MEMBERS["talp"], "latin-1")
    except tarfile.TarError as err:
        raise AttnReproError(f"{path}: not a readable tar archive ({err})") from None
    return de, en, talp, path


def _pairs(raw: Path, src: str, max_len: int, exclude: set) -> Iterator[tuple[list[str], list[str]]]:
    """Every De-En pair of the three training archives, both sides of 1..max_len words, not a gold pair."""
    for name, (de_member, en_member) in _MEMBERS.items():
        path = raw / name
        kept = dropped = 0
        try:
            with tarfile.open(path) as archive:
                de = _lines(archive, path, de_member)
                en = _lines(archive, path, en_member)
        except tarfile.TarError as err:
            raise AttnReproError(f"{path}: not a readable tar archive ({err})") from None
        if len(de) != len(en):
            raise AttnReproError(f"{path}: {de_member} has {len(de)} lines, {en_member} {len(en)}; not parallel")
        for d, e in zip(de, en):
            d_words, e_words = words(d), words(e)
            if (0 < len(d_words) <= max_len and 0 < len(e_words) <= max_len
                    and (tuple(d_words), tuple(e_words)) not in exclude):
                kept += 1
                yield (d_words, e_words) if src == "de" else (e_words, d_words)
            else:
                dropped += 1
        print(f"{name}: {kept} pairs kept, {dropped} too long, empty or a gold pair", file=sys.stderr)


def read(c: dict, raw: Path) -> dict[str, list[tuple[list[str], list[str]]]]:
    if {c["src"], c["tgt"]} != {"de", "en"}:
        raise AttnReproError(f"corpus wmt16: src/tgt must be de/en or en/de, not {c['src']}/{c['tgt']}")
    de, en, _, _ = gold_lines(raw)
    # the gold pairs as the training text is tokenised, so that a training copy of one is recognised
    exclude = {(tuple(words(d)), tuple(words(e))) for d, e in zip(de, en) if d.strip() and e.strip()}
    n = {split: c[f"n_{split}"] for split in ("train", "valid", "test")}
    sample = bottom_k(_pairs(raw, c["src"], c["max_len"], exclude), sum(n.values()), c["seed"])
    return {"train": sample[: n["train"]], "valid": sample[n["train"]: n["train"] + n["valid"]],
            "test": sample[n["train"] + n["valid"]:]}
