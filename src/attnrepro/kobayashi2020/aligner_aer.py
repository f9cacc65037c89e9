"""Table 3's word-aligner row measured, not quoted (Kobayashi et al. 2020, §5: "our result is competitive with
fast_align, one of the de facto word aligners"; claim ``aer_norm_competitive_with_fast_align``).

The paper copies fast_align's AER (28.4) from Zenkel et al. (2019), who trained fast_align on the training text
plus the gold sentences and scored its German→English links. Here a statistical aligner of the same family
(:mod:`.statistical_aligner`, eflomal) is run the same way on our own training text plus the gold set's sentence
pairs, and its links are scored by the same AER (:func:`.aer.aer`) against the same gold links as the
Transformer's. Two pure steps:

- :func:`aligner_aer_table`: the aligner's links (per direction) and the gold links -> its AER per direction;
- :func:`norm_minus_aligner`: each seed's best-layer vector-norm AER (the gold set's ``aer_summary.csv``) minus
  the aligner's AER in :data:`COMPARED` -> ``aer_norm_best_minus_aligner``, the claim's measure (< 0.05 holds:
  at most 5 points worse than the aligner on the same sentences).
"""

from __future__ import annotations

import pandas as pd

from ..errors import AttnReproError
from .aer import Links, aer

# the direction compared with the Transformer's links: each target word linked to at most one source word, the
# structure of both Zenkel et al.'s fast_align run (German→English) and the paper's hard alignment (one source
# word per target word, Li et al. 2019)
COMPARED = "forward"
COLUMNS = ["direction", "aer", "n_links", "n_sentences"]


def aligner_aer_table(links: dict[str, list[Links]], sure: list[Links], possible: list[Links]) -> pd.DataFrame:
    """AER of the aligner's links in each direction (``links[direction]``: one set of 0-based (source, target)
    links per gold sentence pair, in the gold set's order) against the gold ``sure`` / ``possible`` links.
    Columns direction, aer, n_links (all predicted links), n_sentences."""
    if COMPARED not in links:
        raise AttnReproError(f"aligner links: no {COMPARED!r} direction (have {sorted(links)}); the claim compares it")
    rows = []
    for direction, predicted in links.items():
        if len(predicted) != len(sure):
            raise AttnReproError(f"aligner links ({direction}): {len(predicted)} sentence pairs, the gold set has "
                                 f"{len(sure)}")
        rows.append({"direction": direction, "aer": aer(predicted, sure, possible),
                     "n_links": sum(map(len, predicted)), "n_sentences": len(predicted)})
    return pd.DataFrame(rows, columns=COLUMNS)


def norm_minus_aligner(summary: pd.DataFrame, aligner: pd.DataFrame, direction: str = COMPARED) -> pd.DataFrame:
    """Per seed: ``aer_aligner`` (the aligner's AER in ``direction``; one run, the same for every seed) and
    ``aer_norm_best_minus_aligner`` = the seed's best-layer vector-norm AER minus it (> 0: the aligner is better).
    ``summary``: the gold set's per-seed AER summary (columns seed, aer_norm_best); ``aligner``:
    :func:`aligner_aer_table`'s table. aer_norm_best itself is not repeated: the claims step joins this table with
    the summary on seed, and a measure in two tables is an error there."""
    missing = {"seed", "aer_norm_best"} - set(summary.columns)
    if missing:
        raise AttnReproError(f"AER summary: no column(s) {sorted(missing)}")
    row = aligner[aligner.direction == direction]
    if len(row) != 1:
        raise AttnReproError(f"aligner table: {len(row)} rows of direction {direction!r}, expected one")
    value = float(row.aer.iloc[0])
    return pd.DataFrame({"seed": summary.seed.to_numpy(), "aer_aligner": value,
                         "aer_norm_best_minus_aligner": summary.aer_norm_best.to_numpy(dtype=float) - value})
