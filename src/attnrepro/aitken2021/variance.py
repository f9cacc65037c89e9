"""Word variance (Aitken et al. 2021, §4.1, Fig. 5c): how much of the spread of the encoder states that read one
input word is the average temporal evolution μ_t^E."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.tokens import SPECIALS
from .decomposition import Decomposition


def _spread(x: np.ndarray, group: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group: Σ‖x − mean_group(x)‖² and the group size. Two passes: the one-pass Σx² − (Σx)²/n cancels to
    noise, or below zero, for a word whose states barely vary, and a ratio of ±inf would make the mean drop NaN."""
    x = np.asarray(x, dtype=float)
    counts = np.bincount(group, minlength=n_groups).astype(float)
    sums = np.zeros((n_groups, x.shape[1]))
    np.add.at(sums, group, x)
    with np.errstate(invalid="ignore", divide="ignore"):
        dev = x - (sums / counts[:, None])[group]
    return np.bincount(group, weights=(dev**2).sum(1), minlength=n_groups), counts


def word_variance(enc: Decomposition, words: list[str]) -> pd.DataFrame:
    """For each input word x read at least twice with states that vary: the total variance of h_t^E and of
    h_t^E − μ_t^E over the states that read x, and their ratio (Fig. 5c). A word whose states are all the same
    (in translation, a word that only opens sentences: h_1^E depends on x_1 alone) has no variance to explain and
    is left out. Columns token, n, var_h, var_without_temporal, ratio."""
    n = len(words)
    h = np.asarray(enc.temporal + enc.input_delta, dtype=float)
    var_h, counts = _spread(h, enc.token, n)
    var_id, _ = _spread(enc.input_delta, enc.token, n)
    # below a millionth of the states' own spread per state, a word's spread is rounding, not variance
    floor = 1e-6 * float(h.var(0).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        seen = (counts > 1) & (var_h / counts > floor)
        ratio = var_id / var_h
    return pd.DataFrame({"token": np.asarray(words)[seen], "n": counts[seen].astype(int),
                         "var_h": var_h[seen] / counts[seen], "var_without_temporal": var_id[seen] / counts[seen],
                         "ratio": ratio[seen]})


def variance_drop(table: pd.DataFrame) -> float:
    """1 − the mean over input words of each word's ratio var(h^E − μ^E) / var(h^E), ``<eos>`` (and any other
    special token) left out: the authors' reading of "the variance of the input word's hidden states drops by 90%"
    (§4.1, Fig. 5c; ``var_before_after_temp`` in their analysis code), every word weighted equally."""
    words = table[~table.token.isin(SPECIALS)]
    return float(1 - words.ratio.mean()) if len(words) else float("nan")


def variance_drop_pooled(table: pd.DataFrame) -> float:
    """The pooled reading, beside :func:`variance_drop`: 1 − (within-word variance without μ_t) /
    (within-word variance), pooled over every word by occurrence, ``<eos>`` included."""
    total = (table.var_h * table.n).sum()
    return float(1 - (table.var_without_temporal * table.n).sum() / total) if total > 0 else float("nan")
