"""Figures of Snell et al. 2021 from the experiments' curve and table DataFrames."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

RED, BLUE, GREEN, GREY = "#d62728", "#1f77b4", "#2ca02c", "#555555"


def _curves(ax, curves: pd.DataFrame, color: str, label: str, fail_below: float, style: str = "-", lw=0.9):
    """One thin line per run, and the failure count in the legend: failed runs of those that trained; runs
    whose loss went non-finite are counted apart (diverged), not as failures."""
    final = curves[curves.step == curves.step.max()]
    diverged = int(final.diverged.astype(bool).sum()) if "diverged" in final else 0
    n_fail, n = int((final.token_acc < fail_below).sum()), len(final) - diverged
    note = f", {diverged} diverged" if diverged else ""
    for i, (_, c) in enumerate(curves.sort_values("step").groupby("member")):
        ax.plot(c.step, c.token_acc, style, color=color, lw=lw, alpha=0.75,
                label=f"{label}: {n_fail}/{n} fail{note}" if i == 0 else None)


def _curve_data(curves: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The curves a panel draws, one block per legend label (column ``curve``)."""
    return pd.concat([c.assign(curve=label) for label, c in curves.items()], ignore_index=True)


def _axes(ax, title):
    ax.set(xlabel="training step", ylabel="token accuracy (teacher forced)", ylim=(-0.02, 1.02), title=title)
    ax.legend(fontsize=7, loc="lower right")


