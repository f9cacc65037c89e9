"""Snell et al. 2021, deviations.md's Snell row 21: App. A.4's Table 7 ("the same results as Table 2, except that
the statistics is calculated over the training set") at the demo's scale — snell_best_checkpoint.py's ``--mode
train_split``.

The Table 2 row ``cls_<set>`` of ``--config``'s snell2021 block with ``table2.train_sample`` = ``--train-sample``
(:func:`with_train_sample`): its learned and uniform runs trained again through the project's CLI (``attnrepro
snell2021 train``; both record their probes on that many training pairs, ``train_probes.parquet``), the proxy, the
frozen-β run and the learned run's Δ read from the finished run ``--reuse`` (the runs are seeded: the retrained
weights and every held-out column must equal the finished run's, checked), and Table 2's row computed by
:func:`attnrepro.snell2021.agreement_table.table2_from_runs` with ``train_probes``. The verdicts are the claims
step's own (:func:`train_split_readings`: :func:`attnrepro.verdicts.claims.summarize` with the project's model checks):
Table 7's claim ``classification_train_split_alpha_agrees_with_beta_uf`` (A(α, β^uf) − Â on training pairs) and
the same column over its matched null, beside the held-out claim and its − Â. Writes
``snell_train_split_effect.json``.

    nice -n 10 python studies/snell2021/snell_best_checkpoint.py --mode train_split --reuse /tmp/run_default2/results
        --work /tmp/snell_row21/n200 [--set rotten_tomatoes] [--train-sample 200] [--label demo]
"""

from __future__ import annotations

import argparse
import copy
import time
from dataclasses import replace

import numpy as np
import pandas as pd
import yaml
from snell_rerun import train_runs

from attnrepro.verdicts.claims import summarize
from attnrepro.errors import AttnReproError
from attnrepro.io import read_csv_checked, read_parquet
from attnrepro.verdicts.papers import CLAIMS, model_check, tested_on
from attnrepro.snell2021 import config as snellcfg
from attnrepro.snell2021.validation import check as snell_check
from attnrepro.snell2021.agreement_table import table2_from_runs
from attnrepro.snell2021.runs import read_metrics

TRAIN_CLAIM = "classification_train_split_alpha_agrees_with_beta_uf"
HELD_OUT_CLAIM = "classification_alpha_agrees_with_beta_uf"
# Table 7 prints A(α, β^uf) and Â on SST's training pairs: 0.2182 and 0.0848 (the claim's reference, their difference)
PAPER_TABLE7_SST = {"A_alpha_beta_uf_train": 0.2182, "A_hat_train": 0.0848}
STATS = ["A_alpha_beta_uf", "A_hat", "A_alpha_beta_uf_null", "A_alpha_beta_uf_excess", "A_alpha_beta_uf_excess_null",
         "A_alpha_beta", "A_alpha_beta_excess_null"]
TRAIN_STATS = ["A_alpha_beta_uf_train", "A_hat_train", "A_alpha_beta_uf_train_null", "A_alpha_beta_uf_train_excess",
               "A_alpha_beta_uf_train_excess_null", "A_alpha_beta_train", "A_alpha_beta_train_excess_null"]


def with_train_sample(block: dict, n: int, row: str) -> tuple[dict, dict]:
    """(the specs, the roles) of Table 2's row ``row`` with ``table2.train_sample: n`` over ``block`` (not changed).
    The learned and uniform runs evaluate their n training pairs as one batch, so n is bounded by their ``n_eval``,
    the config check's bound for them; the config check itself bounds n by every row's runs (the demo's copy runs
    hold out 100), and only this row's runs are trained here."""
    b = copy.deepcopy(block)
    b["table2"]["train_sample"] = n
    snell_check({**b, "table2": {k: v for k, v in b["table2"].items() if k != "train_sample"}})
    specs, roles = snellcfg.runs(b), snellcfg.analyses(b)[row]["runs"]
    for role in ("learned", "uniform"):
        spec = specs[roles[role]]
        if not 0 < n <= spec["train"]["n_eval"] or spec.get("train_sample") != n:
            raise AttnReproError(f"--train-sample {n}: run {roles[role]} evaluates at most n_eval "
                                 f"({spec['train']['n_eval']}) pairs at once; choose 1 … that")
    return specs, roles


