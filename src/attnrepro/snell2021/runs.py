"""One Snell et al. 2021 training run from its spec (:mod:`attnrepro.snell2021.config`), through the one engine.

A spec names the model (``seq2seq`` of §2.1/§5.2, ``classifier`` of §2.4, the bag-of-words ``proxy`` of §2.3),
the data (a copy distribution, the keyword toy, a classification set, a prepared translation set), the training
settings (:class:`attnrepro.run.config.TrainConfig`), the members, the probes recorded at every evaluation
(:mod:`attnrepro.snell2021.probes`) and what a diverged member does (``freeze`` where the result is a rate over runs).

The held-out set: of a synthetic task, ``n_eval`` examples of the ``evaluation`` stream of :data:`EVAL_SEED`, the
same for every run (the authors draw fresh ones at each evaluation); of a classification set, its test split (at
most ``n_eval`` examples); of a translation set, ``n_eval`` test pairs in the order of a permutation seeded by
``test_seed``. Evaluation is teacher-forced token accuracy over the real target tokens, ``<eos>`` included, as the
authors' copy code (for a classifier: accuracy).

Two optional records of App. A.4: with ``train_sample`` (n > 0) a run also records its probes on n training pairs
(:func:`train_sample`, the same for every run of a Table 2 row: Table 7's statistics on the training set), written
as ``train_probes.parquet``; with ``bleu_curve`` a seq2seq also decodes the held-out sources greedily at every
evaluation (Tables 4, 6, 8: p̂ as BLEU at each checkpoint), written as ``checkpoint_decodes.parquet``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import torch

from ..training.config import TrainConfig
from ..data.vocab import Encoded, expand
from ..training.engine import Member, Result, fit
from ..errors import AttnReproError
from ..io import arrow_column, atomic_path, quarantine, read_csv_checked, save_torch, write_csv, write_parquet
from ..provenance import SNELL_RUN, refuse
from ..seeding import generator, rng
from ..data.tokens import SOS
from . import tasks
from .classifier import Classifier, ClassifierConfig
from .probes import head_alignment, probe_table, recorder, rows
from .proxy import Proxy, ProxyConfig
from .seq2seq import Seq2Seq, Seq2SeqConfig

EVAL_SEED = 0
BEST_MODEL = "model_best.pt"   # a keep_best run's members at their best evaluation (engine.Result.best)
TRAIN_SAMPLE_SEED = 0  # Table 7's training pairs: one sample for every run of a Table 2 row


def load_data(data: dict, n_eval: int) -> tuple[object, Encoded, dict]:
    """(training source, held-out set, vocabulary: ``size``, and ``words`` where the set has them)."""
    task = data["task"]
    if task == "copy":
        source = tasks.CopyTask(data["kind"], data["length"], data["n_words"], data.get("task_seed", 0))
        return source, source(generator(EVAL_SEED, "evaluation"), n_eval), {"size": source.vocab}
    if task == "keyword":
        source = tasks.KeywordTask(data["length"], data["n_words"])
        return source, source(generator(EVAL_SEED, "evaluation"), n_eval), {"size": data["n_words"]}
    if task == "classification":
        from . import classification_sets as text

        if "data_dir" in data:  # a corpus prepared by the download rules: its own splits and vocabulary
            train, test, words = text.from_prepared(data["data_dir"], data["max_len"], data.get("bos_eos", False))
        else:
            train, test, words = text.prepare(text.load(data["name"]), n_test=data["n_test"],
                                              max_len=data["max_len"], min_count=data["min_count"], seed=data["seed"],
                                              bos_eos=data.get("bos_eos", False))
        return train, test.subset(slice(0, n_eval)), {"size": len(words), "words": words}
    if task == "translation":
        from . import parallel

        splits, words = parallel.load(Path(data["data_dir"]))
        test = splits["test"]
        pick = np.random.default_rng(data["test_seed"]).permutation(len(test))[:n_eval]
        return splits["train"], test.subset(torch.as_tensor(np.sort(pick), device="cpu")), {"size": len(words),
                                                                                           "words": words}
    raise ValueError(f"unknown Snell et al. task {task!r}")


def build_model(model: dict, vocab: dict, members: list[Member]):
    kind = model["type"]
    seeds = [m.seed for m in members]
    if kind == "seq2seq":
        cfg = Seq2SeqConfig(vocab["size"], model["hidden"], model.get("heads", 1), model["attention"],
                            model.get("score_bias", False), model.get("heads_combine", "sum"),
                            model.get("cell", "lstm"), model.get("shared_embedding", True))
        return Seq2Seq(cfg, seeds, [list(m.head_seeds) for m in members])
    if kind == "translation":
        from .translation_seq2seq import TranslationConfig, TranslationSeq2Seq

        return TranslationSeq2Seq(TranslationConfig(vocab["size"], model["hidden"], model["dropout"],
                                                    model["attention"], model.get("readout", "relu")), seeds)
    if kind == "classifier":
        return Classifier(ClassifierConfig(vocab["size"], model["hidden"], attention=model["attention"],
                                           embed=model.get("embed", 0)), seeds)
    if kind == "proxy":
        n_out = 2 if model.get("classification") else vocab["size"]
        return Proxy(ProxyConfig(vocab["size"], n_out, model["dim"], model.get("bias", False)), seeds)
    raise ValueError(f"unknown Snell et al. model {kind!r}")


def train_sample(source, n: int, seed: int = TRAIN_SAMPLE_SEED) -> Encoded:
    """``n`` training pairs whose probes Table 7 reads (App. A.4): of a stored split, n of its rows without
    replacement in the order of stream ``train_sample`` of ``seed``; of a synthetic task, n pairs of that stream."""
    if not isinstance(source, Encoded):
        return source(generator(seed, "train_sample"), n)
    if n > len(source):
        raise AttnReproError(f"snell2021.table2.train_sample ({n}) exceeds the {len(source)} training pairs of "
                             "the set; lower it")
    pick = rng(seed, "train_sample").permutation(len(source))[:n]
    return source.subset(torch.as_tensor(np.sort(pick), device="cpu"))  # a host-side set, as the training data


def greedy(model, batch: Encoded, vocab: dict) -> np.ndarray:
    """Greedy decodes [S, B, T] of a seq2seq on ``batch`` (T: the targets' width; cut at ``<eos>`` by the reader)."""
    start = vocab["words"].index(SOS) if "words" in vocab else vocab["size"] - 1
    return model.greedy_decode(batch.src, batch.src_len, batch.tgt_out.shape[-1], start).cpu().numpy()


def decode_rows(pred: np.ndarray) -> pd.DataFrame:
    """Decodes [S, B, T] as rows: member, example, predicted (int32 ids)."""
    s, b = pred.shape[:2]
    return pd.DataFrame({"member": np.repeat(np.arange(s), b), "example": np.tile(np.arange(b), s).astype(np.int32),
                         "predicted": [p.astype(np.int32) for p in pred.reshape(s * b, -1)]})


def decodes_table(decodes: pd.DataFrame) -> pa.Table:
    """Decode rows (seed, member, [step,] example, predicted) as the Parquet table of docs/activations.md."""
    keys = [k for k in ("seed", "member", "step", "example") if k in decodes]
    return pa.table({k: pa.array(decodes[k].to_numpy(), pa.int32()) for k in keys}
                    | {"predicted": pa.array(list(decodes.predicted), pa.list_(pa.int32()))})


def _with_appendix_records(spec: dict, record, source, vocab: dict, n_members: int):
    """``record`` plus App. A.4's optional records (the module docstring): ``train_probes`` and ``decodes``."""
    n = spec.get("train_sample", 0)
    sample = expand(train_sample(source, n), n_members) if n else None
    if not n and not spec.get("bleu_curve"):
        return record

    def both(model, batch: Encoded) -> dict[str, pd.DataFrame]:
        out = record(model, batch) if record is not None else {}
        if sample is not None:
            out["train_probes"] = record(model, sample.to(batch.src.device))["probes"]
        if spec.get("bleu_curve"):
            out["decodes"] = decode_rows(greedy(model, batch, vocab))
        return out
    return both


def members_of(spec: dict) -> list[Member]:
    return [Member(int(s), int(d), tuple(int(h) for h in hs)) for s, d, hs in spec["members"]]


def train(spec: dict, ckpt_dir, *, name: str, log=sys.stderr, on_step=None, device="cpu") -> tuple[Result, Encoded]:
    """Train the run of ``spec``; returns the engine's result and the held-out set."""
    cfg = TrainConfig.from_dict(spec["train"])
    try:
        source, valid, vocab = load_data(spec["data"], cfg.n_eval)
    except (FileNotFoundError, ValueError) as err:
        raise AttnReproError(f"{name}: {err}") from err
    if isinstance(source, Encoded):
        print(f"{name}: {len(source)} training examples, {len(valid)} held out, vocabulary {vocab['size']}", file=log)
    members = members_of(spec)
    model = build_model(spec["model"], vocab, members)
    record = head_alignment if spec.get("record") == ["head_alignment"] else recorder(spec.get("record", []))
    record = _with_appendix_records(spec, record, source, vocab, len(members))
    # the appendix keys only where on: the fingerprint (and checkpoints) of every other run stay as they were
    keys = ("model", "data", "record", *(k for k in ("train_sample", "bleu_curve") if spec.get(k)))
    result = fit(model, members, source, valid, cfg, ckpt_dir, name=name,
                 spec={k: spec[k] for k in keys}, divergence=spec["divergence"],
                 record=record, device=device, log=log, on_step=on_step, keep_best=bool(spec.get("keep_best")))
    return result, valid


def eval_table(valid: Encoded) -> pa.Table:
    """The held-out set as token ids over the real positions: example, src, tgt (``tgt_out``: the targets)."""
    src = [r[:n] for r, n in zip(valid.src.numpy(), valid.src_len.numpy())]
    tgt = [r[:n] for r, n in zip(valid.tgt_out.numpy(), valid.tgt_len.numpy())]
    as_list = lambda xs: pa.ListArray.from_arrays(  # noqa: E731
        pa.array(np.concatenate([[0], np.cumsum([len(x) for x in xs])]).astype(np.int32)),
        pa.array(np.concatenate(xs).astype(np.int32)))
    return pa.table({"example": pa.array(np.arange(len(src), dtype=np.int32)), "src": as_list(src),
                     "tgt": as_list(tgt)})


def write_run(spec: dict, result: Result, valid: Encoded, out_dir) -> None:
    """``eval.parquet``, ``probes.parquet`` (or ``heads.parquet``), ``metrics.csv``, with ``keep_best``
    ``model_best.pt`` (each member at its evaluation of highest accuracy, ``best_step``; what the export reads
    under ``snell2021.table2.export_at: best``), then ``model.pt`` last: its presence means the run finished."""
    import pyarrow.parquet as pq

    out = Path(out_dir)
    write_parquet(eval_table(valid), out / "eval.parquet")
    if spec.get("record") == ["head_alignment"]:
        heads = result.record_frame("heads")
        seeds = [hs for _, _, hs in spec["members"]]
        heads["head_seed"] = [seeds[m][k] for m, k in zip(heads.member, heads["head"])]
        write_parquet(heads, out / "heads.parquet")
    else:  # one row group per evaluation, streamed: the probes of a paper-scale run do not fit in memory twice
        probes = spec.get("record", [])
        with atomic_path(out / "probes.parquet") as tmp:
            with pq.ParquetWriter(tmp, probe_table(None, probes).schema) as writer:
                for part in result.records.get("probes", []):
                    writer.write_table(probe_table(pd.read_pickle(part), probes))
        if spec.get("train_sample"):
            write_parquet(probe_table(result.record_frame("train_probes"), probes), out / "train_probes.parquet")
    if spec.get("bleu_curve"):
        write_parquet(decodes_table(result.record_frame("decodes")), out / "checkpoint_decodes.parquet")
    write_csv(result.metrics, out / "metrics.csv")
    if result.best is not None:
        save_torch({"spec": spec, "state_dict": result.best["state_dict"], "best_step": result.best["step"]},
                   out / BEST_MODEL)
    save_torch({"spec": spec, "state_dict": result.model.state_dict()}, out / "model.pt")


def load_run(path, option: str = "--model") -> tuple[dict, torch.nn.Module, Encoded, dict]:
    """(spec, model, held-out set, vocabulary) of a finished run's ``model.pt`` (or ``model_best.pt``). One that is
    unreadable or not a run's model is moved aside only at a run's place (:func:`attnrepro.provenance.refuse`);
    anywhere else the error names ``option``, which named it, and the file stays."""
    path = Path(path)
    if not path.exists():
        raise AttnReproError(f"{option} {path}: model file not found")
    try:
        blob = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as err:  # a truncated file raises anything from EOFError to RuntimeError
        first = (str(err).strip().splitlines() or [""])[0]  # torch's pickle errors run over several lines
        raise refuse(path, SNELL_RUN, f"not a readable model file ({type(err).__name__}: {first})",
                     option) from err
    if not isinstance(blob, dict) or not isinstance(blob.get("spec"), dict) or "state_dict" not in blob:
        raise refuse(path, SNELL_RUN, "not the model of a Snell et al. run (no spec and weights)", option)
    spec = blob["spec"]
    _, valid, vocab = load_data(spec["data"], TrainConfig.from_dict(spec["train"]).n_eval)
    model = build_model(spec["model"], vocab, members_of(spec))
    try:
        model.load_state_dict(blob["state_dict"])
    except RuntimeError as err:
        raise AttnReproError(f"{path}: does not match its own spec ({err}); retrain it") from err
    return spec, model.eval(), valid, vocab   # eval: no dropout in the exported saliency and decodes


def export(path, device="cpu") -> tuple[pa.Table, pa.Table]:
    """What the model of a run (``model.pt``, the final one, or ``model_best.pt``) gives beyond its training records: gradient saliency Δ of every held-out
    row (§5.1) and, for a seq2seq, its greedy decodes of the held-out sources (``predicted``: token ids up to the
    held-out targets' width, cut at ``<eos>`` by the reader)."""
    spec, model, valid, vocab = load_run(path)
    model = model.to(device)
    batch = expand(valid, model.n_seeds).to(device)
    args = (batch.src, batch.src_len, batch.tgt_in, batch.tgt_out)
    table = rows({"delta": model.saliency(*args)}, batch)
    seeds = [m.seed for m in members_of(spec)]
    table["seed"] = [seeds[m] for m in table.member]
    saliency = pa.table({"seed": pa.array(table.seed, pa.int32()), "member": pa.array(table.member, pa.int32()),
                         "example": pa.array(table.example, pa.int32()), "t": pa.array(table.t, pa.int16()),
                         "src_len": pa.array(table.src_len, pa.int16()), "delta": arrow_column(table.delta)})
    decoded = pd.DataFrame({"member": pd.Series(dtype="int32"), "example": pd.Series(dtype="int32"),
                            "predicted": pd.Series(dtype=object)})
    if spec["model"]["type"] in ("seq2seq", "translation"):
        decoded = decode_rows(greedy(model, batch, vocab))
    return saliency, decodes_table(decoded.assign(seed=[seeds[m] for m in decoded.member]))


def export_alpha_opt(path, iterations: int, device="cpu") -> pa.Table:
    """App. A.1: α^opt of every held-out target token of a linear-read-out (Eq. 32) translation run's final model,
    beside that model's lexical probe β (Eq. 4 / 28), one row per (member, example, t) as the probe tables
    (:mod:`.probes`; ``alpha_opt``, ``beta``)."""
    from .optimal_attention import model_alpha_opt

    spec, model, valid, _ = load_run(path)
    if spec["model"].get("readout") != "linear":
        raise AttnReproError(f"{path}: α^opt needs a run of App. A.1's linear read-out (model.readout: linear), "
                             f"not {spec['model'].get('readout', 'relu')!r}")
    model = model.to(device)
    batch = expand(valid, model.n_seeds).to(device)
    args = (batch.src, batch.src_len, batch.tgt_in, batch.tgt_out)
    table = rows({"alpha_opt": model_alpha_opt(model, *args, iterations=iterations),
                  "beta": model.lexical_probe(*args)}, batch)
    seeds = [m.seed for m in members_of(spec)]
    return pa.table({"seed": pa.array([seeds[m] for m in table.member], pa.int32()),
                     "member": pa.array(table.member, pa.int32()), "example": pa.array(table.example, pa.int32()),
                     "t": pa.array(table.t, pa.int16()), "src_len": pa.array(table.src_len, pa.int16()),
                     "alpha_opt": arrow_column(table.alpha_opt), "beta": arrow_column(table.beta)})


def read_metrics(path) -> pd.DataFrame:
    """A run's ``metrics.csv``: every member that did not diverge has a finite accuracy at every evaluation (a NaN
    would count as "not failed"); a table that breaks this is not the one :func:`run` wrote and is moved aside."""
    df = read_csv_checked(path, require=["step", "member", "seed", "token_acc", "diverged"])
    bad = df[~df.diverged.astype(bool) & ~np.isfinite(pd.to_numeric(df.token_acc, errors="coerce"))]
    if len(bad):
        raise quarantine(Path(path), f"token_acc is not a finite number in {len(bad)} row(s) of members that did "
                                     f"not diverge (first: step {bad.step.iloc[0]}, seed {bad.seed.iloc[0]})")
    return df
