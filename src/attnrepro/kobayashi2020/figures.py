"""Figures and tables of Kobayashi et al. 2020 (§4, Appendix A) on the pretrained encoder.

Every function takes the cache tables (see :mod:`attnrepro.kobayashi2020.analysis`) and returns the figure and the
DataFrame of the numbers drawn (written beside the figure as CSV). Tables are drawn as matplotlib tables.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from ..errors import AttnReproError
from . import analysis as kb
from .news import CATEGORIES, CATEGORY_LABELS

PALETTE = dict(zip(CATEGORIES, sns.color_palette("colorblind", 4)))
MARKERS = {"[CLS]": "o", "[SEP]": "s", "punct": "^", "other": "D"}


def _require(df: pd.DataFrame, columns: list[str], what: str) -> None:
    """A figure drawn from a table without the columns it reads says which (not a bare KeyError deep in pandas)."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise AttnReproError(f"{what}: missing columns {missing} (has {list(df.columns)})")


def _table_figure(df: pd.DataFrame, title: str, width: float = 7.0) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(width, 0.45 * (len(df) + 2)))
    ax.axis("off")
    cells = [["–" if (isinstance(v, float) and np.isnan(v)) else (f"{v:,.2f}" if isinstance(v, float) else
              f"{v:,}" if isinstance(v, (int, np.integer)) else str(v)) for v in row] for row in df.itertuples(index=False)]
    longest = [max(len(str(h)), *(len(r[i]) for r in cells)) + 2 for i, h in enumerate(df.columns)]
    table = ax.table(cellText=cells, colLabels=list(df.columns), loc="center", cellLoc="center",
                     colWidths=[n / sum(longest) for n in longest])
    table.auto_set_font_size(False)
    table.set_fontsize(9)
    table.scale(1, 1.4)
    ax.set_title(title, fontsize=10)
    return fig


def table1(heads: pd.DataFrame) -> tuple[plt.Figure, pd.DataFrame]:
    """Table 1: dispersion of ‖f(x)‖ per head: the max-CV head, the min-CV head, the average over heads."""
    disp = kb.dispersion(heads, "f_norm", ["layer", "head"])
    tab = kb.extremes_table(disp, "head")
    shown = tab.rename(columns={"head": "Head", "mean": "μ", "sd": "σ", "cv": "CV", "max": "Max", "min": "Min"})
    fig = _table_figure(shown, "‖f(x)‖ per head (μ, σ, CV averaged over all heads)")
    per_head = disp.assign(label="")
    per_head.loc[disp.cv.idxmax(), "label"] = "max CV"
    per_head.loc[disp.cv.idxmin(), "label"] = "min CV"
    average = pd.DataFrame([{"label": "average", **tab.iloc[2][["mean", "sd", "cv"]].to_dict()}])
    return fig, pd.concat([per_head, average], ignore_index=True)[["label", "layer", "head", "mean", "sd", "cv",
                                                                   "max", "min"]]


def table4(layers: pd.DataFrame) -> tuple[plt.Figure, pd.DataFrame]:
    """Appendix A, Table 4: dispersion of ‖x‖ (the attention input) per layer."""
    disp = kb.dispersion(layers, "x_norm", ["layer"])
    tab = kb.extremes_table(disp, "layer")
    shown = tab.rename(columns={"layer": "Layer", "mean": "μ", "sd": "σ", "cv": "CV", "max": "Max", "min": "Min"})
    return _table_figure(shown, "‖x‖ per layer (μ, σ, CV averaged over layers)"), disp


def fig3(heads: pd.DataFrame, tokens: pd.DataFrame) -> tuple[plt.Figure, pd.DataFrame]:
    """Fig. 3: α (a) and ‖αf(x)‖ (b) per token category and layer, averaged over heads, queries, sequences."""
    per_layer = kb.per_layer_categories(kb.per_head_categories(heads, tokens))
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, col, title in ((axes[0], "alpha", "(a) weight α"), (axes[1], "weighted_norm", "(b) norm ‖αf(x)‖")):
        for c in CATEGORIES:
            d = per_layer[per_layer.category == c]
            ax.plot(d.layer, d[col], marker=MARKERS[c], color=PALETTE[c], label=CATEGORY_LABELS[c])
        ax.set(xlabel="layer", title=title, xticks=sorted(per_layer.layer.unique()))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("average over heads")
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    return fig, per_layer


