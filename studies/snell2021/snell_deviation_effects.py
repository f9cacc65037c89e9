"""Measured effects of Snell et al. 2021 deviations on a finished run (docs/deviations.md, Snell "Remaining
differences"): Table 2's rows 12 and 14 (``--family table2``), Fig. 6's rows 6 and 7 (``--family multihead``) and
Fig. 7's row 18 (``--family keyword``), one JSON per family.

Every family reads under ``--results`` (read only: a bad file is named, never moved aside). ``--family table2``
(the default) reads, for every Table 2 row of ``--config``'s snell2021 block (the copy row, the classification
sets, the translation sets) the runs that :func:`attnrepro.snell2021.config.analyses` names for it:
``models/snell2021/<run>/probes.parquet`` of the learned, uniform, proxy (and frozen-β) runs, the learned run's and
the proxy's ``metrics.csv``, the exported ``activations/snell2021/<learned>/saliency.parquet``, and the run's own
``analysis/snell2021/<row>/summary.csv``. Writes ``--out``
(default ``studies/snell2021/results/snell_deviation_effects.json``):

- ``proxy_evaluation`` (row 12): per Table 2 row, the proxy's evaluation steps, the one of least held-out loss
  (:func:`~attnrepro.snell2021.agreement_table.best_proxy_step`, what Table 2 reads) and the last one. Where they
  differ, every column that reads β^px (A(β^uf, β^px), τ(β^uf, β^px) and their excesses over Â / τ̂) per seed
  with each choice, the difference (best − last) and the means; where the proxy evaluated once, best = last and the
  row says the run cannot measure it.
- ``saliency_sign`` (row 14): per classification row and seed, A(Δ, β^uf) and τ(Δ, β^uf) (Table 2's and Table 3's
  Δ columns) with Δ as exported (gradient × input of log p, the paper's) and with −Δ (the sign the authors'
  release may end with), Â, the difference and the means.
- ``check``: per row, the largest |difference| between the recomputed Table 2 columns (best proxy evaluation, Δ as
  exported) and the run's summary.csv — 0 when the numbers above come from the same inputs and code as its table.

Every number goes through :func:`attnrepro.snell2021.agreement_table.table2_from_runs` (the same seed pairing and
the same β^uf checkpoint, the one agreeing most with α); only its inputs change: ``proxy_metrics=None`` reads the
proxy's last evaluation, and Δ is negated before the call.

``--family multihead`` (default ``--out`` ``studies/snell2021/results/snell_multihead_effects.json``) reads
``models/snell2021/multihead_candidates/{metrics.csv,candidates.parquet}``, each K-head kind's
``models/snell2021/multihead_<kind>/{metrics.csv,heads.parquet}``, ``analysis/snell2021/multihead/`` (candidates and
``summary_<kind>.csv``) and the run's ``claims.csv``:

- ``labelling`` (row 6): every candidate's label by :func:`attnrepro.snell2021.multihead.label` on its evaluations
  up to the run's last one (ours) and up to the last one at or before the authors' step 190 (their rule sees
  evaluations 0, 10, …, 190); the candidates whose label changes, the good and bad sets, the K-head models' head
  sets redrawn by :func:`~attnrepro.snell2021.multihead.draw_heads` from the relabelled table, and (the same
  question for the K-head models) each model's ``success`` read at either evaluation
  (:func:`~attnrepro.snell2021.run_tables.multihead_summary` on the truncated curves).
- ``sample_size`` (row 7): each Fig. 6 claim's Clopper–Pearson interval at the run's n and, as a projection (each
  model succeeding at the observed rate), at n = 20 (config/paper.yaml's ``n_combos``) and 50 (the authors'): the
  interval at k = round(rate·n), the probability that n models decide the claim, and which verdicts the run's n
  can reach with the smallest n that can go both ways (:func:`~attnrepro.verdicts.intervals.can_decide`,
  :func:`~attnrepro.verdicts.intervals.decides_from`); whether n different head sets of each kind can be drawn
  from the run's candidates; the random heads' pool (every candidate tried) against the authors' 30, and the chance
  that 8 heads drawn from it hold a good one (hypergeometric) against a pool of 30 with the same share of good heads
  and independent draws.

``--family keyword`` (default ``--out`` ``studies/snell2021/results/snell_keyword_effects.json``, row 18) reads
``analysis/snell2021/keyword/{curves.parquet,summary.csv}`` and ``--paper-config``'s keyword schedule: per seed the
stored ``converged_step`` (recomputed by :func:`attnrepro.snell2021.run_tables.converged_step` as a check), the same
criterion on the evaluations the paper config's spacing would have made, the four γ statistics' last moves
(relative to max(|γ|, 1), the criterion's scale) over the last evaluation and the last 100, 200 and window ×
spacing (300) steps, their final values, and what the paper config's schedule requires.

    python studies/snell2021/snell_deviation_effects.py --results /tmp/run_default/results [--config config/config.yaml]
        [--family table2|multihead|keyword]
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from scipy import stats

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from attnrepro.errors import AttnReproError  # noqa: E402
from attnrepro.verdicts.intervals import Interval, Rule, can_decide, clopper_pearson, decides_from, interval, verdict
from attnrepro.io import RESULTS_ROOT_ENV, read_csv_checked, read_parquet  # noqa: E402
from attnrepro.snell2021 import config as snellcfg  # noqa: E402
from attnrepro.snell2021 import multihead as mh  # noqa: E402
from attnrepro.snell2021.agreement_table import best_proxy_step, table2_from_runs  # noqa: E402
from attnrepro.snell2021.claims import CLAIMS  # noqa: E402
from attnrepro.snell2021.config import COMBOS  # noqa: E402
from attnrepro.snell2021.run_tables import GAMMAS, converged_step, multihead_summary  # noqa: E402
from attnrepro.snell2021.runs import read_metrics  # noqa: E402

# Table 2's columns that read β^px (row 12) and Δ (row 14); the rest of a row does not depend on either choice
PROXY_COLUMNS = ["A_beta_uf_beta_px", "A_beta_uf_beta_px_excess", "tau_beta_uf_beta_px", "tau_beta_uf_beta_px_excess"]
DELTA_COLUMNS = ["A_delta_beta_uf", "A_delta_beta_uf_excess", "tau_delta_beta_uf", "tau_delta_beta_uf_excess"]
CHECK_COLUMNS = ["A_alpha_beta_uf", "A_hat"] + PROXY_COLUMNS + DELTA_COLUMNS
# Fig. 6 as the authors ran it (authors-code.md, multihead.py): evaluations before the update at 0, 10, ..., 190, so
# a candidate's label reads step 190; 50 K-head models of each kind; the random kind's heads from a pool of 30
AUTHORS_LAST_EVAL, AUTHORS_POOL = 190, 30
PROJECTED_N = (20, 50)  # config/paper.yaml's n_combos and the authors' 50


def paired(a: pd.DataFrame, b: pd.DataFrame, columns: list[str], names: tuple[str, str]) -> dict:
    """Per seed, each column under choice a and choice b and a − b; and the means over seeds of all three."""
    a, b = a.set_index("seed").sort_index(), b.set_index("seed").sort_index()
    per_seed = []
    for seed in a.index:
        rec = {"seed": int(seed), "A_hat": float(a.at[seed, "A_hat"])}
        for c in columns:
            rec[f"{c}|{names[0]}"] = float(a.at[seed, c])
            rec[f"{c}|{names[1]}"] = float(b.at[seed, c])
            rec[f"{c}|difference"] = float(a.at[seed, c] - b.at[seed, c])
        per_seed.append(rec)
    means = {k: float(np.mean([r[k] for r in per_seed])) for k in per_seed[0] if k != "seed"}
    return {"per_seed": per_seed, "mean": means}


def largest_gap(recomputed: pd.DataFrame, stored: pd.DataFrame, columns: list[str]) -> float:
    """max |recomputed − stored| over the seeds and ``columns`` (NaN = NaN counts as equal)."""
    r, s = recomputed.set_index("seed").sort_index(), stored.set_index("seed").sort_index()
    if list(r.index) != list(s.index):
        raise ValueError(f"seeds differ: recomputed {list(r.index)}, stored {list(s.index)}")
    gaps = (r[columns] - s[columns]).abs().fillna(0.0)
    return float(gaps.to_numpy().max())


def negated(saliency: pd.DataFrame) -> pd.DataFrame:
    """The exported saliency table with every Δ value negated (−Δ)."""
    return saliency.assign(delta=[-np.asarray(d) for d in saliency.delta])


def table2_family(a: argparse.Namespace, block: dict) -> dict:
    """Rows 12 and 14 (see the module docstring)."""
    specs = snellcfg.analyses(block)
    models, activations = a.results / "models" / "snell2021", a.results / "activations" / "snell2021"
    config = a.config.resolve()
    out = {"benchmark": "snell_deviation_effects", "results": str(a.results), "config": shown(config),
           "proxy_evaluation": {}, "saliency_sign": {},
           "check": {"columns": CHECK_COLUMNS, "max_abs_difference": {}}}
    for name in snellcfg.table2_analyses(block):
        roles = specs[name]["runs"]
        probes = {role: read_parquet(models / run / "probes.parquet") for role, run in roles.items()}
        metrics = read_metrics(models / roles["learned"] / "metrics.csv")
        proxy_metrics = read_csv_checked(models / roles["proxy"] / "metrics.csv", require=["step", "valid_loss"])
        saliency = read_parquet(activations / specs[name]["exported"] / "saliency.parquet")
        best, _ = table2_from_runs(probes, metrics, saliency, proxy_metrics=proxy_metrics)
        stored = read_csv_checked(a.results / "analysis" / "snell2021" / name / "summary.csv", require=["seed"])
        out["check"]["max_abs_difference"][name] = largest_gap(best, stored, CHECK_COLUMNS)

        steps = sorted(int(s) for s in proxy_metrics.step.unique())
        best_step, last_step = best_proxy_step(proxy_metrics), int(probes["proxy"].step.max())
        row = {"proxy_run": roles["proxy"], "evaluation_steps": steps, "best_step": best_step,
               "last_step": last_step, "measurable": best_step != last_step}
        if best_step != last_step:
            last, _ = table2_from_runs(probes, metrics, saliency, proxy_metrics=None)
            row.update(paired(best, last, PROXY_COLUMNS, ("best", "last")))
        else:
            row["why_not"] = (f"the proxy evaluated {len(steps)} time(s) (steps {steps}): its least-loss evaluation "
                              f"is its last, so both choices give the same β^px")
        out["proxy_evaluation"][name] = row
        print(name, "proxy steps", steps, "best", best_step, "last", last_step, file=sys.stderr)

        if name.startswith("cls_"):
            flipped, _ = table2_from_runs(probes, metrics, negated(saliency), proxy_metrics=proxy_metrics)
            out["saliency_sign"][name] = paired(best, flipped, DELTA_COLUMNS, ("delta", "minus_delta"))
            m = out["saliency_sign"][name]["mean"]
            print(name, "A(Δ, β^uf)", round(m["A_delta_beta_uf|delta"], 4), "A(−Δ, β^uf)",
                  round(m["A_delta_beta_uf|minus_delta"], 4), file=sys.stderr)
    return out


def shown(path: Path) -> str:
    """A path relative to the repository where it lies inside it."""
    path = path.resolve()
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def candidate_labels(metrics: pd.DataFrame, m: dict, up_to: int) -> pd.Series:
    """Each candidate's label by the authors' rule on its trials' evaluations at steps ≤ ``up_to`` (candidate index
    = round · candidates_per_round + member // trials, as :func:`multihead.candidates` numbers them)."""
    cand = metrics["round"] * m["candidates_per_round"] + metrics.member // m["trials"]
    seen = metrics[metrics.step <= up_to]
    return pd.Series({int(c): mh.label(g, m["good_above"], m["bad_below"]) for c, g in seen.groupby(cand[seen.index])})


