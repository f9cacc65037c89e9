"""IBM Model 1 (Brown et al. 1993) as Snell et al. 2021 use it, §4.2, plus its full EM training.

Eq. 17: Trans(o|i) = C_io / Σ_o' C_io'          (C: :func:`attnrepro.snell2021.count_table.count_table`)
Eq. 18: β^IBM_tl = Trans(y_t | x_l)
Eq. 19: α^IBM_tl = β^IBM_tl / Σ_l' β^IBM_tl'

The paper stops after the first count table. :func:`em` iterates: E-step, α^IBM under the current Trans (Eq. 19);
M-step, expected counts Σ α^IBM_tl 1[x_l = i] 1[y_t = o], normalised over o (Eq. 17). Starting from a uniform
Trans, the first E-step gives α = 1/L and its counts are exactly C of Eq. 16, so one EM iteration is Eq. 17.
No NULL word, as in the paper.
"""

from __future__ import annotations

import numpy as np


def translation_table(c: np.ndarray) -> np.ndarray:
    """Eq. 17; rows of words never seen stay uniform."""
    c = np.asarray(c, dtype=float)
    total = c.sum(1, keepdims=True)
    return np.where(total > 0, c / np.where(total > 0, total, 1), 1.0 / c.shape[1])


def beta_ibm(trans: np.ndarray, x, y) -> np.ndarray:
    """Eq. 18 for one pair: [T, L]."""
    return trans[np.asarray(x)[None, :], np.asarray(y)[:, None]]


def alpha_ibm(trans: np.ndarray, x, y) -> np.ndarray:
    """Eq. 19 for one pair: [T, L], rows sum to 1."""
    b = beta_ibm(trans, x, y)
    return b / b.sum(1, keepdims=True)


def em(sources, targets, n_in: int, n_out: int, iterations: int = 10) -> np.ndarray:
    """Trans(o|i) after ``iterations`` EM iterations from uniform."""
    trans = np.full((n_in, n_out), 1.0 / n_out)
    for _ in range(iterations):
        counts = np.zeros((n_in, n_out))
        for x, y in zip(sources, targets):
            x, y = np.asarray(x), np.asarray(y)
            a = alpha_ibm(trans, x, y)                       # [T, L]
            np.add.at(counts, (np.broadcast_to(x[None, :], a.shape), np.broadcast_to(y[:, None], a.shape)), a)
        trans = translation_table(counts)
    return trans
