"""Temporal, input and delta components of hidden states (Aitken et al. 2021, §2.1, Eq. 1–3).

States come flattened, one row per real position (the end-of-sentence mask 1_{≤EoS} of Eq. 1 is the absence of
rows beyond it): ``h`` [N, H], the position ``pos`` [N] (t or s) and the integer ``token`` [N] of the input word
read at that position. For the decoder the input word is x_s^D (``<sos>`` or the previous target word; the
previous predicted word, the authors' choice, in an export of the greedy pass: ``export.pass``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


def _group_mean(values: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    sums = np.zeros((n_groups, values.shape[1]), dtype=np.float64)
    np.add.at(sums, group, values)
    counts = np.bincount(group, minlength=n_groups).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts[:, None]  # NaN where a group has no member: undefined, not zero


def temporal_component(h: np.ndarray, pos: np.ndarray, n_pos: int | None = None) -> np.ndarray:
    """μ_t: the mean hidden state at each position over the examples still within their sentence (Eq. 1, left).
    Returns [n_pos, H]; positions no example reaches are NaN."""
    n_pos = int(pos.max()) + 1 if n_pos is None else n_pos
    return _group_mean(h, pos, n_pos)


def input_component(h: np.ndarray, pos: np.ndarray, token: np.ndarray, mu: np.ndarray,
                    n_tokens: int | None = None) -> np.ndarray:
    """χ_x: the mean of h_t − μ_t over every state that immediately follows input word x (Eq. 1, right).
    Returns [n_tokens, H]; words that never occur are NaN."""
    n_tokens = int(token.max()) + 1 if n_tokens is None else n_tokens
    return _group_mean(h - mu[pos], token, n_tokens)


def delta_component(h: np.ndarray, pos: np.ndarray, token: np.ndarray, mu: np.ndarray,
                    chi: np.ndarray) -> np.ndarray:
    """Δh_t := h_t − μ_t − χ_x, what neither time nor the current word explains (Eq. 2)."""
    return h - mu[pos] - chi[token]


@dataclass
class Decomposition:
    """h = μ[pos] + χ[token] + Δ exactly (Eq. 2)."""

    mu: np.ndarray       # [n_pos, H]
    chi: np.ndarray      # [n_tokens, H]
    delta: np.ndarray    # [N, H]
    pos: np.ndarray      # [N]
    token: np.ndarray    # [N]

    @property
    def temporal(self) -> np.ndarray:
        return self.mu[self.pos]

    @property
    def input(self) -> np.ndarray:
        return self.chi[self.token]

    @property
    def input_delta(self) -> np.ndarray:
        """χ_x + Δh_t, the hidden state without its temporal component."""
        return self.input + self.delta


def decompose(h: np.ndarray, pos: np.ndarray, token: np.ndarray, n_pos: int | None = None,
              n_tokens: int | None = None) -> Decomposition:
    h = np.asarray(h, dtype=np.float64)
    mu = temporal_component(h, pos, n_pos)
    chi = input_component(h, pos, token, mu, n_tokens)
    return Decomposition(mu=mu, chi=chi, delta=delta_component(h, pos, token, mu, chi), pos=pos, token=token)


def projected_relative_delta(d: Decomposition, n_axes: int = 3) -> float:
    """Mean ‖PΔh‖ / mean ‖P(χ_x + Δh − c)‖, with P the projection onto the first ``n_axes`` principal axes of the
    input components χ (centred at their mean c): how far the input-delta components stray from their input
    components in the view of Fig. 2b/d/f, which plots them on those axes (footnote 4: two or three carry > 90%
    of the variance). 0 when every state sits on its χ_x."""
    chi = d.chi[~np.isnan(d.chi).any(axis=1)]
    if len(chi) < 2:
        return float("nan")
    center = chi.mean(axis=0)
    _, sv, vt = np.linalg.svd(chi - center, full_matrices=False)
    axes = vt[: min(n_axes, int((sv > 1e-9 * sv[0]).sum()))]
    spread = np.linalg.norm((d.input_delta - center) @ axes.T, axis=1).mean()
    return float(np.linalg.norm(d.delta @ axes.T, axis=1).mean() / spread) if spread > 0 else float("nan")


def temporal_input_delta_cosine(dec: Decomposition, enc: Decomposition) -> float:
    """Mean |cos| between the decoder's temporal component μ_s^D and each encoder input-delta component
    χ_x^E + Δh_t^E at s = t (§3: 'close to orthogonal for all time steps'; §4.2, Fig. 6c: no longer so on eSCAN).
    Positions the decoder never reaches are left out."""
    t = enc.pos
    ok = t < len(dec.mu)
    mu = dec.mu[t[ok]]
    v = enc.input_delta[ok]
    keep = ~np.isnan(mu).any(axis=1)
    mu, v = mu[keep], v[keep]
    norms = np.linalg.norm(mu, axis=1) * np.linalg.norm(v, axis=1)
    good = norms > 0
    return float(np.mean(np.abs(np.einsum("nh,nh->n", mu[good], v[good])) / norms[good])) if good.any() else float("nan")


def random_abs_cosine(width: int) -> float:
    """E|cos| between two independent uniformly random directions in R^width, Γ(H/2) / (√π Γ((H+1)/2)): the
    baseline 'close to orthogonal' is judged against (≈ 0.10 at H = 64, where random directions already are)."""
    from scipy.special import gammaln

    return float(np.exp(gammaln(width / 2) - gammaln((width + 1) / 2)) / np.sqrt(np.pi))


TERMS = ("mu_mu", "mu_chi", "mu_delta", "chi_mu", "chi_chi", "chi_delta", "delta_mu", "delta_chi", "delta_delta")
"""The nine terms of Eq. 3, named decoder part first: ``mu_chi`` is μ_s^D · χ_x^E."""


TOP_K = 5
"""Alignments per decoder step whose terms are read: the authors call ``calculate_dot_ratios(align_values, 5, …)``
in every analysis of their notebook (kaitken17/colab_based_projects, ``sythetic_analysis_seq2seq.ipynb``)."""


def _padded(values: np.ndarray, example: np.ndarray, pos: np.ndarray, n_examples: int, length: int) -> np.ndarray:
    out = np.zeros((n_examples, length, values.shape[1]), dtype=np.float64)
    out[example, pos] = values
    return out


def term_scores(dec: Decomposition, dec_example: np.ndarray, enc: Decomposition, enc_example: np.ndarray
                ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Every alignment score and its nine parts (Eq. 3) as [examples, S, T] matrices: returns ``valid`` [m, T]
    (the encoder positions within each example) and a dict with ``full`` and the :data:`TERMS`."""
    m = int(max(dec_example.max(), enc_example.max())) + 1
    t_len, s_len = int(enc.pos.max()) + 1, int(dec.pos.max()) + 1
    e_parts = [_padded(x, enc_example, enc.pos, m, t_len) for x in (enc.temporal, enc.input, enc.delta)]
    d_parts = [_padded(x, dec_example, dec.pos, m, s_len) for x in (dec.temporal, dec.input, dec.delta)]
    valid = np.zeros((m, t_len), dtype=bool)
    valid[enc_example, enc.pos] = True
    mats = {"full": np.einsum("msh,mth->mst", sum(d_parts), sum(e_parts))}
    for i, d_name in enumerate(("mu", "chi", "delta")):
        for j, e_name in enumerate(("mu", "chi", "delta")):
            mats[f"{d_name}_{e_name}"] = np.einsum("msh,mth->mst", d_parts[i], e_parts[j])
    return valid, mats


