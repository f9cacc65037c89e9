"""Measured effects of two Snell et al. 2021 deviations on a finished run's Table 2 (docs/deviations.md, Snell
"Remaining differences", rows 12 and 14).

Reads, under ``--results`` (read only: a bad file is named, never moved aside), for every Table 2 row of
``--config``'s snell2021 block (the copy row, the classification sets, the translation sets) the runs that
:func:`attnrepro.snell2021.config.analyses` names for it: ``models/snell2021/<run>/probes.parquet`` of the learned,
uniform, proxy (and frozen-β) runs, the learned run's and the proxy's ``metrics.csv``, the exported
``activations/snell2021/<learned>/saliency.parquet``, and the run's own ``analysis/snell2021/<row>/summary.csv``.
Writes ``--out`` (default ``bench/results/snell_deviation_effects.json``):

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

    python bench/snell_deviation_effects.py --results /tmp/run_default/results [--config config/config.yaml]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from attnrepro.io import RESULTS_ROOT_ENV, read_csv_checked, read_parquet  # noqa: E402
from attnrepro.snell2021 import config as snellcfg  # noqa: E402
from attnrepro.snell2021.agreement_table import best_proxy_step, table2_from_runs  # noqa: E402
from attnrepro.snell2021.runs import read_metrics  # noqa: E402

# Table 2's columns that read β^px (row 12) and Δ (row 14); the rest of a row does not depend on either choice
PROXY_COLUMNS = ["A_beta_uf_beta_px", "A_beta_uf_beta_px_excess", "tau_beta_uf_beta_px", "tau_beta_uf_beta_px_excess"]
DELTA_COLUMNS = ["A_delta_beta_uf", "A_delta_beta_uf_excess", "tau_delta_beta_uf", "tau_delta_beta_uf_excess"]
CHECK_COLUMNS = ["A_alpha_beta_uf", "A_hat"] + PROXY_COLUMNS + DELTA_COLUMNS


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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", type=Path, default=ROOT / "results", help="a finished run's results folder")
    p.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml", help="the config that made it")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "snell_deviation_effects.json")
    a = p.parse_args()
    # the readers move a corrupt workflow output aside; point their results root away from --results so nothing
    # there is ever moved (a bad file stops the script with its name instead)
    os.environ[RESULTS_ROOT_ENV] = str(a.out.resolve().parent)
    block = yaml.safe_load(a.config.read_text())["snell2021"]
    specs = snellcfg.analyses(block)
    models, activations = a.results / "models" / "snell2021", a.results / "activations" / "snell2021"
    config = a.config.resolve()
    out = {"benchmark": "snell_deviation_effects", "results": str(a.results),
           "config": str(config.relative_to(ROOT) if config.is_relative_to(ROOT) else config),
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
    a.out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(a.out)


if __name__ == "__main__":
    main()
