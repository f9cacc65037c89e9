"""Measures of Aitken et al. 2021 §3, its abstract and its footnotes: how far the average attention describes a
sample's (abstract), the decoder state as its temporal component (h_s^D ≈ μ_s^D), the full attention's diagonal,
the VED's adjacent temporal clusters (Fig. 2e), the variance the first principal axes carry (footnote 4), the input
components' simplex (footnote 5) and the readout of h_s^D (footnote 6).

Pure functions of a seed's decompositions (:class:`~attnrepro.aitken2021.decomposition.Decomposition`) and arrays.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..tokens import SPECIALS
from .decomposition import Decomposition, _padded


def _states(d: Decomposition) -> np.ndarray:
    return d.temporal + d.input + d.delta


def average_map_fit(dec: Decomposition, dec_example: np.ndarray, enc: Decomposition, enc_example: np.ndarray
                    ) -> float:
    """Abstract: how well the average attention matrix approximates a sample's. For every decoder state, the
    overlap Σ_t min(α_st, ᾱ_st) (1 − total variation) of its attention α_s· = softmax_t(h_s^D·h_t^E) with the mean
    over examples of the attention at that step, ᾱ_s·, renormalised over the sample's own encoder steps; averaged
    per decoder step s and then over the steps with equal weight (as the shares of Fig. 5a). 1 when every sample
    attends alike."""
    m = int(max(dec_example.max(), enc_example.max())) + 1
    t_len, s_len = int(enc.pos.max()) + 1, int(dec.pos.max()) + 1
    scores = np.einsum("msh,mth->mst", _padded(_states(dec), dec_example, dec.pos, m, s_len),
                       _padded(_states(enc), enc_example, enc.pos, m, t_len))
    valid = np.zeros((m, t_len), dtype=bool)
    valid[enc_example, enc.pos] = True
    scores = np.where(valid[:, None, :], scores, -np.inf)
    alpha = np.exp(scores - scores.max(-1, keepdims=True))
    alpha /= alpha.sum(-1, keepdims=True)
    rows = np.zeros((m, s_len), dtype=bool)
    rows[dec_example, dec.pos] = True
    mean = (alpha * rows[..., None]).sum(0) / np.maximum(rows.sum(0), 1)[:, None]      # [S, T]
    own = mean[None] * valid[:, None, :]
    own = own / np.where(own.sum(-1, keepdims=True) > 0, own.sum(-1, keepdims=True), 1.0)
    overlap = np.minimum(alpha, own).sum(-1)[dec_example, dec.pos]
    return float(pd.Series(overlap).groupby(dec.pos).mean().mean())


def attention_diagonal_share(terms: pd.DataFrame) -> float:
    """§3: 'the network learns an approximately diagonal attention matrix'. Share of decoder states whose largest
    alignment a_st is at t = s (rank 0 of :func:`~attnrepro.aitken2021.decomposition.alignment_terms`), per step s
    and then over steps with equal weight."""
    top = terms[terms["rank"] == 0]
    return float((top["t_star"] == top["s"]).groupby(top["s"]).mean().mean()) if len(top) else float("nan")


def decoder_input_delta_ratio(dec: Decomposition) -> float:
    """§3: 'the decoder input-delta components are significantly smaller in magnitude than the decoder temporal
    components' (h_s^D ≈ μ_s^D): mean ‖χ_y^D + Δh_s^D‖ / mean ‖μ_s^D‖ over the decoder states."""
    temporal = np.linalg.norm(dec.temporal, axis=1).mean()
    return float(np.linalg.norm(dec.input_delta, axis=1).mean() / temporal) if temporal > 0 else float("nan")


