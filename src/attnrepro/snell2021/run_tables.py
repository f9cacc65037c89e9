"""Per-run summaries of Snell et al. 2021's training runs, from their metrics and probe tables (no I/O).

A run *fails* when its teacher-forced token accuracy at its last evaluation is below ``fail_below`` (the authors'
bad-head rule, 0.6); ``judge_step`` moves that reading to the last evaluation at or before it (the authors' copy
runs train 200 steps and evaluate last after 191 updates). A run *learns* at the first evaluation at or above
``good_above`` (their good-head rule, 0.95); a member whose loss or gradient went non-finite is *diverged*: marked
apart here (its measures are NaN); the claims count it as a failed run and say how many (``attnrepro.verdicts.claims``, a
claim's ``diverged_value``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..training.learning_curve import steps_to_threshold
from .agreement import relative_spread
from .probes import padded

SUMMARY_COLUMNS = ["seed", "member", "final_acc", "max_acc", "failed", "reached_good", "steps_to_good",
                   "steps_to_good_censored", "mean_acc", "diverged"]


def curve_summary(metrics: pd.DataFrame, fail_below: float, good_above: float,
                  judge_step: int | None = None) -> pd.DataFrame:
    """Per member (``metrics``: the engine's rows): final and best token accuracy, ``failed`` (final <
    ``fail_below``), ``reached_good`` (accuracy ≥ ``good_above`` at some evaluation), ``steps_to_good`` (the first
    such evaluation, NaN if never — Fig. 3's "converges slower"), ``steps_to_good_censored`` (the same, a run that
    never gets there counted one evaluation past its last step), the mean accuracy over evaluations and
    ``diverged`` (0/1; a diverged run's other measures are NaN). With ``judge_step``, only the evaluations at or
    before it count."""
    rows = []
    if judge_step is not None:
        metrics = metrics[metrics.step <= judge_step]
    for (member, seed), c in metrics.sort_values("step").groupby(["member", "seed"]):
        if c.diverged.any():
            rows.append({"seed": seed, "member": member, "diverged": 1.0})
            continue
        first, censored = steps_to_threshold(c.step.to_numpy(), c.token_acc.to_numpy(), good_above)
        rows.append({"seed": seed, "member": member, "final_acc": c.token_acc.iloc[-1], "max_acc": c.token_acc.max(),
                     "failed": float(c.token_acc.iloc[-1] < fail_below), "reached_good": float(not np.isnan(first)),
                     "steps_to_good": first, "steps_to_good_censored": censored,
                     "mean_acc": c.token_acc.mean(), "diverged": 0.0})
    return pd.DataFrame(rows).reindex(columns=SUMMARY_COLUMNS)


PROXY_SPREAD_COLUMNS = ["seed", "beta_px_relative_spread", "beta_px_relative_spread_init", "beta_px_spread_gain"]


def proxy_spread(probes: pd.DataFrame, metrics: pd.DataFrame, words: int) -> pd.DataFrame:
    """App. A.3, per seed of a proxy run (one member each): β^px (Eq. 6) on the held-out copy pairs as
    :func:`attnrepro.snell2021.agreement.relative_spread` over the input positions — 0 when "β^px is still the
    same for every position" — trained (``beta_px_relative_spread``: at the member's least held-out loss after step
    0, as Table 2 reads its proxy) and at initialisation (``beta_px_relative_spread_init``: its step-0 evaluation,
    NaN without one), and ``beta_px_spread_gain``, trained minus initial: what training added. At finite width d a
    random start already spreads θ^px over the words (logits of size ~d^-1/2; flat only as d → ∞, Eq. 15's limit),
    so the trained spread alone cannot be 0; the gain is what the claim reads. Only the ``words`` word positions and
    word targets count, ``<eos>`` left out as the authors' β code (its range(40)): ``<eos>`` is in every input, so
    its θ^px says nothing of a word."""
    def spread(member, step) -> float:
        p = probes[(probes.member == member) & (probes.step == step) & (probes.t < words)]
        beta, lengths = padded(p.sort_values(["example", "t"]), "beta")
        return relative_spread(beta[:, :words], np.minimum(lengths, words))

    rows = []
    for (member, seed), m in metrics.groupby(["member", "seed"]):
        trained = m[m.step > 0]
        end = spread(member, trained.loc[trained.valid_loss.idxmin(), "step"]) if len(trained) else np.nan
        start = spread(member, 0) if (m.step == 0).any() else np.nan
        rows.append({"seed": seed, "beta_px_relative_spread": end, "beta_px_relative_spread_init": start,
                     "beta_px_spread_gain": end - start})
    return pd.DataFrame(rows, columns=PROXY_SPREAD_COLUMNS)


FAILURE_COLUMNS = ["run", "step", "n_seeds", "n_below"]


def failure_curve(metrics: pd.DataFrame, fail_below: float, run: str) -> pd.DataFrame:
    """Fig. 3's failure rate at every evaluation: per ``step``, ``n_seeds`` (members evaluated there; a member
    that diverged at any point is left out, as :func:`curve_summary` leaves it out of the failure rate) and
    ``n_below`` (those whose token accuracy is below ``fail_below``), so the rate can be read at the authors' last
    evaluation (191 updates) and at any other alike."""
    gone = metrics.groupby("member").diverged.transform("any").astype(bool)
    ok = metrics[~gone]
    g = ok.assign(below=ok.token_acc < fail_below).groupby("step").below
    out = pd.DataFrame({"step": g.size().index, "n_seeds": g.size().to_numpy(), "n_below": g.sum().to_numpy()})
    return out.assign(run=run, n_below=out.n_below.astype(int)).reindex(columns=FAILURE_COLUMNS)


def curves(metrics: pd.DataFrame) -> pd.DataFrame:
    """The accuracy curves the figures draw: step, member, seed, token_acc, valid_loss, diverged."""
    return metrics[["step", "member", "seed", "token_acc", "valid_loss", "diverged"]].reset_index(drop=True)


def candidate_table(outcomes: pd.DataFrame) -> pd.DataFrame:
    """One row per candidate head of Fig. 6's rejection sampling: its label and 1-head accuracies (the worst
    trial's best accuracy, the best trial's final accuracy)."""
    g = outcomes.groupby(["candidate", "head_seed", "round", "label"], as_index=False)
    return g.agg(min_best_acc=("max_acc", "min"), max_final_acc=("final_acc", "max"), diverged=("diverged", "any"))


def multihead_summary(metrics: pd.DataFrame, heads: pd.DataFrame, candidates: pd.DataFrame, combo: str,
                      fail_below: float, good_above: float, judge_step: int | None = None) -> pd.DataFrame:
    """Per K-head model of kind ``combo`` (one member each, ``seed`` = its index, the claims' replicate): the
    curve summary, ``success`` (final accuracy ≥ ``good_above``; with ``judge_step``, the accuracy and head
    alignment at the last evaluation at or before it, as the candidates' labels: the authors' multihead.py reads
    its models after 190 updates), and what became of its heads:
    ``n_good_heads`` (heads labelled good in 1-head runs), ``has_good_head`` (at least one: Fig. 6's "at least one
    out of eight random head-init is good"), ``good_head_acc`` (one-good models: that head's 1-head
    accuracy, the worst trial's best), ``good_head_align`` (how often the good head's attention peaks on the
    copied word at the end, :func:`attnrepro.snell2021.probes.head_alignment`) and ``good_head_is_best`` (1 if no other
    head aligns better: the label transferred to the summed model of Eq. 21)."""
    s = curve_summary(metrics, fail_below, good_above, judge_step)
    s["seed"] = s.member
    s["combo"] = combo
    s["success"] = np.where(s.diverged == 1, np.nan, (s.final_acc >= good_above).astype(float))
    labels = candidates.drop_duplicates("head_seed").set_index("head_seed")
    if judge_step is not None:
        heads = heads[heads.step <= judge_step]
    last = heads[heads.step == heads.step.max()] if len(heads) else heads
    extra = []
    for member in s.member:
        h = last[last.member == member]
        lab = h.head_seed.map(labels.label)
        good = h[lab == "good"]
        n_good = float((lab == "good").sum())
        row = {"n_good_heads": n_good, "has_good_head": float(n_good >= 1) if len(h) else np.nan,
               "good_head_acc": np.nan, "good_head_align": np.nan,
               "good_head_is_best": np.nan}
        if combo == "one_good" and len(good):
            g = good.iloc[0]
            row.update(good_head_acc=labels.loc[g.head_seed, "min_best_acc"], good_head_align=g.align_acc,
                       good_head_is_best=float(g.align_acc >= h.align_acc.max()))
        extra.append(row)
    return pd.concat([s.reset_index(drop=True), pd.DataFrame(extra)], axis=1)


def keyword_curves(gamma: pd.DataFrame, position: np.ndarray, metrics: pd.DataFrame) -> pd.DataFrame:
    """Fig. 7's quantities per member and evaluation (Eq. 22), means over the held-out positive sequences:
    γ_{l*} (``gamma_key``), γ_{l*+1} (``gamma_next``; a keyword in the last position has none), γ̄
    (``gamma_mean``) and γ_L (``gamma_last``); ``gamma``: probe rows (member, step, example, gamma [L]);
    ``position`` [N]: l* of each held-out example, −1 for negatives; plus the accuracy of ``metrics``."""
    rows = []
    positive = position >= 0
    for (member, step), g in gamma.groupby(["member", "step"]):
        values = np.stack(g.sort_values("example").gamma.to_numpy())            # [N, L]
        n, length = values.shape
        idx = np.arange(n)
        has_next = positive & (position + 1 < length)
        rows.append({"step": step, "member": member, "seed": g.seed.iloc[0],
                     "gamma_key": values[idx[positive], position[positive]].mean(),
                     "gamma_next": values[idx[has_next], position[has_next] + 1].mean(),
                     "gamma_mean": values[positive].mean(), "gamma_last": values[positive, -1].mean()})
    out = pd.DataFrame(rows)
    return out.merge(metrics[["step", "member", "token_acc"]].rename(columns={"token_acc": "acc"}), on=["step", "member"])


GAMMAS = ["gamma_key", "gamma_next", "gamma_mean", "gamma_last"]


def converged_step(curve: pd.DataFrame, rtol: float = 0.05, window: int = 3, span: float = 0.25) -> float:
    """Where Eq. 25's "asymptotically" is read: the first evaluation from which none of the four γ statistics moves
    by more than ``rtol`` of its size (max(|γ|, 1)) at any later evaluation, with at least ``window`` later
    evaluations covering at least ``span`` of the run's last step to show it; NaN when training ended before that
    (train longer). The span matters: three evaluations 50 steps apart can hide a slow drift (docs/deviations.md,
    Snell row 18)."""
    c = curve.sort_values("step")
    values, steps = c[GAMMAS].to_numpy(), c.step.to_numpy()
    for i in range(len(c) - window):
        if steps[-1] - steps[i] < span * steps[-1]:
            break
        scale = np.maximum(np.abs(values[i]), 1.0)
        if (np.abs(values[i + 1:] - values[i]) <= rtol * scale).all():
            return float(c.step.iloc[i])
    return float("nan")


def keyword_summary(curves_: pd.DataFrame) -> pd.DataFrame:
    """Per seed: ``hyp2_early`` — Hypothesis 2 (Eq. 24) at the first evaluation after step 0:
    γ_{l*} > γ_{l*+1} > γ̄ ≈ γ_L; ``obs3_final`` — Observation 3 (Eq. 25) at the last evaluation:
    γ_L > γ_{l*+1} > γ̄ ≈ γ_{l*}; ``obs3_step`` — the first evaluation from which Eq. 25 holds to the end, as a
    fraction of training (1 = only at the end, NaN = never); ``converged_step`` (:func:`converged_step`) and
    ``obs3_converged`` — Eq. 25 at that step, the paper's "asymptotically" (NaN when the statistics never stopped
    moving within training). "≈" is read on the scale of the order it sits in: |γ̄ − γ_L| (Eq. 24) or
    |γ̄ − γ_{l*}| (Eq. 25) below the gap γ_{l*+1} − γ̄."""
    rows = []
    for seed, c in curves_.sort_values("step").groupby("seed"):
        gap = c.gamma_next - c.gamma_mean
        hyp2 = (c.gamma_key > c.gamma_next) & (gap > 0) & ((c.gamma_mean - c.gamma_last).abs() < gap)
        obs3 = (c.gamma_last > c.gamma_next) & (gap > 0) & ((c.gamma_mean - c.gamma_key).abs() < gap)
        holds_to_end = obs3[::-1].cummin()[::-1]
        steps = c.step.to_numpy()
        first = steps[holds_to_end.to_numpy()]
        converged = converged_step(c)
        at = obs3[c.step.to_numpy() == converged]
        rows.append({"seed": seed, "hyp2_early": float(hyp2.iloc[1]), "obs3_final": float(obs3.iloc[-1]),
                     "obs3_step": first[0] / steps[-1] if len(first) else np.nan, "final_acc": c.acc.iloc[-1],
                     "converged_step": converged, "obs3_converged": float(at.iloc[0]) if len(at) else np.nan})
    return pd.DataFrame(rows)
