"""The verdict of each claim per recurrent cell and over the cells together, from the committed claims tables of
configs that train the same experiments on different cells: config/paper_slice.yaml (GRU),
config/paper_slice_lstm.yaml and config/paper_slice_ugrnn.yaml. Aitken et al. train "each one of three modern RNN
cells" (§2) and do not say which one a figure shows, so a claim they make of the networks holds when it holds on
every cell:
the verdict over the cells is the claims step's own per-claim rule (:func:`attnrepro.verdicts.claims.by_claim`,
"all": not reproduced if any cell's row is) on every cell's rows together; beside it each cell's verdict and the
cells on which the claim is reproduced.

    python tools/claims_by_cell.py [--table CONFIG=CLAIMS_CSV ...] [--out workflow/reference/claims_paper_slice_by_cell.csv]

Rows of experiments without a cell (Kobayashi et al.'s pretrained encoder) are left out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from attnrepro.errors import AttnReproError  # noqa: E402
from attnrepro.io import write_csv  # noqa: E402
from attnrepro.verdicts.combine import by_claim  # noqa: E402
from attnrepro.verdicts.intervals import REPRODUCED  # noqa: E402

TABLES = tuple((f"config/paper_slice{c}.yaml", f"workflow/reference/claims_paper_slice{c}.csv")
               for c in ("", "_lstm", "_ugrnn"))  # GRU (the slice itself), LSTM, UGRNN
OUT = "workflow/reference/claims_paper_slice_by_cell.csv"
RECURRENT = ("lstm", "gru", "ugrnn")
NEEDED = ["paper", "claim_id", "group", "combine", "origin", "section", "quote", "experiment", "verdict", "claimed_side",
          "tested_on"]  # what by_claim reads


def experiment_cells(config: dict) -> dict[str, str]:
    """Experiment -> its model's cell, for the recurrent cells."""
    return {name: e["model"]["cell"] for name, e in config["experiments"].items()
            if e["model"]["cell"] in RECURRENT}


def with_cells(tables: list[tuple[dict[str, str], pd.DataFrame]]) -> pd.DataFrame:
    """Every row of the tables whose experiment has a cell, with column ``cell``; an experiment in two tables is an
    error (two runs of one model would be counted twice)."""
    frames, seen = [], {}
    for cells, table in tables:
        rows = table[table.experiment.isin(cells)].assign(cell=lambda t: t.experiment.map(cells))
        twice = sorted(set(rows.experiment) & set(seen))
        if twice:
            raise AttnReproError(f"experiments {twice} are in two claims tables; each model counts once")
        seen.update(dict.fromkeys(rows.experiment))
        frames.append(rows)
    return pd.concat(frames, ignore_index=True)


def by_cell(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per claim (paper, group): its verdict over every cell's rows (by_claim), each cell's verdict
    (``verdict_<cell>``, "–" where the cell has no row) and the cells on which it is reproduced."""
    cells = [c for c in RECURRENT if c in set(rows.cell)]
    out = by_claim(rows)[["paper", "group", "origin", "section", "quote", "combine", "verdict", "claimed_side"]]
    for cell in cells:
        part = by_claim(rows[rows.cell == cell])[["paper", "group", "verdict"]]
        out = out.merge(part.rename(columns={"verdict": f"verdict_{cell}"}), on=["paper", "group"], how="left")
    out = out.fillna({f"verdict_{c}": "–" for c in cells})
    out["reproduced_on"] = [", ".join(c for c in cells if r[f"verdict_{c}"] == REPRODUCED) or "none"
                            for r in out.to_dict("records")]
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--table", action="append", metavar="CONFIG=CLAIMS_CSV",
                   help="a config and its committed claims table (default: the slice's and its cells')")
    p.add_argument("--out", default=OUT)
    args = p.parse_args()
    pairs = [item.partition("=")[::2] for item in args.table] if args.table else TABLES
    tables = []
    for config, csv in pairs:
        if not config or not csv:
            raise SystemExit("--table: expected CONFIG=CLAIMS_CSV")
        try:
            cells, table = experiment_cells(yaml.safe_load((ROOT / config).read_text())), pd.read_csv(ROOT / csv)
        except (OSError, yaml.YAMLError, pd.errors.ParserError, KeyError, TypeError) as err:
            raise SystemExit(f"{config} / {csv}: {err}") from None
        if missing := [c for c in NEEDED if c not in table.columns]:
            raise SystemExit(f"{csv}: not a claims table (no column {', '.join(missing)})")
        tables.append((cells, table))
    try:
        write_csv(by_cell(with_cells(tables)), ROOT / args.out)
    except AttnReproError as err:
        raise SystemExit(str(err)) from None
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
