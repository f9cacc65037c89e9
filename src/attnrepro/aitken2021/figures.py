"""Figures of Aitken et al. 2021 drawn from the analysis tables: pure functions from DataFrames to a matplotlib
Figure and the DataFrame of the numbers it shows (written beside it as CSV). Which tables and experiments each
panel reads: :mod:`attnrepro.aitken2021.panels`.

Temporal panels (Fig. 2a/c/e/g, 3b/e, 4b): μ_t^E (orange) and μ_s^D (purple) projected on their first two
principal components, lighter early, a square at the first step and a star at the last; inset softmax_t(μ_s^D·μ_t^E).
Input panels (Fig. 2b/d/f, 3c/f): encoder (light) and decoder (dark) input-delta components χ + Δh coloured by
word, the encoder input components χ_x^E as crosses, and the readout vectors as lines, all projected on the PCs of
the input components; start/end-of-sentence words purple. As in the paper the readout drawn is the part acting on
the context c_s (AED, AO) or on h_s^D (VED), rescaled to the extent of the input components.

This module: the pictures of one model's components (Fig. 2–4) and the drawing parts the other figure
modules share; :mod:`.figures_compare` sets experiments side by side (Fig. 5, the bottleneck), :mod:`.figures_context`
draws how context enters eSCAN's states (Fig. 6, 6a).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from ..data.tokens import EOS, PAD, SOS, SPECIALS
from .alignment import softmax_over_t
from .decomposition import temporal_alignment

SPECIAL_COLOR = "#7b3294"


def vectors(df: pd.DataFrame, prefix: str) -> np.ndarray:
    cols = [c for c in df.columns if c.startswith(prefix) and c[len(prefix):].isdigit()]
    return df[sorted(cols, key=lambda c: int(c[len(prefix):]))].to_numpy(dtype=float)


def principal_axes(x: np.ndarray, k: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, the first ``k`` principal directions [k, H] and their explained-variance ratios."""
    mean = x.mean(0)
    _, sv, vt = np.linalg.svd(x - mean, full_matrices=False)
    var = sv**2
    return mean, vt[:k], var[:k] / var.sum()


def word_palette(source_words: list[str], target_words: list[str]) -> dict[str, tuple]:
    """The i-th source word and the i-th target word share a colour (A and 1 in one-to-one); specials are purple."""
    specials = {SOS, EOS, PAD}
    colors = [c for i, c in enumerate(sns.color_palette("tab10")) if i != 4]  # tab10's purple is the specials'
    palette = {w: SPECIAL_COLOR for w in specials}
    for words in (source_words, target_words):
        plain = [w for w in words if w not in specials]
        cycle = colors if len(plain) <= len(colors) else sns.color_palette("husl", len(plain))
        palette.update({w: cycle[i] for i, w in enumerate(plain)})
    return palette


def temporal_means(temporal: pd.DataFrame, side: str) -> np.ndarray:
    mu = vectors(temporal[temporal.side == side].sort_values("pos"), "mu")
    return mu[~np.isnan(mu).any(1)]


def draw_temporal(ax, temporal: pd.DataFrame, inset: bool = True) -> pd.DataFrame:
    mu_e, mu_d = temporal_means(temporal, "encoder"), temporal_means(temporal, "decoder")
    mean, axes, ratio = principal_axes(np.vstack([mu_e, mu_d]))
    rows = []
    for mu, cmap, side in ((mu_e, "Oranges", "encoder"), (mu_d, "Purples", "decoder")):
        p = (mu - mean) @ axes.T
        colors = plt.get_cmap(cmap)(np.linspace(0.3, 1.0, len(p)))
        sym = "\\mu^E_t" if side == "encoder" else "\\mu^D_s"
        ax.plot(p[:, 0], p[:, 1], color=colors[-1], lw=1, alpha=0.6, label=f"{side} ${sym}$")
        ax.scatter(p[:, 0], p[:, 1], c=colors, s=18, zorder=3)
        ax.scatter(*p[0], marker="s", s=70, color=colors[-1], edgecolor="k", zorder=4)
        ax.scatter(*p[-1], marker="*", s=160, color=colors[-1], edgecolor="k", zorder=4)
        rows.append(pd.DataFrame({"side": side, "pos": np.arange(len(p)), "pc1": p[:, 0], "pc2": p[:, 1]}))
    ax.set_xlabel(f"temporal PC1 ({ratio[0]:.0%} var.)")
    ax.set_ylabel(f"temporal PC2 ({ratio[1]:.0%} var.)")
    ax.legend(loc="lower left", fontsize=7)
    if inset:
        ins = ax.inset_axes([0.66, 0.66, 0.32, 0.32])
        ins.imshow(temporal_alignment(mu_d, mu_e), cmap="viridis", aspect="auto")
        ins.set_title("softmax($\\mu^D_s\\cdot\\mu^E_t$)", fontsize=7)
        ins.set_xlabel("t", fontsize=7, labelpad=0)
        ins.set_ylabel("s", fontsize=7, labelpad=0)
        ins.tick_params(labelsize=6)
    return pd.concat(rows, ignore_index=True)