def stored_sets(heads: pd.DataFrame) -> list[list[int]]:
    """The head seeds of each K-head model as trained (heads.parquet at its first step, head order)."""
    first = heads[heads.step == heads.step.min()].sort_values(["member", "head"])
    return [[int(h) for h in g.head_seed] for _, g in first.groupby("member")]


def labelling(a: argparse.Namespace, block: dict) -> dict:
    """Row 6: the candidates' labels and what follows from them, at our last evaluation and at the authors'."""
    m, root = block["multihead"], a.results / "models" / "snell2021"
    metrics = read_csv_checked(root / "multihead_candidates" / "metrics.csv",
                               require=["step", "member", "round", "token_acc", "diverged"])
    table = read_parquet(root / "multihead_candidates" / "candidates.parquet")
    analysed = read_parquet(a.results / "analysis" / "snell2021" / "multihead" / "candidates.parquet")
    steps = sorted(int(s) for s in metrics.step.unique())
    ours = steps[-1]
    at_or_before = [s for s in steps if s <= AUTHORS_LAST_EVAL]
    if not at_or_before:
        raise ValueError(f"{root / 'multihead_candidates' / 'metrics.csv'}: no evaluation at or before step "
                         f"{AUTHORS_LAST_EVAL} (steps {steps})")
    theirs = at_or_before[-1]
    label_ours, label_theirs = candidate_labels(metrics, m, ours), candidate_labels(metrics, m, theirs)
    stored = table.drop_duplicates("candidate").set_index("candidate").label
    judge = m.get("judge_step")  # the run labelled at its last evaluation at or before it (paper.yaml: 190)
    label_run = label_ours if judge is None else candidate_labels(metrics, m, judge)
    if not label_run.sort_index().equals(stored.sort_index()):
        raise ValueError("the candidates' labels recomputed at the run's judged evaluation (multihead.judge_step, "
                         "else the last) differ from candidates.parquet's")
    seeds = table.drop_duplicates("candidate").set_index("candidate").head_seed
    changed = [{"candidate": int(c), "head_seed": int(seeds[c]), "label_ours": label_ours[c],
                "label_theirs": label_theirs[c]} for c in label_ours.index if label_ours[c] != label_theirs[c]]
    relabelled = table.assign(label=table.candidate.map(label_theirs))
    out = {"evaluation_steps": steps, "authors_last_evaluation": AUTHORS_LAST_EVAL, "run_judge_step": judge,
           "authors_step_evaluated": AUTHORS_LAST_EVAL in steps, "step_ours": ours, "step_theirs": theirs,
           "nearest_after": next((s for s in steps if s > AUTHORS_LAST_EVAL), None),
           "n_candidates": len(label_ours), "counts_ours": label_ours.value_counts().to_dict(),
           "counts_theirs": label_theirs.value_counts().to_dict(), "changed": changed,
           "wanted": {"n_good": m["n_good"], "n_bad": m["n_bad"]}, "sets": {}, "kmodel_success": {}}
    for kind in COMBOS:
        heads = read_parquet(root / f"multihead_{kind}" / "heads.parquet")
        trained = stored_sets(heads)
        if trained != mh.draw_heads(table, kind, m["heads"], m["n_combos"], m["sampling_seed"]):
            raise ValueError(f"{root / f'multihead_{kind}' / 'heads.parquet'}: its head sets are not the ones "
                             "draw_heads gives from candidates.parquet")
        try:
            redrawn = mh.draw_heads(relabelled, kind, m["heads"], m["n_combos"], m["sampling_seed"])
        except AttnReproError as e:
            redrawn = str(e)
        good = {name: set(seeds[lab[lab == "good"].index]) for name, lab in (("ours", label_ours),
                                                                              ("theirs", label_theirs))}
        out["sets"][kind] = {"trained": trained, "redrawn": redrawn,
                             "models_changed": (sum(x != y for x, y in zip(trained, redrawn))
                                                if isinstance(redrawn, list) else None),
                             # the trained models' heads labelled good under each rule (Fig. 6's has_good_head)
                             "n_good_heads": {name: [len(g & set(t)) for t in trained] for name, g in good.items()}}
        kmetrics = read_metrics(root / f"multihead_{kind}" / "metrics.csv")
        success = {}
        for name, step in (("ours", ours), ("theirs", theirs)):
            s = multihead_summary(kmetrics[kmetrics.step <= step], heads[heads.step <= step], analysed, kind,
                                  block["fail_below"], block["good_above"])
            success[name] = [float(v) for v in s.sort_values("seed").success]
        out["kmodel_success"][kind] = success
        print(kind, "sets changed", out["sets"][kind]["models_changed"], "success", success, file=sys.stderr)
    return out


