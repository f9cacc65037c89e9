"""One axis of docs/deviations.md M11: the slice's distinct-letter sorts trained on one CPU without and with the
authors' model options, as per-seed ``summary.csv`` columns and their medians.

    python studies/aitken2021/slice_options_sort_axis.py --without DIR_A --with DIR_B \
        [--out studies/aitken2021/results/slice_options_sort_axis.json]

Each DIR is a Snakemake working directory holding ``results_paper_slice/analysis/<experiment>/summary.csv``: DIR_A a
run of config/paper_slice.yaml as of 2adb9bc (no options) for the two sorts' summaries, DIR_B the committed slice run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
from attnrepro.io import write_json  # noqa: E402
from slice_options_arms import per_seed  # noqa: E402  (this folder's options study)

EXPERIMENTS = ("aed_gru_sort", "aed_gru_sort_short")
COLUMNS = ("share_mu_mu", "share_top1_mu_mu", "attention_target_share", "share_delta_chi_margin",
           "readout_state_ratio", "token_acc")


def arm(summary: pd.DataFrame) -> dict:
    """Per-seed values (seed order) of COLUMNS, and their medians."""
    return per_seed(summary, COLUMNS)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--without", type=Path, required=True)
    p.add_argument("--with", dest="with_", type=Path, required=True)
    p.add_argument("--out", type=Path,
                   default=ROOT / "studies" / "aitken2021" / "results" / "slice_options_sort_axis.json")
    args = p.parse_args()
    out = {"benchmark": "slice_options_sort_axis",
           "what": "docs/deviations.md M11: the paper slice's two distinct-letter sorts retrained on one CPU (Intel "
                   "Xeon, 2 cores, 2026-11-28) without and with the authors' five model options, every other setting "
                   "config/paper_slice.yaml's; per-seed (0-5) summary.csv columns of `attnrepro aitken2021 analyze`",
           "commands": {"without": "snakemake results_paper_slice/analysis/aed_gru_sort/summary.csv "
                                   "results_paper_slice/analysis/aed_gru_sort_short/summary.csv --directory DIR "
                                   "--cores 2 --configfile <config/paper_slice.yaml of 2adb9bc>",
                        "with": "python bench/workflow.py --config config/paper_slice.yaml --cores 2 --keep DIR "
                                "(the committed slice run)"},
           "experiments": {e: {tag: arm(pd.read_csv(d / "results_paper_slice" / "analysis" / e / "summary.csv"))
                               for tag, d in (("without", args.without), ("with", args.with_))}
                           for e in EXPERIMENTS}}
    write_json(out, args.out)


if __name__ == "__main__":
    main()
