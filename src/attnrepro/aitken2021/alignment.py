"""Where attention comes from, beyond the top-alignment shares: the alignment matrices of single examples split into
parts of Eq. 3 (Fig. 2h, 3a/d, 4a), and alignments as a function of the offset t − s (Fig. 5b, 6b–d).

Inputs are decompositions (:class:`~attnrepro.aitken2021.decomposition.Decomposition`) of the vectors that the
attention multiplies — the hidden states for dot attention, the queries/keys for query/key/value attention — with
the example index of every row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .decomposition import Decomposition

PARTS = ("full", "mu_mu", "chi_delta", "delta_chi")
"""Fig. 2h: h_s^D·h_t^E, μ_s^D·μ_t^E, χ_y^D·Δh_t^E and Δh_s^D·χ_x^E."""


def attention_maps(dec: Decomposition, dec_example: np.ndarray, enc: Decomposition, enc_example: np.ndarray,
                   examples: list[int]) -> pd.DataFrame:
    """Raw alignment scores of ``examples`` and three of their parts (:data:`PARTS`), one row per (example, s, t)
    over real positions; softmax over t gives the attention each part alone would produce."""
    rows = []
    for ex in examples:
        d, e = dec_example == ex, enc_example == ex
        if not d.any() or not e.any():
            continue
        d_mu, d_chi, d_delta = dec.temporal[d], dec.input[d], dec.delta[d]
        e_mu, e_chi, e_delta = enc.temporal[e], enc.input[e], enc.delta[e]
        full = (d_mu + d_chi + d_delta) @ (e_mu + e_chi + e_delta).T
        parts = {"full": full, "mu_mu": d_mu @ e_mu.T, "chi_delta": d_chi @ e_delta.T, "delta_chi": d_delta @ e_chi.T}
        s, t = np.meshgrid(dec.pos[d], enc.pos[e], indexing="ij")
        rows.append(pd.DataFrame({"example": ex, "s": s.ravel(), "t": t.ravel(),
                                  **{k: v.ravel() for k, v in parts.items()}}))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["example", "s", "t", *PARTS])


def softmax_over_t(scores: pd.DataFrame, column: str) -> np.ndarray:
    """One example's ``column`` as an [S, T] matrix of softmax_t weights."""
    mat = scores.pivot(index="s", columns="t", values=column).to_numpy(dtype=float)
    mat = mat - np.nanmax(mat, axis=1, keepdims=True)
    w = np.exp(mat)
    return w / np.nansum(w, axis=1, keepdims=True)


def offset_alignment(dec: Decomposition, dec_example: np.ndarray, enc: Decomposition, enc_example: np.ndarray,
                     enc_words: np.ndarray, max_offset: int = 5) -> pd.DataFrame:
    """Alignment parts against the offset t − s, for every decoder step s and encoder step t with |t − s| ≤
    ``max_offset`` of the same example.

    Returns the means over such pairs grouped two ways (column ``by``):

    - ``by = "t"``: by the input word x_t at the attended step t — μ_s^D·(χ_x^E + Δh_t^E) against the offset
      (Fig. 6c at offset 0, Fig. 6d);
    - ``by = "s"``: by the input word at encoder step t = s — a_st, μ_s^D·μ_t^E, μ_s^D·(χ^E + Δh_t^E) and
      a_st − μ_s^D·h_t^E around it (Fig. 6b, with 'twice' at t = s).

    Columns: by, word, offset, n, a, mu_mu, mu_input, rest.
    """
    m = int(max(dec_example.max(), enc_example.max())) + 1
    t_len = int(enc.pos.max()) + 1
    h_e = np.full((m, t_len, enc.mu.shape[1]), np.nan)
    id_e = np.full_like(h_e, np.nan)
    word_e = np.full((m, t_len), -1, dtype=np.int64)
    h_e[enc_example, enc.pos] = enc.temporal + enc.input_delta
    id_e[enc_example, enc.pos] = enc.input_delta
    word_e[enc_example, enc.pos] = enc_words
    dec_h = dec.temporal + dec.input_delta
    frames = []
    for off in range(-max_offset, max_offset + 1):
        t = dec.pos + off
        ok = (t >= 0) & (t < t_len)
        ex, s, t = dec_example[ok], dec.pos[ok], t[ok]
        real = word_e[ex, t] >= 0
        ex, s, t, rows = ex[real], s[real], t[real], np.flatnonzero(ok)[real]
        mu_s = dec.mu[s]
        a = np.einsum("nh,nh->n", dec_h[rows], h_e[ex, t])
        mu_mu = np.einsum("nh,nh->n", mu_s, enc.mu[t])
        mu_input = np.einsum("nh,nh->n", mu_s, id_e[ex, t])
        at_s = word_e[ex, np.minimum(s, t_len - 1)]
        at_s = np.where(s < t_len, at_s, -1)
        frames.append(pd.DataFrame({"offset": off, "word_t": word_e[ex, t], "word_s": at_s, "a": a,
                                    "mu_mu": mu_mu, "mu_input": mu_input, "rest": a - mu_mu - mu_input}))
    pairs = pd.concat(frames, ignore_index=True)
    out = []
    for by, col in (("t", "word_t"), ("s", "word_s")):
        sel = pairs[pairs[col] >= 0]
        g = sel.groupby([col, "offset"])
        agg = g[["a", "mu_mu", "mu_input", "rest"]].mean()
        agg.insert(0, "n", g.size())
        agg = agg.reset_index().rename(columns={col: "word"})
        agg.insert(0, "by", by)
        out.append(agg)
    return pd.concat(out, ignore_index=True)


