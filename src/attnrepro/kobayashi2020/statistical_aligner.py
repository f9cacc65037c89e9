"""A statistical word aligner on the same sentences, for Table 3's "competitive with fast_align" (Kobayashi et al.
2020, §5; claim ``aer_norm_competitive_with_fast_align``).

The paper quotes fast_align's AER (28.4, Zenkel et al. 2019: fast_align trained on the training text plus the gold
sentences, German→English links). fast_align and GIZA++ are not packaged on PyPI; eflomal (Östling & Tiedemann
2017) is, and is of the same family: an IBM-style model (model 3 = IBM1 + HMM jumps + fertility) fitted without
supervision by Gibbs sampling. :func:`align` runs it on a parallel text whose last sentence pairs are the gold
set's, as Zenkel et al. ran fast_align, and returns the links of those pairs in the structure
:func:`attnrepro.kobayashi2020.aer.aer` scores (0-based (source, target) sets).

eflomal is an optional dependency (``pip install 'attnrepro[aligner]'``); without it :func:`align` raises an
error naming the package and the install command.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..errors import AttnReproError
from .aer import Links, parse_pharaoh_line

INSTALL = "pip install 'attnrepro[aligner]'  (or: pip install eflomal)"
DIRECTIONS = ("forward", "reverse", "intersection")


def _eflomal():
    try:
        import eflomal
    except ImportError as err:
        raise AttnReproError(f"the statistical aligner needs the package 'eflomal', which is not importable "
                             f"({err}); install it with: {INSTALL}") from None
    return eflomal


def align(src: list[list[str]], tgt: list[list[str]], n_scored: int, direction: str = "forward",
          seed_text: tuple[list[list[str]], list[list[str]]] | None = None, model: int = 3,
          n_samplers: int = 3) -> list[Links]:
    """Links of the last ``n_scored`` pairs of ``src``/``tgt`` (the gold pairs, after any training text), each a
    set of 0-based (source, target) positions.

    ``direction``: ``forward`` (each target word linked to at most one source word: fast_align's German→English
    run, the 28.4 the paper quotes), ``reverse`` (each source word to at most one target word) or their
    ``intersection``. ``seed_text`` is unused text prepended for training only (none: ``src``/``tgt`` alone).
    eflomal samples with its own random state; reruns differ slightly."""
    if direction not in DIRECTIONS:
        raise AttnReproError(f"aligner direction {direction!r} is not one of {DIRECTIONS}")
    return align_directions(src, tgt, n_scored, seed_text, model, n_samplers)[direction]


def align_directions(src: list[list[str]], tgt: list[list[str]], n_scored: int,
                     seed_text: tuple[list[list[str]], list[list[str]]] | None = None, model: int = 3,
                     n_samplers: int = 3) -> dict[str, list[Links]]:
    """:func:`align`'s links in every one of :data:`DIRECTIONS` from one eflomal run (it fits both directions
    at once, so asking for each alone would fit the same model three times). ``seed_text``'s sentences may be
    token lists or lines of space-separated tokens."""
    if len(src) != len(tgt):
        raise AttnReproError(f"aligner: {len(src)} source and {len(tgt)} target sentences")
    if not 0 < n_scored <= len(src):
        raise AttnReproError(f"aligner: {n_scored} scored pairs out of {len(src)}")
    for k, (s, t) in enumerate(zip(src, tgt)):
        if not s or not t:
            raise AttnReproError(f"aligner: sentence pair {k} has an empty side; eflomal would misalign the lines")
    if seed_text is not None:
        if len(seed_text[0]) != len(seed_text[1]):
            raise AttnReproError(f"aligner training text: {len(seed_text[0])} source and {len(seed_text[1])} "
                                 f"target sentences")
        empty = next((k for k, (s, t) in enumerate(zip(*seed_text)) if not s or not t), None)
        if empty is not None:
            raise AttnReproError(f"aligner training text: sentence pair {empty} has an empty side")
        src, tgt = list(seed_text[0]) + list(src), list(seed_text[1]) + list(tgt)
    eflomal = _eflomal()
    aligner = eflomal.Aligner(model=model, n_samplers=n_samplers)
    with tempfile.TemporaryDirectory(prefix="attnrepro-eflomal-") as tmp:
        fwd, rev = Path(tmp) / "fwd", Path(tmp) / "rev"
        aligner.align([_line(s) for s in src], [_line(t) for t in tgt],
                      links_filename_fwd=str(fwd), links_filename_rev=str(rev))
        forward = _read_links(fwd, len(src))
        reverse = _read_links(rev, len(src))
    forward, reverse = forward[-n_scored:], reverse[-n_scored:]
    return {"forward": forward, "reverse": reverse, "intersection": [f & r for f, r in zip(forward, reverse)]}


def _line(sentence: list[str] | str) -> str:
    """One line of eflomal's input: a token list joined by spaces, or a training sentence already joined (millions
    of them are kept as one string each, not as lists of word objects)."""
    return (sentence if isinstance(sentence, str) else " ".join(sentence)) + "\n"


def _read_links(path: Path, n: int) -> list[Links]:
    """eflomal's output: one Pharaoh line per sentence pair, 0-based ``i-j`` (source i, target j)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if len(lines) != n:
        raise AttnReproError(f"eflomal wrote {len(lines)} alignment lines for {n} sentence pairs ({path.name})")
    out = []
    for k, line in enumerate(lines, start=1):
        try:
            out.append(parse_pharaoh_line(line)[0])
        except ValueError as err:
            raise AttnReproError(f"eflomal output {path.name}:{k}: {err}") from None
    return out
