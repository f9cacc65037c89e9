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


def diagonal_excess(trans: np.ndarray, c: np.ndarray) -> float:
    """Mean over input words i of Trans(i|i) minus the mean Trans(o|i) over the other words o that ever co-occur
    with i (C_io > 0) — for the mixture, the words of i's own set. 0: C does not single out the copied word."""
    n = len(trans)
    other = (c > 0) & ~np.eye(n, dtype=bool)
    rows = [trans[i, i] - trans[i, other[i]].mean() for i in range(n) if other[i].any()]
    return float(np.mean(rows))


def count_tables(spec: dict, seeds: list[int]):
    """Fig. 4 / 8: for each copy distribution (permutations of one set, subsets, mixture) and sampling seed
    (its ``batches`` stream), C (Eq. 16) over ``n_samples`` pairs, Trans (Eq. 17) and Trans after
    ``em_iterations`` of EM. Returns the long table of Trans entries (seed 0 only, for the heat maps) and a per-seed
    summary: ``diag_excess_<dist>_<C|EM>`` (:func:`diagonal_excess`)."""
    import pandas as pd

    from . import tasks
    from ..seeding import generator
    from . import ibm1

    length, n_words = spec["length"], spec["subset_words"]
    dists = {"same": ("permutation", length), "subset": ("permutation", n_words), "mixture": ("mixture", length)}
    tables, rows = [], []
    for seed in seeds:
        row = {"seed": seed}
        for name, (kind, v) in dists.items():
            src, _, tgt = tasks.copy_batch(kind, spec["n_samples"], length, v, generator(seed, "batches"))
            x, y = src[:, :-1].numpy(), tgt[:, :-1].numpy()   # words only: <eos> is in every pair
            n = 2 * length if kind == "mixture" else v
            c = count_table_dense(x, y, n, n)
            for stage, trans in (("C", ibm1.translation_table(c)), ("EM", ibm1.em(x, y, n, n, spec["em_iterations"]))):
                row[f"diag_excess_{name}_{stage}"] = diagonal_excess(trans, c)
                if seed == seeds[0]:
                    i, o = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
                    tables.append(pd.DataFrame({"distribution": name, "stage": stage, "input": i.ravel(),
                                                "output": o.ravel(), "trans": trans.ravel(),
                                                "count": c.ravel() if stage == "C" else np.nan}))
        rows.append(row)
    return pd.concat(tables, ignore_index=True), pd.DataFrame(rows)