def temporal_offset(dec_mu: np.ndarray, enc_mu: np.ndarray, max_offset: int = 5) -> pd.DataFrame:
    """μ_s^D·μ_t^E against the offset t − s for every decoder step s (Fig. 5b). Columns s, offset, dot."""
    rows = []
    for s in range(len(dec_mu)):
        for off in range(-max_offset, max_offset + 1):
            t = s + off
            if 0 <= t < len(enc_mu) and not (np.isnan(dec_mu[s]).any() or np.isnan(enc_mu[t]).any()):
                rows.append((s, off, float(dec_mu[s] @ enc_mu[t])))
    return pd.DataFrame(rows, columns=["s", "offset", "dot"])


def predicted_offset(src_len: np.ndarray, tgt_len: np.ndarray, n_steps: int) -> pd.DataFrame:
    """The offset t − s at which the temporal alignment should peak, from the data set's own lengths (Fig. 5b,
    dotted). If input and output words correspond in order, output step s of an example with T inputs and S
    outputs reads near input step s·T/S; averaged over the examples that reach step s. Columns s, offset."""
    src_len = np.asarray(src_len, dtype=float)
    tgt_len = np.asarray(tgt_len, dtype=float)
    rows = []
    for s in range(n_steps):
        reach = tgt_len > s
        if reach.any():
            rows.append((s, float(np.mean(s * src_len[reach] / tgt_len[reach] - s))))
    return pd.DataFrame(rows, columns=["s", "offset"])


def temporal_peaks(dec_mu: np.ndarray, enc_mu: np.ndarray, predicted: pd.DataFrame) -> pd.DataFrame:
    """Per decoder step s of ``predicted`` (:func:`predicted_offset`): the observed offset of argmax_t μ_s^D·μ_t^E
    and the predicted one (Fig. 5b). Columns s, observed, predicted."""
    enc_ok = ~np.isnan(enc_mu).any(axis=1)
    rows = []
    for s, pred in zip(predicted.s, predicted.offset):
        if s >= len(dec_mu) or np.isnan(dec_mu[s]).any():
            continue
        dots = np.where(enc_ok, np.nan_to_num(enc_mu) @ dec_mu[s], -np.inf)
        rows.append((s, float(np.argmax(dots) - s), pred))
    return pd.DataFrame(rows, columns=["s", "observed", "predicted"])


def peak_measures(peaks: pd.DataFrame) -> dict[str, float]:
    """``offset_prediction_gain``: mean |observed| (the diagonal's error) minus mean |observed − predicted| (the
    prediction's), > 0 when the peak follows the data's offset better than t = s; ``offset_peak_late``: the mean
    observed offset over the later half of the steps (< 0: the decoder attends to earlier encoder times);
    ``offset_error``: mean |observed − predicted| in steps (Fig. 5b: the peak follows the predicted offset)."""
    if peaks.empty:
        return {"offset_prediction_gain": np.nan, "offset_peak_late": np.nan, "offset_error": np.nan}
    late = peaks[peaks.s >= peaks.s.median()]
    return {"offset_prediction_gain": float(peaks.observed.abs().mean() - (peaks.observed - peaks.predicted).abs().mean()),
            "offset_peak_late": float(late.observed.mean()),
            "offset_error": float((peaks.observed - peaks.predicted).abs().mean())}


def word_offset_measures(offsets: pd.DataFrame, words: tuple[str, ...] = ("and", "twice"),
                         rising: str = "left") -> dict[str, float]:
    """From :func:`offset_alignment`'s ``by = "t"`` rows: ``mu_input0_<w>`` = μ_s^D·(χ_w^E + Δh_t^E) at t = s for
    each of ``words`` (Fig. 6c: negative for words that hide from attention), and ``<rising>_offset_rho`` = the rank
    correlation of the offset with that product for ``rising`` (Fig. 6d). Only the words the task has."""
    from scipy.stats import spearmanr

    by_t = offsets[offsets.by == "t"]
    out = {}
    for w in words:
        at0 = by_t[(by_t.word == w) & (by_t.offset == 0)]
        if len(at0):
            out[f"mu_input0_{w}"] = float(at0.mu_input.iloc[0])
    rise = by_t[by_t.word == rising].sort_values("offset")
    if len(rise) >= 3:
        out[f"{rising}_offset_rho"] = float(spearmanr(rise.offset, rise.mu_input).statistic)
    return out


