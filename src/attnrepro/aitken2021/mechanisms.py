"""Measures of Aitken et al. 2021 §3, its abstract and its footnotes: how far the average attention describes a
sample's (abstract), the decoder state as its temporal component (h_s^D ≈ μ_s^D), the full attention's diagonal,
the variance the first principal axes of the input components carry (footnote 4, in three readings) and the
readout of h_s^D beside that of the context c_s it reads (footnote 6). Fig. 2e's adjacent VED clusters and hand-off, footnote 4's temporal components and footnote 5's
simplex have no measure: an untrained network already shows them (tests/unit/aitken2021/test_aitken_section3.py).

Pure functions of a seed's decompositions (:class:`~attnrepro.aitken2021.decomposition.Decomposition`) and arrays.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.tokens import PAD
from .decomposition import Decomposition, term_scores, top_alignments


def average_map_fit(dec: Decomposition, dec_example: np.ndarray, enc: Decomposition, enc_example: np.ndarray
                    ) -> float:
    """Abstract: how well the average attention matrix approximates a sample's. For every decoder state, the
    overlap Σ_t min(α_st, ᾱ_st) (1 − total variation) of its attention α_s· = softmax_t(h_s^D·h_t^E) with the mean
    over examples of the attention at that step, ᾱ_s·, renormalised over the sample's own encoder steps; averaged
    per decoder step s and then over the steps with equal weight (as the shares of Fig. 5a). 1 when every sample
    attends alike."""
    valid, mats = term_scores(dec, dec_example, enc, enc_example)
    scores = np.where(valid[:, None, :], mats["full"], -np.inf)
    alpha = np.exp(scores - scores.max(-1, keepdims=True))
    alpha /= alpha.sum(-1, keepdims=True)
    rows = np.zeros(alpha.shape[:2], dtype=bool)
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
    top = top_alignments(terms)
    return float((top["t_star"] == top["s"]).groupby(top["s"]).mean().mean()) if len(top) else float("nan")


def attention_target_share(terms: pd.DataFrame, enc: pd.DataFrame, dec: pd.DataFrame) -> float:
    """§3, Fig. 2h (sort): 'an input-dependent attention matrix that correctly permutes the input sequence'. Share
    of decoder states whose largest alignment a_st (rank 0 of
    :func:`~attnrepro.aitken2021.decomposition.alignment_terms`) is at an encoder step t holding the word the state
    must output (its ``target``, spelt as the input word: sort's dictionary is the identity), per step s and then
    over steps with equal weight; states whose target is not in their input (<eos>) are left out. Attention
    unrelated to the words scores about 1 / input length."""
    top = top_alignments(terms)[["example", "s", "t_star"]]
    source = enc[["example", "t", "token"]].rename(columns={"t": "t_star"})
    dec = dec[dec["target"] != PAD]
    top = top.merge(dec[["example", "s", "target"]], on=["example", "s"]).merge(source, on=["example", "t_star"])
    present = dec[["example", "target"]].merge(enc[["example", "token"]], left_on=["example", "target"],
                                               right_on=["example", "token"])[["example", "target"]].drop_duplicates()
    top = top.merge(present, on=["example", "target"])
    if top.empty:
        return float("nan")
    return float((top["token"] == top["target"]).groupby(top["s"]).mean().mean())


def decoder_input_delta_ratio(dec: Decomposition) -> float:
    """§3: 'the decoder input-delta components are significantly smaller in magnitude than the decoder temporal
    components' (h_s^D ≈ μ_s^D): mean ‖χ_y^D + Δh_s^D‖ / mean ‖μ_s^D‖ over the decoder states."""
    temporal = np.linalg.norm(dec.temporal, axis=1).mean()
    return float(np.linalg.norm(dec.input_delta, axis=1).mean() / temporal) if temporal > 0 else float("nan")


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


def context_vectors(alpha: np.ndarray, dec_example: np.ndarray, dec_pos: np.ndarray, enc_h: np.ndarray,
                    enc_example: np.ndarray, enc_pos: np.ndarray) -> np.ndarray:
    """The AED's context c_s = Σ_t α_st h_t^E (§2) of every decoder state, [N_dec, H]: ``alpha`` [N_dec, T] holds
    each state's attention weights over its example's encoder steps t = 0 .. (NaN or 0 beyond them), the rows of
    ``enc_h`` are the encoder states at (``enc_example``, ``enc_pos``). The dot-product attention's values are the
    encoder states themselves, so this is the vector the read-out reads."""
    alpha = np.nan_to_num(np.asarray(alpha, dtype=np.float64))
    n_ex = int(max(dec_example.max(), enc_example.max())) + 1
    t_len = max(alpha.shape[1], int(enc_pos.max()) + 1)
    enc = np.zeros((n_ex, t_len, enc_h.shape[1]))
    enc[enc_example, enc_pos] = enc_h
    weights = np.zeros((n_ex, int(dec_pos.max()) + 1, t_len))
    weights[dec_example, dec_pos, : alpha.shape[1]] = alpha
    return np.einsum("mst,mth->msh", weights, enc)[dec_example, dec_pos]  # one example at a time: no [N, T, H]


def readout_state_ratio(readout_state: np.ndarray, dec_h: np.ndarray, readout_context: np.ndarray,
                        context: np.ndarray) -> float:
    """Footnote 6: 'the readout weights … corresponding to the decoder hidden state are negligible'. The logits
    they add, mean ‖W_h h_s^D‖ over the decoder states, over those the context part adds, mean ‖W_c c‖ over the
    rows of ``context``: the contexts c_s the read-out reads (:func:`context_vectors`), or the encoder states h_t^E
    that stand in for them where the attention weights are not known. Readout rows with no value are left out."""
    ok = ~(np.isnan(readout_state).any(axis=1) | np.isnan(readout_context).any(axis=1))
    context_logits = np.linalg.norm(np.asarray(context, float) @ readout_context[ok].T, axis=1).mean()
    state = np.linalg.norm(np.asarray(dec_h, float) @ readout_state[ok].T, axis=1).mean()
    return float(state / context_logits) if context_logits > 0 else float("nan")


def pc_measures(E: Decomposition, D: Decomposition) -> dict[str, float]:
    """Footnote 4's 'a large percentage (> 90%) of the variance is explained by the first 2 or 3 PC dimensions'
    of the plots of input components (Fig. 2b/d/f's bottom row, projected on the principal axes of the input
    components), in three readings:

    - ``pc3_input``: the encoder and decoder input-delta components χ + Δh, on the first three axes of the input
      components of both sides (χ^E and χ^D);
    - ``pc3_input_delta_encoder``: the encoder's input-delta components χ_x^E + Δh_t^E, the points Fig. 2b draws
      around its 'X's, on the first three axes of χ^E;
    - ``pc2_chi_encoder``: the encoder input components χ^E alone on their own first two axes (N words and
      ``<eos>`` are N + 1 points, which span at most N axes: at N = 3 three axes hold them by construction)."""
    chi = E.chi[~np.isnan(E.chi).any(axis=1)]
    return {
        "pc3_input": top_axes_variance(np.vstack([E.input_delta, D.input_delta]), np.vstack([E.chi, D.chi])),
        "pc3_input_delta_encoder": top_axes_variance(E.input_delta, E.chi),
        "pc2_chi_encoder": top_axes_variance(chi, n_axes=2) if len(chi) > 2 else float("nan"),
    }


def section3_measures(E: Decomposition, D: Decomposition, enc: pd.DataFrame, dec: pd.DataFrame, enc_h: np.ndarray,
                      dec_h: np.ndarray, attention: tuple[Decomposition, Decomposition] | None = None,
                      terms: pd.DataFrame | None = None,
                      readout: np.ndarray | None = None, readout_state: np.ndarray | None = None,
                      context: np.ndarray | None = None) -> dict[str, float]:
    """The per-seed summary columns of this module. ``attention``: (decoder, encoder) decompositions of what the
    attention reads (queries and keys, or the states), None without attention; ``terms``: the Eq. 3 table;
    ``context``: the AED's context vectors c_s, one per decoder state (:func:`context_vectors`), where known."""
    out = {"decoder_input_delta_ratio": decoder_input_delta_ratio(D), **pc_measures(E, D)}
    if readout is not None and readout_state is not None:
        out["readout_state_ratio"] = readout_state_ratio(readout_state, dec_h, readout, enc_h)
        if context is not None:
            out["readout_state_context_ratio"] = readout_state_ratio(readout_state, dec_h, readout, context)
    if attention is not None:
        D_a, E_a = attention
        out["average_map_fit"] = average_map_fit(D_a, dec["example"].to_numpy(), E_a, enc["example"].to_numpy())
        out["attention_diagonal_share"] = attention_diagonal_share(terms)
        out["attention_target_share"] = attention_target_share(terms, enc, dec)
    return out