def last_state_mean(h: np.ndarray, example: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """μ_T^E: the mean encoder state at each example's last step (its <eos>), whatever the example's length."""
    last = pd.Series(pos).groupby(example).transform("max").to_numpy() == pos
    return np.asarray(h, dtype=float)[last].mean(axis=0)


def adjacent_share(mu: np.ndarray) -> float:
    """Fig. 2e: share of the temporal components μ_t (rows, in time order) whose nearest other component is a time
    neighbour t ± 1: 'clusters … closest to those corresponding to adjacent time steps'."""
    mu = mu[~np.isnan(mu).any(axis=1)]
    if len(mu) < 3:
        return float("nan")
    dist = np.linalg.norm(mu[:, None] - mu[None], axis=-1)
    np.fill_diagonal(dist, np.inf)
    return float(np.mean(np.abs(dist.argmin(1) - np.arange(len(mu))) == 1))


def handoff_nearest(dec_mu: np.ndarray, enc_mu: np.ndarray, enc_last: np.ndarray) -> float:
    """Fig. 2e: 'μ_T^E next to μ_1^D'. 1 when the nearest of the encoder temporal components (μ_t^E at the steps
    given, and μ_T^E) to the first decoder temporal component μ_1^D is μ_T^E, else 0."""
    cands = np.vstack([enc_mu[~np.isnan(enc_mu).any(axis=1)], enc_last])
    return float(np.linalg.norm(cands - dec_mu[0], axis=1).argmin() == len(cands) - 1)


def top_axes_variance(points: np.ndarray, basis: np.ndarray | None = None, n_axes: int = 3) -> float:
    """Footnote 4: the share of the variance of ``points`` on the first ``n_axes`` principal axes of ``basis``
    (default the points themselves), as the plots of Fig. 2 project them."""
    points = points[~np.isnan(points).any(axis=1)]
    basis = points if basis is None else basis[~np.isnan(basis).any(axis=1)]
    if len(points) < 2 or len(basis) < 2:
        return float("nan")
    _, _, vt = np.linalg.svd(basis - basis.mean(0), full_matrices=False)
    centred = points - points.mean(0)
    total = float((centred**2).sum())
    return float(((centred @ vt[:n_axes].T) ** 2).sum() / total) if total > 0 else float("nan")


def simplex_irregularity(chi: np.ndarray, words: list[str]) -> float:
    """Footnote 5: 'the encoder input components align with the vertices of an (N − 1)-simplex'. Any N points in
    general position span one, so we read a regular simplex (as in the classification geometry cited): the
    coefficient of variation of the pairwise distances between the N words' χ_x^E (special tokens left out); 0 for a
    regular simplex."""
    keep = np.array([w not in SPECIALS for w in words]) & ~np.isnan(chi).any(axis=1)
    x = chi[keep]
    if len(x) < 3:
        return float("nan")
    i, j = np.triu_indices(len(x), 1)
    dist = np.linalg.norm(x[i] - x[j], axis=1)
    return float(dist.std() / dist.mean()) if dist.mean() > 0 else float("nan")


def readout_state_ratio(readout_state: np.ndarray, dec_h: np.ndarray, readout_context: np.ndarray,
                        enc_h: np.ndarray) -> float:
    """Footnote 6: 'the readout weights … corresponding to the decoder hidden state are negligible'. The logits
    they add, mean ‖W_h h_s^D‖, over those the context part adds, mean ‖W_c h_t^E‖ (c_s is a convex mix of encoder
    states; the states stand in for it). Readout rows with no value are left out."""
    ok = ~(np.isnan(readout_state).any(axis=1) | np.isnan(readout_context).any(axis=1))
    context = np.linalg.norm(np.asarray(enc_h, float) @ readout_context[ok].T, axis=1).mean()
    state = np.linalg.norm(np.asarray(dec_h, float) @ readout_state[ok].T, axis=1).mean()
    return float(state / context) if context > 0 else float("nan")


def section3_measures(E: Decomposition, D: Decomposition, enc: pd.DataFrame, dec: pd.DataFrame, enc_h: np.ndarray,
                      dec_h: np.ndarray, src_vocab: list[str], n_steps: int,
                      attention: tuple[Decomposition, Decomposition] | None = None, terms: pd.DataFrame | None = None,
                      readout: np.ndarray | None = None, readout_state: np.ndarray | None = None) -> dict[str, float]:
    """The per-seed summary columns of this module. ``attention``: (decoder, encoder) decompositions of what the
    attention reads (queries and keys, or the states), None without attention; ``terms``: the Eq. 3 table."""
    out = {
        "decoder_input_delta_ratio": decoder_input_delta_ratio(D),
        "temporal_adjacent_share": float(np.nanmean([adjacent_share(E.mu[:n_steps]), adjacent_share(D.mu[:n_steps])])),
        "handoff_nearest": handoff_nearest(D.mu, E.mu[:n_steps],
                                           last_state_mean(enc_h, enc["example"].to_numpy(), E.pos)),
        "pc3_temporal": top_axes_variance(np.vstack([E.mu[:n_steps], D.mu[:n_steps]])),
        "pc3_input": top_axes_variance(np.vstack([E.input_delta, D.input_delta]), np.vstack([E.chi, D.chi])),
        "chi_simplex_cv": simplex_irregularity(E.chi, src_vocab),
    }
    if readout is not None and readout_state is not None:
        out["readout_state_ratio"] = readout_state_ratio(readout_state, dec_h, readout, enc_h)
    if attention is not None:
        D_a, E_a = attention
        out["average_map_fit"] = average_map_fit(D_a, dec["example"].to_numpy(), E_a, enc["example"].to_numpy())
        out["attention_diagonal_share"] = attention_diagonal_share(terms)
    return out