def train_split_readings(rows: pd.DataFrame, experiment: str) -> list[dict]:
    """The claims step's rows (:func:`attnrepro.verdicts.claims.summarize`, the project's model checks) for Table 2's row
    ``rows`` of the classification experiment ``experiment``: Table 7's claim, A(α, β^uf) − Â on training pairs,
    and the same column over its matched null (``|excess_null``), beside Table 2's held-out claim (over the
    matched null) and its − Â (``|excess``)."""
    by_id = {c.claim_id: c for c in CLAIMS}
    t, h = by_id[TRAIN_CLAIM], by_id[HELD_OUT_CLAIM]
    claims = (t, replace(t, claim_id=f"{TRAIN_CLAIM}|excess_null", measure="A_alpha_beta_uf_train_excess_null"),
              h, replace(h, claim_id=f"{HELD_OUT_CLAIM}|excess", measure="A_alpha_beta_uf_excess"))
    table = summarize({experiment: rows}, {experiment: ("classification", "bilstm_attention")}, claims,
                      checks=model_check, tested_on=tested_on)
    keep = ["claim_id", "measure", "measured_mean", "ci_low", "ci_high", "n", "model_check", "verdict",
            "reference_value", "tested_on"]
    return [{k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}
            for r in table[keep].to_dict("records")]


def _max_abs(ours: pd.DataFrame, stored: pd.DataFrame) -> dict[str, float]:
    """Largest |difference| per numeric column the two tables share, seed by seed (NaN in both: equal)."""
    a, b = ours.set_index("seed").sort_index(), stored.set_index("seed").sort_index()
    out = {}
    for c in b.columns.intersection(a.columns):
        if pd.api.types.is_numeric_dtype(b[c]):
            x, y = a[c].to_numpy(dtype=float), b[c].to_numpy(dtype=float)
            out[c] = float(np.nanmax(np.abs(np.where(np.isnan(x) & np.isnan(y), 0.0, x - y))))
    return out


def _weights_max_abs(ours, stored) -> float:
    import torch

    a, b = (torch.load(p, map_location="cpu", weights_only=False)["state_dict"] for p in (ours, stored))
    return max(float((a[k].double() - b[k].double()).abs().max()) for k in a)


def train_split(a: argparse.Namespace) -> dict:
    """Row 21's Table 7 (see the module docstring)."""
    row = f"cls_{a.set}"
    specs, roles = with_train_sample(yaml.safe_load(a.config.read_text())["snell2021"], a.train_sample, row)
    reused = a.reuse / "models" / "snell2021"
    t0 = time.perf_counter()
    train_runs(specs, [roles["learned"], roles["uniform"]], a.work, a.threads)
    seconds = time.perf_counter() - t0
    out = {r: a.work / roles[r] / "out" for r in ("learned", "uniform")}
    probes = {r: read_parquet(out[r] / "probes.parquet") for r in out}
    probes |= {r: read_parquet(reused / roles[r] / "probes.parquet") for r in ("proxy", "frozen_beta") if r in roles}
    train_probes = {r: read_parquet(out[r] / "train_probes.parquet") for r in out}
    saliency = read_parquet(a.reuse / "activations" / "snell2021" / roles["learned"] / "saliency.parquet")
    rows = table2_from_runs(probes, read_metrics(out["learned"] / "metrics.csv"), saliency,
                            proxy_metrics=read_csv_checked(reused / roles["proxy"] / "metrics.csv"),
                            train_probes=train_probes)[0]
    stored = read_csv_checked(a.reuse / "analysis" / "snell2021" / row / "summary.csv", require=["seed", *STATS])
    held_out = _max_abs(rows, stored)
    per_seed = rows[["seed", "token_acc", *STATS, *TRAIN_STATS]].sort_values("seed")
    return {"benchmark": "snell_train_split_effect", "label": a.label, "row": row, "config": str(a.config),
            "train_sample": a.train_sample, "reuse": str(a.reuse), "work": str(a.work),
            "seconds_train": round(seconds, 1), "train": specs[roles["learned"]]["train"],
            "check_weights_max_abs_diff": {r: _weights_max_abs(out[r] / "model.pt", reused / roles[r] / "model.pt")
                                           for r in out},
            "check_held_out_vs_summary_max_abs_diff": max(held_out.values()),
            "check_held_out_columns": len(held_out),
            "per_seed": per_seed.to_dict("list"), "median": per_seed.median().drop("seed").to_dict(),
            "readings": train_split_readings(rows, f"snell2021_{row}"),
            "paper_table7_sst": {**PAPER_TABLE7_SST, "excess": PAPER_TABLE7_SST["A_alpha_beta_uf_train"]
                                 - PAPER_TABLE7_SST["A_hat_train"]}}
