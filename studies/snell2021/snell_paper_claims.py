"""The Snell copy block at the paper's scale as committed tables, from a run of config/paper.yaml.

Reads the working directory of a Snakemake run of the paper config's copy targets, e.g.

    snakemake --configfile config/paper.yaml --directory /tmp/run_paper --cores 2 \\
        results_paper/analysis/snell2021/copy_same/summary.csv

and writes, from whichever copy runs that directory holds:

- ``workflow/reference/claims_snell_paper.{csv,md}``: ``attnrepro claims`` (the workflow's claims step) over the
  config's ``snell2021_copy*`` claim sources that exist there;
- ``studies/snell2021/results/snell_copy_failures.csv``: each run's failure-rate curve (its ``failures.csv``: run, step,
  n_seeds, n_below) stacked.

    python studies/snell2021/snell_paper_claims.py --workdir /tmp/run_paper [--config config/paper.yaml] [--out-dir DIR]

``--merge``: the directory holds only some of the block's runs, none of which any claim reads (the frozen-uniform
runs: every copy claim is of the learned model). Their failure curves replace those runs' rows of the committed
curves and the claims table stays as it is; a run some claim reads stops it (the claims need the whole block in one
directory).

``--table2``: instead, Table 2's copy row (``snell2021_table2``: the 40-of-60 control learned, frozen-uniform and its
bag-of-words proxy; target ``results_paper/analysis/snell2021/table2/summary.csv``) as
``workflow/reference/claims_snell_paper_table2.{csv,md}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from attnrepro import cli
from attnrepro.run import layout  # noqa: E402
from attnrepro.io import use_results_root, write_csv  # noqa: E402

PREFIX = "snell2021_copy"
TABLE2 = "snell2021_table2"


def copy_sources(config: dict, workdir: Path, prefix: str = PREFIX) -> list[dict]:
    """The config's claim sources named ``prefix``… whose table exists under ``workdir``, with absolute paths."""
    use_results_root(config)
    return [{**vars(s), "path": str(workdir / s.path)} for s in layout.claim_sources(config)
            if s.experiment.startswith(prefix) and (workdir / s.path).is_file()]


def merged(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """Failure curves: ``old``'s rows of the runs ``new`` does not hold, then ``new``'s (a rerun replaces a run)."""
    return pd.concat([old[~old.run.isin(new.run)], new], ignore_index=True)


def claims_table(sources: list[dict], config: dict, path: Path) -> pd.DataFrame:
    """``attnrepro claims`` (the workflow's claims step) over ``sources`` into ``path`` and its .md; its rows."""
    status = cli.main(["claims", "--sources-json", json.dumps(sources), "--confidence",
                       str(config["claims"]["confidence"]), "--out", str(path),
                       "--markdown", str(path.with_suffix(".md"))])
    if status:
        sys.exit(status)
    return pd.read_csv(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", type=Path, required=True, help="the run's snakemake --directory")
    ap.add_argument("--config", type=Path, default=ROOT / "config" / "paper.yaml")
    ap.add_argument("--out-dir", type=Path, help="one folder for all its tables (default: the claims tables in "
                    "workflow/reference/, the failure curves in studies/snell2021/results/)")
    ap.add_argument("--merge", action="store_true", help="add runs no claim reads to the committed tables")
    ap.add_argument("--table2", action="store_true", help="Table 2's copy row instead of the copy block")
    args = ap.parse_args()
    config = yaml.safe_load(args.config.read_text())
    prefix = TABLE2 if args.table2 else PREFIX
    sources = copy_sources(config, args.workdir.resolve(), prefix)
    if not sources:
        sys.exit(f"{args.workdir}: no {prefix}* table of {args.config.name} there; run its targets first")
    tables = args.out_dir or ROOT / "workflow" / "reference"
    out = args.out_dir or ROOT / "studies" / "snell2021" / "results"
    if args.merge:  # the claims step only to check that no claim reads these runs; its table is not kept
        with tempfile.TemporaryDirectory() as tmp:
            read = claims_table(sources, config, Path(tmp) / "claims.csv")
        if len(read):
            sys.exit(f"--merge: claims read {sorted(set(read.experiment))}; run the whole copy block in one "
                     "directory instead")
    else:
        claims_table(sources, config, tables / ("claims_snell_paper_table2.csv" if args.table2 else
                                             "claims_snell_paper.csv"))
    if args.table2:
        print(f"Table 2's copy row: {tables / 'claims_snell_paper_table2.csv'}")
        return
    curves = pd.concat([pd.read_csv(Path(s["path"]).with_name("failures.csv")) for s in sources
                        if Path(s["path"]).with_name("failures.csv").is_file()], ignore_index=True)
    if args.merge:
        curves = merged(pd.read_csv(out / "snell_copy_failures.csv"), curves)
    write_csv(curves, out / "snell_copy_failures.csv")
    print(f"{len(sources)} copy runs: {', '.join(s['experiment'] for s in sources)}"
          + (" (no claim reads them: failure curves merged, claims table unchanged)" if args.merge else ""))


if __name__ == "__main__":
    main()