def draw_input_delta(ax, input_comp: pd.DataFrame, input_delta: pd.DataFrame, readout: pd.DataFrame,
                     max_points: int = 1500, seed: int = 0, max_labels: int = 12) -> pd.DataFrame:
    """``readout``: one seed's rows (token, weight0..); the last H columns (those acting on c_s) are drawn."""
    chi_e = input_comp[input_comp.side == "encoder"]
    chi = vectors(chi_e, "chi")
    mean, axes, ratio = principal_axes(chi)
    palette = word_palette(list(chi_e.token), list(readout.token))
    rng = np.random.default_rng(seed)
    for side, alpha, marker in (("encoder", 0.25, "o"), ("decoder", 0.6, ".")):
        pts = input_delta[input_delta.side == side]
        if len(pts) > max_points:
            pts = pts.iloc[np.sort(rng.choice(len(pts), max_points, replace=False))]
        p = vectors(pts, "v") @ axes.T  # offsets from μ_t: projected without centring, like the readouts
        ax.scatter(p[:, 0], p[:, 1], c=[palette.get(w, "grey") for w in pts.token], s=8, alpha=alpha,
                   marker=marker, linewidths=0, label=f"{side} $\\chi+\\Delta h$")
    pc = chi @ axes.T
    labelled = set(chi_e.token[:max_labels])
    for token, q in zip(chi_e.token, pc):
        ax.scatter(*q, marker="X", s=100, color=palette.get(token, "grey"), edgecolor="k", zorder=5)
        if token in labelled:
            ax.annotate(token, q, textcoords="offset points", xytext=(5, 5), fontsize=7)
    w = vectors(readout, "weight")[:, -chi.shape[1]:]
    r = w @ axes.T
    scale = np.abs(pc).max() / max(np.abs(r).max(), 1e-9)
    for i, (token, q) in enumerate(zip(readout.token, r * scale)):
        if token == PAD or i > max_labels + 3:
            continue
        ax.plot([0, q[0]], [0, q[1]], color=palette.get(token, "grey"), lw=2)
        ax.annotate(f"ro:{token}", q, fontsize=6, color=palette.get(token, "grey"))
    ax.set_xlabel(f"input PC1 ({ratio[0]:.0%} var.)")
    ax.set_ylabel(f"input PC2 ({ratio[1]:.0%} var.)")
    ax.legend(loc="lower left", fontsize=6, markerscale=2)
    return pd.concat([
        pd.DataFrame({"kind": "input_component", "token": chi_e.token.to_numpy(), "pc1": pc[:, 0], "pc2": pc[:, 1]}),
        pd.DataFrame({"kind": "readout", "token": readout.token.to_numpy(), "pc1": r[:, 0], "pc2": r[:, 1]}),
    ], ignore_index=True)


def draw_attention(ax, maps: pd.DataFrame, column: str = "full", title: str = "") -> pd.DataFrame:
    example = maps.example.min()
    one = maps[maps.example == example]
    w = softmax_over_t(one, column)
    ax.imshow(w, cmap="viridis", aspect="auto", vmin=0, vmax=1)
    ax.set_xlabel("encoder step t")
    ax.set_ylabel("decoder step s")
    ax.set_title(title, fontsize=9)
    s, t = np.meshgrid(np.arange(w.shape[0]), np.arange(w.shape[1]), indexing="ij")
    return pd.DataFrame({"example": example, "part": column, "s": s.ravel(), "t": t.ravel(), "weight": w.ravel()})


# -- one figure per file -----------------------------------------------------------------------------------
def temporal_figure(t: dict, title: str, inset: bool = True):
    fig, ax = plt.subplots(figsize=(5.5, 5))
    data = draw_temporal(ax, t["temporal.parquet"], inset=inset)
    ax.set_title(title)
    return fig, data