def word_temporal_dots(dec_mu: np.ndarray, enc: Decomposition, rows: np.ndarray | None = None, b_off: int = 2,
                       f_off: int = 4) -> pd.DataFrame:
    """The authors' Fig. 6c/6d curve (their notebook's ``enc_word_dec_temp``, run with b_off 2 and f_off 4 on the
    ensembles): for each input word x and k = s − t in −b_off … f_off, μ_{t+k}^D·(χ_x^E + Δh_t^E) averaged over
    the states reading x at encoder step t, then over the steps t ∈ [b_off, min(T, S) − f_off) with equal weight
    (T, S: the longest input and output). ``rows``: a mask of the encoder rows to use (e.g. the examples with
    T = S, on which the paper shows the mechanism, Fig. 6b). Columns word (the code), k, dot, n_steps."""
    rows = np.ones(len(enc.pos), dtype=bool) if rows is None else rows
    t_len, s_len = int(enc.pos.max()) + 1, len(dec_mu)
    sel = rows & (enc.pos >= b_off) & (enc.pos < min(t_len, s_len) - f_off)
    t, v, word = enc.pos[sel], enc.input_delta[sel], enc.token[sel]
    frames = [pd.DataFrame({"word": word, "t": t, "k": k, "dot": np.einsum("nh,nh->n", dec_mu[t + k], v)})
              for k in range(-b_off, f_off + 1)]
    pairs = pd.concat(frames, ignore_index=True).dropna()
    per_t = pairs.groupby(["word", "k", "t"])["dot"].mean().reset_index()
    g = per_t.groupby(["word", "k"])["dot"]
    return pd.DataFrame({"dot": g.mean(), "n_steps": g.size()}).reset_index()


def hide_measures(curve: pd.DataFrame, words: list[str], suffix: str = "",
                  hidden: tuple[str, ...] = ("and", "twice")) -> dict[str, float]:
    """``hide_<w><suffix>``: the authors' μ_t^D·(χ_w^E + Δh_t^E) at k = 0 from :func:`word_temporal_dots`, for
    each of ``hidden`` the task has (Fig. 6c: negative for words that hide from attention)."""
    at0 = curve[curve.k == 0].set_index("word")["dot"]
    return {f"hide_{w}{suffix}": float(at0.get(words.index(w), np.nan)) for w in hidden if w in words}


def temporal_argmax_correlation(dec_mu: np.ndarray, enc_mu: np.ndarray, n_steps: int) -> float:
    """Rank correlation between s and argmax_t μ_s^D·μ_t^E over the first ``n_steps`` steps (those every example
    reaches): +1 for a diagonal temporal alignment (one-to-one), −1 for an anti-diagonal one (reversed, Fig. 2g)."""
    from scipy.stats import spearmanr

    d, e = dec_mu[:n_steps], enc_mu[:n_steps]
    best = np.nanargmax(d @ e.T, axis=1)
    if np.ptp(best) == 0:
        return 0.0
    return float(spearmanr(np.arange(len(best)), best).statistic)


def temporal_diagonal_share(dec_mu: np.ndarray, enc_mu: np.ndarray, n_steps: int) -> float:
    """§3, Fig. 2a: the share of the first ``n_steps`` decoder steps s (those every example reaches) whose
    argmax_t μ_s^D·μ_t^E is t = s. A peak one step off counts as off the diagonal, unlike a rank correlation of s
    with the argmax."""
    best = np.nanargmax(dec_mu[:n_steps] @ enc_mu[:n_steps].T, axis=1)
    return float(np.mean(best == np.arange(len(best))))


def temporal_antidiagonal(dec_mu: np.ndarray, enc_mu: np.ndarray, n_steps: int) -> tuple[float, int]:
    """§3 'Additional Tasks', Fig. 2g: the share of the first ``n_steps`` decoder steps whose argmax over every
    encoder step, t* = argmax_t μ_s^D·μ_t^E, lies on one anti-diagonal t* + s = c, with c the most common
    t* + s; returns (share, c). A length-T example mirrors s onto T − 1 − s, so the mean states of inputs of several
    lengths mirror about a line that depends on the data set, not the shortest input's n − 1 − s
    (docs/deviations.md, reversal's recipe). A diagonal, a constant or a scattered argmax moves t* + s with s, so
    it still scores low."""
    scores = dec_mu[:n_steps] @ enc_mu.T
    best = np.array([np.nanargmax(row) if np.isfinite(row).any() else -1 for row in scores])
    offset = best + np.arange(len(best))
    values, counts = np.unique(offset[best >= 0], return_counts=True)
    c = int(values[np.argmax(counts)])
    return float(np.mean(offset == c)), c
