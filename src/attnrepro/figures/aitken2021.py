"""Figures of Aitken et al. 2021 drawn from the analysis tables.

Fig. 2a: the temporal components μ_t^E (orange) and μ_s^D (purple) projected on their first two principal
components, lighter early, a square at the first step and a star at the last; inset softmax_t(μ_s^D·μ_t^E).
Fig. 2b: encoder (light) and decoder (dark) input-delta components χ + Δh coloured by word, the encoder input
components χ_x^E as dark crosses, and the readout vectors as lines, all projected on the PCs of the input
components. Start/end-of-sentence words are purple. As in the paper the readout drawn is the part acting on the
context c_s (AED), on c_s (AO) or on h_s^D (VED), rescaled to the extent of the input components.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from ..analysis.decomposition import temporal_alignment

SPECIAL_COLOR = "#7b3294"


def _vectors(df: pd.DataFrame, prefix: str) -> np.ndarray:
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
    specials = {"<sos>", "<eos>", "<pad>"}
    colors = [c for i, c in enumerate(sns.color_palette("tab10")) if i != 4]  # tab10's purple is the specials'
    palette = {w: SPECIAL_COLOR for w in specials}
    for words in (source_words, target_words):
        plain = [w for w in words if w not in specials]
        cycle = colors if len(plain) <= len(colors) else sns.color_palette("husl", len(plain))
        palette.update({w: cycle[i] for i, w in enumerate(plain)})
    return palette


def fig2a(temporal: pd.DataFrame, title: str = "") -> plt.Figure:
    enc = temporal[temporal.side == "encoder"].sort_values("pos")
    dec = temporal[temporal.side == "decoder"].sort_values("pos")
    mu_e, mu_d = _vectors(enc, "mu"), _vectors(dec, "mu")
    mu_e, mu_d = mu_e[~np.isnan(mu_e).any(1)], mu_d[~np.isnan(mu_d).any(1)]
    mean, axes, ratio = principal_axes(np.vstack([mu_e, mu_d]))
    fig, ax = plt.subplots(figsize=(5.5, 5))
    for mu, cmap, label in ((mu_e, "Oranges", "encoder $\\mu^E_t$"), (mu_d, "Purples", "decoder $\\mu^D_s$")):
        p = (mu - mean) @ axes.T
        colors = plt.get_cmap(cmap)(np.linspace(0.3, 1.0, len(p)))
        ax.plot(p[:, 0], p[:, 1], color=colors[-1], lw=1, alpha=0.6, label=label)
        ax.scatter(p[:, 0], p[:, 1], c=colors, s=18, zorder=3)
        ax.scatter(*p[0], marker="s", s=70, color=colors[-1], edgecolor="k", zorder=4)
        ax.scatter(*p[-1], marker="*", s=160, color=colors[-1], edgecolor="k", zorder=4)
    ax.set_xlabel(f"temporal PC1 ({ratio[0]:.0%} var.)")
    ax.set_ylabel(f"temporal PC2 ({ratio[1]:.0%} var.)")
    ax.legend(loc="lower left", fontsize=8)
    ax.set_title(title or "Temporal components")
    inset = ax.inset_axes([0.66, 0.66, 0.32, 0.32])
    inset.imshow(temporal_alignment(mu_d, mu_e), cmap="viridis", aspect="auto")
    inset.set_title("softmax($\\mu^D_s\\cdot\\mu^E_t$)", fontsize=7)
    inset.set_xlabel("t", fontsize=7, labelpad=0)
    inset.set_ylabel("s", fontsize=7, labelpad=0)
    inset.tick_params(labelsize=6)
    return fig


def fig2b(input_comp: pd.DataFrame, input_delta: pd.DataFrame, readout: pd.DataFrame, readout_part: slice,
          title: str = "", max_points: int = 1500, seed: int = 0) -> plt.Figure:
    """``readout``: rows (token, weight0..) of one seed; ``readout_part`` the columns acting on c_s (or h_s^D)."""
    chi_e = input_comp[input_comp.side == "encoder"]
    mean, axes, ratio = principal_axes(_vectors(chi_e, "chi"))
    palette = word_palette(list(chi_e.token), list(readout.token))
    rng = np.random.default_rng(seed)
    fig, ax = plt.subplots(figsize=(5.5, 5))
    for side, alpha, marker in (("encoder", 0.25, "o"), ("decoder", 0.6, ".")):
        pts = input_delta[input_delta.side == side]
        if len(pts) > max_points:
            pts = pts.iloc[np.sort(rng.choice(len(pts), max_points, replace=False))]
        p = _vectors(pts, "v") @ axes.T  # offsets from μ_t: projected without centring, like the readouts
        ax.scatter(p[:, 0], p[:, 1], c=[palette.get(w, "grey") for w in pts.token], s=8, alpha=alpha,
                   marker=marker, linewidths=0, label=f"{side} $\\chi+\\Delta h$")
    pc = _vectors(chi_e, "chi") @ axes.T
    for (_, row), q in zip(chi_e.iterrows(), pc):
        color = palette.get(row.token, "grey")
        ax.scatter(*q, marker="X", s=120, color=color, edgecolor="k", zorder=5)
        ax.annotate(row.token, q, textcoords="offset points", xytext=(5, 5), fontsize=8)
    w = _vectors(readout, "weight")[:, readout_part]
    r = w @ axes.T
    scale = np.abs(pc).max() / max(np.abs(r).max(), 1e-9)
    for token, q in zip(readout.token, r * scale):
        if token == "<pad>":
            continue
        ax.plot([0, q[0]], [0, q[1]], color=palette.get(token, "grey"), lw=2)
        ax.annotate(f"ro:{token}", q, fontsize=7, color=palette.get(token, "grey"))
    ax.set_xlabel(f"input PC1 ({ratio[0]:.0%} var.)")
    ax.set_ylabel(f"input PC2 ({ratio[1]:.0%} var.)")
    ax.set_title(title or "Input-delta components, input components and readouts")
    ax.legend(loc="lower left", fontsize=7, markerscale=2)
    return fig
