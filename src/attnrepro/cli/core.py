"""The core's stages, the same for every paper: a synthetic task's data, stacked training, activation export,
greedy evaluation (``attnrepro data|train|export|evaluate``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import AttnReproError
from ..data.tokens import SOS
from .common import (SPEC_HELP, DistinctSeeds, device_threads, expected_experiment, json_option, load_split,
                     pick_device, positive, same_vocabulary, sub, threads)


# -- data ---------------------------------------------------------------------------------------------------
def cmd_data(args) -> None:
    from ..data import tasks
    from ..data.vocab import Vocab, write_task

    task = json.loads(args.task_json)
    out = Path(args.out_dir)
    try:
        splits = tasks.generate(task)
    except (ValueError, FileNotFoundError) as err:
        raise AttnReproError(f"task {out.name}: {err}") from err
    write_task(splits, Vocab.from_words(*tasks.words(task, splits)).to_dict(), out)


# -- train --------------------------------------------------------------------------------------------------
def cmd_train(args) -> None:
    from ..run.budget import check_training_memory
    from ..training.config import TrainConfig
    from ..io import write_csv
    from ..seq2seq.model import ModelConfig
    from ..seq2seq.train import save_model, train

    threads(args.threads)
    spec = json.loads(args.spec_json)
    data_dir = Path(args.data_dir)
    vocab, train_data = load_split(data_dir, "train", spec["task"], "--spec-json")
    _, valid_data = load_split(data_dir, "valid", spec["task"], "--spec-json")
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
                           sos=vocab.tgt.index(SOS), name=args.name, device=pick_device(args.device))
    # metrics first: the model file is the rule's last output, so its presence means the job finished
    write_csv(metrics, args.metrics_out)
    save_model(model, vocab.to_dict(), args.model_out, experiment=args.name, task=spec["task"], spec=spec)
    last = metrics[metrics.step == metrics.step.max()]
    print(f"final token accuracy per seed: {dict(zip(last.seed, last.token_acc.round(4)))}", file=sys.stderr)


# -- export -------------------------------------------------------------------------------------------------
def cmd_export(args) -> None:
    from ..data.vocab import Vocab
    from ..seq2seq.export import export_activations, parquet_options
    from ..io import write_parquet
    from ..seq2seq.train import load_model

    threads(args.threads)
    device = pick_device(args.device)
    model, vocab_dict = load_model(args.model, device, experiment=args.experiment)
    vocab, test = load_split(Path(args.data_dir), "test", model.provenance["task"])
    same_vocabulary(vocab, vocab_dict, args.model, Path(args.data_dir) / "vocab.json")
    tables = export_activations(model, test.subset(slice(0, args.n_examples)), vocab, device, pass_=args.pass_)
    for name, table in tables.items():
        write_parquet(table, Path(args.out_dir) / f"{name}.parquet", **parquet_options(table))
        print(f"{name}: {table.num_rows} rows", file=sys.stderr)


# -- evaluate -----------------------------------------------------------------------------------------------
def cmd_evaluate(args) -> None:
    import pandas as pd

    from ..data.vocab import Vocab
    from ..seq2seq.evaluation import evaluate_split
    from ..io import write_csv
    from ..seq2seq.train import load_model

    threads(args.threads)
    device = pick_device(args.device)
    data_dir = Path(args.data_dir)
    frames = []
    for path in args.models:
        model, vocab_dict = load_model(path, device, experiment=args.experiment, option="--models")
        vocab, data = load_split(data_dir, args.split, model.provenance["task"])
        same_vocabulary(vocab, vocab_dict, path, data_dir / "vocab.json")
        frames.append(evaluate_split(model, data, vocab.tgt, vocab.tgt.index(SOS), device))
    table = pd.concat(frames, ignore_index=True)
    table.insert(1, "split", args.split)
    write_csv(table, args.out)
    print(table.to_string(), file=sys.stderr)


def add_parsers(subparsers) -> None:
    d = sub(subparsers, "data", "generate a synthetic task's train/valid/test splits and vocabulary", cmd_data)
    json_option(d, "--task-json", ("kind", "max_len", "seed"),
                required=True, help="the task's config block (key tasks.NAME) " + SPEC_HELP)
    d.add_argument("--out-dir", required=True, help="writes train/valid/test.parquet and vocab.json here")

    t = sub(subparsers, "train", "train a group of seeds of one experiment, stacked, with checkpoints", cmd_train)
    json_option(t, "--spec-json", ("task", "model", "train"),
                required=True, help="the resolved experiment (task, model, train) " + SPEC_HELP)
    t.add_argument("--seeds", type=int, nargs="+", required=True, action=DistinctSeeds,
                   help="the seeds trained together, each once")
    t.add_argument("--data-dir", required=True, help="the task's folder (results/data/TASK)")
    t.add_argument("--ckpt-dir", required=True, help="checkpoints; a rerun resumes from the last one")
    t.add_argument("--model-out", required=True, help="model.pt, written last")
    t.add_argument("--metrics-out", required=True, help="metrics.csv: step, seed, loss, token/sequence accuracy")
    t.add_argument("--name", default="train", help="the experiment's name, for the log and error messages")
    device_threads(t)

    e = sub(subparsers, "export", "export a trained seed group's activations to Parquet", cmd_export)
    e.add_argument("--model", required=True, help="the seed group's model.pt")
    e.add_argument("--data-dir", required=True, help="the task's folder (its test split is read)")
    e.add_argument("--n-examples", type=positive, required=True, help="test examples exported")
    e.add_argument("--pass", dest="pass_", default="teacher_forced", choices=("teacher_forced", "greedy"),
                   help="the decoder pass exported: teacher_forced (reads the previous target word; default) or "
                        "greedy (reads its own previous prediction, Aitken et al.'s notebook; docs/activations.md)")
    expected_experiment(e)
    e.add_argument("--out-dir", required=True, help="writes encoder/decoder/readout.parquet (docs/activations.md)")
    device_threads(e)

    ev = sub(subparsers, "evaluate", "greedy decodes of a split: token/sequence accuracy and BLEU per seed", cmd_evaluate)
    ev.add_argument("--models", nargs="+", required=True, help="model.pt of each seed group")
    ev.add_argument("--data-dir", required=True, help="the task's folder")
    ev.add_argument("--split", default="test", choices=("train", "valid", "test"), help="default: test")
    ev.add_argument("--out", required=True, help="CSV: seed, split, n, token_acc, seq_acc, bleu")
    expected_experiment(ev)
    device_threads(ev)
