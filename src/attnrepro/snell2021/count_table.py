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


# Eq. 15 is a limit d → ∞: a wide proxy (its finite-width term is O(d^-1/2)) on enough pairs for C − mean(C);
# fixed here, not config keys, since no configuration varies them
EQ15_DIM, EQ15_SAMPLES = 1024, 500


def initial_gradient(src: np.ndarray, tgt: np.ndarray, n_in: int, n_out: int, dim: int, seed: int) -> np.ndarray:
    """∂θ^px/∂τ at τ = 0 (Eq. 15's left side), [n_in, n_out]: the bag-of-words proxy (Eq. 5) with e_i and W_o drawn
    from N(0, I_d/d) (numpy seed ``seed``, width ``dim``), moved along gradient flow on Eq. 14's summed loss over
    the pairs ``src`` [M, L], ``tgt`` [M, T]; θ^px = σ(W e_i) (Eq. 13), its time derivative as a Jacobian-vector
    product. Float64: the finite-width term this measures against is O(d^-1/2)."""
    import torch

    rng = np.random.default_rng(seed)
    e = torch.tensor(rng.normal(0.0, dim ** -0.5, (n_in, dim)), requires_grad=True)
    w = torch.tensor(rng.normal(0.0, dim ** -0.5, (dim, n_out)), requires_grad=True)
    x, y = torch.as_tensor(src), torch.as_tensor(tgt)
    log_p = torch.log_softmax(e[x].mean(1) @ w, -1)                      # [M, n_out], the same at every t
    loss = -log_p.gather(1, y).sum()
    g_e, g_w = torch.autograd.grad(loss, (e, w))
    theta = lambda e_, w_: torch.softmax(e_ @ w_, -1)  # noqa: E731
    _, d_theta = torch.func.jvp(theta, (e.detach(), w.detach()), (-g_e, -g_w))
    return d_theta.numpy()


def eq15_agreement(d_theta: np.ndarray, c: np.ndarray) -> float:
    """Pearson correlation between ∂θ_io/∂τ(0) and C_io − mean_o' C_io' (Eq. 15: proportional as d → ∞) over the
    entries of the input words that occur (rows of C not all 0); NaN where C − mean(C) is 0 everywhere (a flat C,
    permutations of one set)."""
    seen = c.sum(1) > 0
    centred = (c - c.mean(1, keepdims=True))[seen].ravel()
    grad = d_theta[seen].ravel()
    if np.allclose(centred, 0.0):
        return float("nan")
    return float(np.corrcoef(grad, centred)[0, 1])


def count_tables(spec: dict, seeds: list[int]):
    """Fig. 4 / 8: for each copy distribution (permutations of one set, subsets, mixture) and sampling seed
    (its ``batches`` stream), C (Eq. 16) over ``n_samples`` pairs, Trans (Eq. 17) and Trans after
    ``em_iterations`` of EM. Returns the long table of Trans entries (seed 0 only, for the heat maps) and a per-seed
    summary: ``diag_excess_<dist>_<C|EM>`` (:func:`diagonal_excess`) and, where C is not flat, ``eq15_corr_<dist>``
    (:func:`eq15_agreement` of a proxy of width :data:`EQ15_DIM` drawn with the seed, on the first
    :data:`EQ15_SAMPLES` pairs)."""
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
            if name != "same":  # permutations of one set: C − mean(C) is 0, Eq. 15 has nothing to be proportional to
                xs, ys = x[:EQ15_SAMPLES], y[:EQ15_SAMPLES]
                row[f"eq15_corr_{name}"] = eq15_agreement(initial_gradient(xs, ys, n, n, EQ15_DIM, seed),
                                                          count_table_dense(xs, ys, n, n))
            for stage, trans in (("C", ibm1.translation_table(c)), ("EM", ibm1.em(x, y, n, n, spec["em_iterations"]))):
                row[f"diag_excess_{name}_{stage}"] = diagonal_excess(trans, c)
                if seed == seeds[0]:
                    i, o = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
                    tables.append(pd.DataFrame({"distribution": name, "stage": stage, "input": i.ravel(),
                                                "output": o.ravel(), "trans": trans.ravel(),
                                                "count": c.ravel() if stage == "C" else np.nan}))
        rows.append(row)
    return pd.concat(tables, ignore_index=True), pd.DataFrame(rows)
