"""Input/readout alignment (Aitken et al. 2021, Fig. 2b, 4c, 5d): the readout vector of output word y dotted with
the encoder input component χ_x^E of each input word x implements the translation dictionary."""

from __future__ import annotations

import numpy as np
import pandas as pd


def readout_alignment(chi: np.ndarray, src_words: list[str], weights: np.ndarray,
                      tgt_words: list[str]) -> pd.DataFrame:
    """χ_x^E · r_y for every input word x and output word y (``weights``: readout rows acting on the context,
    [n_tgt, H]). Long table: target, source, dot."""
    dots = weights @ chi.T
    t, s = np.meshgrid(np.arange(len(tgt_words)), np.arange(len(src_words)), indexing="ij")
    return pd.DataFrame({"target": np.asarray(tgt_words)[t.ravel()], "source": np.asarray(src_words)[s.ravel()],
                         "dot": dots.ravel()})


def readout_match(table: pd.DataFrame, dictionary: dict[str, str]) -> float:
    """Fraction of the output words in ``dictionary`` (output word -> its input word) whose readout has its largest
    dot product with the input component of their own input word."""
    best = readout_best(table)
    hits = [best.get(y) == x for y, x in dictionary.items() if y in best.index]
    return float(np.mean(hits)) if hits else float("nan")


def readout_best(table: pd.DataFrame) -> pd.Series:
    """Per output word of :func:`readout_alignment`: the input word whose χ^E has the largest dot product with its
    readout."""
    table = table.dropna(subset=["dot"])
    return table.loc[table.groupby("target")["dot"].idxmax()].set_index("target")["source"]