def table2(pairs: pd.DataFrame, tokens: pd.DataFrame, n_layers: int, n_heads: int, fraction: float
           ) -> tuple[plt.Figure, pd.DataFrame]:
    """Table 2: Spearman ρ(α, ‖f(x)‖) per token category (on the sampled pairs)."""
    tab = kb.alpha_fnorm_correlation(pairs, tokens, n_layers, n_heads)
    shown = pd.DataFrame({"Token category": [CATEGORY_LABELS[c] for c in tab.category],
                          "Number of vectors": tab.n_vectors, "Sampled": tab.n_sampled,
                          "Spearman's ρ": tab.spearman_rho})
    fig = _table_figure(shown, f"ρ between α and ‖f(x)‖ (ρ on a {fraction:.2%} uniform sample of pairs)")
    return fig, tab


def fig4(heads: pd.DataFrame, tokens: pd.DataFrame, category: str = "[SEP]") -> tuple[plt.Figure, pd.DataFrame]:
    """Fig. 4 (App. C, Figs. 10–12 for [CLS], commas & periods, the other tokens): α and ‖f(x)‖ of one category
    per head; each heatmap's colour scale runs from 0 to its largest head (App. C: "determined by the maximum
    value for all heads")."""
    if category not in CATEGORIES:
        raise AttnReproError(f"fig4: unknown token category {category!r}; choose one of {CATEGORIES}")
    _require(heads, ["seq", "layer", "head", "pos", "f_norm", "alpha_mean"], "heads table")
    _require(tokens, ["seq", "pos", "category"], "token table")
    if not (tokens.category == category).any():  # else every head would show α = 0 and no ‖f(x)‖
        raise AttnReproError(f"fig4: no token of category {category!r} in the token table")
    per_head = kb.per_head_categories(heads, tokens)
    d = per_head[per_head.category == category]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    for ax, col, title, cmap in ((axes[0], "alpha", "α", "Reds"), (axes[1], "f_norm", "‖f(x)‖", "Blues")):
        grid = d.pivot(index="layer", columns="head", values=col)
        sns.heatmap(grid, ax=ax, cmap=cmap, vmin=0, square=True, cbar_kws={"shrink": 0.8})
        ax.set(title=f"{title} of {CATEGORY_LABELS[category]}", xlabel="head", ylabel="layer")
    fig.tight_layout()
    return fig, d[["layer", "head", "alpha", "f_norm"]].reset_index(drop=True)


def fig5(pairs: pd.DataFrame, tokens: pd.DataFrame, max_points: int, seed: int) -> tuple[plt.Figure, pd.DataFrame]:
    """Fig. 5: α against ‖f(x)‖ for sampled pairs, coloured by the key's category. The sample of pairs is
    thinned to ``max_points`` (seeded) for drawing; the CSV has each category's count and ρ."""
    df = kb._with_category(pairs, tokens)
    shown = df.sample(n=min(max_points, len(df)), random_state=seed) if len(df) > max_points else df
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    for c in ("other", "punct", "[SEP]", "[CLS]"):  # the many "others" underneath
        d = shown[shown.category == c]
        ax.scatter(d.alpha, d.f_norm, s=2, alpha=0.4, color=PALETTE[c], label=CATEGORY_LABELS[c], rasterized=True,
                   linewidths=0)
    ax.set(xlabel="α", ylabel="‖f(x)‖")
    ax.legend(markerscale=5, fontsize=8)
    fig.tight_layout()
    stats = df.groupby("category").apply(
        lambda g: pd.Series({"n_pairs": len(g), "n_drawn": int((shown.category == g.name).sum()),
                             "spearman_rho": kb._spearman(g.alpha, g.f_norm)}), include_groups=False).reset_index()
    return fig, stats


def fig6(heads: pd.DataFrame, tokens: pd.DataFrame) -> tuple[plt.Figure, pd.DataFrame]:
    """Fig. 6: frequency rank r against α^(r,o) (a) and ‖f(x^(r,o))‖ (b), averaged over all heads, with ρ."""
    pts = kb.frequency_points(heads, tokens)
    rho = kb.frequency_correlation(pts)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, col, key, label in ((axes[0], "alpha", "rho_rank_alpha", "α"), (axes[1], "f_norm", "rho_rank_fnorm", "‖f(x)‖")):
        ax.scatter(pts["rank"], pts[col], s=2, alpha=0.3, color="#3b6ea8", rasterized=True, linewidths=0)
        ax.set(xscale="log", xlabel="frequency rank r", ylabel=label, title=f"ρ = {rho[key]:.2f}")
    fig.tight_layout()
    return fig, pts