def fig3(same: pd.DataFrame, subset: pd.DataFrame, mixture: pd.DataFrame, uniform: dict[str, pd.DataFrame],
         labels: dict[str, str], fail_below: float):
    """Left: permutations of one set (red) vs subsets (blue); right: the mixture of two sets (red). Frozen
    uniform attention dashed on the same axes."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    _curves(left, same, RED, labels["same"], fail_below)
    _curves(left, subset, BLUE, labels["subset"], fail_below)
    for name, color in (("same", RED), ("subset", BLUE)):
        if name in uniform:
            _curves(left, uniform[name], color, labels[name] + ", uniform α", fail_below, style="--", lw=0.7)
    _curves(right, mixture, RED, labels["mixture"], fail_below)
    _curves(right, subset, BLUE, labels["subset"], fail_below)
    if "mixture" in uniform:
        _curves(right, uniform["mixture"], RED, labels["mixture"] + ", uniform α", fail_below, style="--", lw=0.7)
    left.axhline(fail_below, color=GREY, lw=0.5, ls=":")
    right.axhline(fail_below, color=GREY, lw=0.5, ls=":")
    _axes(left, "Fig. 3 left: copying permutations")
    _axes(right, "Fig. 3 right: mixture of permutations of two disjoint sets")
    fig.tight_layout()
    drawn = {labels[k]: c for k, c in (("same", same), ("subset", subset), ("mixture", mixture))}
    drawn.update({labels[k] + ", uniform α": c for k, c in uniform.items()})
    return fig, _curve_data(drawn)


def fig3_failures(failures: pd.DataFrame, labels: dict[str, str], judge_step: int | None):
    """The failure rate of every copy run against the step (``failures``: run, step, n_seeds, n_below), with its
    95% Clopper–Pearson band; the dotted line marks where the runs are judged (the authors' last evaluation)."""
    from ..verdicts.intervals import clopper_pearson

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for run, f in failures.sort_values("step").groupby("run", sort=False):
        band = np.array([clopper_pearson(int(k), int(n)) for k, n in zip(f.n_below, f.n_seeds)])
        key = run.removeprefix("copy_").removesuffix("_uniform")
        label = labels.get(key, key) + (", uniform α" if run.endswith("_uniform") else "")
        line, = ax.plot(f.step, f.n_below / f.n_seeds, "--" if run.endswith("_uniform") else "-", lw=1, label=label)
        ax.fill_between(f.step, band[:, 0], band[:, 1], color=line.get_color(), alpha=0.12)
    if judge_step is not None:
        ax.axvline(judge_step, color=GREY, lw=0.6, ls=":")
    ax.set(xlabel="training step", ylabel="fraction of seeds below the failure threshold", ylim=(-0.02, 1.02),
           title="Fig. 3: failure rate at every evaluation (band: 95% Clopper–Pearson)")
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    return fig, failures.reset_index(drop=True)


def sec6_2(copy: pd.DataFrame, permute: pd.DataFrame, labels: dict[str, str], fail_below: float):
    fig, ax = plt.subplots(figsize=(6, 4.2))
    _curves(ax, copy, BLUE, labels["copy"], fail_below)
    _curves(ax, permute, RED, labels["permute"], fail_below)
    _axes(ax, "§6.2: copying vs a fixed permutation function")
    fig.tight_layout()
    return fig, _curve_data({labels["copy"]: copy, labels["permute"]: permute})


def fig6(combo_curves: pd.DataFrame, summary: pd.DataFrame, candidates: pd.DataFrame, fail_below: float,
         judge_step: int | None = None):
    """Left: the K-head models' curves; right: success rate per kind, and (title) how the rejection sampling went
    and whether the one-good models' good head is the head that learned to copy (its label transferred). With
    ``judge_step`` (``multihead.judge_step``), a dotted line marks where heads are labelled and models judged, as in
    :func:`fig3_failures`."""
    colors = {"all_bad": RED, "one_good": BLUE, "random": GREEN}
    names = {"all_bad": "all heads bad", "one_good": "one good head", "random": "random heads"}
    fig, (ax, bar) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [2, 1]})
    for combo, color in colors.items():
        c = combo_curves[combo_curves.combo == combo]
        _curves(ax, c, color, names[combo], fail_below)
    if judge_step is not None:
        ax.axvline(judge_step, color=GREY, lw=0.6, ls=":")
    one_good = summary[summary.combo == "one_good"].good_head_is_best.dropna() if "good_head_is_best" in summary \
        else pd.Series(dtype=float)
    transfer = f"; good head aligns best in {int(one_good.sum())}/{len(one_good)} one-good models" if len(one_good) else ""
    _axes(ax, f"Fig. 6: {int(combo_curves.groupby(['combo', 'member']).ngroups)} multi-head models{transfer}")
    ax.title.set_fontsize(9)
    rates = summary.groupby("combo").success.agg(["mean", "count"]).reindex(list(colors))
    bar.bar([names[k] for k in rates.index], rates["mean"], color=list(colors.values()))
    for i, (m, n) in enumerate(zip(rates["mean"], rates["count"])):
        bar.text(i, m + 0.02, f"{m:.0%} of {n}", ha="center", fontsize=8)
    counts = candidates.label.value_counts()
    bar.set(ylim=(0, 1.1), ylabel="success rate (final accuracy ≥ good threshold)",
            title=f"heads sampled: {counts.get('good', 0)} good, {counts.get('bad', 0)} bad, "
                  f"{counts.get('unclear', 0)} unclear")
    bar.tick_params(axis="x", labelsize=8)
    fig.tight_layout()
    data = rates.rename(columns={"mean": "success_rate", "count": "n_models"}).rename_axis("combo").reset_index()
    return fig, data.assign(**{f"heads_{k}": counts.get(k, 0) for k in ("good", "bad", "unclear")})


def fig7(curves: pd.DataFrame):
    """γ_{l*}, γ_{l*+1}, γ̄ and γ_L (Eq. 22) over training under uniform attention, mean over seeds ± sd."""
    long = curves.melt(id_vars=["step", "seed"], value_vars=["gamma_key", "gamma_next", "gamma_mean", "gamma_last"],
                       var_name="quantity", value_name="gamma")
    long["quantity"] = long.quantity.map({"gamma_key": "γ_l* (keyword)", "gamma_next": "γ_l*+1",
                                          "gamma_mean": "mean γ", "gamma_last": "γ_L (last)"})
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    sns.lineplot(long, x="step", y="gamma", hue="quantity", errorbar="sd", ax=ax)
    ax.set(xlabel="training step", ylabel="log-odds γ on positive sequences",
           title="Fig. 7: keyword toy under uniform attention")
    fig.tight_layout()
    return fig, long.groupby(["quantity", "step"], sort=False).gamma.agg(["mean", "std", "count"]).reset_index()


