"""The ``attnrepro`` command line that the workflow's rules call: one subcommand per stage.

Each subcommand reads its inputs, calls library functions, and writes its outputs atomically. A user-facing
problem (bad config, missing or corrupt file) ends with one line naming the culprit and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .errors import AttnReproError


def _device(name: str):
    import torch

    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def _threads(n: int | None) -> None:
    if n:
        import torch

        torch.set_num_threads(n)


def _load_split(data_dir: Path, split: str):
    from .data import Vocab, encode
    from .io import read_json, read_parquet

    vocab = Vocab.from_dict(read_json(data_dir / "vocab.json"))
    df = read_parquet(data_dir / f"{split}.parquet", columns=["src", "tgt"])
    if len(df) == 0:
        raise AttnReproError(f"{data_dir / f'{split}.parquet'}: the split is empty")
    try:
        return vocab, encode(df, vocab)
    except ValueError as err:
        raise AttnReproError(f"{data_dir / f'{split}.parquet'}: {err}") from err


# -- data ---------------------------------------------------------------------------------------------------
def cmd_data(args) -> None:
    from . import tasks
    from .data import Vocab
    from .io import write_json, write_parquet

    task = json.loads(args.task_json)
    out = Path(args.out_dir)
    try:
        splits = tasks.generate(task)
    except ValueError as err:
        raise AttnReproError(f"task {out.name}: {err}") from err
    for split, df in splits.items():
        write_parquet(df, out / f"{split}.parquet")
        print(f"{split}: {len(df)} examples", file=sys.stderr)
    write_json(Vocab.from_words(*tasks.words(task)).to_dict(), out / "vocab.json")


# -- train --------------------------------------------------------------------------------------------------
def cmd_train(args) -> None:
    from .config import TrainConfig
    from .io import write_csv
    from .model import ModelConfig
    from .train import save_model, train

    _threads(args.threads)
    spec = json.loads(args.spec_json)
    data_dir = Path(args.data_dir)
    vocab, train_data = _load_split(data_dir, "train")
    _, valid_data = _load_split(data_dir, "valid")
    model_cfg = ModelConfig(src_vocab=len(vocab.src), tgt_vocab=len(vocab.tgt), **spec["model"])
    if model_cfg.arch == "ao":
        longest = max(train_data.src.shape[1], train_data.tgt_in.shape[1], valid_data.src.shape[1],
                      valid_data.tgt_in.shape[1])
        if longest > model_cfg.max_positions:
            raise AttnReproError(f"model.max_positions ({model_cfg.max_positions}) is shorter than the longest "
                                 f"sequence of {data_dir} ({longest}, <eos>/<sos> included)")
    train_cfg = TrainConfig.from_dict(spec["train"])
    model, metrics = train(model_cfg, train_cfg, args.seeds, train_data, valid_data, args.ckpt_dir,
                           sos=vocab.tgt.index("<sos>"), device=_device(args.device))
    # metrics first: the model file is the rule's last output, so its presence means the job finished
    write_csv(metrics, args.metrics_out)
    save_model(model, vocab.to_dict(), args.model_out)
    last = metrics[metrics.step == metrics.step.max()]
    print(f"final token accuracy per seed: {dict(zip(last.seed, last.token_acc.round(4)))}", file=sys.stderr)


# -- export -------------------------------------------------------------------------------------------------
def cmd_export(args) -> None:
    from .data import Vocab
    from .export import export_activations, parquet_options
    from .io import write_parquet
    from .train import load_model

    _threads(args.threads)
    device = _device(args.device)
    model, vocab_dict = load_model(args.model, device)
    vocab, test = _load_split(Path(args.data_dir), "test")
    if vocab != Vocab.from_dict(vocab_dict):
        raise AttnReproError(f"{args.model}: trained on another vocabulary than {args.data_dir}/vocab.json; retrain")
    tables = export_activations(model, test.subset(slice(0, args.n_examples)), vocab, device)
    for name, table in tables.items():
        write_parquet(table, Path(args.out_dir) / f"{name}.parquet", **parquet_options(table))
        print(f"{name}: {table.num_rows} rows", file=sys.stderr)


# -- analyze ------------------------------------------------------------------------------------------------
def cmd_analyze(args) -> None:
    import pandas as pd
    import pyarrow as pa

    from .analysis.aitken import analyze_seed, vector_frame
    from .export import states, vectors
    from .io import read_json, read_parquet_table, write_csv, write_parquet

    vocab = read_json(Path(args.data_dir) / "vocab.json")
    has_attention = args.arch != "ved"
    collected: dict[str, list[pd.DataFrame]] = {}
    for export_dir in map(Path, args.export_dirs):
        enc = read_parquet_table(export_dir / "encoder.parquet")
        dec = read_parquet_table(export_dir / "decoder.parquet")
        readout = read_parquet_table(export_dir / "readout.parquet")
        for seed in sorted(set(enc.column("seed").to_pylist())):
            enc_meta, enc_v = states(enc, seed, ("example", "t"))
            dec_meta, dec_v = states(dec, seed, ("example", "s"))
            result = analyze_seed(enc_meta, enc_v["h"], dec_meta, dec_v["h"], vocab["src"], vocab["tgt"],
                                  has_attention, enc_key=enc_v.get("key"), dec_query=dec_v.get("query"))
            for name, df in result.items():
                df.insert(0, "seed", seed)
                collected.setdefault(name, []).append(df)
        ro = readout.to_pandas()
        collected.setdefault("readout", []).append(
            vector_frame(vectors(readout, "weight"), "weight", seed=ro.seed, token=ro.token, bias=ro.bias))
    out = Path(args.out_dir)
    if "terms" not in collected:  # VED has no attention: an empty table keeps the rule's outputs the same
        from .analysis.decomposition import TERMS

        collected["terms"] = [pd.DataFrame(columns=["seed", "example", "s", "t_star", "a", *TERMS], dtype=float)]
    for name, frames in collected.items():
        df = pd.concat(frames, ignore_index=True)
        if name == "summary":
            write_csv(df, out / "summary.csv")
        else:
            write_parquet(pa.Table.from_pandas(df, preserve_index=False), out / f"{name}.parquet")
    print(pd.concat(collected["summary"]).to_string(), file=sys.stderr)


# -- figure -------------------------------------------------------------------------------------------------
def cmd_figure(args) -> None:
    from .figures import aitken2021, save
    from .io import read_parquet

    a = Path(args.analysis_dir)
    title = f"{args.experiment}, seed {args.seed}"
    if args.name == "aitken2021-fig2a":
        temporal = read_parquet(a / "temporal.parquet")
        fig = aitken2021.fig2a(temporal[temporal.seed == args.seed], title=title)
    elif args.name == "aitken2021-fig2b":
        comp = read_parquet(a / "input.parquet")
        pts = read_parquet(a / "input_delta.parquet")
        ro = read_parquet(a / "readout.parquet")
        hidden = sum(c.startswith("chi") for c in comp.columns)
        width = sum(c.startswith("weight") for c in ro.columns)
        part = slice(width - hidden, width)  # the context part of [h_s^D; c_s], or all of it
        fig = aitken2021.fig2b(comp[comp.seed == args.seed], pts[pts.seed == args.seed],
                               ro[ro.seed == args.seed], part, title=title, seed=args.seed)
    else:
        raise AttnReproError(f"unknown figure {args.name!r}")
    save(fig, args.png, args.pdf, dpi=args.dpi)


# -- claims -------------------------------------------------------------------------------------------------
def cmd_claims(args) -> None:
    import pandas as pd

    from .claims import summarize, to_markdown
    from .io import atomic_path, write_csv

    summaries, experiments = {}, {}
    for item in args.summary:
        try:
            name, kind, arch, path = item.split(":", 3)
        except ValueError:
            raise AttnReproError(f"--summary {item!r}: expected EXPERIMENT:TASK_KIND:ARCH:PATH") from None
        if not Path(path).exists():
            raise AttnReproError(f"{path}: file not found")
        try:
            summaries[name] = pd.read_csv(path)
        except (pd.errors.EmptyDataError, pd.errors.ParserError) as err:
            raise AttnReproError(f"{path}: not a readable summary table ({err})") from err
        experiments[name] = (kind, arch)
    table = summarize(summaries, experiments, confidence=args.confidence)
    write_csv(table, args.out)
    if args.markdown:
        with atomic_path(args.markdown) as tmp:
            tmp.write_text(to_markdown(table) + "\n")
    print(table.drop(columns=["description"]).to_string(), file=sys.stderr)


# -- archive / verify ---------------------------------------------------------------------------------------
def cmd_archive(args) -> None:
    from .artifact import build

    import yaml

    config_yaml = yaml.safe_dump(json.loads(args.config_json), sort_keys=False)
    entries = build(Path(args.repo), Path(args.results), config_yaml, Path(args.out), activations=args.activations)
    print(f"{args.out}: {len(entries)} files", file=sys.stderr)


def cmd_verify(args) -> None:
    import tarfile
    import tempfile

    from .artifact import verify

    target = Path(args.artifact)
    if not target.exists():
        raise AttnReproError(f"{target}: not found")
    with tempfile.TemporaryDirectory() as tmp:
        if target.is_file():
            try:
                with tarfile.open(target) as tar:
                    tar.extractall(tmp, filter="data")
            except (tarfile.TarError, OSError) as err:
                raise AttnReproError(f"{target}: not a readable artifact archive ({err})") from err
            root = Path(tmp) / "artifact"
        else:
            root = target
        problems = verify(root)
    if problems:
        raise AttnReproError(f"{target} does not match its manifest:\n  " + "\n  ".join(problems))
    print(f"{target}: every file matches its manifest")


# -- snell2021 (Snell et al. 2021) --------------------------------------------------------------------------
def cmd_snell2021(args) -> None:
    from .io import read_csv_checked, write_csv
    from .snell import experiments

    _threads(args.threads)
    spec = json.loads(args.spec_json) if args.spec_json else {}
    out = Path(args.out_dir)
    if args.action == "copy":
        curves, summary = experiments.copy_run(spec, args.seeds, log=sys.stderr)
        write_csv(curves, out / "curves.csv")
        write_csv(summary, out / "summary.csv")
        print(summary.to_string(), file=sys.stderr)
    elif args.action == "multihead":
        import pandas as pd

        from .snell.config import COMBOS

        result = experiments.multihead_run(spec, log=sys.stderr)
        write_csv(result["candidates"], out / "candidates.csv")
        write_csv(result["combo_curves"], out / "curves.csv")
        summary = result["summary"].reindex(columns=experiments.SUMMARY_COLUMNS)
        for combo in COMBOS:  # a kind with no models still gets its (empty) table
            write_csv(summary[summary.combo == combo], out / f"summary_{combo}.csv")
        print(result["summary"].groupby("combo").success.mean().to_string(), file=sys.stderr)
    elif args.action == "keyword":
        curves, summary = experiments.keyword_run(spec, args.seeds, log=sys.stderr)
        write_csv(curves, out / "curves.csv")
        write_csv(summary, out / "summary.csv")
        print(summary.to_string(), file=sys.stderr)
    elif args.action == "table2":
        summary, curves = experiments.table2_copy(spec, args.seeds, log=sys.stderr)
        write_csv(summary, out / "summary.csv")
        write_csv(curves, out / "curves.csv")
        print(summary.to_string(), file=sys.stderr)
    elif args.action == "classification":
        summary, curves = experiments.classification_run(spec, args.seeds, log=sys.stderr)
        write_csv(summary, out / "summary.csv")
        write_csv(curves, out / "curves.csv")
        print(summary.to_string(), file=sys.stderr)
    elif args.action == "counts":
        tables, summary = experiments.count_tables(spec, args.seeds)
        write_csv(tables, out / "tables.csv")
        write_csv(summary, out / "summary.csv")
        print(summary.to_string(), file=sys.stderr)
    elif args.action == "figure":
        import pandas as pd

        from .figures import save, snell2021

        d = Path(args.results_dir)
        read = lambda run, name="curves.csv": read_csv_checked(d / run / name)
        fail = spec["fail_below"]
        if args.name == "fig3":
            uniform = {k: read(f"copy_{k}_uniform") for k in ("same", "subset", "mixture")
                       if (d / f"copy_{k}_uniform" / "curves.csv").exists()}
            fig = snell2021.fig3(read("copy_same"), read("copy_subset"), read("copy_mixture"), uniform,
                                 spec["labels"], fail)
        elif args.name == "sec6_2":
            fig = snell2021.sec6_2(read("copy_subset"), read("copy_permute"), spec["labels"], fail)
        elif args.name == "fig6":
            summary = pd.concat([read("multihead", f"summary_{c}.csv") for c in ("all_bad", "one_good", "random")])
            fig = snell2021.fig6(read("multihead"), summary, read("multihead", "candidates.csv"), fail)
        elif args.name == "fig7":
            fig = snell2021.fig7(read("keyword"))
        elif args.name == "fig4":
            fig = snell2021.fig4(read("counts", "tables.csv"), spec["labels"])
        elif args.name in ("table2", "table10"):
            sets = {spec["labels"].get(n, n): read(f"cls_{n}", "summary.csv") for n in spec.get("classification", [])}
            if args.name == "table2":
                frame = snell2021.table2_frame({**sets, spec["labels"]["table2"]: read("table2", "summary.csv")})
                fig = snell2021.table2(frame)
            else:
                frame = snell2021.table10_frame(sets)
                fig = snell2021.table10(frame)
            write_csv(frame, Path(args.png).with_suffix(".csv"))
        else:
            raise AttnReproError(f"unknown Snell et al. 2021 figure {args.name!r}")
        save(fig, args.png, args.pdf, dpi=args.dpi)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="attnrepro", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)

    d = sub.add_parser("data", help="generate a task's train/valid/test splits")
    d.add_argument("--task-json", required=True, help="the task's config block as JSON")
    d.add_argument("--out-dir", required=True)
    d.set_defaults(func=cmd_data)

    t = sub.add_parser("train", help="train a group of seeds of one experiment, stacked")
    t.add_argument("--spec-json", required=True, help="the resolved experiment (task, model, train) as JSON")
    t.add_argument("--seeds", type=int, nargs="+", required=True)
    t.add_argument("--data-dir", required=True)
    t.add_argument("--ckpt-dir", required=True)
    t.add_argument("--model-out", required=True)
    t.add_argument("--metrics-out", required=True)
    t.add_argument("--device", default="auto")
    t.add_argument("--threads", type=int, default=None)
    t.set_defaults(func=cmd_train)

    e = sub.add_parser("export", help="export activations of a trained seed group to Parquet")
    e.add_argument("--model", required=True)
    e.add_argument("--data-dir", required=True)
    e.add_argument("--n-examples", type=int, required=True)
    e.add_argument("--out-dir", required=True)
    e.add_argument("--device", default="auto")
    e.add_argument("--threads", type=int, default=None)
    e.set_defaults(func=cmd_export)

    a = sub.add_parser("analyze", help="decompose hidden states and alignments (Aitken et al. §2.1)")
    a.add_argument("--export-dirs", nargs="+", required=True)
    a.add_argument("--data-dir", required=True)
    a.add_argument("--arch", required=True)
    a.add_argument("--out-dir", required=True)
    a.set_defaults(func=cmd_analyze)

    f = sub.add_parser("figure", help="draw one figure")
    f.add_argument("name")
    f.add_argument("--analysis-dir", required=True)
    f.add_argument("--experiment", required=True)
    f.add_argument("--seed", type=int, required=True)
    f.add_argument("--png", required=True)
    f.add_argument("--pdf", required=True)
    f.add_argument("--dpi", type=int, default=150)
    f.set_defaults(func=cmd_figure)

    c = sub.add_parser("claims", help="aggregate per-seed measures into the claims table")
    c.add_argument("--summary", nargs="+", required=True, help="EXPERIMENT:TASK_KIND:ARCH:summary.csv")
    c.add_argument("--confidence", type=float, default=0.95)
    c.add_argument("--out", required=True)
    c.add_argument("--markdown", help="also write the claims as Markdown (results/claims.md)")
    c.set_defaults(func=cmd_claims)

    ar = sub.add_parser("archive", help="write the paper artifact (code, config, environment, results, manifest)")
    ar.add_argument("--repo", required=True, help="the git checkout of the workflow")
    ar.add_argument("--results", required=True)
    ar.add_argument("--config-json", required=True, help="the resolved config as JSON")
    ar.add_argument("--activations", action="store_true", help="include results/activations")
    ar.add_argument("--out", required=True)
    ar.set_defaults(func=cmd_archive)

    v = sub.add_parser("verify", help="check an artifact (.tar.gz or unpacked folder) against its manifest")
    v.add_argument("artifact")
    v.set_defaults(func=cmd_verify)

    sn = sub.add_parser("snell2021", help="Snell et al. 2021: train the synthetic experiments, draw their figures")
    sn.add_argument("action", choices=["copy", "multihead", "keyword", "counts", "table2", "classification", "figure"])
    sn.add_argument("name", nargs="?", help="figure name (fig3, sec6_2, fig4, fig6, fig7, table2, table10)")
    sn.add_argument("--spec-json", help="the resolved job spec as JSON")
    sn.add_argument("--seeds", type=int, nargs="+", default=[])
    sn.add_argument("--out-dir", default=".")
    sn.add_argument("--results-dir", default="results/snell2021", help="figure: where the experiments wrote")
    sn.add_argument("--png")
    sn.add_argument("--pdf")
    sn.add_argument("--dpi", type=int, default=150)
    sn.add_argument("--threads", type=int, default=None)
    sn.set_defaults(func=cmd_snell2021)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except AttnReproError as err:
        print(f"attnrepro {args.command}: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