def p_good_head(pool: int, good: int, heads: int) -> float:
    """P(at least one good head among ``heads`` drawn without replacement from ``pool`` holding ``good``)."""
    return 1.0 - math.comb(pool - good, heads) / math.comb(pool, heads) if pool >= heads else math.nan


def projected(rate: float, n: int, rule: Rule) -> dict:
    """A claim's interval at n models if each fell as ours (success probability ``rate``): at k = round(rate·n),
    and the probability that n models decide it the way the observed rate leans."""
    k = int(round(rate * n))
    low, high = clopper_pearson(k, n)
    want = 1 if rule.side(rate, rate) > 0 else -1
    decides = [j for j in range(n + 1) if rule.side(*clopper_pearson(j, n)) == want]
    return {"n": n, "k": k, "low": low, "high": high, "width": high - low,
            "verdict": verdict(Interval(k / n, low, high, "clopper-pearson", n, k), rule),
            "p_decided": float(stats.binom.pmf(decides, n, rate).sum())}


def sample_size(a: argparse.Namespace, block: dict) -> dict:
    """Row 7: the Fig. 6 claims' intervals at our n and projected to 20 and 50; the head pools."""
    m, folder = block["multihead"], a.results / "analysis" / "snell2021" / "multihead"
    table = read_parquet(a.results / "models" / "snell2021" / "multihead_candidates" / "candidates.parquet")
    stored = read_csv_checked(a.results / "claims.csv", require=["claim_id", "ci_low", "ci_high", "n"])
    out = {"claims": {}, "drawable": {}}
    for claim in (c for c in CLAIMS if c.claim_id.startswith("multihead_")):
        kind = claim.task_kinds[0].removeprefix("multihead_")
        df = read_csv_checked(folder / f"summary_{kind}.csv", require=[claim.measure, "diverged"])
        values = df[claim.measure].where(~df.diverged.astype(bool), claim.diverged_value).to_numpy(dtype=float)
        rule = Rule(claim.direction, claim.threshold)
        iv = interval(values, claim.kind, rule)
        row = stored[stored.claim_id == claim.claim_id]
        if len(row) != 1 or abs(row.ci_low.iloc[0] - iv.low) > 1e-12 or abs(row.ci_high.iloc[0] - iv.high) > 1e-12:
            raise ValueError(f"{a.results / 'claims.csv'}: {claim.claim_id}'s interval is not the recomputed "
                             f"[{iv.low}, {iv.high}]")
        out["claims"][claim.claim_id] = {
            "measure": claim.measure, "rule": str(rule), "n": iv.n, "k": iv.k, "rate": iv.rate, "low": iv.low,
            "high": iv.high, "width": iv.high - iv.low, "verdict": verdict(iv, rule),
            "can_decide": can_decide(claim.kind, rule, iv.n),
            "both_ways_from": decides_from(claim.kind, rule, both=True),
            "projection": [projected(iv.rate, n, rule) for n in PROJECTED_N]}
        print(claim.claim_id, f"{iv.k}/{iv.n}", [round(p["width"], 3) for p in out["claims"][claim.claim_id]
                                                 ["projection"]], file=sys.stderr)
    for kind in COMBOS:
        out["drawable"][kind] = {}
        for n in sorted({m["n_combos"], *PROJECTED_N}):
            try:
                mh.draw_heads(table, kind, m["heads"], n, m["sampling_seed"])
                out["drawable"][kind][n] = True
            except AttnReproError as e:
                out["drawable"][kind][n] = str(e)
    labels = table.drop_duplicates("candidate").label
    pool, good = len(labels), int((labels == "good").sum())
    share = good / pool
    out["pool"] = {"ours": pool, "good": good, "bad": int((labels == "bad").sum()), "authors": AUTHORS_POOL,
                   "p_good_head_ours": p_good_head(pool, good, m["heads"]),
                   "p_good_head_authors_pool_same_share": {
                       g: p_good_head(AUTHORS_POOL, g, m["heads"])
                       for g in sorted({math.floor(share * AUTHORS_POOL), math.ceil(share * AUTHORS_POOL)})},
                   "p_good_head_independent": 1.0 - (1.0 - share) ** m["heads"]}
    return out


