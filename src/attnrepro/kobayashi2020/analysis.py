"""Kobayashi et al. 2020, §4 and Appendix A, on a pretrained encoder: pure functions of the activation cache
(:func:`attnrepro.kobayashi2020.pretrained.norm_cache`) and the token table (:func:`attnrepro.kobayashi2020.news.sequence_table`).

Inputs are DataFrames: ``tokens`` (seq, pos, token, category, rank), ``heads`` (seq, layer, head, pos, f_norm,
alpha_mean), ``layers`` (seq, layer, pos, x_norm), ``pairs`` (seq, layer, head, query, pos, alpha, f_norm).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from .news import CATEGORIES
from .norms import category_table


def _with_category(df: pd.DataFrame, tokens: pd.DataFrame) -> pd.DataFrame:
    return df.merge(tokens[["seq", "pos", "category"]], on=["seq", "pos"], how="left", validate="many_to_one")


def dispersion(df: pd.DataFrame, value: str, by: list[str]) -> pd.DataFrame:
    """Mean, SD, CV (= σ/μ), max and min of ``value`` per group (Table 1 for ‖f(x)‖, Table 4 for ‖x‖)."""
    g = df.groupby(by)[value]
    out = g.agg(mean="mean", sd="std", max="max", min="min").reset_index()
    out["cv"] = out["sd"] / out["mean"]
    return out[[*by, "mean", "sd", "cv", "max", "min"]]


def extremes_table(disp: pd.DataFrame, unit: str) -> pd.DataFrame:
    """The paper's three-row layout: the max-CV and min-CV ``unit`` and the average of μ, σ, CV over all."""
    keys = [c for c in ("layer", "head") if c in disp.columns]

    def name(row) -> str:
        return "–".join(f"{k.capitalize()} {int(row[k])}" for k in keys)

    hi, lo = disp.loc[disp.cv.idxmax()], disp.loc[disp.cv.idxmin()]
    rows = [{unit: f"{name(hi)} (max CV)", **hi[["mean", "sd", "cv", "max", "min"]].to_dict()},
            {unit: f"{name(lo)} (min CV)", **lo[["mean", "sd", "cv", "max", "min"]].to_dict()},
            {unit: "Average", "mean": disp["mean"].mean(), "sd": disp["sd"].mean(), "cv": disp["cv"].mean(),
             "max": np.nan, "min": np.nan}]
    return pd.DataFrame(rows)


def per_head_categories(heads: pd.DataFrame, tokens: pd.DataFrame) -> pd.DataFrame:
    """Per (layer, head, category): α and ‖αf‖ summed over the category's keys and averaged over queries and
    sequences, and the mean ‖f(x)‖ of its tokens (Fig. 3 averages these over heads; Fig. 4 shows [SEP])."""
    return category_table(_with_category(heads, tokens), CATEGORIES)


def per_layer_categories(per_head: pd.DataFrame) -> pd.DataFrame:
    """Fig. 3: the head average per layer; α sums to 1 over the categories of a layer."""
    return per_head.groupby(["layer", "category"], observed=True)[["alpha", "weighted_norm", "f_norm"]] \
        .mean().reset_index()


def _spearman(x, y) -> float:
    if len(x) < 3:
        return np.nan
    return float(stats.spearmanr(x, y).statistic)


def alpha_fnorm_correlation(pairs: pd.DataFrame, tokens: pd.DataFrame, n_layers: int, n_heads: int) -> pd.DataFrame:
    """Table 2: Spearman ρ between α_ij and ‖f(x_j)‖ over the sampled pairs whose key x_j is in each category;
    ``n_vectors`` counts all (layer, head, query, key) pairs of the category, ``n_sampled`` those in the sample."""
    df = _with_category(pairs, tokens)
    length = tokens.groupby("seq").size().rename("length")
    per_key = tokens.join(length, on="seq")
    n_all = per_key.groupby("category")["length"].sum() * n_layers * n_heads
    rows = []
    for c in CATEGORIES:
        part = df[df.category == c]
        rows.append({"category": c, "n_vectors": int(n_all.get(c, 0)), "n_sampled": len(part),
                     "spearman_rho": _spearman(part.alpha, part.f_norm)})
    return pd.DataFrame(rows)


