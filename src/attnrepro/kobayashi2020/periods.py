"""Kobayashi et al. 2020, §5 and Fig. 8 on real translation: the source periods get large attention weights but
small vector norms, the §4.2 mechanism in the source-target attention of a translation model (one implementation
of the share drop for both: :func:`attnrepro.kobayashi2020.analysis.share_drop`)."""

from __future__ import annotations

import numpy as np

from .analysis import key_share, share_drop

PERIODS = (".",)  # Fig. 8's example of "certain tokens"


def period_mask(sentences: list[list[str]], width: int) -> np.ndarray:
    """[B, width] True where source word j of sentence b is a period (the <eos> key and padding never are)."""
    mask = np.zeros((len(sentences), width), dtype=bool)
    for b, words in enumerate(sentences):
        for j, w in enumerate(words[:width]):
            mask[b, j] = w in PERIODS
    return mask


def period_shares(layers: list[dict[str, np.ndarray]], periods: np.ndarray, key_len: np.ndarray,
                  tgt_len: np.ndarray) -> dict[str, float]:
    """One seed, Fig. 8's two halves, each per target word, averaged over target words, over sentences with a
    period, then over layers: ``period_share_drop``, the periods' share of the source attention by weight
    (mean_h α_ij, §5's ``weight``) minus their share by norm (‖Σ_h α^h_ij f^h(x_j)‖), :func:`share_drop`; and
    ``period_weight_excess``, their share by weight minus the share uniform attention would give them (periods over
    source keys): > 0 where the weights on periods are large. ``layers[l][method]`` [B, Q, K]; ``periods`` [B, K];
    ``key_len`` [B]: the source keys (words and <eos>); ``tgt_len`` [B]: target words. NaN with no period."""
    with_period = np.flatnonzero(periods.any(axis=1))
    if not len(with_period):
        return {"period_share_drop": float("nan"), "period_weight_excess": float("nan")}
    drop, excess = [], []
    for soft in layers:
        d, e = [], []
        for b in with_period:
            k, q = int(key_len[b]), int(tgt_len[b])
            mask = periods[b, :k]
            weight, norm = (np.asarray(soft[m][b, :q, :k], dtype=float) for m in ("weight", "norm"))
            d.append(float(np.mean(share_drop(weight, norm, mask))))
            e.append(float(np.mean(key_share(weight, mask) - mask.mean())))
        drop.append(np.mean(d))
        excess.append(np.mean(e))
    return {"period_share_drop": float(np.mean(drop)), "period_weight_excess": float(np.mean(excess))}
