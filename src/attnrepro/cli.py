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
    """The device of config key ``device``; one that this machine lacks is named with the ones it has."""
    import torch

    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError as err:
        raise AttnReproError(f"device: {name!r} is not a device name ({err})") from None
    have = ["cpu"]
    if torch.cuda.is_available():
        have += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    if torch.backends.mps.is_available():
        have.append("mps")
    if device.type == "cuda" and (not torch.cuda.is_available() or (device.index or 0) >= torch.cuda.device_count()):
        why = "torch was built without CUDA" if not torch.backends.cuda.is_built() else "no CUDA device is visible"
        raise AttnReproError(f"device: {name!r} was asked for (config key 'device'), but {why} on this machine; "
                             f"it has {', '.join(have)} — set device: auto or cpu, or run the job on a GPU node")
    if device.type == "mps" and not torch.backends.mps.is_available():
        raise AttnReproError(f"device: 'mps' was asked for, but this machine has {', '.join(have)}")
    return device


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
    except (ValueError, FileNotFoundError) as err:
        raise AttnReproError(f"task {out.name}: {err}") from err
    for split, df in splits.items():
        write_parquet(df, out / f"{split}.parquet")
        print(f"{split}: {len(df)} examples", file=sys.stderr)
    write_json(Vocab.from_words(*tasks.words(task, splits)).to_dict(), out / "vocab.json")


# -- train --------------------------------------------------------------------------------------------------
def cmd_train(args) -> None:
    from .budget import check_training_memory
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
    if model_cfg.arch in ("ao", "transformer"):
        longest = max(train_data.src.shape[1], train_data.tgt_in.shape[1], valid_data.src.shape[1],
                      valid_data.tgt_in.shape[1])
        if longest > model_cfg.max_positions:
            raise AttnReproError(f"model.max_positions ({model_cfg.max_positions}) is shorter than the longest "
                                 f"sequence of {data_dir} ({longest}, <eos>/<sos> included)")
    train_cfg = TrainConfig.from_dict(spec["train"])
    check_training_memory(data_dir, model_cfg, train_cfg, len(args.seeds), train_data, valid_data)
    model, metrics = train(model_cfg, train_cfg, args.seeds, train_data, valid_data, args.ckpt_dir,
                           sos=vocab.tgt.index("<sos>"), name=args.name, device=_device(args.device))
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


# -- evaluate -----------------------------------------------------------------------------------------------
def cmd_evaluate(args) -> None:
    import pandas as pd

    from .data import Vocab
    from .evaluation import evaluate_split
    from .io import write_csv
    from .train import load_model

    _threads(args.threads)
    device = _device(args.device)
    data_dir = Path(args.data_dir)
    vocab, data = _load_split(data_dir, args.split)
    frames = []
    for path in args.models:
        model, vocab_dict = load_model(path, device)
        if vocab != Vocab.from_dict(vocab_dict):
            raise AttnReproError(f"{path}: trained on another vocabulary than {data_dir}/vocab.json; retrain")
        frames.append(evaluate_split(model, data, vocab.tgt, vocab.tgt.index("<sos>"), device))
    table = pd.concat(frames, ignore_index=True)
    table.insert(1, "split", args.split)
    write_csv(table, args.out)
    print(table.to_string(), file=sys.stderr)


# -- analyze ------------------------------------------------------------------------------------------------
def cmd_analyze(args) -> None:
    import pandas as pd
    import pyarrow as pa

    from . import tasks
    from .analysis.aitken import OPTIONAL_TABLES, analyze_seed, vector_frame
    from .export import states, vectors
    from .io import read_json, read_parquet_table, write_csv, write_parquet

    vocab = read_json(Path(args.data_dir) / "vocab.json")
    dictionary = tasks.dictionary(json.loads(args.task_json))
    has_attention = args.arch != "ved"
    collected: dict[str, list[pd.DataFrame]] = {}
    for export_dir in map(Path, args.export_dirs):
        enc = read_parquet_table(export_dir / "encoder.parquet", require=["seed", "example", "t", "h"], nonempty=True)
        dec = read_parquet_table(export_dir / "decoder.parquet", require=["seed", "example", "s", "h"], nonempty=True)
        readout = read_parquet_table(export_dir / "readout.parquet", require=["seed", "token", "weight", "bias"],
                                     nonempty=True)
        ro = readout.to_pandas()
        ro_w = vectors(readout, "weight")
        for seed in sorted(set(enc.column("seed").to_pylist())):
            enc_meta, enc_v = states(enc, seed, ("example", "t"))
            dec_meta, dec_v = states(dec, seed, ("example", "s"))
            hidden = enc_v["h"].shape[1]
            rows = (ro.seed == seed).to_numpy()
            # the readout part that acts on the context c_s (AED: the last H columns); h_s^D for VED
            weights = pd.DataFrame(ro_w[rows][:, -hidden:], index=ro.token[rows]).reindex(vocab["tgt"]).to_numpy()
            result = analyze_seed(enc_meta, enc_v["h"], dec_meta, dec_v["h"], vocab["src"], vocab["tgt"],
                                  has_attention, enc_key=enc_v.get("key"), dec_query=dec_v.get("query"),
                                  readout=weights, dictionary=dictionary)
            for name, df in result.items():
                df.insert(0, "seed", seed)
                collected.setdefault(name, []).append(df)
        collected.setdefault("readout", []).append(
            vector_frame(ro_w, "weight", seed=ro.seed, token=ro.token, bias=ro.bias))
    out = Path(args.out_dir)
    for name, columns in OPTIONAL_TABLES.items():
        # VED has no attention: empty tables keep the rule's outputs the same for every architecture
        collected.setdefault(name, [pd.DataFrame(columns=["seed", *columns], dtype=float)])
    for name, frames in collected.items():
        df = pd.concat(frames, ignore_index=True)
        if name == "summary":
            write_csv(df, out / "summary.csv")
        else:
            write_parquet(pa.Table.from_pandas(df, preserve_index=False), out / f"{name}.parquet")
    print(pd.concat(collected["summary"]).to_string(), file=sys.stderr)