def fig4(tables: pd.DataFrame, labels: dict[str, str]):
    """Trans(o|i) from the count table C (Eq. 17) and after EM, per distribution."""
    dists = list(dict.fromkeys(tables.distribution))
    stages = list(dict.fromkeys(tables.stage))
    fig, axes = plt.subplots(len(stages), len(dists), figsize=(4 * len(dists), 3.6 * len(stages)), squeeze=False)
    for r, stage in enumerate(stages):
        for c, dist in enumerate(dists):
            t = tables[(tables.distribution == dist) & (tables.stage == stage)]
            mat = t.pivot(index="input", columns="output", values="trans").to_numpy()
            sns.heatmap(mat, ax=axes[r, c], cmap="viridis", cbar=True, square=True, xticklabels=False,
                        yticklabels=False)
            off = ~np.eye(len(mat), dtype=bool)
            what = "C normalised (Eq. 17)" if stage == "C" else "IBM 1 after EM"
            axes[r, c].set(title=f"{labels[dist]}\n{what}; diag − off = {mat.diagonal().mean() - mat[off].mean():.3f}",
                           xlabel="output word o", ylabel="input word i")
            axes[r, c].title.set_fontsize(8)
    fig.tight_layout()
    return fig, tables[["distribution", "stage", "input", "output", "trans"]].reset_index(drop=True)


TABLE2_COLUMNS = {"A_alpha_beta_uf": "A(α, β_uf)", "A_beta_uf_beta_px": "A(β_uf, β_px)",
                  "A_delta_beta_uf": "A(Δ, β_uf)", "A_alpha_beta": "A(α, β)", "A_hat": "A-hat (shuffled)",
                  "xi_alpha_beta_uf": "ξ(α, β_uf)", "xi_alpha_beta": "ξ(α, β)", "xi_star": "ξ*"}


TABLE3_COLUMNS = ("tau_alpha_beta_uf", "tau_beta_uf_beta_px", "tau_delta_beta_uf", "tau_hat")
# CSV only: the nulls matched to the maxima over checkpoints (beside Â)
NULL_COLUMNS = ("A_alpha_beta_uf_null", "A_alpha_beta_null")

# the learned run's final teacher-forced token accuracy (as a fraction; every task) and corpus BLEU (0-100; translation)
MODEL_COLUMNS = {"token_acc": "acc", "bleu": "BLEU"}

# The paper's translation rows (%): Table 5 (Table 2 to two decimals, p̂ = token accuracy) and, as ``bleu``,
# Table 6's ξ* (the final BLEU). Shown beside ours as references, never as our numbers.
PAPER_TABLE2 = {
    "Multi30k": (31.02, 34.43, 27.06, 48.78, 7.11, 43.45, 48.58, 66.29, 37.89),
    "IWSLT14": (35.75, 39.09, 27.69, 55.25, 6.52, 35.82, 44.09, 67.36, 32.95),
    "News It-Pt": (29.13, 38.62, 25.45, 52.48, 6.17, 21.82, 25.06, 55.41, 24.71),
    "News En-Nl": (35.53, 41.72, 29.15, 60.15, 6.36, 18.59, 26.79, 62.90, 29.42),
    "News En-Pt": (35.90, 37.37, 30.23, 65.49, 6.34, 19.12, 27.85, 67.75, 37.04),
}
_PAPER_KEYS = (*TABLE2_COLUMNS, "bleu")


def paper_reference(name: str) -> dict[str, float]:
    """A paper row as ``ref_<column>`` values; its token accuracy is its ξ* (the final performance)."""
    ref = dict(zip(_PAPER_KEYS, PAPER_TABLE2[name]))
    ref["token_acc"] = ref["xi_star"]
    return {f"ref_{k}": v for k, v in ref.items()}