def alignment_terms(dec: Decomposition, dec_example: np.ndarray, enc: Decomposition,
                    enc_example: np.ndarray, top_k: int = TOP_K) -> pd.DataFrame:
    """The nine terms of Eq. 3 at each decoder step's ``top_k`` largest alignments a_st (fewer where the input is
    shorter).

    Returns one row per (decoder state, rank): ``example``, ``s``, ``rank`` (0 = argmax_t a_st), ``t_star`` (the
    encoder step of that alignment), ``a`` (= h_s^D · h_t*^E) and the nine :data:`TERMS`, which sum to ``a``.
    """
    valid, mats = term_scores(dec, dec_example, enc, enc_example)
    scores = np.where(valid[:, None, :], mats["full"], -np.inf)
    order = np.argsort(-scores, axis=-1, kind="stable")[dec_example, dec.pos]  # [N, T], best first
    n_valid = valid.sum(axis=1)[dec_example]
    frames = []
    for rank in range(min(top_k, order.shape[1])):
        keep = rank < n_valid
        ex, s, t = dec_example[keep], dec.pos[keep], order[keep, rank]
        out = {"example": ex, "s": s, "rank": rank, "t_star": t, "a": mats["full"][ex, s, t]}
        out.update({k: mats[k][ex, s, t] for k in TERMS})
        frames.append(pd.DataFrame(out))
    return pd.concat(frames, ignore_index=True).sort_values(["example", "s", "rank"], ignore_index=True)