# -- figure -------------------------------------------------------------------------------------------------
def cmd_figure(args) -> None:
    import pandas as pd

    from .figures import aitken2021 as fa
    from .figures import save
    from .figures.panels import PANELS
    from .io import read_csv_checked, read_parquet, write_csv

    if args.name not in PANELS:
        raise AttnReproError(f"unknown figure {args.name!r}; known: {sorted(PANELS)}")
    panel = PANELS[args.name]
    meta = json.loads(args.meta_json)
    roles: dict[str, list[str]] = {}
    for item in args.role:
        role, _, names = item.partition("=")
        roles[role] = [n for n in names.split(",") if n]
        for n in roles[role]:
            if n not in meta:
                raise AttnReproError(f"--role {item!r}: experiment {n!r} is not in --meta-json")
    missing = set(panel.roles) - set(roles)
    if missing:
        raise AttnReproError(f"figure {args.name} needs --role for {sorted(missing)}")

    def read(name: str, table: str, one_seed: bool) -> pd.DataFrame:
        path = Path(meta[name]["analysis_dir"]) / table
        df = read_csv_checked(path, ["seed"], nonempty=True) if table.endswith(".csv") else read_parquet(path)
        if one_seed and "seed" in df.columns:
            if args.seed not in set(df.seed):
                raise AttnReproError(f"{path}: no rows of seed {args.seed}")
            df = df[df.seed == args.seed].reset_index(drop=True)
        return df

    def tables(role: str, one_seed: bool = True) -> dict[str, pd.DataFrame]:
        return {t: read(roles[role][0], t, one_seed) for t in panel.tables}

    name = args.name
    title = lambda role: f"{roles[role][0]}, seed {args.seed}"  # noqa: E731
    if name in ("fig2a", "fig2c", "fig2e", "fig2g"):
        role = panel.roles[0]
        fig, data = fa.temporal_figure(tables(role), title(role), inset=role != "ved")
    elif name in ("fig2b", "fig2d", "fig2f"):
        role = panel.roles[0]
        fig, data = fa.input_figure(tables(role), title(role), seed=args.seed)
    elif name == "fig2h":
        fig, data = fa.fig2h(tables("sort"), title("sort"))
    elif name == "fig3":
        fig, data = fa.fig3({r: tables(r) for r in ("aed", "ao")}, f"eSCAN, seed {args.seed}", seed=args.seed)
    elif name == "fig4":
        fig, data = fa.fig4(tables("ao"), title("ao"))
    elif name == "fig5a":
        fig, data = fa.fig5a({n: read(n, "summary.csv", False) for n in roles["shares"]}, meta)
    elif name == "fig5b":
        temporals = {n: read(n, "temporal.parquet", True) for n in roles["offsets"]}
        tests = {n: read_parquet(Path(meta[n]["data_dir"]) / "test.parquet", columns=["src", "tgt"])
                 for n in roles["offsets"]}
        fig, data = fa.fig5b(temporals, tests, meta)
    elif name == "fig5c":
        fig, data = fa.fig5c({n: read(n, "word_variance.parquet", False) for n in roles["variance"]}, meta)
    elif name == "fig5d":
        fig, data = fa.fig5d(read(roles["readout"][0], "readout_alignment.parquet", True),
                             f"Fig. 5d: {title('readout')}")
    elif name == "fig6":
        fig, data = fa.fig6({r: tables(r) for r in ("aed", "ao")}, f"eSCAN, seed {args.seed}", seed=args.seed)
    elif name == "bottleneck":
        labels = {"ved": "VED", "ved_reversed": "VED, source reversed", "aed": "AED"}
        fig, data = fa.bottleneck({r: read(roles[r][0], "accuracy.parquet", False) for r in panel.roles}, labels)
    else:  # pragma: no cover - PANELS and this dispatch are kept in step by tests/test_figures.py
        raise AttnReproError(f"figure {name!r} has no drawing function")
    save(fig, args.png, args.pdf, dpi=args.dpi)
    write_csv(data, args.csv)


