"""Are the committed claims tables the verdicts this code gives? Compares a fresh ``claims.csv`` of a config (a run
on another machine, or of today's commit) with the committed one (issue 34): every (claim, experiment) must have
the same verdict, or be marked fragile in either table (leaving out one replicate moves it, so a seed or a CPU's
kernels may too).

    python bench/claims_stable.py bench/results/claims_config.csv results/claims.csv

Exit status 1, with one line per row that moved without being fragile, when they disagree.
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

KEY = ["paper", "claim_id", "experiment"]


def unstable(committed: pd.DataFrame, fresh: pd.DataFrame) -> pd.DataFrame:
    """Rows whose verdict differs between the tables (or that only one has) and that neither marks fragile."""
    both = committed[KEY + ["verdict", "fragile"]].merge(fresh[KEY + ["verdict", "fragile"]], on=KEY, how="outer",
                                                         suffixes=("_committed", "_fresh"))
    fragile = both.fragile_committed.fillna(False).astype(bool) | both.fragile_fresh.fillna(False).astype(bool)
    moved = both.verdict_committed.fillna("–") != both.verdict_fresh.fillna("–")
    return both[moved & ~fragile].reset_index(drop=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("committed")
    p.add_argument("fresh")
    args = p.parse_args(argv)
    bad = unstable(pd.read_csv(args.committed), pd.read_csv(args.fresh))
    for r in bad.itertuples():
        print(f"{r.claim_id} @ {r.experiment}: {r.verdict_committed} → {r.verdict_fresh} (not fragile)")
    print(f"{len(bad)} rows moved without being fragile", file=sys.stderr)
    return 1 if len(bad) else 0


if __name__ == "__main__":
    sys.exit(main())