def frequency_points(heads: pd.DataFrame, tokens: pd.DataFrame) -> pd.DataFrame:
    """Fig. 6's points: every token occurrence x^(r,o) (``##`` pieces, single characters and special tokens
    included, as the authors' code ranks them) with α^(r,o) (the attention it receives, averaged over the
    sequence's queries in each head, then over all heads of all layers, footnote 6) and ‖f(x^(r,o))‖ averaged over
    all heads."""
    per_token = heads.groupby(["seq", "pos"])[["alpha_mean", "f_norm"]].mean().reset_index()
    df = per_token.merge(tokens[["seq", "pos", "token", "category", "rank"]], on=["seq", "pos"])
    df = df.rename(columns={"alpha_mean": "alpha"})
    return df[["seq", "pos", "token", "category", "rank", "alpha", "f_norm"]].reset_index(drop=True)


def frequency_correlation(points: pd.DataFrame) -> dict[str, float]:
    """§4.3: Spearman ρ of the frequency rank r with α^(r,o) and with ‖f(x^(r,o))‖."""
    return {"rho_rank_alpha": _spearman(points["rank"], points["alpha"]),
            "rho_rank_fnorm": _spearman(points["rank"], points["f_norm"])}


def fold_of(seq: pd.Series, n_folds: int) -> pd.Series:
    return seq % n_folds


SPECIAL = ("[CLS]", "[SEP]", "punct")  # the categories §4.2 finds weighted by α but not by ‖αf‖


