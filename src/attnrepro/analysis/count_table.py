"""The co-occurrence count table C of Snell et al. 2021, Eq. 16 (= IBM Model 1's first count table, §4.2):

C_io = Σ_m Σ_l Σ_t (1/L^m) 1[x_l^m = i] 1[y_t^m = o].

Its initial gradient drives the bag-of-words proxy (Eq. 15); under a distribution of permutations of one word set
every row of C is the same, so it carries no word-to-word signal (Fig. 4 / 8).
"""

from __future__ import annotations

import numpy as np


def count_table(sources, targets, n_in: int, n_out: int) -> np.ndarray:
    """``sources``/``targets``: sequences of integer id sequences (one pair per example) -> C [n_in, n_out]."""
    c = np.zeros((n_in, n_out))
    for x, y in zip(sources, targets):
        x, y = np.asarray(x), np.asarray(y)
        c += np.outer(np.bincount(x, minlength=n_in), np.bincount(y, minlength=n_out)) / len(x)
    return c


def count_table_dense(src: np.ndarray, tgt: np.ndarray, n_in: int, n_out: int) -> np.ndarray:
    """The same for equal-length batches ``src`` [M, L], ``tgt`` [M, T], without a Python loop."""
    m = len(src)
    bx = np.zeros((m, n_in))
    np.add.at(bx, (np.repeat(np.arange(m), src.shape[1]), src.ravel()), 1.0)
    by = np.zeros((m, n_out))
    np.add.at(by, (np.repeat(np.arange(m), tgt.shape[1]), tgt.ravel()), 1.0)
    return bx.T @ by / src.shape[1]