def keyword_family(a: argparse.Namespace, block: dict) -> dict:
    """Row 18: where the keyword runs' γ statistics were read as converged, and how they still moved."""
    folder = a.results / "analysis" / "snell2021" / "keyword"
    curves = read_parquet(folder / "curves.parquet")
    summary = read_csv_checked(folder / "summary.csv", require=["seed", "converged_step", "obs3_final"])
    paper = yaml.safe_load(a.paper_config.read_text())["snell2021"]["keyword"]["train"]
    window = inspect.signature(converged_step).parameters["window"].default
    rtol = inspect.signature(converged_step).parameters["rtol"].default
    spacing = int(paper["eval_every"])
    out = {"criterion": {"rtol": rtol, "window": window}, "train": block["keyword"]["train"],
           "paper": {"config": shown(a.paper_config), "steps": paper["steps"], "eval_every": spacing,
                     "latest_convergence": paper["steps"] - window * spacing, "steps_shown_still": window * spacing},
           "seeds": {}}
    for seed, c in curves.sort_values("step").groupby("seed"):
        stored = float(summary.set_index("seed").converged_step[seed])
        again = converged_step(c)
        if not (stored == again or (math.isnan(stored) and math.isnan(again))):
            raise ValueError(f"{folder / 'summary.csv'}: seed {seed}'s converged_step {stored} is not the "
                             f"recomputed {again}")
        steps, v = c.step.to_numpy(), c[GAMMAS].to_numpy()

        def moved(back: int) -> dict:
            i = int(np.flatnonzero(steps <= steps[-1] - back)[-1]) if back else len(steps) - 2
            return {"from": int(steps[i]), **{g: float(x) for g, x in
                                              zip(GAMMAS, (v[-1] - v[i]) / np.maximum(np.abs(v[i]), 1.0))}}
        out["seeds"][int(seed)] = {
            "converged_step": stored, "converged_step_at_paper_spacing": converged_step(c[c.step % spacing == 0]),
            "obs3_final": float(summary.set_index("seed").obs3_final[seed]), "last_step": int(steps[-1]),
            "final": {g: float(x) for g, x in zip(GAMMAS, v[-1])}, "move_last_evaluation": moved(0),
            # the paper config's window (3 evaluations 100 apart) spans the last 300 steps at the latest
            **{f"move_last_{back}": moved(back) for back in sorted({100, 200, window * spacing})}}
        print("keyword seed", seed, "converged", stored, "at paper spacing",
              out["seeds"][int(seed)]["converged_step_at_paper_spacing"], file=sys.stderr)
    return out