def table2_frame(summaries: dict[str, pd.DataFrame], references: dict[str, str] | None = None) -> pd.DataFrame:
    """Table 2 as the paper prints it: one row per task, percentages, means over seeds (± sd in the CSV), plus
    Table 3's Kendall τ variant of the agreement columns, the nulls of the maxima and the number of seeds whose ξ
    is ξ* (``*_n_starred``; CSV only), and for translation the token accuracy, the
    BLEU and, where ``references`` names one (task -> paper row), the paper's numbers as ``ref_*`` columns."""
    references = references or {}
    rows = []
    for task, s in summaries.items():
        row = {"task": task, "n_seeds": len(s)}
        for col in (*TABLE2_COLUMNS, *TABLE3_COLUMNS, *NULL_COLUMNS, *MODEL_COLUMNS):
            scale = 1 if col == "bleu" else 100
            values = s[col] if col in s else pd.Series(np.nan, index=s.index)
            row[col] = scale * values.mean()
            row[f"{col}_sd"] = scale * values.std()
        for col in ("xi_alpha_beta_uf", "xi_alpha_beta"):   # seeds whose ξ is ξ* (the paper's "*")
            starred = s.get(f"{col}_starred")
            row[f"{col}_n_starred"] = int(starred.astype(bool).sum()) if starred is not None else 0
        row["reference"] = references.get(task, "")
        row.update(paper_reference(row["reference"]) if row["reference"] else {})
        rows.append(row)
    return pd.DataFrame(rows)


def table2(frame: pd.DataFrame):
    columns = {**TABLE2_COLUMNS, **MODEL_COLUMNS}
    fmt = lambda x: "–" if pd.isna(x) else f"{x:.0f}"  # ξ is undefined when no checkpoint agrees more
    cells, colours = [], []
    for r in frame.to_dict("records"):
        cells.append([r["task"]] + [fmt(r[c]) for c in columns])
        colours.append(["white"] * (len(columns) + 1))
        if r.get("reference"):
            cells.append([f"  paper: {r['reference']}"] + [fmt(r.get(f"ref_{c}")) for c in columns])
            colours.append(["#eeeeee"] * (len(columns) + 1))
    fig, ax = plt.subplots(figsize=(13, 0.7 + 0.45 * len(cells)))
    ax.axis("off")
    widths = [0.24] + [0.075] * len(columns)
    tab = ax.table(cellText=cells, cellColours=colours, colLabels=["task"] + list(columns.values()), loc="center",
                   cellLoc="center", colWidths=widths)
    tab.auto_set_font_size(False)
    tab.set_fontsize(8)
    tab.scale(1, 1.4)
    ax.set_title("Table 2 (%, mean over seeds): agreement A and contextualised agreement ξ; translation: token "
                 "accuracy and BLEU (grey: the paper's numbers, for reference)", fontsize=9)
    fig.tight_layout()
    return fig


FIG2_LEVELS = {"alpha_beta_uf": ("A(α, β_uf)", BLUE), "alpha_beta": ("A(α, β)", GREEN)}


