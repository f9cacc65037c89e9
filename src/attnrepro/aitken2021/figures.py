"""Figures of Aitken et al. 2021 drawn from the analysis tables: pure functions from DataFrames to a matplotlib
Figure and the DataFrame of the numbers it shows (written beside it as CSV). Which tables and experiments each
panel reads: :mod:`attnrepro.aitken2021.panels`.

Temporal panels (Fig. 2a/c/e/g, 3b/e, 4b): μ_t^E (orange) and μ_s^D (purple) projected on their first two
principal components, lighter early, a square at the first step and a star at the last; inset softmax_t(μ_s^D·μ_t^E).
Input panels (Fig. 2b/d/f, 3c/f): encoder (light) and decoder (dark) input-delta components χ + Δh coloured by
word, the encoder input components χ_x^E as crosses, and the readout vectors as lines, all projected on the PCs of
the input components; start/end-of-sentence words purple. As in the paper the readout drawn is the part acting on
the context c_s (AED, AO) or on h_s^D (VED), rescaled to the extent of the input components.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from ..data.tokens import EOS, PAD, SOS, SPECIALS
from . import escan_mechanisms
from .alignment import predicted_offset, softmax_over_t, temporal_offset
from .decomposition import temporal_alignment

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
    specials = {SOS, EOS, PAD}
    colors = [c for i, c in enumerate(sns.color_palette("tab10")) if i != 4]  # tab10's purple is the specials'
    palette = {w: SPECIAL_COLOR for w in specials}
    for words in (source_words, target_words):
        plain = [w for w in words if w not in specials]
        cycle = colors if len(plain) <= len(colors) else sns.color_palette("husl", len(plain))
        palette.update({w: cycle[i] for i, w in enumerate(plain)})
    return palette


def _mu(temporal: pd.DataFrame, side: str) -> np.ndarray:
    mu = _vectors(temporal[temporal.side == side].sort_values("pos"), "mu")
    return mu[~np.isnan(mu).any(1)]


def draw_temporal(ax, temporal: pd.DataFrame, inset: bool = True) -> pd.DataFrame:
    mu_e, mu_d = _mu(temporal, "encoder"), _mu(temporal, "decoder")
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
    chi = _vectors(chi_e, "chi")
    mean, axes, ratio = principal_axes(chi)
    palette = word_palette(list(chi_e.token), list(readout.token))
    rng = np.random.default_rng(seed)
    for side, alpha, marker in (("encoder", 0.25, "o"), ("decoder", 0.6, ".")):
        pts = input_delta[input_delta.side == side]
        if len(pts) > max_points:
            pts = pts.iloc[np.sort(rng.choice(len(pts), max_points, replace=False))]
        p = _vectors(pts, "v") @ axes.T  # offsets from μ_t: projected without centring, like the readouts
        ax.scatter(p[:, 0], p[:, 1], c=[palette.get(w, "grey") for w in pts.token], s=8, alpha=alpha,
                   marker=marker, linewidths=0, label=f"{side} $\\chi+\\Delta h$")
    pc = chi @ axes.T
    labelled = set(chi_e.token[:max_labels])
    for token, q in zip(chi_e.token, pc):
        ax.scatter(*q, marker="X", s=100, color=palette.get(token, "grey"), edgecolor="k", zorder=5)
        if token in labelled:
            ax.annotate(token, q, textcoords="offset points", xytext=(5, 5), fontsize=7)
    w = _vectors(readout, "weight")[:, -chi.shape[1]:]
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


TASK_COLORS = {"one_to_one": "tab:red", "reversed": "tab:orange", "sort": "tab:brown", "escan": "tab:blue",
               "bible": "tab:green"}


def fig5a(summaries: dict[str, pd.DataFrame], meta: dict[str, dict], title: str = ""):
    """Mean over seeds (± 95% CI) of the shares of the top five alignments (the authors' metric): μμ, μχ + μΔ, the
    other six terms. The table also holds each of the nine terms' share (part ``term_<t>``) and map agreement
    (``agree_<t>``, where measured), so that which term wins is visible per experiment (sort variants included)."""
    from ..verdicts.claims import confidence_interval
    from .decomposition import TERMS

    rows = []
    for name, df in summaries.items():
        parts = {"mu_mu": df.share_mu_mu, "mu_input": df.share_mu_input,
                 "other": 1 - df.share_mu_mu - df.share_mu_input,
                 **{f"term_{k}": df[f"share_{k}"] for k in TERMS},
                 **{f"agree_{k}": df[f"agree_{k}"] for k in TERMS if f"agree_{k}" in df}}
        for part, values in parts.items():
            mean, low, high = confidence_interval(values.to_numpy())
            rows.append({"experiment": name, "task": meta[name]["task_kind"], "arch": meta[name]["arch"],
                         "part": part, "mean": mean, "ci_low": low, "ci_high": high, "n_seeds": len(values)})
    data = pd.DataFrame(rows)
    fig, ax = plt.subplots(figsize=(1.2 * len(summaries) + 2, 4.5))
    names = list(summaries)
    bottom = np.zeros(len(names))
    for part, alpha, label in (("mu_mu", 1.0, "$\\mu\\cdot\\mu$"), ("mu_input", 0.6, "$\\mu\\cdot\\chi+\\mu\\cdot\\Delta h$"),
                               ("other", 0.25, "other six")):
        sel = data[data.part == part].set_index("experiment").loc[names]
        colors = [TASK_COLORS.get(meta[n]["task_kind"], "grey") for n in names]
        ax.bar(range(len(names)), sel["mean"], bottom=bottom, color=colors, alpha=alpha, edgecolor="k", label=label)
        err = np.vstack([sel["mean"] - sel.ci_low, sel.ci_high - sel["mean"]])
        ax.errorbar(np.arange(len(names)) + 0.15 * (["mu_mu", "mu_input", "other"].index(part) - 1),
                    bottom + sel["mean"], yerr=np.nan_to_num(err), fmt="none", ecolor="k", capsize=2, lw=0.8)
        bottom += sel["mean"].to_numpy()
    ax.set_xticks(range(len(names)), [f"{meta[n]['arch'].upper()}\n{meta[n]['task_kind']}" for n in names], fontsize=8)
    ax.set_ylabel("share of |top-5 alignments|")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title(title or "Fig. 5a: terms of the top five alignments (mean over seeds, 95% CI)")
    return fig, data


def fig5b(temporals: dict[str, pd.DataFrame], tests: dict[str, pd.DataFrame], meta: dict[str, dict],
          steps: tuple[int, ...] = (1, 4, 8, 12), max_offset: int = 5, title: str = ""):
    """μ_s^D·μ_t^E against t − s at several decoder steps s, with the offset the data set's lengths predict."""
    fig, axes = plt.subplots(1, len(temporals), figsize=(4.5 * len(temporals), 4), squeeze=False)
    rows = []
    for ax, (name, temporal) in zip(axes[0], temporals.items()):
        mu_d, mu_e = _mu(temporal, "decoder"), _mu(temporal, "encoder")
        prof = temporal_offset(mu_d, mu_e, max_offset)
        test = tests[name]
        pred = predicted_offset(test.src.map(len).to_numpy() + 1, test.tgt.map(len).to_numpy() + 1, len(mu_d))
        cmap = plt.get_cmap("viridis")
        for i, s in enumerate(st for st in steps if st < len(mu_d)):
            one = prof[prof.s == s]
            color = cmap(i / max(len(steps) - 1, 1))
            ax.plot(one.offset, one["dot"], marker="o", ms=3, color=color, label=f"s = {s}")
            p = pred[pred.s == s].offset
            if len(p):
                ax.axvline(float(p.iloc[0]), color=color, ls=":", lw=1)
        ax.set_xlabel("offset t − s")
        ax.set_ylabel("$\\mu^D_s\\cdot\\mu^E_t$")
        ax.set_title(f"{meta[name]['arch'].upper()} {meta[name]['task_kind']}", color=TASK_COLORS.get(meta[name]["task_kind"], "k"))
        ax.legend(fontsize=7)
        rows.append(prof.merge(pred.rename(columns={"offset": "predicted_offset"}), on="s", how="left")
                    .assign(experiment=name))
    fig.suptitle(title or "Fig. 5b: temporal alignment against offset (dotted: predicted maximum)")
    fig.tight_layout()
    return fig, pd.concat(rows, ignore_index=True)


def fig5c(variances: dict[str, pd.DataFrame], meta: dict[str, dict], title: str = ""):
    """Per input word, var(h^E − μ^E) / var(h^E) over the states that read it; every seed."""
    data = pd.concat([v.assign(experiment=n, task=meta[n]["task_kind"], arch=meta[n]["arch"])
                      for n, v in variances.items()], ignore_index=True)
    data = data[~data.token.isin(SPECIALS) & (data.n >= 5)]
    fig, ax = plt.subplots(figsize=(1.1 * len(variances) + 2, 4.5))
    order = list(variances)
    sns.boxplot(data=data, x="experiment", y="ratio", hue="task", order=order, palette=TASK_COLORS, ax=ax,
                fliersize=2, dodge=False)
    ax.set_xticks(range(len(order)), [f"{meta[n]['arch'].upper()}\n{meta[n]['task_kind']}" for n in order], fontsize=8)
    ax.set_xlabel("")
    ax.set_ylabel("var($h^E_t-\\mu^E_t$) / var($h^E_t$) per input word")
    ax.set_ylim(0, None)
    ax.set_title(title or "Fig. 5c: word variance without the temporal component")
    return fig, data


def fig5d(alignment: pd.DataFrame, title: str = ""):
    data = alignment[~alignment.source.isin(SPECIALS) & ~alignment.target.isin(SPECIALS)]
    mat = data.pivot(index="target", columns="source", values="dot")
    fig, ax = plt.subplots(figsize=(0.6 * mat.shape[1] + 3, 0.45 * mat.shape[0] + 2))
    sns.heatmap(mat, ax=ax, cmap="RdBu_r", center=0, annot=mat.shape[0] * mat.shape[1] <= 120, fmt=".1f",
                cbar_kws={"label": "$\\chi^E_x\\cdot$ readout"})
    ax.set_xlabel("input word x")
    ax.set_ylabel("readout of output word")
    ax.set_title(title or "Fig. 5d: input components · readouts")
    return fig, data


def preceding_words(input_delta: pd.DataFrame) -> pd.Series:
    """The input word read one step earlier by the same example (None at t = 0)."""
    enc = input_delta[input_delta.side == "encoder"]
    return pd.Series(escan_mechanisms.preceding_words(enc.example, enc.pos, enc.token), index=enc.index)


def fig6(t: dict, title: str = "", word: str = "twice", words: tuple[str, ...] = ("twice", "and", "left", "run"),
         seed: int = 0):
    """(a) AED: input-delta components of ``word`` coloured by the preceding word, over all encoder states;
    (b) AO: a_st and its parts when ``word`` is at t = s; (c) AO: μ_s^D·(χ^E + Δh^E) at t = s per input word;
    (d) AO: the same against the offset t − s for a few words."""
    fig, axes = plt.subplots(1, 4, figsize=(20, 4.6))
    aed = t["aed"]
    enc = aed["input_delta.parquet"][aed["input_delta.parquet"].side == "encoder"]
    chi = aed["input.parquet"]
    mean, pcs, ratio = principal_axes(_vectors(chi[chi.side == "encoder"], "chi"))
    prev = preceding_words(aed["input_delta.parquet"])
    p = _vectors(enc, "v") @ pcs.T
    ax = axes[0]
    ax.scatter(p[:, 0], p[:, 1], s=4, c="lightgrey", linewidths=0, label="all words")
    target = (enc.token == word).to_numpy()
    prev_t = prev[target]
    palette = dict(zip(sorted(prev_t.dropna().unique()), sns.color_palette("tab10")))
    for w, color in palette.items():
        sel = target.copy()
        sel[target] = (prev_t == w).to_numpy()
        ax.scatter(p[sel, 0], p[sel, 1], s=10, color=color, label=f"'{word}' after '{w}'")
    ax.set_xlabel(f"input PC1 ({ratio[0]:.0%} var.)")
    ax.set_ylabel(f"input PC2 ({ratio[1]:.0%} var.)")
    ax.set_title(f"(a) AED: '{word}' by preceding word", fontsize=9)
    ax.legend(fontsize=6)
    a_points = pd.DataFrame({"pc1": p[target, 0], "pc2": p[target, 1], "preceding": prev_t.to_numpy()})

    off = t["ao"]["offsets.parquet"]
    by_s = off[(off.by == "s") & (off.word == word)].sort_values("offset")
    ax = axes[1]
    for col, color, label in (("a", "k", "$a_{st}$"), ("mu_mu", "goldenrod", "$\\mu^D_s\\cdot\\mu^E_t$"),
                              ("mu_input", "hotpink", "$\\mu^D_s\\cdot(\\chi^E_x+\\Delta h^E_t)$"),
                              ("rest", "grey", "$a_{st}-\\mu^D_s\\cdot h^E_t$")):
        ax.plot(by_s.offset, by_s[col], marker="o", ms=3, color=color, label=label)
    ax.axvline(0, color="k", lw=0.5, ls=":")
    ax.set_xlabel("t − s")
    ax.set_title(f"(b) AO: alignment with '{word}' at t = s", fontsize=9)
    ax.legend(fontsize=6)
    by_t = off[off.by == "t"]
    at0 = by_t[(by_t.offset == 0) & ~by_t.word.isin(SPECIALS)].sort_values("mu_input")
    axes[2].barh(at0.word, at0.mu_input, color=[TASK_COLORS["escan"] if w not in words else "tab:red" for w in at0.word])
    axes[2].axvline(0, color="k", lw=0.5)
    axes[2].set_xlabel("$\\mu^D_s\\cdot(\\chi^E_x+\\Delta h^E_t)$ at t = s")
    axes[2].set_title("(c) AO: input-delta · temporal, t = s", fontsize=9)
    for w, color in zip(words, sns.color_palette("tab10")):
        one = by_t[by_t.word == w].sort_values("offset")
        axes[3].plot(one.offset, one.mu_input, marker="o", ms=3, color=color, label=w)
    axes[3].axvline(0, color="grey", lw=6, alpha=0.3)
    axes[3].set_xlabel("offset t − s")
    axes[3].set_ylabel("$\\mu^D_s\\cdot(\\chi^E_x+\\Delta h^E_t)$")
    axes[3].set_title("(d) AO: against offset", fontsize=9)
    axes[3].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return fig, pd.concat([a_points.assign(panel="a"), by_s.assign(panel="b"), by_t.assign(panel="cd")],
                          ignore_index=True)


def bottleneck(accuracies: dict[str, pd.DataFrame], labels: dict[str, str], title: str = ""):
    """Sequence and token accuracy against input length, mean over seeds with a 95% CI band."""
    from ..verdicts.claims import confidence_interval

    rows = []
    for role, acc in accuracies.items():
        for length, g in acc.groupby("length"):
            for metric in ("token_acc", "seq_acc"):
                mean, low, high = confidence_interval(g[metric].to_numpy())
                rows.append({"role": role, "model": labels[role], "length": length, "metric": metric,
                             "mean": mean, "ci_low": low, "ci_high": high, "n_seeds": len(g)})
    data = pd.DataFrame(rows)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, metric in zip(axes, ("seq_acc", "token_acc")):
        for (role, one), color in zip(data[data.metric == metric].groupby("role", sort=False), sns.color_palette("deep")):
            ax.plot(one.length, one["mean"], color=color, label=labels[role])
            ax.fill_between(one.length, one.ci_low, one.ci_high, color=color, alpha=0.2)
        ax.set_xlabel("input length")
        ax.set_ylabel({"seq_acc": "sequence accuracy", "token_acc": "token accuracy"}[metric])
        ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize=8)
    fig.suptitle(title or "The fixed-size context bottleneck: accuracy against input length")
    fig.tight_layout()
    return fig, data