def fig9(svals: pd.DataFrame) -> tuple[plt.Figure, pd.DataFrame]:
    """Fig. 9: singular values of f per head, in descending order; one panel per layer, one line per head."""
    layers = sorted(svals.layer.unique())
    cols = min(3, len(layers))
    rows = -(-len(layers) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.6 * rows), sharey=True, squeeze=False)
    for ax in axes.flat[len(layers):]:
        ax.axis("off")
    for ax, layer in zip(axes.flat, layers):
        d = svals[svals.layer == layer]
        for head, g in d.groupby("head"):
            ax.plot(g["index"], g.singular_value, lw=0.8, alpha=0.8)
        ratio = (d.groupby("head").singular_value.max() / d.groupby("head").singular_value.min()).min()
        ax.set(title=f"layer {layer}: max/min ≥ {ratio:.1f} in every head", xlabel="index")
        ax.title.set_fontsize(8)
    for ax in axes[:, 0]:
        ax.set_ylabel("singular value of f")
    fig.tight_layout()
    return fig, svals


METHOD_LABELS = {"weight": "Attention-weights", "norm": "Vector-norms"}


def fig7(per_layer: pd.DataFrame) -> tuple[plt.Figure, pd.DataFrame]:
    """Fig. 7: AER of each decoder layer's source-target attention, weight- vs norm-based, one panel per
    experiment; mean over seeds with the seeds' range."""
    exps = list(dict.fromkeys(per_layer.experiment))
    fig, axes = plt.subplots(1, len(exps), figsize=(3.6 * len(exps), 3.2), sharey=True, squeeze=False)
    stats = per_layer.groupby(["experiment", "method", "layer"]).aer.agg(["mean", "min", "max", "count"]).reset_index()
    for ax, exp in zip(axes[0], exps):
        for method, color in (("weight", "#d95f02"), ("norm", "#1b9e77")):
            d = stats[(stats.experiment == exp) & (stats.method == method)]
            ax.plot(d.layer, d["mean"], marker="o", color=color, label=METHOD_LABELS[method])
            ax.fill_between(d.layer, d["min"], d["max"], color=color, alpha=0.2, linewidth=0)
        ax.set(title=exp, xlabel="decoder layer", xticks=sorted(stats.layer.unique()), ylim=(-0.02, 1.02))
        ax.title.set_fontsize(9)
        ax.grid(alpha=0.3)
    axes[0, 0].set_ylabel("AER (mean over seeds, range shaded)")
    axes[0, -1].legend(fontsize=8)
    fig.tight_layout()
    return fig, stats


def table3(per_layer: pd.DataFrame) -> tuple[plt.Figure, pd.DataFrame]:
    """Table 3: per experiment, AER of the best layer and the mean over layers, for weights and norms (each
    seed's own best layer, then the mean over seeds)."""
    from .aer import best_and_mean

    rows = []
    for (exp, seed), g in per_layer.groupby(["experiment", "seed"], sort=False):
        rows.append({"experiment": exp, "seed": seed, **best_and_mean(g)})
    per_seed = pd.DataFrame(rows)
    tab = per_seed.groupby("experiment", sort=False).mean(numeric_only=True).drop(columns="seed").reset_index()
    shown = pd.DataFrame({"Experiment": tab.experiment,
                          "weights, best layer": 100 * tab.aer_weight_best, "weights, mean": 100 * tab.aer_weight_mean,
                          "norms, best layer": 100 * tab.aer_norm_best, "norms, mean": 100 * tab.aer_norm_mean})
    return _table_figure(shown, "AER (%) of alignments from source-target attention", width=9.0), tab