# -- claims -------------------------------------------------------------------------------------------------
def cmd_claims(args) -> None:
    from .claims import merge_replicates, model_quality, summarize, unmeasured
    from .claims_markdown import to_markdown
    from .io import atomic_path, read_csv_checked, write_csv

    tables, experiments = {}, {}
    for item in args.summary:
        try:
            name, kind, arch, cell, path = item.split(":", 4)
        except ValueError:
            raise AttnReproError(f"--summary {item!r}: expected EXPERIMENT:TASK_KIND:ARCH:CELL:PATH") from None
        if experiments.setdefault(name, (kind, arch, cell)) != (kind, arch, cell):
            raise AttnReproError(f"--summary {item!r}: experiment {name} given as {experiments[name]} before")
        # a header-only table is a real result (no K-head model)
        tables.setdefault(name, []).append((path, read_csv_checked(path)))
    summaries = {name: merge_replicates(name, ts) for name, ts in tables.items()}
    table = summarize(summaries, experiments, confidence=args.confidence)
    write_csv(table, args.out)
    if args.markdown:
        missing = unmeasured(table, summaries, experiments)
        references = {}
        for item in args.reference:
            label, sep, path = item.partition("=")
            if not sep or not label or not path:
                raise AttnReproError(f"--reference {item!r}: expected LABEL=claims.csv")
            references[label] = read_csv_checked(path, require=["paper", "claim_id", "experiment", "origin",
                                                                "reference_value", "measured_mean", "ci_low",
                                                                "ci_high", "n", "unit", "interval", "verdict"])
        with atomic_path(args.markdown) as tmp:
            tmp.write_text(to_markdown(table, model_quality(summaries, args.confidence), missing, references) + "\n")
    print(table[["paper", "claim_id", "experiment", "measured_mean", "ci_low", "ci_high", "n", "verdict"]]
          .to_string(), file=sys.stderr)


def cmd_ladder(args) -> None:
    from .figures import save
    from .figures.ladder import ladder_figure
    from .io import read_csv_checked, write_csv
    from .ladder import ladder_table

    spec = json.loads(args.spec_json)
    claims = {}
    for item in args.claims:
        point, sep, path = item.partition("=")
        if not sep or point not in spec["points"]:
            raise AttnReproError(f"--claims {item!r}: expected POINT=claims.csv with POINT one of {sorted(spec['points'])}")
        claims[point] = read_csv_checked(path)
    table = ladder_table(claims, spec["points"], spec["bases"], spec.get("claims"))
    write_csv(table, args.csv)
    fig, _ = ladder_figure(table)
    save(fig, args.png, args.pdf, dpi=args.dpi)


# -- archive / verify ---------------------------------------------------------------------------------------
def cmd_archive(args) -> None:
    from .artifact import build

    import yaml

    config_yaml = yaml.safe_dump(json.loads(args.config_json), sort_keys=False)
    products = [line for line in Path(args.products).read_text().splitlines() if line]
    entries = build(Path(args.repo), Path(args.results), config_yaml, Path(args.out), products,
                    activations=args.activations)
    print(f"{args.out}: {len(entries)} files", file=sys.stderr)


def cmd_report_table(args) -> None:
    from .claims import PAPERS
    from .io import atomic_path, read_csv_checked
    from .report import page, sections

    frame = read_csv_checked(args.csv)
    if args.group_by and args.group_by not in frame:
        raise AttnReproError(f"{args.csv}: no column {args.group_by!r} to group by")
    with atomic_path(args.out) as tmp:
        tmp.write_text(page(args.title, sections(frame, args.group_by, PAPERS), args.note), encoding="utf-8")


def cmd_verify(args) -> None:
    import tempfile

    from .artifact import unpack, verify

    target = Path(args.artifact)
    if not target.exists():
        raise AttnReproError(f"{target}: not found")
    with tempfile.TemporaryDirectory() as tmp:
        root = unpack(target, Path(tmp)) if target.is_file() else target
        problems = verify(root)
    if problems:
        raise AttnReproError(f"{target} does not match its manifest:\n  " + "\n  ".join(problems))
    print(f"{target}: every file matches its manifest")


# -- corpora: download / prepare (the papers' own data sets) ------------------------------------------------
def cmd_download(args) -> None:
    from .download import fetch

    fetch(args.url, args.out, args.sha256, md5=args.md5, local_dir=args.local_dir, local_name=args.local_name,
          allow_unpinned=args.allow_unpinned)


def cmd_prepare(args) -> None:
    from .corpora.prepare import prepare
    from .download import verify_download
    from .io import atomic_path, write_json, write_parquet

    corpus = json.loads(args.corpus_json)
    out = Path(args.out_dir)
    for name, source in corpus["files"].items():  # again: a file may have changed since its download rule ran
        verify_download(Path(args.raw_dir) / name, source.get("sha256"), source.get("md5"))
    prepared = prepare(corpus, Path(args.raw_dir))
    for split, df in prepared["splits"].items():
        write_parquet(df, out / f"{split}.parquet")
        print(f"{split}: {len(df)} examples", file=sys.stderr)
    if prepared["spm"] is not None:
        with atomic_path(out / "spm.model") as tmp:
            tmp.write_bytes(prepared["spm"])
    write_json(prepared["vocab"], out / "vocab.json")


