"""``attnrepro aitken2021 analyze``: read the exports, call this wing's pure functions, write the analysis tables.
Its figures are drawn by ``attnrepro figure aitken2021`` (:data:`.panels.FIGURES`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..cli.common import SPEC_HELP, json_option, sub


def cmd_analyze(args) -> None:
    import pandas as pd
    import pyarrow as pa

    from ..data import tasks
    from ..io import read_csv_checked, read_json, read_parquet_table, write_csv, write_parquet
    from .analysis import analyze_exports
    from .claims import TRANSLATION

    def group(d: Path):
        return (read_parquet_table(d / "encoder.parquet", require=["seed", "example", "t", "h"], nonempty=True),
                read_parquet_table(d / "decoder.parquet", require=["seed", "example", "s", "hypothesis", "h"],
                                   nonempty=True),
                read_parquet_table(d / "readout.parquet", require=["seed", "token", "weight", "bias"], nonempty=True))

    vocab = read_json(Path(args.data_dir) / "vocab.json")
    metrics = (pd.concat([read_csv_checked(m, ["step", "seed", "token_acc"]) for m in args.metrics])
               if args.metrics else None)
    task = json.loads(args.task_json)
    tables = analyze_exports([group(Path(d)) for d in args.export_dirs], vocab, args.arch != "ved",
                             tasks.dictionary(task), metrics, translation=task["kind"] in TRANSLATION)
    out = Path(args.out_dir)
    for name, df in tables.items():
        if name == "summary":
            write_csv(df, out / "summary.csv")
        else:
            write_parquet(pa.Table.from_pandas(df, preserve_index=False), out / f"{name}.parquet")
    print(tables["summary"].to_string(), file=sys.stderr)


def add_parser(subparsers) -> None:
    w = subparsers.add_parser("aitken2021", help="Aitken et al. 2021: decompose the exported states",
                              description="Aitken et al. 2021: hidden states split into temporal, input and delta "
                                          "parts (§2.1, Eq. 1-3); the figures drawn from them: attnrepro figure "
                                          "aitken2021.")
    steps = w.add_subparsers(dest="step", required=True, metavar="STEP")
    a = sub(steps, "analyze", "decompose hidden states and alignments (Aitken et al. §2.1, Eq. 1-3)", cmd_analyze)
    a.add_argument("--export-dirs", nargs="+", required=True, help="every seed group's export folder")
    a.add_argument("--data-dir", required=True, help="the task's folder")
    a.add_argument("--arch", required=True, help="ved, aed or ao")
    json_option(a, "--task-json", ("kind",),
                required=True, help="the task's config block (for its dictionary) " + SPEC_HELP)
    a.add_argument("--metrics", nargs="*", default=[], help="every seed group's metrics.csv (training evaluations)")
    a.add_argument("--out-dir", required=True, help="writes summary.csv and the analysis tables")
