"""Kobayashi et al. 2020, Fig. 8: the soft alignments of a few example sentence pairs, kept as a long table so the
figure is drawn from a file (:func:`attnrepro.kobayashi2020.figures.fig8`), not from a model.

Kept: the first ``n_sentences`` sentence pairs of the scored set (its file order: the gold set's first lines, or
the synthetic task's first test examples), every source-target attention layer, one seed (the first of the
experiment's first model file: Fig. 8 shows one system), word positions only (no ``<eos>`` key or step, as the
hard alignments of :func:`attnrepro.kobayashi2020.aer.hard_alignment` read them), each cell with its two §5
scores (``weight`` = mean_h α^h_ij, ``norm`` = ‖Σ_h α^h_ij f^h(x_j)‖) and its gold label.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .aer import Links

COLUMNS = ["seed", "sentence", "layer", "target", "source", "target_word", "source_word", "weight", "norm", "gold"]
GOLD_LABELS = ("sure", "possible", "none")


def soft_alignment_table(layers: list[dict[str, np.ndarray]], src: list[list[str]], tgt: list[list[str]],
                         sure: list[Links], possible: list[Links], seed: int, n_sentences: int) -> pd.DataFrame:
    """One row per (sentence, layer, target word, source word) of the first ``n_sentences`` pairs (fewer if the
    set is smaller). ``layers[l][method]`` [B, Q, K] for one seed (layer l + 1, 1-based in the table); ``src`` /
    ``tgt`` the words as written in the set (a period stays a period even where the vocabulary lacks it);
    ``sure`` / ``possible`` the gold links (source, target), 0-based. Columns :data:`COLUMNS`; ``gold`` is
    "sure", "possible" (in P, not in S) or "none"."""
    if n_sentences < 1:
        raise ValueError(f"n_sentences must be at least 1, not {n_sentences}")
    if not (len(src) == len(tgt) == len(sure) == len(possible)):
        raise ValueError(f"{len(src)} source, {len(tgt)} target sentences, {len(sure)} sure and {len(possible)} "
                         f"possible link sets")
    frames = []
    for b in range(min(n_sentences, len(src))):
        n_src, n_tgt = len(src[b]), len(tgt[b])
        # the grid in row-major order: target word i, then source word j
        tgt_pos, src_pos = np.divmod(np.arange(n_tgt * n_src), n_src)
        gold = np.array(["sure" if (j, i) in sure[b] else "possible" if (j, i) in possible[b] else "none"
                         for i, j in zip(tgt_pos, src_pos)], dtype=object)
        for layer, soft in enumerate(layers, start=1):
            weight, norm = (np.asarray(soft[m][b], dtype=float) for m in ("weight", "norm"))
            if weight.shape[0] < n_tgt or weight.shape[1] < n_src:
                raise ValueError(f"sentence {b}: scores of shape {weight.shape} cannot hold {n_tgt} target and "
                                 f"{n_src} source words")
            frames.append(pd.DataFrame({
                "seed": seed, "sentence": b, "layer": layer, "target": tgt_pos, "source": src_pos,
                "target_word": [tgt[b][i] for i in tgt_pos], "source_word": [src[b][j] for j in src_pos],
                "weight": weight[:n_tgt, :n_src].ravel(), "norm": norm[:n_tgt, :n_src].ravel(), "gold": gold}))
    return pd.concat(frames, ignore_index=True)[COLUMNS]