# -- Kobayashi et al. 2020 on the pretrained encoder ----------------------------------------------------------
KOBAYASHI_CACHE = ("heads", "layers", "pairs", "error", "svals")
KOBAYASHI_COLUMNS = {  # what the writers put in each table (encoder_text.sequence_table, pretrained.norm_cache)
    "tokens": ["seq", "article", "pos", "token_id", "token", "segment", "category", "rank"],
    "heads": ["seq", "layer", "head", "pos", "f_norm", "alpha_mean"],
    "layers": ["seq", "layer", "pos", "x_norm"],
    "pairs": ["seq", "layer", "head", "query", "pos", "alpha", "f_norm"],
    "error": ["layer", "max_abs_error"],
    "svals": ["layer", "head", "index", "singular_value"],
}
KOBAYASHI_FIGURES = ("table1", "fig3", "table2", "fig4", "fig5", "fig6", "fig9", "fig10", "table4")


def cmd_kobayashi_data(args) -> None:
    from . import encoder_text as et
    from .io import write_parquet
    from .pretrained import load_encoder

    encoder = load_encoder()
    packed = et.pack_pairs(et.read_news(), encoder.tokenizer.tokenize, args.n_sequences, args.max_len)
    if len(packed) < args.n_sequences:
        raise AttnReproError(f"kobayashi2020.n_sequences: only {len(packed)} sequences of at most {args.max_len} "
                             f"tokens can be packed, not {args.n_sequences}")
    tokens = et.sequence_table(packed, encoder.tokenizer, et.read_frequency_ranks())
    write_parquet(tokens, args.out)
    print(f"{len(packed)} sequences, {len(tokens)} tokens, mean length {len(tokens) / len(packed):.1f}", file=sys.stderr)


def cmd_kobayashi_cache(args) -> None:
    from .io import read_parquet, write_csv, write_parquet
    from .pretrained import load_encoder, norm_cache, singular_value_table

    _threads(args.threads)
    tokens = read_parquet(args.tokens, require=KOBAYASHI_COLUMNS["tokens"], nonempty=True)
    encoder = load_encoder()
    cache = norm_cache(encoder, tokens, args.batch_size, args.pair_fraction, args.seed, log=sys.stderr)
    cache["svals"] = singular_value_table(encoder)
    worst = float(cache["error"].max_abs_error.max())
    if worst > 1e-4:  # Eq. 3 must rebuild the module's output; anything else means we read the wrong tensors
        raise AttnReproError(f"Σ αf(x) + b^O differs from the attention output by {worst:.2g}")
    out = Path(args.out_dir)
    for name in KOBAYASHI_CACHE:
        write_parquet(cache[name], out / f"{name}.parquet")
    print(cache["error"].to_string(), file=sys.stderr)


def _kobayashi_inputs(args, names):
    from .io import read_parquet

    tables = {"tokens": read_parquet(args.tokens, require=KOBAYASHI_COLUMNS["tokens"], nonempty=True)}
    tables.update({n: read_parquet(Path(args.cache_dir) / f"{n}.parquet", require=KOBAYASHI_COLUMNS[n], nonempty=True)
                   for n in names})
    return tables


def cmd_kobayashi_summary(args) -> None:
    from .analysis.kobayashi import fold_summary
    from .io import write_csv

    t = _kobayashi_inputs(args, ("heads", "pairs", "layers"))
    n_layers, n_heads = int(t["heads"].layer.max()), int(t["heads"]["head"].max())
    if t["tokens"].seq.nunique() < args.folds:
        raise AttnReproError(f"kobayashi2020.folds: {args.folds} folds need at least as many sequences")
    summary = fold_summary(t["tokens"], t["heads"], t["pairs"], t["layers"], args.folds, n_layers, n_heads)
    write_csv(summary, args.out)
    print(summary.to_string(), file=sys.stderr)


