"""The authors' five model options one at a time on the paper slice's AED eSCAN (docs/deviations.md M12): per arm of
config/paper_slice_options.yaml, per-seed ``summary.csv`` columns, their medians, and how many seeds leave the
temporal diagonal (``temporal_argmax_rho`` below the 0.8 of ``escan_aed_temporal_diagonal``).

    python studies/aitken2021/slice_options_arms.py --run DIR [--out studies/aitken2021/results/slice_options_arms.json]

DIR is a Snakemake working directory of that config (``snakemake --directory DIR --configfile
config/paper_slice_options.yaml``): every arm whose ``analysis/<arm>/summary.csv`` exists is read, with the CPU
and date it was read on; arms already in ``--out`` and not in DIR are kept (each arm is one training of its own,
so arms from runs on the same CPU model compare), and an arm in neither is listed under ``missing``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

import pandas as pd
import yaml
from scipy import stats

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))
from attnrepro.io import write_json  # noqa: E402
from attnrepro.verdicts.intervals import clopper_pearson  # noqa: E402
from profiling import cpu_model  # noqa: E402  (bench/profiling.py)

CONFIG = ROOT / "config" / "paper_slice_options.yaml"
COLUMNS = ("temporal_argmax_rho", "temporal_diagonal_share", "offset_error", "share_mu_mu", "share_top1_mu_mu",
           "share_three", "variance_drop", "readout_match", "word_acc", "token_acc")
DIAGONAL_RHO = 0.8  # escan_aed_temporal_diagonal's threshold ('approximately diagonal')
ALL_ON = "aed_gru_escan"  # the slice's own spec, every option on: the arm each one-option arm is compared with


def per_seed(summary: pd.DataFrame, columns: tuple[str, ...]) -> dict:
    """Per-seed values (seed order) of ``columns`` of an analysis ``summary.csv``, and their medians."""
    missing = [c for c in columns if c not in summary.columns]
    if missing:
        raise ValueError(f"summary.csv has no column {', '.join(missing)}")
    s = summary.sort_values("seed")
    out = {c: [round(float(v), 4) for v in s[c]] for c in columns}
    out["median"] = {c: round(float(s[c].median()), 4) for c in columns}
    return out


def arm(summary: pd.DataFrame) -> dict:
    """per_seed of COLUMNS with the seeds, the seeds whose temporal argmax leaves the diagonal (ρ < DIAGONAL_RHO),
    and that share of seeds with its Clopper-Pearson 95% interval."""
    s = summary.sort_values("seed")
    out = {"seeds": [int(v) for v in s["seed"]], **per_seed(s, COLUMNS)}
    out["off_diagonal_seeds"] = [int(v) for v in s.loc[s["temporal_argmax_rho"] < DIAGONAL_RHO, "seed"]]
    k, n = len(out["off_diagonal_seeds"]), len(s)
    out["off_diagonal_share"] = [round(k / n, 4), *(round(b, 4) for b in clopper_pearson(k, n))]
    return out


def against_all_on(found: dict) -> dict:
    """Per arm, Fisher's exact two-sided p that its off-diagonal seeds are as frequent as the all-on arm's (seeds are
    the replicates: each arm's six trainings against the all-on arm's six)."""
    if ALL_ON not in found:
        return {}
    on = found[ALL_ON]
    k_on, n_on = len(on["off_diagonal_seeds"]), len(on["seeds"])
    out = {}
    for name, a in found.items():
        if name != ALL_ON:
            k, n = len(a["off_diagonal_seeds"]), len(a["seeds"])
            out[name] = round(float(stats.fisher_exact([[k, n - k], [k_on, n_on - k_on]]).pvalue), 4)
    return out


def arms(run: Path, config: Path = CONFIG) -> tuple[dict, list[str]]:
    """Every arm of ``config`` with an analysis in ``run``: {arm: arm(...)}, and the arms without one."""
    cfg = yaml.safe_load(config.read_text())
    root = run / cfg["results"] / "analysis"
    found, missing = {}, []
    for name in cfg["experiments"]:
        path = root / name / "summary.csv"
        if path.exists():
            found[name] = arm(pd.read_csv(path))
        else:
            missing.append(name)
    return found, missing


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--run", type=Path, required=True)
    p.add_argument("--out", type=Path, default=ROOT / "studies" / "aitken2021" / "results" / "slice_options_arms.json")
    args = p.parse_args()
    found, _ = arms(args.run)
    if not found:
        sys.exit(f"{args.run}: no arm of {CONFIG.relative_to(ROOT)} has an analysis/<arm>/summary.csv")
    stamp = {"cpu": cpu_model(), "date": datetime.date.today().isoformat()}
    kept = json.loads(args.out.read_text())["arms"] if args.out.exists() else {}
    every = {**kept, **{name: {**a, **stamp} for name, a in found.items()}}
    names = list(yaml.safe_load(CONFIG.read_text())["experiments"])
    write_json({"benchmark": "slice_options_arms",
                "what": "docs/deviations.md M12: the paper slice's AED eSCAN (6 seeds, 10,000 steps) with each of the "
                        "authors' five model options switched back alone (config/paper_slice_options.yaml), per-seed "
                        "summary.csv columns of `attnrepro aitken2021 analyze`",
                "command": "snakemake results_paper_slice_options/analysis/<arm>/summary.csv --directory DIR --cores 2 "
                           "--configfile config/paper_slice_options.yaml",
                "diagonal_rho": DIAGONAL_RHO, "arms": {n: every[n] for n in names if n in every},
                "fisher_p_against_all_on": against_all_on(every),
                "missing": [n for n in names if n not in every]}, args.out)


if __name__ == "__main__":
    main()