def _fig8_choice(d: pd.DataFrame, layer: int) -> tuple[int, int]:
    """(layer, sentence) drawn for one experiment: ``layer`` where the model has it, else its last layer (a
    one-layer recurrent AED: its only one); the first stored sentence whose source has a period (Fig. 8's
    token), else the first stored sentence."""
    from .periods import PERIODS

    shown_layer = layer if layer in set(d.layer) else int(d.layer.max())
    with_period = d[d.source_word.isin(PERIODS)].sentence
    return shown_layer, int(with_period.min() if len(with_period) else d.sentence.min())


def fig8(soft: pd.DataFrame, layer: int = 2) -> tuple[plt.Figure, pd.DataFrame]:
    """Fig. 8: one example sentence pair's soft alignments in layer 2 (see :func:`_fig8_choice`), one row of
    panels per experiment: Attention-weights (mean_h α), Vector-norms (‖Σ_h α f(x)‖), each with its own colour
    scale from 0, and the gold alignment (sure dark, possible light). Green frames: the links extracted from that
    panel's scores (each target word to its highest-scoring source word, as the AER reads them). ``soft``: the
    columns of :data:`attnrepro.kobayashi2020.soft_examples.COLUMNS` and ``experiment``; the CSV holds the cells
    drawn with the extracted links and whether the source word is a period."""
    from .periods import PERIODS
    from .soft_examples import COLUMNS as SOFT_COLUMNS

    _require(soft, ["experiment", *SOFT_COLUMNS], "soft alignment table")
    if soft.empty:
        raise AttnReproError("soft alignment table: no rows to draw")
    drawn = []
    for exp, d in soft.groupby("experiment", sort=False):
        shown_layer, sentence = _fig8_choice(d, layer)
        cell = d[(d.layer == shown_layer) & (d.sentence == sentence)].copy()
        for method in ("weight", "norm"):  # argmax per target word, first source word on ties (numpy's argmax)
            best = cell.sort_values(["target", "source"]).groupby("target")[method].idxmax()
            cell[f"extracted_{method}"] = cell.index.isin(best.values)
        drawn.append(cell.assign(n_layers=int(d.layer.max()), period=cell.source_word.isin(PERIODS)))
    width = max(max(c.source.max() + 1, c.target.max() + 1) for c in drawn)
    side = max(2.6, 0.22 * width + 1.0)
    fig, axes = plt.subplots(len(drawn), 3, figsize=(3 * side, side * len(drawn)), squeeze=False)
    for row, cell in zip(axes, drawn):
        n_tgt, n_src = cell.target.max() + 1, cell.source.max() + 1
        src_words = cell.drop_duplicates("source").sort_values("source").source_word.tolist()
        tgt_words = cell.drop_duplicates("target").sort_values("target").target_word.tolist()
        grid = lambda col: cell.pivot(index="target", columns="source", values=col).to_numpy(dtype=float)
        gold = cell.assign(g=cell.gold.map({"sure": 1.0, "possible": 0.5, "none": 0.0})).pivot(
            index="target", columns="source", values="g").to_numpy(dtype=float)
        panels = ((grid("weight"), "Reds", METHOD_LABELS["weight"], "extracted_weight"),
                  (grid("norm"), "Blues", METHOD_LABELS["norm"], "extracted_norm"),
                  (gold, "Greys", "gold (sure dark, possible light)", None))
        for ax, (values, cmap, label, frames) in zip(row, panels):
            ax.imshow(values, cmap=cmap, vmin=0, vmax=max(float(np.nanmax(values)), 1e-12), aspect="auto")
            if frames is not None:
                for t, s in cell.loc[cell[frames], ["target", "source"]].itertuples(index=False):
                    ax.add_patch(plt.Rectangle((s - 0.5, t - 0.5), 1, 1, fill=False, edgecolor="#1a9850", lw=1.6))
            ax.set_xticks(range(n_src), src_words, rotation=90, fontsize=7)
            ax.set_yticks(range(n_tgt), tgt_words, fontsize=7)
            ax.set_title(label, fontsize=8)
        first = cell.iloc[0]
        row[0].set_ylabel(f"{first.experiment}\nlayer {first.layer} of {first.n_layers}, pair {first.sentence}",
                          fontsize=8)
    fig.tight_layout()
    data = pd.concat(drawn, ignore_index=True)
    return fig, data[["experiment", "seed", "sentence", "layer", "n_layers", "target", "source", "target_word",
                      "source_word", "period", "weight", "norm", "gold", "extracted_weight", "extracted_norm"]]