def cmd_kobayashi_figure(args) -> None:
    from .figures import kobayashi2020 as kf, save
    from .io import write_csv

    needs = {"table1": ("heads",), "table4": ("layers",), "fig3": ("heads",), "fig4": ("heads",),
             "fig10": ("heads",), "table2": ("heads", "pairs"), "fig5": ("pairs",), "fig6": ("heads",), "fig9": ("svals",)}
    if args.name not in needs:
        raise AttnReproError(f"unknown figure {args.name!r}; choose one of {KOBAYASHI_FIGURES}")
    t = _kobayashi_inputs(args, needs[args.name])
    name = args.name
    if name == "table1":
        fig, data = kf.table1(t["heads"])
    elif name == "table4":
        fig, data = kf.table4(t["layers"])
    elif name == "fig3":
        fig, data = kf.fig3(t["heads"], t["tokens"])
    elif name == "table2":
        fig, data = kf.table2(t["pairs"], t["tokens"], int(t["heads"].layer.max()), int(t["heads"]["head"].max()),
                              args.pair_fraction)
    elif name == "fig4":
        fig, data = kf.fig4(t["heads"], t["tokens"])
    elif name == "fig10":  # Appendix C: the same for [CLS], MiniLM's main sink
        fig, data = kf.fig4(t["heads"], t["tokens"], category="[CLS]")
    elif name == "fig5":
        fig, data = kf.fig5(t["pairs"], t["tokens"], args.max_points, args.seed)
    elif name == "fig6":
        fig, data = kf.fig6(t["heads"], t["tokens"])
    else:
        fig, data = kf.fig9(t["svals"])
    write_csv(data, args.csv)
    save(fig, args.png, args.pdf, dpi=args.dpi)


def _aer_tables(model_paths, vocab, data, sure, possible, vocab_path):
    """Per-layer AER (columns seed, layer, method, aer) and its per-seed summary for every seed of every model
    file, read with teacher forcing on ``data`` against the gold links ``sure`` / ``possible``."""
    import pandas as pd

    from .analysis.aer import aer_by_layer, best_and_mean
    from .alignment_readout import has_source_target_attention, source_target_alignments
    from .data import Vocab
    from .train import load_model

    src_words, tgt_words = (data.src_len - 1).numpy(), (data.tgt_len - 1).numpy()  # <eos> is no word
    per_layer, summary = [], []
    for path in model_paths:
        model, vocab_dict = load_model(path)
        if not has_source_target_attention(model):
            raise AttnReproError(f"{path}: arch {model.cfg.arch!r} has no source-target attention to align with")
        if vocab != Vocab.from_dict(vocab_dict):
            raise AttnReproError(f"{path}: trained on another vocabulary than {vocab_path}; retrain")
        soft, error = source_target_alignments(model, data.src, data.src_len, data.tgt_in)
        if error > 1e-4:  # Eq. 3 must rebuild the module's output; anything else means we read the wrong tensors
            raise AttnReproError(f"{path}: Σ αf(x) + b^O differs from the attention output by {error:.2g}")
        for seed, layers in zip(model.seeds, soft):
            df = aer_by_layer(layers, src_words, tgt_words, sure, possible)
            per_layer.append(df.assign(seed=seed))
            summary.append({"seed": seed, **best_and_mean(df)})
        print(f"{path}: decomposition error {error:.2g}", file=sys.stderr)
    per_layer = pd.concat(per_layer, ignore_index=True)[["seed", "layer", "method", "aer"]]
    return per_layer, pd.DataFrame(summary)


def _write_aer(per_layer, summary, out_dir) -> None:
    from .io import write_csv

    out = Path(out_dir)
    write_csv(per_layer, out / "aer.csv")
    write_csv(summary, out / "aer_summary.csv")
    print(summary.to_string(), file=sys.stderr)


def cmd_kobayashi_aer(args) -> None:
    from .io import read_parquet
    from .tasks.alignments import gold

    _threads(args.threads)
    task = json.loads(args.task_json)
    data_dir = Path(args.data_dir)
    vocab, test = _load_split(data_dir, "test")
    test = test.subset(slice(0, args.n_examples))
    pairs = read_parquet(data_dir / "test.parquet", columns=["src", "tgt"]).iloc[: args.n_examples]
    try:
        links = [gold(task, list(s), list(t)) for s, t in zip(pairs.src, pairs.tgt)]
    except ValueError as err:
        raise AttnReproError(f"{data_dir / 'test.parquet'}: {err}") from err
    per_layer, summary = _aer_tables(args.models, vocab, test, [s for s, _ in links], [p for _, p in links],
                                     data_dir / "vocab.json")
    _write_aer(per_layer, summary, args.out_dir)


def cmd_kobayashi_aer_gold(args) -> None:
    """AER against a gold alignment file (real translation): the sentence pairs are read in the experiment's
    vocabulary (unknown words -> <unk>) and fed with teacher forcing, exactly like the synthetic tasks' test pairs."""
    import pandas as pd

    from .data import EOS, PAD, SOS, Vocab, encode
    from .gold_alignments import check_lengths, in_vocabulary, read_gold_set
    from .io import read_json
    from .train import load_model

    _threads(args.threads)
    key = args.key
    gold = read_gold_set(args.source, args.target, args.alignment, args.index_base, key)
    if not Path(args.vocab).is_file():
        raise AttnReproError(f"{args.vocab}: file not found")
    vocab = Vocab.from_dict(read_json(args.vocab))
    special = {PAD, SOS, EOS}  # never a word of a sentence, even if a file spells one
    src = in_vocabulary(gold.src, [w for w in vocab.src if w not in special], args.source, f"{key}.source")
    tgt = in_vocabulary(gold.tgt, [w for w in vocab.tgt if w not in special], args.target, f"{key}.target")
    for path in args.models:  # before any model runs: every sentence must fit every model's position table
        model, _ = load_model(path)
        if model.cfg.arch in ("ao", "transformer"):
            check_lengths(gold, model.cfg.max_positions, args.source, args.target, key)
    data = encode(pd.DataFrame({"src": src, "tgt": tgt}), vocab)
    per_layer, summary = _aer_tables(args.models, vocab, data, gold.sure, gold.possible, args.vocab)
    _write_aer(per_layer, summary, args.out_dir)


