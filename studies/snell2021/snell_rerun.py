"""Shared helpers of snell_best_checkpoint.py's modes (deviations.md, Snell rows 11, 13, 20, 21): a Snell et
al. 2021 run retrained through the project's CLI (``attnrepro snell2021 train | export``) and Table 2's row read as
the claims read it (:func:`claim_readings`: the median over seeds above 0 by a rank interval)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from attnrepro.verdicts.intervals import Rule, interval, verdict  # noqa: E402

# Table 2's claims (attnrepro.snell2021.claims): each reads the median over seeds of one column, above 0 by a rank
# interval; the first three are A(α, β^uf), A(β^uf, β^px) and A(Δ, β^uf) against their nulls
CLAIM_COLUMNS = ["A_alpha_beta_uf_excess_null", "A_beta_uf_beta_px_excess", "A_delta_beta_uf_excess",
                 "A_alpha_beta_excess_null", "tau_alpha_beta_uf_excess", "tau_beta_uf_beta_px_excess",
                 "tau_delta_beta_uf_excess"]
REPORTED = ["A_alpha_beta_uf", "A_beta_uf_beta_px", "A_delta_beta_uf", "A_alpha_beta", "A_hat", "tau_beta_uf_beta_px",
            "tau_delta_beta_uf", "token_acc"]


def cli(*args: str) -> None:
    subprocess.run([str(Path(sys.executable).with_name("attnrepro")), "snell2021", *args], check=True, cwd=ROOT)


def train_runs(specs: dict, names: list[str], work: Path, threads: int) -> None:
    """Each run of ``names`` trained by ``attnrepro snell2021 train`` under ``work/<run>``, unless it finished."""
    for run in names:
        if not (work / run / "out" / "model.pt").exists():
            cli("train", run, "--spec-json", json.dumps(specs[run]), "--ckpt-dir", str(work / run / "ckpt"),
                "--out-dir", str(work / run / "out"), "--threads", str(threads))


def member_rows(frame: pd.DataFrame, n: int) -> pd.DataFrame:
    return frame[frame.member < n].reset_index(drop=True)


def claim_readings(rows: pd.DataFrame, columns: list[str]) -> dict:
    """Per column the claims' reading of Table 2's seeds: mean, median, the 95% rank interval of the median and the
    verdict of "median > 0" (:func:`attnrepro.verdicts.intervals.verdict`)."""
    rule, out = Rule(">", 0.0), {}
    for c in columns:
        v = rows[c].to_numpy(dtype=float)
        iv = interval(v, "continuous", rule)
        out[c] = {"mean": float(v.mean()), "median": float(np.median(v)), "low": float(iv.low),
                  "high": float(iv.high), "verdict": verdict(iv, rule)}
    return out


def row_table(rows: pd.DataFrame) -> dict:
    """Table 2's reported columns per seed and their means, and the claims' readings."""
    return {"per_seed": {c: [float(x) for x in rows[c]] for c in REPORTED},
            "mean": {c: float(rows[c].mean()) for c in REPORTED}, "claims": claim_readings(rows, CLAIM_COLUMNS)}
