"""Are the committed claims tables the verdicts this code gives? Compares a fresh ``claims.csv`` of a config (a run
on another machine, or of today's commit) with the committed one: every (claim, experiment) must have
the same verdict, or be *marginal* in either table — its ``swing`` is 1: one replicate falling the other way moves
it, so a seed or a CPU's kernels may too.

    python tools/claims_stable.py workflow/reference/claims_config.csv results/claims.csv \
        --json tools/results/claims_stable_config.json

Exit status 1, with one line per row that moved without being marginal, when they disagree; ``--json`` writes the
comparison (rows, equal verdicts, rows that moved and whether they were marginal, equal numbers) beside the
committed tables. A table without a ``swing`` column (the earlier format) is refused with the file's name.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

import pandas as pd

KEY = ["paper", "claim_id", "experiment"]


def marginal(table: pd.DataFrame) -> pd.Series:
    """Rows one replicate can move (``swing`` 1)."""
    return table.swing.astype(float).le(1)


def unstable(committed: pd.DataFrame, fresh: pd.DataFrame) -> pd.DataFrame:
    """Rows whose verdict differs between the tables (or that only one has) and that neither marks marginal."""
    both = committed.assign(marginal=marginal(committed))[KEY + ["verdict", "marginal"]].merge(
        fresh.assign(marginal=marginal(fresh))[KEY + ["verdict", "marginal"]], on=KEY, how="outer",
        suffixes=("_committed", "_fresh"))
    either = both.marginal_committed.fillna(False).astype(bool) | both.marginal_fresh.fillna(False).astype(bool)
    moved = both.verdict_committed.fillna("–") != both.verdict_fresh.fillna("–")
    return both[moved & ~either].reset_index(drop=True)


def comparison(committed: pd.DataFrame, fresh: pd.DataFrame) -> dict:
    """What a reader needs to trust the committed table: how many rows both have, how many verdicts and means are
    equal, and every row whose verdict moved (marginal or not)."""
    both = committed.assign(marginal=marginal(committed)).merge(fresh.assign(marginal=marginal(fresh)), on=KEY,
                                                                how="outer", suffixes=("_committed", "_fresh"),
                                                                indicator=True)
    shared = both[both._merge == "both"]
    moved = shared[shared.verdict_committed != shared.verdict_fresh]
    same_mean = np.isclose(shared.measured_mean_committed, shared.measured_mean_fresh, rtol=0, atol=1e-12,
                           equal_nan=True)
    return {"rows_committed": len(committed), "rows_fresh": len(fresh), "rows_in_both": len(shared),
            "in_one_table_only": [f"{r.claim_id} @ {r.experiment} ({r._merge})"
                                  for r in both[both._merge != "both"].itertuples()],
            "equal_verdicts": int(len(shared) - len(moved)), "equal_means": int(same_mean.sum()),
            "moved": [{"claim_id": r.claim_id, "experiment": r.experiment, "committed": r.verdict_committed,
                       "fresh": r.verdict_fresh,
                       "marginal": bool(r.marginal_committed) or bool(r.marginal_fresh)} for r in moved.itertuples()],
            "moved_not_marginal": int(len(unstable(committed, fresh)))}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("committed")
    p.add_argument("fresh")
    p.add_argument("--json", type=Path, help="write the comparison here")
    args = p.parse_args(argv)
    committed, fresh = pd.read_csv(args.committed), pd.read_csv(args.fresh)
    for path, table in ((args.committed, committed), (args.fresh, fresh)):
        if "swing" not in table.columns:
            print(f"{path}: no swing column (a claims table of the earlier format); regenerate it", file=sys.stderr)
            return 2
    bad = unstable(committed, fresh)
    if args.json:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        out = {"benchmark": "claims_stable", "committed": args.committed, "fresh": args.fresh, "commit": commit,
               **comparison(committed, fresh)}
        tmp = args.json.with_suffix(".tmp")
        tmp.write_text(json.dumps(out, indent=2) + "\n")
        tmp.replace(args.json)
    for r in bad.itertuples():
        print(f"{r.claim_id} @ {r.experiment}: {r.verdict_committed} → {r.verdict_fresh} (not marginal)")
    print(f"{len(bad)} rows moved without being marginal", file=sys.stderr)
    return 1 if len(bad) else 0


if __name__ == "__main__":
    sys.exit(main())