def input_figure(t: dict, title: str, seed: int = 0):
    fig, ax = plt.subplots(figsize=(5.5, 5))
    data = draw_input_delta(ax, t["input.parquet"], t["input_delta.parquet"], t["readout.parquet"], seed=seed)
    ax.set_title(title)
    return fig, data


def fig2h(t: dict, title: str):
    """Clockwise from top left: full, μ^D·μ^E, χ^D·Δh^E, Δh^D·χ^E (softmax over t)."""
    fig, axes = plt.subplots(2, 2, figsize=(8, 7.5))
    layout = {(0, 0): ("full", "$h^D_s\\cdot h^E_t$"), (0, 1): ("mu_mu", "$\\mu^D_s\\cdot\\mu^E_t$"),
              (1, 1): ("chi_delta", "$\\chi^D_y\\cdot\\Delta h^E_t$"), (1, 0): ("delta_chi", "$\\Delta h^D_s\\cdot\\chi^E_x$")}
    data = [draw_attention(axes[i], t["maps.parquet"], col, label) for i, (col, label) in layout.items()]
    fig.suptitle(title)
    fig.tight_layout()
    return fig, pd.concat(data, ignore_index=True)


def fig3(t: dict, title: str, seed: int = 0):
    """Rows AED, AO: (a/d) sample attention, (b/e) temporal components with inset, (c/f) input-delta components."""
    fig, axes = plt.subplots(2, 3, figsize=(16, 10))
    data = []
    for row, role in enumerate(("aed", "ao")):
        tab = t[role]
        data.append(draw_attention(axes[row, 0], tab["maps.parquet"], "full", f"{role.upper()}: sample attention")
                    .assign(role=role))
        data.append(draw_temporal(axes[row, 1], tab["temporal.parquet"]).assign(role=role))
        axes[row, 1].set_title(f"{role.upper()}: temporal components", fontsize=9)
        data.append(draw_input_delta(axes[row, 2], tab["input.parquet"], tab["input_delta.parquet"],
                                     tab["readout.parquet"], seed=seed).assign(role=role))
        axes[row, 2].set_title(f"{role.upper()}: input-delta, input components, readouts", fontsize=9)
    fig.suptitle(title)
    fig.tight_layout()
    return fig, pd.concat(data, ignore_index=True)


def fig4(t: dict, title: str, n_words: int = 12):
    """(a) sample attention, (b) temporal components, (c) readouts of the most common output words · input
    components of the most common input words."""
    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))
    att = draw_attention(axes[0], t["maps.parquet"], "full", "sample attention")
    tmp = draw_temporal(axes[1], t["temporal.parquet"])
    axes[1].set_title("temporal components", fontsize=9)
    mat = readout_matrix(t["readout_alignment.parquet"], t["word_variance.parquet"], n_words)
    sns.heatmap(mat, ax=axes[2], cmap="RdBu_r", center=0, cbar_kws={"label": "$\\chi^E_x\\cdot$ readout"})
    axes[2].set_xlabel("input word x")
    axes[2].set_ylabel("output word (readout)")
    fig.suptitle(title)
    fig.tight_layout()
    long = mat.stack().rename("dot").reset_index()
    return fig, pd.concat([att.assign(panel="a"), tmp.assign(panel="b"), long.assign(panel="c")], ignore_index=True)


def readout_matrix(alignment: pd.DataFrame, word_variance: pd.DataFrame, n_words: int) -> pd.DataFrame:
    """Readout·χ^E for the ``n_words`` most frequent input words and the output words whose readout best matches
    one of them."""
    freq = word_variance[~word_variance.token.isin(SPECIALS)].sort_values("n", ascending=False)
    src = list(freq.token[:n_words])
    sub = alignment[alignment.source.isin(src) & ~alignment.target.isin(SPECIALS)]
    best = sub.loc[sub.groupby("source")["dot"].idxmax()]
    tgt = list(dict.fromkeys(best.set_index("source").loc[src, "target"]))
    mat = sub[sub.target.isin(tgt)].pivot(index="target", columns="source", values="dot")
    return mat.loc[tgt, src]


# one colour per task kind, shared by the figures that set experiments side by side
TASK_COLORS = {"one_to_one": "tab:red", "reversed": "tab:orange", "sort": "tab:brown", "escan": "tab:blue",
               "bible": "tab:green"}