def _ratios(terms: pd.DataFrame) -> pd.DataFrame:
    mag = terms[list(TERMS)].abs()
    return mag.div(mag.sum(axis=1), axis=0)


def alignment_shares(terms: pd.DataFrame) -> pd.Series:
    """The authors' ``calculate_dot_ratios(align_values, 5, …)`` (Fig. 5a): |term| / Σ|nine terms| at each of the
    top alignments of :func:`alignment_terms`, averaged per decoder step s (over examples and ranks), then over
    the steps with equal weight. Indexed by :data:`TERMS`; sums to 1."""
    ratios = _ratios(terms)
    return ratios.groupby(terms["s"].to_numpy()).mean().mean()


def top_alignment_shares(terms: pd.DataFrame) -> pd.Series:
    """The top-1 pooled reading, beside :func:`alignment_shares` so the difference shows: |term| /
    Σ|terms| at the single top alignment (rank 0), pooled over all (example, step) rows, so that early steps,
    which every example reaches, weigh more than late ones. Indexed by :data:`TERMS`; sums to 1."""
    return _ratios(top_alignments(terms) if "rank" in terms else terms).mean()


def top_alignments(terms: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`alignment_terms` at each decoder state's largest alignment (rank 0): t_star is
    argmax_t a_st."""
    return terms[terms["rank"] == 0]


def map_agreement(dec: Decomposition, dec_example: np.ndarray, enc: Decomposition,
                  enc_example: np.ndarray) -> pd.Series:
    """Per term of Eq. 3: how often the attention that term alone would give, softmax_t of its map (Fig. 2h),
    peaks where the full attention peaks: argmax_t term_st = argmax_t a_st, averaged per decoder step s and then
    over steps with equal weight (as :func:`alignment_shares`). Softmax keeps the argmax, so the raw maps are
    compared. Indexed by :data:`TERMS`."""
    valid, mats = term_scores(dec, dec_example, enc, enc_example)
    mask = valid[:, None, :]
    best = np.where(mask, mats["full"], -np.inf).argmax(-1)[dec_example, dec.pos]
    hits = {k: np.where(mask, mats[k], -np.inf).argmax(-1)[dec_example, dec.pos] == best for k in TERMS}
    return pd.DataFrame(hits).groupby(dec.pos).mean().mean()


def temporal_alignment(dec_mu: np.ndarray, enc_mu: np.ndarray) -> np.ndarray:
    """softmax_t(μ_s^D · μ_t^E): the attention the temporal components alone would give (Fig. 2a inset)."""
    a = dec_mu @ enc_mu.T
    a = a - np.nanmax(a, axis=1, keepdims=True)
    e = np.exp(a)
    return e / np.nansum(e, axis=1, keepdims=True)
