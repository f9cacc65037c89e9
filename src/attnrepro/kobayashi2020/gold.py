"""A gold word-alignment set for real translation (Kobayashi et al. 2020, §5; the ``kobayashi2020_aer.gold``
config block): a source and a target file of whitespace-tokenised sentences, one per line, and a Pharaoh file
that aligns them line by line (``i-j`` sure, ``ipj`` / ``i-jp`` possible; see :mod:`attnrepro.kobayashi2020.aer`).

Everything is checked here, at the edge, before any model runs: a missing file, files whose line counts differ,
an empty sentence, a link outside its sentence pair, a word a vocabulary without ``<unk>`` cannot take. Each
error names the config key and the file, and for a sentence or link its line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .aer import Links, read_pharaoh
from ..errors import AttnReproError
from ..data.tokens import UNK


@dataclass(frozen=True)
class GoldSet:
    src: list[list[str]]
    tgt: list[list[str]]
    sure: list[Links]       # 0-based (source position, target position) links, words only
    possible: list[Links]   # ⊇ sure


def _sentences(path: Path, key: str) -> list[list[str]]:
    if not path.is_file():
        raise AttnReproError(f"{key}: file not found: {path}")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        words = line.split()
        if not words:  # no word to align to; AER would silently skip it
            raise AttnReproError(f"{key}: {path}:{n}: empty sentence")
        out.append(words)
    return out


def read_gold_set(source: str | Path, target: str | Path, alignment: str | Path, index_base: int,
                  key: str) -> GoldSet:
    """Read and check one gold set; ``key`` (e.g. ``kobayashi2020_aer.gold.vilar``) prefixes every error."""
    if index_base not in (0, 1):
        raise AttnReproError(f"{key}.index_base: {index_base!r} is neither 0 nor 1")
    source, target, alignment = Path(source), Path(target), Path(alignment)
    src = _sentences(source, f"{key}.source")
    tgt = _sentences(target, f"{key}.target")
    if not alignment.is_file():
        raise AttnReproError(f"{key}.alignment: file not found: {alignment}")
    try:
        links = read_pharaoh(alignment, one_based=index_base == 1)
    except AttnReproError as err:
        raise AttnReproError(f"{key}.alignment: {err}") from None
    if not (len(src) == len(tgt) == len(links)):
        raise AttnReproError(f"{key}: the files must align line by line, but {source} has {len(src)} lines, "
                             f"{target} has {len(tgt)} and {alignment} has {len(links)}")
    for n, (s, t, (_, possible)) in enumerate(zip(src, tgt, links), start=1):
        for i, j in sorted(possible):
            if i >= len(s) or j >= len(t):
                raise AttnReproError(
                    f"{key}.alignment: {alignment}:{n}: pair {i + index_base}-{j + index_base} "
                    f"({index_base}-based) is outside the sentence pair ({len(s)} source words in {source}, "
                    f"{len(t)} target words in {target})")
    return GoldSet(src, tgt, [s for s, _ in links], [p | s for s, p in links])


def in_vocabulary(sentences: list[list[str]], words, path: str | Path, key: str) -> list[list[str]]:
    """``sentences`` with every word outside ``words`` replaced by ``<unk>``; without ``<unk>`` in ``words``
    (a synthetic task's vocabulary) an unknown word is an error naming its file and line."""
    known = set(words)
    out = []
    for n, sentence in enumerate(sentences, start=1):
        unknown = [w for w in sentence if w not in known]
        if unknown and UNK not in known:
            raise AttnReproError(f"{key}: {path}:{n}: {unknown[0]!r} is not in the experiment's vocabulary, "
                                 f"which has no {UNK}")
        out.append([w if w in known else UNK for w in sentence])
    return out


def check_lengths(gold: GoldSet, max_positions: int, source, target, key: str) -> None:
    """Every sentence plus its ``<eos>``/``<sos>`` must fit the model's position table."""
    for path, sentences in ((source, gold.src), (target, gold.tgt)):
        for n, sentence in enumerate(sentences, start=1):
            if len(sentence) + 1 > max_positions:
                raise AttnReproError(f"{key}: {path}:{n}: {len(sentence)} words do not fit the model's "
                                     f"max_positions ({max_positions}, <eos>/<sos> included)")