def key_share(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The share of ``values`` (≥ 0, keys on the last axis) that the keys in ``mask`` hold."""
    values = np.asarray(values, dtype=float)
    return (values * mask).sum(axis=-1) / values.sum(axis=-1)


def share_drop(weight: np.ndarray, norm: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """§4.2 (Fig. 3) and §5 (Fig. 8): the share of the attention that the keys in ``mask`` get by weight (α) minus
    their share by norm (‖αf‖), keys on the last axis. > 0: those keys are attended to but contribute little."""
    return key_share(weight, mask) - key_share(norm, mask)


def special_share_drop(per_head: pd.DataFrame) -> float:
    """Fig. 3: :func:`share_drop` of [CLS], [SEP] and punctuation over a head's categories (Σ α and Σ ‖αf‖ over
    their keys), averaged over heads. ``per_head``: :func:`per_head_categories`."""
    wide = per_head.set_index(["layer", "head", "category"])[["alpha", "weighted_norm"]].unstack("category")
    wide = wide.fillna(0.0)
    mask = wide["alpha"].columns.isin(SPECIAL)
    return float(share_drop(wide["alpha"].to_numpy(), wide["weighted_norm"].to_numpy(), mask).mean())


def special_weight_ratio(per_head: pd.DataFrame, tokens: pd.DataFrame) -> float:
    """Fig. 3a: the share of a head's attention weight α that [CLS], [SEP] and punctuation get, over the share of
    the keys they are (what uniform attention would give them), averaged over heads. 1: no more than chance;
    ``per_head``: :func:`per_head_categories` (α summed over a category's keys, averaged over sequences)."""
    key_share = tokens.category.isin(SPECIAL).groupby(tokens.seq).mean().mean()
    weight = per_head[per_head.category.isin(SPECIAL)].groupby(["layer", "head"], observed=True).alpha.sum()
    return float((weight / key_share).mean()) if key_share > 0 else np.nan


def sep_fnorm_ratio(per_head: pd.DataFrame) -> float:
    """§4.3's premise ("||f(x)|| corresponding to the specific tokens (e.g., [SEP]) is small"): a head's mean
    ‖f(x)‖ on [SEP] over its mean ‖f(x)‖ on the other tokens, averaged over heads. 1: [SEP] is not shrunk."""
    wide = per_head.pivot_table(index=["layer", "head"], columns="category", values="f_norm", observed=True)
    if "[SEP]" not in wide or "other" not in wide:
        return np.nan
    return float((wide["[SEP]"] / wide["other"]).mean())


def head_correlation(per_head: pd.DataFrame, category: str = "[SEP]") -> float:
    """Fig. 4: Spearman ρ over heads between a head's α on ``category`` and the mean ‖f(x)‖ of its tokens;
    clearly negative where heads that attend to it shrink its vectors."""
    part = per_head[per_head.category == category].dropna(subset=["alpha", "f_norm"])
    return _spearman(part.alpha, part.f_norm)


def cv_extremes(disp: pd.DataFrame) -> dict[str, float]:
    """Table 1's first two rows: the CV of the most and of the least dispersed head, and their ratio (the
    paper's 0.37 / 0.12). ``disp``: :func:`dispersion` per (layer, head), a census of the model's heads."""
    hi, lo = float(disp["cv"].max()), float(disp["cv"].min())
    return {"cv_fnorm_max": hi, "cv_fnorm_min": lo, "cv_fnorm_max_over_min": hi / lo if lo > 0 else np.nan}


def singular_value_spread(svals: pd.DataFrame) -> float:
    """Appendix A, Fig. 9: the smallest, over heads, of σ_max / σ_min of f as a linear map (Eq. 5–7); the paper
    finds ≥ 1.8 in each head. ``svals``: :func:`attnrepro.kobayashi2020.pretrained.singular_value_table`."""
    g = svals.groupby(["layer", "head"]).singular_value
    return float((g.max() / g.min()).min())


HEAD_CATEGORIES = (("[CLS]", "cls"), ("[SEP]", "sep"), ("punct", "punct"), ("other", "other"))


def fold_summary(tokens: pd.DataFrame, heads: pd.DataFrame, pairs: pd.DataFrame, layers: pd.DataFrame,
                 n_folds: int, n_layers: int, n_heads: int, svals: pd.DataFrame | None = None) -> pd.DataFrame:
    """The claims' replicate unit for one pretrained model: ``n_folds`` disjoint subsets of the sequences
    (sequence id mod n_folds); one row per fold with every measure computed on that fold alone. ``svals`` (the
    weights' singular values) adds ``svals_ratio_min``, descriptive only: the same in every fold (the weights do
    not depend on the text), so no claim's interval may rest on it."""
    spread = np.nan if svals is None else singular_value_spread(svals)
    rows = []
    for fold in range(n_folds):
        seqs = tokens.seq[fold_of(tokens.seq, n_folds) == fold].unique()
        t = tokens[tokens.seq.isin(seqs)]
        h = heads[heads.seq.isin(seqs)]
        corr = alpha_fnorm_correlation(pairs[pairs.seq.isin(seqs)], t, n_layers, n_heads).set_index("category")
        freq = frequency_correlation(frequency_points(h, t))
        disp = dispersion(h, "f_norm", ["layer", "head"])
        x_disp = dispersion(layers[layers.seq.isin(seqs)], "x_norm", ["layer"])
        per_head = per_head_categories(h, t)
        row = {"fold": fold, "n_sequences": len(seqs)}
        for c, key in (("[CLS]", "cls"), ("[SEP]", "sep"), ("punct", "punct"), ("other", "other")):
            row[f"rho_alpha_fnorm_{key}"] = corr.loc[c, "spearman_rho"]
        row.update(freq)
        row["cv_fnorm_mean"] = disp["cv"].mean()
        row.update(cv_extremes(disp))
        row["cv_x_mean"] = x_disp["cv"].mean()
        row["cv_fnorm_minus_x"] = row["cv_fnorm_mean"] - row["cv_x_mean"]
        row["special_share_drop"] = special_share_drop(per_head)
        row["special_weight_ratio"] = special_weight_ratio(per_head, t)
        row["sep_fnorm_ratio"] = sep_fnorm_ratio(per_head)
        for c, key in HEAD_CATEGORIES:  # Fig. 4 ([SEP]) and Appendix C, Figs. 10-12
            row[f"rho_heads_alpha_fnorm_{key}"] = head_correlation(per_head, c)
        row["svals_ratio_min"] = spread
        rows.append(row)
    return pd.DataFrame(rows)
