"""Norm-based reading of attention (Kobayashi et al. 2020, §2.2–3, Eq. 3–4).

A multi-head attention module's output is a sum of weighted, transformed input vectors plus a bias:

    y_i = Σ_h Σ_j α^h_ij f^h(x_j) + b^O      (Eq. 3)
    f^h(x) = (x W^V_h + b^V_h) W^O_h          (Eq. 4)

so f includes the value bias b^V and not the output bias b^O (as in the authors' code). The contribution of
input j to output i is read as ‖α_ij f(x_j)‖ instead of α_ij alone.

Shapes: weights ``alpha`` [..., H, Q, K]; values ``value`` = x W^V + b^V split per head [..., H, K, d'];
output map ``w_o`` = W^O split per head [H, d', d] (row-vector convention of the paper: y = v W^O). A module
without an output map (our single-head :class:`attnrepro.nn.attention.QKVAttention`, whose context c_s = Σ_t α_st v_t
is what the readout reads) has W^O = I, b^O = 0, so f(x) = v(x).

The per-category statistics follow the authors' re-examination of BERT (re-examine.py): α and ‖αf‖ summed over
the key positions of a category and averaged over queries; ‖f‖ averaged over the category's tokens.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from ..errors import AttnReproError

EQ3_TOLERANCE = 1e-4  # float32 sums of a few hundred terms; a larger gap means the wrong tensors were read


def check_eq3(error: float, where: str = "") -> None:
    """Eq. 3 must rebuild the attention module's output from Σ αf(x) + b^O; anything else means we read the wrong
    tensors, and every norm read from them would be wrong."""
    if error > EQ3_TOLERANCE:
        raise AttnReproError(f"{where}Σ αf(x) + b^O differs from the attention output by {error:.2g}")


def split_heads(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    """[..., K, H·d'] -> [..., H, K, d'] (heads are consecutive blocks of d' columns, as in BERT)."""
    *lead, k, width = x.shape
    return x.reshape(*lead, k, n_heads, width // n_heads).transpose(-3, -2)


def output_map_per_head(weight: torch.Tensor, n_heads: int) -> torch.Tensor:
    """W^O per head [H, d', d] from a ``torch.nn.Linear`` weight [d, H·d'] (out × in, y = W v + b)."""
    d, width = weight.shape
    return weight.T.reshape(n_heads, width // n_heads, d)


def value_map_per_head(w_v: torch.Tensor, b_v: torch.Tensor, n_heads: int) -> tuple[torch.Tensor, torch.Tensor]:
    """W^V [d, H·d'] and b^V [H·d'] (row-vector convention) split per head: [H, d, d'] and [H, d']."""
    d, width = w_v.shape
    return w_v.reshape(d, n_heads, width // n_heads).transpose(0, 1), b_v.reshape(n_heads, width // n_heads)


def transformed(value: torch.Tensor, w_o: torch.Tensor | None = None) -> torch.Tensor:
    """f(x_j) of Eq. 4: [..., H, K, d]. ``value`` [..., H, K, d'] already includes b^V; ``w_o`` [H, d', d] or
    None for a module without an output map."""
    if w_o is None:
        return value
    return torch.einsum("...hkv,hvd->...hkd", value, w_o)


def decomposed_output(alpha: torch.Tensor, f: torch.Tensor, b_o: torch.Tensor | None = None) -> torch.Tensor:
    """Σ_h Σ_j α^h_ij f^h(x_j) + b^O of Eq. 3: [..., Q, d] — what the module outputs, rebuilt from its parts."""
    y = torch.einsum("...hqk,...hkd->...qd", alpha, f)
    return y if b_o is None else y + b_o


def vector_norms(alpha: torch.Tensor, f: torch.Tensor, summed: bool = True) -> dict[str, torch.Tensor]:
    """The three norms of §3 and §5.

    - ``f_norm`` ‖f(x_j)‖ per head [..., H, K];
    - ``weighted_norm`` ‖α_ij f(x_j)‖ per head [..., H, Q, K] (= α_ij ‖f(x_j)‖ since α ≥ 0);
    - ``summed_norm`` ‖Σ_h α^h_ij f^h(x_j)‖ [..., Q, K], the head-merged contribution of §5 (Vector-norms);
      skipped with ``summed=False`` because it needs the Q·K·d tensor of summed vectors.
    """
    f_norm = f.norm(dim=-1)
    out = {"f_norm": f_norm, "weighted_norm": alpha * f_norm[..., None, :]}
    if summed:
        out["summed_norm"] = torch.einsum("...hqk,...hkd->...qkd", alpha, f).norm(dim=-1)
    return out


def affine_singular_values(w_v: torch.Tensor, b_v: torch.Tensor, w_o: torch.Tensor) -> torch.Tensor:
    """Singular values of f as the linear map x̃ ↦ x̃ W̃^V W̃^O on x̃ = [x, 1] (Appendix B, Eq. 5–7), per head.

    ``w_v`` [H, d, d'] and ``b_v`` [H, d'] (row-vector convention), ``w_o`` [H, d', d]. Returns [H, d'+1] in
    descending order (the map has rank at most d'+1; the other d − d' singular values are zero)."""
    h, d, dv = w_v.shape
    wv_t = torch.zeros(h, d + 1, dv + 1, dtype=w_v.dtype)
    wv_t[:, :d, :dv] = w_v
    wv_t[:, d, :dv] = b_v
    wv_t[:, d, dv] = 1.0
    wo_t = torch.zeros(h, dv + 1, d + 1, dtype=w_o.dtype)
    wo_t[:, :dv, :d] = w_o
    wo_t[:, dv, d] = 1.0
    return torch.linalg.svdvals(wv_t @ wo_t)[:, : dv + 1]


# -- per-category statistics (re-examine.py) ------------------------------------------------------------------
def category_sums(alpha_mean: np.ndarray, f_norm: np.ndarray, category: np.ndarray,
                  categories: tuple[str, ...]) -> pd.DataFrame:
    """One sequence, one head: α and ‖αf‖ summed over each category's keys, averaged over queries; mean ‖f‖.

    ``alpha_mean`` [K]: α_ij averaged over the sequence's queries i (the average over queries of a sum over keys
    is the sum over keys of the per-key averages); ``f_norm`` [K]; ``category`` [K] labels. A category absent
    from the sequence gets α = ‖αf‖ = 0 and ‖f‖ = NaN."""
    rows = []
    for c in categories:
        m = category == c
        rows.append({"category": c, "alpha": float(alpha_mean[m].sum()),
                     "weighted_norm": float((alpha_mean[m] * f_norm[m]).sum()),
                     "f_norm": float(f_norm[m].mean()) if m.any() else np.nan})
    return pd.DataFrame(rows)


def category_table(heads: pd.DataFrame, categories: tuple[str, ...]) -> pd.DataFrame:
    """Vectorised :func:`category_sums` over every (sequence, layer, head), averaged over sequences.

    ``heads``: one row per (seq, layer, head, pos) with columns ``alpha_mean``, ``f_norm``, ``category``.
    Returns one row per (layer, head, category): mean over sequences of α_c, ‖αf‖_c (sums over the category's
    keys) and of the sequence's mean ‖f‖ over the category's tokens."""
    df = heads.assign(weighted_norm=heads.alpha_mean * heads.f_norm)
    keys = ["seq", "layer", "head"]
    per_seq = df.groupby(keys + ["category"], observed=True).agg(
        alpha=("alpha_mean", "sum"), weighted_norm=("weighted_norm", "sum"), f_norm=("f_norm", "mean"))
    # a category missing from a sequence contributes α = ‖αf‖ = 0 to that sequence's average, not nothing
    full = pd.MultiIndex.from_product(
        [*(per_seq.index.unique(k) for k in keys), list(categories)], names=keys + ["category"])
    per_seq = per_seq.reindex(full)
    per_seq[["alpha", "weighted_norm"]] = per_seq[["alpha", "weighted_norm"]].fillna(0.0)
    out = per_seq.groupby(["layer", "head", "category"], observed=True).mean().reset_index()
    out["category"] = pd.Categorical(out["category"], categories=list(categories))
    return out.sort_values(["layer", "head", "category"]).reset_index(drop=True)
