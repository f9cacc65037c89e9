"""Measured effects of two Aitken et al. 2021 deviations on a finished run's trained models (docs/deviations.md,
Aitken "Remaining differences", rows "accuracy" and "Fig. 6d's offset").

Reads, under ``--results`` (read only: a bad file is named, never moved aside), for every experiment of
``--config``'s ``experiments`` block: ``models/<experiment>/<chunk>/model.pt``, ``data/<task>/{vocab.json,
test.parquet}`` and the run's ``analysis/<experiment>/{summary,evaluation}.csv`` where present; for the eSCAN
experiments also ``activations/<experiment>/<chunk>/{encoder,decoder}.parquet`` and
``analysis/<experiment>/offsets.parquet``.
Writes ``--out`` (default ``bench/results/aitken_deviation_effects.json``):

- ``accuracy`` (row "accuracy"): per experiment, the test split's shape (examples, padded width L = longest target
  + ``<eos>``, the share of the B·L positions that are real, target lengths) and per seed the greedy decodes'
  ``token_acc`` (real positions, :func:`attnrepro.evaluation.accuracies`, what ``attnrepro evaluate`` reports),
  ``padded_token_acc`` (the authors' accuracy_fun, :func:`attnrepro.evaluation.padded_token_accuracy`),
  ``word_acc`` (1 − word error rate, the summary's definition) and ``seq_acc``; means over seeds; and
  ``check``: the largest |difference| from the run's own numbers: summary.csv's token_acc / word_acc (the
  analysed experiments; they read the exported greedy decodes of the first ``export.n_examples`` test examples,
  so 0 is expected where those are the whole split) and evaluation.csv's token_acc / seq_acc (the transformers,
  written by ``attnrepro evaluate``).
- ``offset`` (row "Fig. 6d's offset"): per eSCAN experiment and seed, 'left''s rank correlation read three ways:
  ``rho_t_minus_s`` (ours, ``left_offset_rho``: pooled μ_s^D·(χ_left^E + Δh_t^E) against t − s over −5 … 5,
  recomputed from offsets.parquet and checked against summary.csv), ``rho_s_minus_t`` (the same points against
  s − t) and ``rho_authors_k`` (the authors' ``enc_word_dec_temp`` curve, :func:`attnrepro.aitken2021.alignment.
  word_temporal_dots` with b_off 2, f_off 4 from the exported states, against its own index k = s − t), with
  both curves' values.

Decodes run on one thread; the whole script took 32 s on the shared 2-core machine (2026-11-26).

    python bench/aitken_deviation_effects.py --results /tmp/run_default/results [--config config/config.yaml]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
import torch
import yaml
from scipy.stats import spearmanr

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from attnrepro.aitken2021.accuracy import edit_distance  # noqa: E402
from attnrepro.aitken2021.analysis import _codes  # noqa: E402 (the words -> ids of analyze_seed)
from attnrepro.aitken2021.alignment import word_offset_measures, word_temporal_dots  # noqa: E402
from attnrepro.aitken2021.decomposition import decompose  # noqa: E402
from attnrepro.bleu import sentences  # noqa: E402
from attnrepro.cli.common import load_split  # noqa: E402
from attnrepro.evaluation import accuracies, greedy_predictions, padded_token_accuracy  # noqa: E402
from attnrepro.export import states  # noqa: E402
from attnrepro.io import RESULTS_ROOT_ENV, read_csv_checked, read_json, read_parquet, read_parquet_table  # noqa: E402
from attnrepro.tokens import SOS  # noqa: E402
from attnrepro.train import load_model  # noqa: E402

ACC_COLUMNS = ["token_acc", "padded_token_acc", "word_acc", "seq_acc"]


def word_accuracy(pred: np.ndarray, tgt_out: np.ndarray, words: list[str]) -> float:
    """1 − word error rate of decodes ``pred`` [M, L] against ``tgt_out`` [M, L], each cut at ``<eos>``: the
    definition of :func:`attnrepro.aitken2021.accuracy.word_accuracy`, on id tensors instead of exported rows."""
    hyps, refs = sentences(pred, words, "hypothesis"), sentences(tgt_out, words, "reference")
    errors = sum(edit_distance(h.split(), r.split()) for h, r in zip(hyps, refs))
    return 1.0 - errors / sum(len(r.split()) for r in refs)


def accuracy_row(results: Path, name: str, task: str) -> dict:
    """Every seed group of one experiment decoded on its test split and scored the two ways."""
    models = sorted((results / "models" / name).glob("*/model.pt"))
    if not models:
        raise FileNotFoundError(f"{results / 'models' / name}: no <chunk>/model.pt")
    data_dir = results / "data" / task
    per_seed = []
    for path in models:
        model, _ = load_model(path, "cpu", experiment=name)
        vocab, data = load_split(data_dir, "test", model.provenance["task"])
        pred = greedy_predictions(model, data, vocab.tgt.index(SOS))
        target = data.tgt_out.unsqueeze(0).expand_as(pred)
        token_acc, seq_acc = accuracies(pred, target)
        padded = padded_token_accuracy(pred, target)
        for s, seed in enumerate(model.seeds):
            per_seed.append({"seed": int(seed), "token_acc": float(token_acc[s]), "padded_token_acc": float(padded[s]),
                             "word_acc": word_accuracy(pred[s].numpy(), data.tgt_out.numpy(), vocab.tgt),
                             "seq_acc": float(seq_acc[s])})
    real = data.tgt_out != 0
    lengths = data.tgt_len
    row = {"task": task, "n_examples": len(data), "padded_width": int(data.tgt_out.shape[1]),
           "real_share": float(real.float().mean()), "target_words_min": int(lengths.min()) - 1,
           "target_words_max": int(lengths.max()) - 1, "per_seed": per_seed,
           "mean": {c: float(np.mean([r[c] for r in per_seed])) for c in ACC_COLUMNS}}
    row["mean"]["padded_minus_token"] = row["mean"]["padded_token_acc"] - row["mean"]["token_acc"]
    row["check"] = {}
    for table, columns in (("summary.csv", ("token_acc", "word_acc")), ("evaluation.csv", ("token_acc", "seq_acc"))):
        path = results / "analysis" / name / table  # summary: analysed experiments; evaluation: transformers
        if path.exists():
            stored = read_csv_checked(path, require=["seed", *columns]).set_index("seed")
            row["check"][table] = {c: float(max(abs(r[c] - stored.at[r["seed"], c]) for r in per_seed))
                                   for c in columns}
    return row


def offset_row(results: Path, name: str, task: str) -> dict:
    """'left''s Fig. 6d rank correlation per seed, ours pooled over t − s and the authors' per-step curve over
    k = s − t, from the run's own exports."""
    vocab = read_json(results / "data" / task / "vocab.json")
    offsets = read_parquet(results / "analysis" / name / "offsets.parquet")
    summary = read_csv_checked(results / "analysis" / name / "summary.csv", require=["seed", "left_offset_rho"])
    left = vocab["src"].index("left")
    per_seed = []
    for chunk in sorted((results / "activations" / name).iterdir()):
        enc_t = read_parquet_table(chunk / "encoder.parquet", require=["seed", "example", "t", "h"], nonempty=True)
        dec_t = read_parquet_table(chunk / "decoder.parquet", require=["seed", "example", "s", "h"], nonempty=True)
        for seed in sorted(set(enc_t.column("seed").to_pylist())):
            enc, enc_v = states(enc_t, seed, ("example", "t"))
            dec, dec_v = states(dec_t, seed, ("example", "s"))
            # the attention's own keys and queries where exported (analyze_seed's choice), else the states
            E = decompose(enc_v.get("key", enc_v["h"]), enc["t"].to_numpy(), _codes(enc["token"], vocab["src"]),
                          n_tokens=len(vocab["src"]))
            D = decompose(dec_v.get("query", dec_v["h"]), dec["s"].to_numpy(), _codes(dec["token"], vocab["tgt"]),
                          n_tokens=len(vocab["tgt"]))
            curve = word_temporal_dots(D.mu, E)
            authors = curve[curve.word == left].sort_values("k")
            mine = offsets[(offsets.seed == seed) & (offsets.by == "t") & (offsets.word == "left")]
            ours = mine.sort_values("offset")
            rho = word_offset_measures(offsets[offsets.seed == seed])["left_offset_rho"]
            per_seed.append({
                "seed": int(seed), "rho_t_minus_s": rho,
                "rho_s_minus_t": float(spearmanr(-ours.offset, ours.mu_input).statistic),
                "rho_authors_k": float(spearmanr(authors["k"], authors["dot"]).statistic),
                "check_summary": abs(rho - float(summary.set_index("seed").at[seed, "left_offset_rho"])),
                "ours_curve": dict(zip(ours.offset.astype(int).astype(str), ours.mu_input.round(4).tolist())),
                "authors_curve": dict(zip(authors["k"].astype(int).astype(str), authors["dot"].round(4).tolist()))})
    keys = ("rho_t_minus_s", "rho_s_minus_t", "rho_authors_k")
    return {"task": task, "ours_axis": "offset = t − s, −5 … 5, pooled over (example, s) pairs",
            "authors_axis": "k = s − t, −2 … 4, per encoder step t ∈ [2, min(T, S) − 4), steps weighted equally",
            "per_seed": per_seed, "mean": {k: float(np.mean([r[k] for r in per_seed])) for k in keys}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", type=Path, default=ROOT / "results", help="a finished run's results folder")
    p.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml", help="the config that made it")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "aitken_deviation_effects.json")
    a = p.parse_args()
    # the readers move a corrupt workflow output aside; point their results root away from --results so nothing
    # there is ever moved (a bad file stops the script with its name instead)
    os.environ[RESULTS_ROOT_ENV] = str(a.out.resolve().parent)
    torch.set_num_threads(1)
    cfg = yaml.safe_load(a.config.read_text())
    tasks = cfg["tasks"]
    config = a.config.resolve()
    out = {"benchmark": "aitken_deviation_effects", "results": str(a.results),
           "config": str(config.relative_to(ROOT) if config.is_relative_to(ROOT) else config),
           "seeds": cfg["seeds"], "accuracy": {}, "offset": {}}
    for name, spec in cfg["experiments"].items():
        task = spec["task"]
        row = accuracy_row(a.results, name, task)
        out["accuracy"][name] = row
        m = row["mean"]
        print(f"{name}: token {m['token_acc']:.4f} padded {m['padded_token_acc']:.4f} word {m['word_acc']:.4f}"
              f" (real share {row['real_share']:.3f})", file=sys.stderr)
        if tasks[task]["kind"] == "escan":
            out["offset"][name] = offset_row(a.results, name, task)
            print(f"{name}: left rho {out['offset'][name]['mean']}", file=sys.stderr)
    a.out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(a.out)


if __name__ == "__main__":
    main()
