"""The RWTH De-En gold word alignments of Vilar et al. (2006), the gold set of Kobayashi et al. 2020 §5 (Table 3,
Fig. 7), read from the release archive that the ``wmt16`` corpus downloads (:mod:`attnrepro.data.corpora.wmt16`, which
describes the release's layout and its source) into :class:`.gold.GoldSet`: 0-based (source, target) links,
possible ⊇ sure, tokens lower-cased as the corpus's training text is (not re-split: the links count these tokens).

:func:`write_gold` writes the set as the three files a ``kobayashi2020_aer.gold`` set reads (0-based Pharaoh), so
the AER job scores it like any gold file (:func:`.gold.read_gold_set`).
"""

from __future__ import annotations

from pathlib import Path

from ..data.corpora.wmt16 import GOLD_MEMBERS, gold_lines
from ..errors import AttnReproError
from .aer import parse_pharaoh_line
from .gold import GoldSet


def parse_gold(de: list[str], en: list[str], talp: list[str], where: str) -> GoldSet:
    """The release's lines (German, English, 1-based talp) -> :class:`GoldSet`, German as the source. Blank lines
    are dropped where all three files have one (the release ends with such lines; a file that ends early reads as
    blank); a blank sentence beside a non-blank one, a malformed link or a link outside its sentence pair raise,
    naming the archive, the member and its line."""
    n = max(len(de), len(en), len(talp))
    pad = lambda rows: rows + [""] * (n - len(rows))  # noqa: E731
    src, tgt, sure, possible = [], [], [], []
    for k, (d, e, a) in enumerate(zip(pad(de), pad(en), pad(talp)), start=1):
        d_words, e_words = d.split(), e.split()
        if not d_words and not e_words and not a.strip():
            continue
        if not d_words or not e_words:
            side = GOLD_MEMBERS["de"] if not d_words else GOLD_MEMBERS["en"]
            raise AttnReproError(f"{where}: {side}:{k}: empty sentence beside a non-empty one (the files do not "
                                 f"align line by line)")
        try:
            s, p = parse_pharaoh_line(a, one_based=True)
        except ValueError as err:
            raise AttnReproError(f"{where}: {GOLD_MEMBERS['talp']}:{k}: {err}") from None
        for i, j in sorted(p):
            if i >= len(d_words) or j >= len(e_words):
                raise AttnReproError(f"{where}: {GOLD_MEMBERS['talp']}:{k}: link {i + 1}-{j + 1} (1-based) is "
                                     f"outside the pair ({len(d_words)} German, {len(e_words)} English words)")
        src.append([w.lower() for w in d_words])
        tgt.append([w.lower() for w in e_words])
        sure.append(s)
        possible.append(p | s)
    if not src:
        raise AttnReproError(f"{where}: no sentence pair in the gold alignment set")
    return GoldSet(src, tgt, sure, possible)


def read_gold(corpus: dict, raw: Path) -> GoldSet:
    """The RWTH gold set of a ``wmt16`` corpus block, German -> English (``src: de``) or the reverse with every
    link swapped (``src: en``)."""
    de, en, talp, path = gold_lines(Path(raw))
    gold = parse_gold(de, en, talp, str(path))
    direction = (corpus["src"], corpus["tgt"])
    if direction == ("de", "en"):
        return gold
    if direction == ("en", "de"):
        flip = lambda links: [{(j, i) for i, j in s} for s in links]  # noqa: E731
        return GoldSet(gold.tgt, gold.src, flip(gold.sure), flip(gold.possible))
    raise AttnReproError(f"corpus wmt16: src/tgt must be de/en or en/de, not {corpus['src']}/{corpus['tgt']}")


def format_gold_line(sure: set, possible: set) -> str:
    """One Pharaoh line, 0-based: ``i-j`` for a sure link, ``ipj`` for a possible one."""
    return " ".join(f"{i}-{j}" if (i, j) in sure else f"{i}p{j}" for i, j in sorted(possible | sure))


def write_gold(gold: GoldSet, out: Path) -> dict[str, Path]:
    """``gold.src``, ``gold.tgt`` and ``gold.talp`` (0-based Pharaoh) under ``out``: the files a
    ``kobayashi2020_aer.gold`` set with ``corpus:`` reads."""
    from ..io import atomic_path

    out = Path(out)
    paths = {"source": out / "gold.src", "target": out / "gold.tgt", "alignment": out / "gold.talp"}
    texts = {"source": [" ".join(s) for s in gold.src], "target": [" ".join(t) for t in gold.tgt],
             "alignment": [format_gold_line(s, p) for s, p in zip(gold.sure, gold.possible)]}
    out.mkdir(parents=True, exist_ok=True)
    for key, path in paths.items():
        with atomic_path(path) as tmp:
            tmp.write_text("\n".join(texts[key]) + "\n", encoding="utf-8")
    return paths