def cmd_kobayashi_nmt_figure(args) -> None:
    import pandas as pd

    from .figures import kobayashi2020 as kf, save
    from .io import read_csv_checked, write_csv

    frames = []
    for item in args.aer:
        name, _, path = item.partition(":")
        frames.append(read_csv_checked(path, ["seed", "layer", "method", "aer"], nonempty=True).assign(experiment=name))
    per_layer = pd.concat(frames, ignore_index=True)
    fig, data = kf.fig7(per_layer) if args.name == "fig7" else kf.table3(per_layer)
    write_csv(data, args.csv)
    save(fig, args.png, args.pdf, dpi=args.dpi)


SPEC_HELP = ("as JSON; the workflow writes it from the config. `snakemake -n -p TARGET` prints the exact command a "
             "rule runs")
WHAT_TO_RUN = """\
what to run:
  snakemake --cores 2                        every figure and claim of the default config (the rules call the
                                             subcommands below with the right arguments)
  snakemake -n -p results/claims.csv         print the commands the rules would run, without running them
  attnrepro verify results/artifact.tar.gz   check an archived reproduction against its manifest
  attnrepro COMMAND --help                   what a subcommand reads and writes

Each subcommand writes its outputs atomically; a user-facing problem (bad config, missing or corrupt file) ends
with one line naming the culprit and exit status 2."""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("attnrepro")
    except PackageNotFoundError:  # run from a checkout's src/ without installing
        from . import __version__

        return __version__


def _sub(sub, name: str, help: str, func, **kwargs) -> argparse.ArgumentParser:
    """A subcommand whose --help starts with its one-line summary."""
    p = sub.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".", **kwargs)
    p.set_defaults(func=func)
    return p


def _device_threads(p) -> None:
    p.add_argument("--device", default="auto", help="cpu, cuda, or auto: cuda when the job sees a GPU (default)")
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's own choice)")


