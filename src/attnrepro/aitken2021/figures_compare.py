"""Figures of Aitken et al. 2021 that set experiments side by side, each over every seed of each: Fig. 5
(which terms of Eq. 3 carry the alignments, the temporal offset, word variance, input components · readouts,
§4.1) and the background post's bottleneck (accuracy against input length). Pure functions from the analysis
tables to ``(figure, data)``, as :mod:`.figures`."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from ..data.tokens import SPECIALS
from .alignment import predicted_offset, temporal_offset
from .figures import TASK_COLORS, temporal_means


def fig5a(summaries: dict[str, pd.DataFrame], meta: dict[str, dict], title: str = ""):
    """Mean over seeds of the shares of the top five alignments (the authors' metric), stacked: μμ, μχ + μΔ, the
    other six terms. Error bars: the 95% interval over seeds (:func:`attnrepro.verdicts.descriptive.mean_interval`,
    inside [0, 1]) of the share at each boundary of the stack — μμ's (part ``mu_mu``) and the three terms with μ^D's
    (part ``three``, μμ + μχ + μΔ); the stack's top is 1 by construction and has none. The table also holds each
    part's own interval, each of the nine terms' share (part ``term_<t>``) and map agreement (``agree_<t>``, where
    measured), so that which term wins is visible per experiment (sort variants included)."""
    from ..verdicts.descriptive import mean_interval
    from .decomposition import TERMS

    rows = []
    for name, df in summaries.items():
        # the other six as their own sum (each ≥ 0), not 1 − the rest, which rounding can take below 0
        parts = {"mu_mu": df.share_mu_mu, "mu_input": df.share_mu_input,
                 "other": sum(df[f"share_{k}"] for k in TERMS if k not in ("mu_mu", "mu_chi", "mu_delta")),
                 "three": df.share_mu_mu + df.share_mu_input,
                 **{f"term_{k}": df[f"share_{k}"] for k in TERMS},
                 **{f"agree_{k}": df[f"agree_{k}"] for k in TERMS if f"agree_{k}" in df}}
        for part, values in parts.items():
            mean, low, high = mean_interval(values.to_numpy(), (0.0, 1.0))
            rows.append({"experiment": name, "task": meta[name]["task_kind"], "arch": meta[name]["arch"],
                         "part": part, "mean": mean, "ci_low": low, "ci_high": high, "n_seeds": len(values)})
    data = pd.DataFrame(rows)
    fig, ax = plt.subplots(figsize=(1.2 * len(summaries) + 2, 4.5))
    names = list(summaries)
    x = np.arange(len(names))
    bottom = np.zeros(len(names))
    colors = [TASK_COLORS.get(meta[n]["task_kind"], "grey") for n in names]
    for part, alpha, label in (("mu_mu", 1.0, "$\\mu\\cdot\\mu$"), ("mu_input", 0.6, "$\\mu\\cdot\\chi+\\mu\\cdot\\Delta h$"),
                               ("other", 0.25, "other six")):
        sel = data[data.part == part].set_index("experiment").loc[names]
        ax.bar(x, sel["mean"], bottom=bottom, color=colors, alpha=alpha, edgecolor="k", label=label)
        bottom += sel["mean"].to_numpy()
    for part, shift in (("mu_mu", -0.15), ("three", 0.15)):  # the boundaries' shares, beside each other
        edge = data[data.part == part].set_index("experiment").loc[names]
        err = np.vstack([edge["mean"] - edge.ci_low, edge.ci_high - edge["mean"]])
        ax.errorbar(x + shift, edge["mean"], yerr=np.nan_to_num(err), fmt="none", ecolor="k", capsize=2, lw=0.8)
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
        mu_d, mu_e = temporal_means(temporal, "decoder"), temporal_means(temporal, "encoder")
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



def bottleneck(accuracies: dict[str, pd.DataFrame], labels: dict[str, str], title: str = ""):
    """Sequence and token accuracy against input length, mean over seeds with a 95% interval band inside [0, 1]
    (:func:`attnrepro.verdicts.descriptive.mean_interval`)."""
    from ..verdicts.descriptive import mean_interval

    rows = []
    for role, acc in accuracies.items():
        for length, g in acc.groupby("length"):
            for metric in ("token_acc", "seq_acc"):
                mean, low, high = mean_interval(g[metric].to_numpy(), (0.0, 1.0))
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