def fig2_frame(curves: dict[str, pd.DataFrame], summaries: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Fig. 2's numbers per task: the second run's A(α, α̂(τ)) and p̂(τ) at each checkpoint (``curves``: the
    experiments' ``xi_curves.csv``), and for each agreement level A(u, v) of the seed's Table 2 row its τ₀ (the
    first checkpoint agreeing more) and ξ(u, v) = p̂(τ₀). Percentages."""
    from .contextual_agreement import first_step_above, xi

    out = []
    for task, c in curves.items():
        levels = summaries[task].set_index("seed")
        for seed, cs in c.groupby("seed", sort=True):
            cs = cs.sort_values("step")
            part = cs[["seed", "second_run_seed", "step"]].assign(
                task=task, agreement=100 * cs.agreement, performance=100 * cs.performance)
            for key in FIG2_LEVELS:
                level = float(levels.loc[seed, f"A_{key}"])
                part[f"A_{key}"] = 100 * level
                part[f"tau0_{key}"] = first_step_above(level, cs)
                part[f"xi_{key}"] = 100 * xi(level, cs)
            out.append(part)
    cols = ["task", "seed", "second_run_seed", "step", "agreement", "performance"]
    frame = pd.concat(out, ignore_index=True)
    return frame[cols + [c for c in frame.columns if c not in cols]]


def fig2(frame: pd.DataFrame):
    """Per task (column): top, A(α, α̂(τ)) of the second run against the levels A(α, β_uf) and A(α, β) of the
    first seed; τ₀ where the curve first exceeds a level; bottom, p̂(τ), where ξ = p̂(τ₀) is read. Other seed
    pairs thin."""
    tasks = list(dict.fromkeys(frame.task))
    fig, axes = plt.subplots(2, len(tasks), figsize=(4.2 * len(tasks), 6.4), squeeze=False, sharex="col")
    for k, task in enumerate(tasks):
        top, bottom = axes[0, k], axes[1, k]
        t = frame[frame.task == task]
        first = t.seed.min()
        for seed, c in t.groupby("seed"):
            lw, alpha = (1.8, 1.0) if seed == first else (0.7, 0.35)
            top.plot(c.step, c.agreement, "-o", ms=2.5 if seed == first else 0, color=GREY, lw=lw, alpha=alpha,
                     label=f"A(α, α̂(τ)): seed {seed} vs the other runs (mean)" if seed == first else None)
            bottom.plot(c.step, c.performance, "-o", ms=2.5 if seed == first else 0, color=GREY, lw=lw, alpha=alpha,
                        label="p̂(τ), other runs (mean)" if seed == first else None)
        c = t[t.seed == first]
        for key, (name, colour) in FIG2_LEVELS.items():
            level, tau0, value = c[f"A_{key}"].iloc[0], c[f"tau0_{key}"].iloc[0], c[f"xi_{key}"].iloc[0]
            top.axhline(level, color=colour, ls="--", lw=1, label=f"{name} = {level:.0f}")
            if np.isnan(tau0):
                continue   # ξ undefined: no checkpoint of the second run agrees more
            top.axvline(tau0, color=colour, ls=":", lw=1)
            bottom.axvline(tau0, color=colour, ls=":", lw=1)
            bottom.plot([tau0], [value], "o", color=colour, ms=6, label=f"ξ{name[1:]} = {value:.0f}")
        top.set(title=task, ylabel="agreement with α (%)")
        bottom.set(xlabel="training step τ of the second run", ylabel="performance p̂(τ) (%)")
        top.title.set_fontsize(9)
        top.legend(fontsize=7, loc="lower right")
        bottom.legend(fontsize=7, loc="lower right")
    fig.suptitle("Fig. 2: ξ(u, v) = p̂(τ₀), τ₀ = first step with A(α, α̂(τ₀)) > A(u, v)", fontsize=10)
    fig.tight_layout()
    return fig


def table10_frame(summaries: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Table 10: A(α, α^fr) vs A(α, β^uf) per classification set (%, mean and sd over seeds)."""
    rows = []
    for task, s in summaries.items():
        row = {"task": task, "n_seeds": len(s)}
        for col in ("A_alpha_alpha_fr", "A_alpha_beta_uf"):
            row[col], row[f"{col}_sd"] = 100 * s[col].mean(), 100 * s[col].std()
        rows.append(row)
    return pd.DataFrame(rows)


def table10(frame: pd.DataFrame):
    fig, ax = plt.subplots(figsize=(6.5, 0.8 + 0.45 * len(frame)))
    ax.axis("off")
    cells = [[r.task, f"{r.A_alpha_alpha_fr:.0f} ± {r.A_alpha_alpha_fr_sd:.0f}",
              f"{r.A_alpha_beta_uf:.0f} ± {r.A_alpha_beta_uf_sd:.0f}"] for r in frame.itertuples()]
    tab = ax.table(cellText=cells, colLabels=["data set", "A(α, α_fr)", "A(α, β_uf)"], loc="center",
                   cellLoc="center", colWidths=[0.45, 0.25, 0.25])
    tab.auto_set_font_size(False)
    tab.set_fontsize(9)
    tab.scale(1, 1.4)
    ax.set_title("Table 10 (%, mean ± sd over seeds): frozen-β attention vs β_uf", fontsize=10)
    fig.tight_layout()
    return fig
