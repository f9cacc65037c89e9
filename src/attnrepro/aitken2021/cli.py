"""``attnrepro aitken2021 analyze|figure``: read the exports or the analysis tables, call this wing's pure
functions or its figure registry (:data:`.panels.PANELS`), write the tables or the figure and its CSV."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..cli.common import SPEC_HELP, figure_files, sub, write_figure
from ..errors import AttnReproError


def cmd_analyze(args) -> None:
    import pandas as pd
    import pyarrow as pa

    from ..data import tasks
    from ..io import read_csv_checked, read_json, read_parquet_table, write_csv, write_parquet
    from .analysis import analyze_exports

    def group(d: Path):
        return (read_parquet_table(d / "encoder.parquet", require=["seed", "example", "t", "h"], nonempty=True),
                read_parquet_table(d / "decoder.parquet", require=["seed", "example", "s", "hypothesis", "h"],
                                   nonempty=True),
                read_parquet_table(d / "readout.parquet", require=["seed", "token", "weight", "bias"], nonempty=True))

    vocab = read_json(Path(args.data_dir) / "vocab.json")
    metrics = (pd.concat([read_csv_checked(m, ["step", "seed", "token_acc"]) for m in args.metrics])
               if args.metrics else None)
    tables = analyze_exports([group(Path(d)) for d in args.export_dirs], vocab, args.arch != "ved",
                             tasks.dictionary(json.loads(args.task_json)), metrics)
    out = Path(args.out_dir)
    for name, df in tables.items():
        if name == "summary":
            write_csv(df, out / "summary.csv")
        else:
            write_parquet(pa.Table.from_pandas(df, preserve_index=False), out / f"{name}.parquet")
    print(tables["summary"].to_string(), file=sys.stderr)


def cmd_figure(args) -> None:
    from ..io import read_csv_checked, read_parquet
    from .panels import PANELS, PanelInputs

    if args.name not in PANELS:
        raise AttnReproError(f"unknown figure {args.name!r}; known: {sorted(PANELS)}")
    panel = PANELS[args.name]
    meta, roles = json.loads(args.meta_json), json.loads(args.roles_json)
    if not isinstance(roles, dict) or not all(isinstance(ns, list) for ns in roles.values()):
        raise AttnReproError(f"--roles-json: expected an object ROLE -> [EXPERIMENT, ...], got {args.roles_json!r}")
    for role, names in roles.items():
        for n in names:
            if n not in meta:
                raise AttnReproError(f"--roles-json: experiment {n!r} of role {role!r} is not in --meta-json")
    missing = set(panel.roles) - set(roles)
    if missing:
        raise AttnReproError(f"figure {args.name} needs roles {sorted(missing)} in --roles-json")

    def read(name: str, table: str):
        path = Path(meta[name]["analysis_dir"]) / table
        df = read_csv_checked(path, ["seed"], nonempty=True) if table.endswith(".csv") else read_parquet(path)
        if panel.one_seed and "seed" in df.columns:
            if args.seed not in set(df.seed):
                raise AttnReproError(f"{path}: no rows of seed {args.seed}")
            df = df[df.seed == args.seed].reset_index(drop=True)
        return df

    names = list(dict.fromkeys(n for r in panel.roles for n in roles[r]))
    tests = {n: read_parquet(Path(meta[n]["data_dir"]) / "test.parquet", columns=["src", "tgt"]) for n in names} \
        if panel.data else {}
    inputs = PanelInputs(roles, {n: {t: read(n, t) for t in panel.tables} for n in names}, meta, args.seed, tests)
    write_figure(*panel.draw(inputs), args)


def add_parser(subparsers) -> None:
    w = subparsers.add_parser("aitken2021", help="Aitken et al. 2021: decompose the exported states, draw the figures",
                              description="Aitken et al. 2021: hidden states split into temporal, input and delta "
                                          "parts (§2.1, Eq. 1-3) and the figures drawn from them.")
    steps = w.add_subparsers(dest="step", required=True, metavar="STEP")
    a = sub(steps, "analyze", "decompose hidden states and alignments (Aitken et al. §2.1, Eq. 1-3)", cmd_analyze)
    a.add_argument("--export-dirs", nargs="+", required=True, help="every seed group's export folder")
    a.add_argument("--data-dir", required=True, help="the task's folder")
    a.add_argument("--arch", required=True, help="ved, aed or ao")
    a.add_argument("--task-json", required=True, help="the task's config block (for its dictionary) " + SPEC_HELP)
    a.add_argument("--metrics", nargs="*", default=[], help="every seed group's metrics.csv (training evaluations)")
    a.add_argument("--out-dir", required=True, help="writes summary.csv and the analysis tables")
    f = sub(steps, "figure", "draw one figure of Aitken et al. 2021 (registry: attnrepro.aitken2021.panels)",
            cmd_figure)
    f.add_argument("name", help="the panel, e.g. fig2a")
    f.add_argument("--roles-json", required=True, help='{"ROLE": ["EXPERIMENT", ...], ...}: the panel\'s roles')
    f.add_argument("--meta-json", required=True,
                   help="experiment -> {analysis_dir, data_dir, task_kind, arch, cell} " + SPEC_HELP)
    f.add_argument("--seed", type=int, required=True, help="the seed drawn by single-model panels")
    figure_files(f)