def _figure_files(p) -> None:
    p.add_argument("--png", required=True, help="the figure as PNG")
    p.add_argument("--pdf", required=True, help="the figure as PDF")
    p.add_argument("--csv", required=True, help="the numbers behind the figure")
    p.add_argument("--dpi", type=int, default=150, help="PNG resolution (default 150)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="attnrepro", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=WHAT_TO_RUN,
        description="Reproduce Aitken et al. 2021, Snell et al. 2021 and Kobayashi et al. 2020: the stages\n"
                    "the Snakemake workflow's rules run, one subcommand each.")
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    d = _sub(sub, "data", "generate a synthetic task's train/valid/test splits and vocabulary", cmd_data)
    d.add_argument("--task-json", required=True, help="the task's config block (key tasks.NAME) " + SPEC_HELP)
    d.add_argument("--out-dir", required=True, help="writes train/valid/test.parquet and vocab.json here")

    t = _sub(sub, "train", "train a group of seeds of one experiment, stacked, with checkpoints", cmd_train)
    t.add_argument("--spec-json", required=True, help="the resolved experiment (task, model, train) " + SPEC_HELP)
    t.add_argument("--seeds", type=int, nargs="+", required=True, help="the seeds trained together")
    t.add_argument("--data-dir", required=True, help="the task's folder (results/data/TASK)")
    t.add_argument("--ckpt-dir", required=True, help="checkpoints; a rerun resumes from the last one")
    t.add_argument("--model-out", required=True, help="model.pt, written last")
    t.add_argument("--metrics-out", required=True, help="metrics.csv: step, seed, loss, token/sequence accuracy")
    t.add_argument("--name", default="train", help="the experiment's name, for the log and error messages")
    _device_threads(t)

    e = _sub(sub, "export", "export a trained seed group's activations to Parquet", cmd_export)
    e.add_argument("--model", required=True, help="the seed group's model.pt")
    e.add_argument("--data-dir", required=True, help="the task's folder (its test split is read)")
    e.add_argument("--n-examples", type=int, required=True, help="test examples exported")
    e.add_argument("--out-dir", required=True, help="writes encoder/decoder/readout.parquet (docs/activations.md)")
    _device_threads(e)

    a = _sub(sub, "analyze", "decompose hidden states and alignments (Aitken et al. §2.1, Eq. 1-3)", cmd_analyze)
    a.add_argument("--export-dirs", nargs="+", required=True, help="every seed group's export folder")
    a.add_argument("--data-dir", required=True, help="the task's folder")
    a.add_argument("--arch", required=True, help="ved, aed or ao")
    a.add_argument("--task-json", required=True, help="the task's config block (for its dictionary) " + SPEC_HELP)
    a.add_argument("--out-dir", required=True, help="writes summary.csv and the analysis tables")

    f = _sub(sub, "figure", "draw one figure of Aitken et al. 2021 (panels: attnrepro.figures.panels)", cmd_figure)
    f.add_argument("name", help="the panel, e.g. fig2a")
    f.add_argument("--role", action="append", default=[], help="ROLE=EXPERIMENT[,EXPERIMENT...], once per role")
    f.add_argument("--meta-json", required=True,
                   help="experiment -> {analysis_dir, data_dir, task_kind, arch, cell} " + SPEC_HELP)
    f.add_argument("--seed", type=int, required=True, help="the seed drawn by single-model panels")
    _figure_files(f)

    ev = _sub(sub, "evaluate", "greedy decodes of a split: token/sequence accuracy and BLEU per seed", cmd_evaluate)
    ev.add_argument("--models", nargs="+", required=True, help="model.pt of each seed group")
    ev.add_argument("--data-dir", required=True, help="the task's folder")
    ev.add_argument("--split", default="test", choices=("train", "valid", "test"), help="default: test")
    ev.add_argument("--out", required=True, help="CSV: seed, split, n, token_acc, seq_acc, bleu")
    _device_threads(ev)

    c = _sub(sub, "claims", "aggregate per-seed measures into the claims table, with intervals and verdicts",
             cmd_claims)
    c.add_argument("--summary", nargs="+", required=True,
                   help="EXPERIMENT:TASK_KIND:ARCH:CELL:summary.csv, each (CELL may be empty; an experiment given "
                        "twice has its tables joined on seed)")
    c.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    c.add_argument("--out", required=True, help="results/claims.csv")
    c.add_argument("--markdown", help="also write the claims as Markdown (results/claims.md)")
    c.add_argument("--reference", action="append", default=[], metavar="LABEL=CSV",
                   help="a committed claims table (another config's claims.csv) shown beside this run's in the "
                        "Markdown, per claim (repeatable)")

    la = _sub(sub, "ladder", "the scale ladder: each claim's measure against width and training steps", cmd_ladder)
    la.add_argument("--claims", nargs="+", required=True, metavar="POINT=CSV", help="each ladder point's claims table")
    la.add_argument("--spec-json", required=True, help="points, base experiments' width and steps, claims shown "
                    + SPEC_HELP)
    la.add_argument("--csv", required=True, help="the stacked table (results/ladder/ladder.csv)")
    la.add_argument("--png", required=True, help="the figure (results/figures/ladder/ladder.png)")
    la.add_argument("--pdf", help="the figure as PDF too")
    la.add_argument("--dpi", type=int, default=150, help="resolution of the PNG (default 150)")

    ar = _sub(sub, "archive", "write the paper artifact (code, config, environment, results, manifest)",
              cmd_archive)
    ar.add_argument("--repo", required=True, help="the git checkout of the workflow")
    ar.add_argument("--results", required=True, help="the results folder")
    ar.add_argument("--config-json", required=True, help="the resolved config " + SPEC_HELP)
    ar.add_argument("--activations", action="store_true", help="include results/activations")
    ar.add_argument("--products", required=True,
                    help="file listing the outputs, logs and benchmarks of the config's jobs, one path a line")
    ar.add_argument("--out", required=True, help="the .tar.gz to write")

    rt = _sub(sub, "report-table", "a CSV table as an HTML page for snakemake --report (grouped by a column)",
              cmd_report_table)
    rt.add_argument("--csv", required=True, help="the table, e.g. results/claims.csv")
    rt.add_argument("--title", required=True, help="the page's heading")
    rt.add_argument("--group-by", help="one section per value of this column (e.g. paper)")
    rt.add_argument("--note", default="", help="a paragraph under the heading")
    rt.add_argument("--out", required=True, help="the HTML page")

    v = _sub(sub, "verify", "check an artifact (.tar.gz or unpacked folder) against its manifest", cmd_verify)
    v.add_argument("artifact", help="e.g. results/artifact.tar.gz")

    dl = _sub(sub, "download", "fetch one pinned corpus file, verified by its SHA-256", cmd_download)
    dl.add_argument("--url", required=True, help="where the file is published")
    dl.add_argument("--sha256", type=lambda s: None if s in ("", "null", "None") else s.lower(), required=True,
                    help="expected digest; 'null' for an unpinned file (needs --allow-unpinned)")
    dl.add_argument("--md5", type=str.lower, help="the publisher's MD5, checked when no SHA-256 is pinned")
    dl.add_argument("--out", required=True, help="where the verified file goes")
    dl.add_argument("--local-dir", help="offline mirror: copy LOCAL_DIR/LOCAL_NAME instead of downloading")
    dl.add_argument("--local-name", help="the file's path under --local-dir (default: the name of --out)")
    dl.add_argument("--allow-unpinned", action="store_true", help="accept a file with no pinned digest; "
                    "its log prints the SHA-256 to pin")

    pr = _sub(sub, "prepare", "turn a downloaded corpus into train/valid/test Parquet and vocab.json", cmd_prepare)
    pr.add_argument("--corpus-json", required=True, help="the corpus's config block (key corpora.NAME) " + SPEC_HELP)
    pr.add_argument("--raw-dir", required=True, help="the folder of its downloaded files")
    pr.add_argument("--out-dir", required=True, help="results/data/CORPUS")

    k = sub.add_parser("kobayashi2020", help="Kobayashi et al. 2020: the pretrained encoder (MiniLM) and AER",
                       description="Kobayashi et al. 2020: attention read as ‖αf(x)‖, on the pretrained MiniLM "
                                   "encoder (§4) and on the workflow's own models (AER, §5).")
    ks = k.add_subparsers(dest="step", required=True, metavar="STEP")
    kd = _sub(ks, "data", "pack news paragraphs as [CLS] p1 [SEP] p2 [SEP] with frequency ranks",
              cmd_kobayashi_data)
    kd.add_argument("--n-sequences", type=int, required=True, help="sequences packed")
    kd.add_argument("--max-len", type=int, required=True, help="tokens per sequence at most")
    kd.add_argument("--out", required=True, help="the token table (Parquet)")
    kc = _sub(ks, "cache", "run the encoder once; cache ‖f(x)‖, α and sampled pairs to Parquet", cmd_kobayashi_cache)
    kc.add_argument("--tokens", required=True, help="the token table of `kobayashi2020 data`")
    kc.add_argument("--batch-size", type=int, required=True, help="sequences per forward pass")
    kc.add_argument("--pair-fraction", type=float, required=True, help="share of (query, key) pairs kept")
    kc.add_argument("--seed", type=int, required=True, help="which pairs are kept")
    kc.add_argument("--out-dir", required=True, help="writes " + ", ".join(f"{n}.parquet" for n in KOBAYASHI_CACHE))
    kc.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    kss = _sub(ks, "summary", "per-fold measures for the claims", cmd_kobayashi_summary)
    kss.add_argument("--tokens", required=True, help="the token table")
    kss.add_argument("--cache-dir", required=True, help="the folder of `kobayashi2020 cache`")
    kss.add_argument("--folds", type=int, required=True, help="disjoint subsets of the sequences (replicates)")
    kss.add_argument("--out", required=True, help="summary.csv")
    kf = _sub(ks, "figure", "draw one figure or table of the paper", cmd_kobayashi_figure)
    kf.add_argument("name", choices=KOBAYASHI_FIGURES, help=", ".join(KOBAYASHI_FIGURES))
    kf.add_argument("--tokens", required=True, help="the token table")
    kf.add_argument("--cache-dir", required=True, help="the folder of `kobayashi2020 cache`")
    _figure_files(kf)
    kf.add_argument("--pair-fraction", type=float, default=0.01, help="the cache's, for the caption of table2")
    kf.add_argument("--max-points", type=int, default=200000, help="fig5: pairs drawn at most")
    kf.add_argument("--seed", type=int, default=0, help="fig5: which pairs are drawn")
    ka = _sub(ks, "aer", "AER per attention layer of a trained model: weights vs vector norms (§5)",
              cmd_kobayashi_aer)
    ka.add_argument("--models", nargs="+", required=True, help="model.pt of each seed group")
    ka.add_argument("--data-dir", required=True, help="the task's folder")
    ka.add_argument("--task-json", required=True, help="the task's config block (for its gold alignments) "
                    + SPEC_HELP)
    ka.add_argument("--n-examples", type=int, required=True, help="test examples scored")
    ka.add_argument("--out-dir", required=True, help="writes aer.csv and aer_summary.csv")
    ka.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    kg = _sub(ks, "aer-gold", "AER per attention layer against a gold alignment file (Pharaoh format)",
              cmd_kobayashi_aer_gold)
    kg.add_argument("--models", nargs="+", required=True, help="model.pt of each seed group")
    kg.add_argument("--vocab", required=True, help="the experiment's vocab.json")
    kg.add_argument("--source", required=True, help="source sentences, whitespace-tokenised, one per line")
    kg.add_argument("--target", required=True, help="target sentences, one per line")
    kg.add_argument("--alignment", required=True, help="Pharaoh links, one line per sentence pair")
    kg.add_argument("--index-base", type=int, choices=(0, 1), required=True, help="0 or 1: how the links count")
    kg.add_argument("--key", required=True, help="the config key of the gold set, for error messages")
    kg.add_argument("--out-dir", required=True, help="writes aer.csv and aer_summary.csv")
    kg.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    kn = _sub(ks, "nmt-figure", "Fig. 7 or Table 3 from the aer.csv of the scored experiments",
              cmd_kobayashi_nmt_figure)
    kn.add_argument("name", choices=("fig7", "table3"), help="fig7 or table3")
    kn.add_argument("--aer", nargs="+", required=True, help="EXPERIMENT:aer.csv, each")
    _figure_files(kn)

    from .snell.cli import add_parser as add_snell2021

    add_snell2021(sub)
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
