"""Kobayashi et al. 2020, §5 and Fig. 8 on real translation: the source periods get large attention weights but
small vector norms, the §4.2 mechanism (:func:`attnrepro.kobayashi2020.analysis.special_share_drop`) in the
source-target attention of a translation model."""

from __future__ import annotations

import numpy as np

PERIODS = (".",)  # Fig. 8's example of "certain tokens"


def period_mask(sentences: list[list[str]], width: int) -> np.ndarray:
    """[B, width] True where source word j of sentence b is a period (the <eos> key and padding never are)."""
    mask = np.zeros((len(sentences), width), dtype=bool)
    for b, words in enumerate(sentences):
        for j, w in enumerate(words[:width]):
            mask[b, j] = w in PERIODS
    return mask


def period_share_drop(layers: list[dict[str, np.ndarray]], periods: np.ndarray, key_len: np.ndarray,
                      tgt_len: np.ndarray) -> float:
    """One seed: the share of a target word's source attention that the periods get by weight (Σ over periods of
    mean_h α_ij, §5's ``weight``) minus their share by norm (Σ over periods of ‖Σ_h α^h_ij f^h(x_j)‖ over its sum
    over all source keys), averaged over target words, over sentences with a period, then over layers. > 0 where
    periods are attended to but contribute little. ``layers[l][method]`` [B, Q, K]; ``periods`` [B, K];
    ``key_len`` [B]: the source keys (words and <eos>); ``tgt_len`` [B]: target words. NaN with no period."""
    with_period = np.flatnonzero(periods.any(axis=1))
    if not len(with_period):
        return float("nan")
    per_layer = []
    for soft in layers:
        drops = []
        for b in with_period:
            k, q = int(key_len[b]), int(tgt_len[b])
            share = {}
            for method in ("weight", "norm"):
                s = np.asarray(soft[method][b, :q, :k], dtype=float)
                share[method] = s[:, periods[b, :k]].sum(axis=1) / s.sum(axis=1)
            drops.append(float(np.mean(share["weight"] - share["norm"])))
        per_layer.append(np.mean(drops))
    return float(np.mean(per_layer))