FAMILIES = {"table2": "snell_deviation_effects.json", "multihead": "snell_multihead_effects.json",
            "keyword": "snell_keyword_effects.json"}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", type=Path, default=ROOT / "results", help="a finished run's results folder")
    p.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml", help="the config that made it")
    p.add_argument("--family", choices=list(FAMILIES), default="table2")
    p.add_argument("--paper-config", type=Path, default=ROOT / "config" / "paper.yaml",
                   help="keyword: the schedule a paper-scale run would have")
    p.add_argument("--out", type=Path, help="default studies/snell2021/results/<the family's JSON>")
    a = p.parse_args()
    a.out = a.out or ROOT / "studies" / "snell2021" / "results" / FAMILIES[a.family]
    # the readers move a corrupt workflow output aside; point their results root away from --results so nothing
    # there is ever moved (a bad file stops the script with its name instead)
    os.environ[RESULTS_ROOT_ENV] = str(a.out.resolve().parent)
    block = yaml.safe_load(a.config.read_text())["snell2021"]
    if a.family == "table2":
        out = table2_family(a, block)
    else:
        out = {"benchmark": f"snell_deviation_effects --family {a.family}", "results": str(a.results),
               "config": shown(a.config)}
        if a.family == "multihead":
            out.update(labelling=labelling(a, block), sample_size=sample_size(a, block))
        else:
            out.update(keyword=keyword_family(a, block))
    a.out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(a.out)


if __name__ == "__main__":
    main()
