"""Measured effects of three Aitken et al. 2021 deviations on a finished run's trained models and exports
(docs/deviations.md, Aitken "Remaining differences", rows "accuracy", "Fig. 6d's offset" and "test set").

Reads, under ``--results`` (read only: a bad file is named, never moved aside), for every experiment of
``--config``'s ``experiments`` block: ``models/<experiment>/<chunk>/model.pt``, ``data/<task>/{vocab.json,
test.parquet}`` and the run's ``analysis/<experiment>/{summary,evaluation}.csv`` where present; for the eSCAN
experiments also ``activations/<experiment>/<chunk>/{encoder,decoder}.parquet`` and
``analysis/<experiment>/offsets.parquet``.
Writes ``--out`` (default ``studies/aitken2021/results/aitken_deviation_effects.json``):

- ``accuracy`` (row "accuracy"): per experiment, the test split's shape (examples, padded width L = longest target
  + ``<eos>``, the share of the B·L positions that are real, target lengths) and per seed the greedy decodes'
  ``token_acc`` (real positions, :func:`attnrepro.seq2seq.evaluation.accuracies`, what ``attnrepro evaluate`` reports),
  ``padded_token_acc`` (the authors' accuracy_fun, :func:`attnrepro.seq2seq.evaluation.padded_token_accuracy`),
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

``--measure testset`` (row "test set": the authors analyse 200 test sequences, the workflow the ``export.n_examples``
exported, 1,000 in the paper configs) writes ``--out``
(default ``studies/aitken2021/results/aitken_testset_effect.json``). For every recurrent experiment of ``--config`` it reads the exports as ``attnrepro aitken2021 analyze`` does and calls
the same :func:`attnrepro.aitken2021.analysis.analyze_exports`, first on the whole export (checked against the
run's summary.csv) and then on ``--draws`` random ``--sample``-subsets of the exported examples (draw d from
``numpy.random.default_rng([TESTSET_SEED, d])``; one subset per draw, shared by every seed and experiment, as one
test set is). Each draw's summaries, with the run's other per-seed tables (aer_summary.csv), go through the claims
step's own :func:`attnrepro.verdicts.claims.summarize` and :func:`attnrepro.verdicts.combine.by_claim`; reported per claim row: the
full-set median and interval and their spread over draws, the verdicts the draws give and how often they differ
from the full set's, and per seed the measure's spread. ``--cache FILE`` keeps the analysed summaries, so that a later
run with more ``--draws`` analyses only the further ones (each draw has its own seed: the first are the same). On
the paper slice a draw of the six experiments took about 12 s of one core (2026-11-26).

    python studies/aitken2021/aitken_deviation_effects.py --results /tmp/run_default/results \
        [--config config/config.yaml]
    python studies/aitken2021/aitken_deviation_effects.py --measure testset --results results_paper_slice \
        --config config/paper_slice.yaml [--draws 200] [--sample 200]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch
import yaml
from scipy.stats import spearmanr

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from attnrepro.aitken2021.accuracy import edit_distance  # noqa: E402
from attnrepro.aitken2021.analysis import _codes  # noqa: E402 (the words -> ids of analyze_seed)
from attnrepro.aitken2021.alignment import word_offset_measures, word_temporal_dots  # noqa: E402
from attnrepro.aitken2021.decomposition import decompose  # noqa: E402
from attnrepro.seq2seq.bleu import sentences  # noqa: E402
from attnrepro.cli.common import load_split  # noqa: E402
from attnrepro.seq2seq.evaluation import accuracies, greedy_predictions, padded_token_accuracy  # noqa: E402
from attnrepro.seq2seq.export import states  # noqa: E402
from attnrepro.io import RESULTS_ROOT_ENV, read_csv_checked, read_json, read_parquet, read_parquet_table  # noqa: E402
from attnrepro.data.tokens import SOS  # noqa: E402
from attnrepro.seq2seq.train import load_model  # noqa: E402

ACC_COLUMNS = ["token_acc", "padded_token_acc", "word_acc", "seq_acc"]
TESTSET_SEED = 200  # the test-set subsets' numpy seed (draw d: default_rng([TESTSET_SEED, d]))
NO_ROW = "no row"  # a claim row a subset cannot read (its measure undefined there)
OUTPUTS = {"accuracy_offset": "aitken_deviation_effects.json", "testset": "aitken_testset_effect.json"}


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


def draw_subsets(examples, size: int, draws: int, seed: int = TESTSET_SEED) -> list[np.ndarray]:
    """``draws`` subsets of ``size`` of the example ids ``examples``, each without replacement and sorted; draw d
    from its own generator ``default_rng([seed, d])``, so a run with fewer draws repeats the first ones."""
    pool = np.unique(np.asarray(examples))
    if not 0 < size <= len(pool):
        raise ValueError(f"--sample {size}: choose 1 … {len(pool)} (the exported examples)")
    return [np.sort(np.random.default_rng([seed, d]).choice(pool, size, replace=False)) for d in range(draws)]


def subset_group(group, examples: np.ndarray):
    """One exported seed group (encoder, decoder, readout Arrow tables) cut to the rows of ``examples`` and its
    example ids renumbered 0 … len(examples) − 1 in their order; the readout (weights, no examples) kept whole.
    Renumbered because the analysis sizes its [examples, S, T] matrices by the largest id (``decomposition.
    term_scores``: an export holds the first n test examples, ids 0 … n − 1), and an absent id's row of no encoder
    steps turns ``mechanisms.average_map_fit``'s mean attention into NaN; the order, and so the maps of the first
    examples, is kept."""
    import pyarrow as pa
    import pyarrow.compute as pc

    order = np.sort(np.asarray(examples, dtype=np.int64))
    keep = pa.array(order)

    def cut(table):
        table = table.filter(pc.is_in(table.column("example"), value_set=keep))
        new = np.searchsorted(order, table.column("example").to_numpy()).astype(np.int64)
        i = table.schema.get_field_index("example")
        return table.set_column(i, pa.field("example", table.schema.field(i).type), pa.array(new).cast(
            table.schema.field(i).type))

    enc, dec, readout = group
    return cut(enc), cut(dec), readout


def spread(values) -> dict:
    """Mean, sd (ddof 1) and the 2.5–97.5% range of one reading over draws (NaN values, undefined on a subset,
    left out and counted)."""
    v = np.asarray(values, dtype=float)
    ok = v[~np.isnan(v)]
    if len(ok) == 0:
        return {"mean": None, "sd": None, "p2_5": None, "p97_5": None, "nan": int(len(v))}
    return {"mean": float(ok.mean()), "sd": float(ok.std(ddof=1)) if len(ok) > 1 else 0.0,
            "p2_5": float(np.percentile(ok, 2.5)), "p97_5": float(np.percentile(ok, 97.5)),
            "nan": int(len(v) - len(ok))}


def verdict_counts(full: str, draws: list[str]) -> dict:
    """How often the draws' verdicts differ from the full set's, and the count of each verdict."""
    return {"full": full, "differ": int(sum(v != full for v in draws)), "draws": len(draws),
            "counts": {v: draws.count(v) for v in sorted(set(draws))}}


def read_exports(results: Path, name: str) -> list[tuple]:
    """Every exported seed group of ``name``, read with the columns ``attnrepro aitken2021 analyze`` requires."""
    out = []
    for d in sorted((results / "activations" / name).iterdir()):
        out.append((read_parquet_table(d / "encoder.parquet", require=["seed", "example", "t", "h"], nonempty=True),
                    read_parquet_table(d / "decoder.parquet", require=["seed", "example", "s", "hypothesis", "h"],
                                       nonempty=True),
                    read_parquet_table(d / "readout.parquet", require=["seed", "token", "weight", "bias"],
                                       nonempty=True)))
    return out


def testset_effect(a: argparse.Namespace, cfg: dict) -> dict:
    """Row "test set": the claims read on ``a.draws`` random ``a.sample``-subsets of the exported test examples."""
    import pandas as pd

    from attnrepro.run import layout
    from attnrepro.io import use_results_root
    from attnrepro.data import tasks
    from attnrepro.aitken2021.analysis import analyze_exports
    from attnrepro.verdicts.claims import merge_replicates, summarize
    from attnrepro.verdicts.combine import by_claim
    from attnrepro.run.config import task_spec
    from attnrepro.verdicts.papers import CLAIMS, model_check, tested_on

    use_results_root({"results": str(a.results.resolve())})
    sources = layout.claim_sources(cfg)
    experiments = {s.experiment: (s.task_kind, s.arch, s.cell, s.attention) for s in sources}
    tables: dict[str, list] = {}
    for s in sources:
        tables.setdefault(s.experiment, []).append((s.path, read_csv_checked(s.path)))
    analysed = [n for n in cfg["experiments"] if f"{layout.analysis_dir(n)}/summary.csv" in dict(tables.get(n, []))]
    subsets, first, full, per_draw, check = None, None, {}, {}, {}
    if a.cache and a.cache.exists():  # an earlier run's analysed summaries: its draws are the first of these
        cached = pd.read_pickle(a.cache)
        if cached["sample"] != a.sample or cached["draws"] > a.draws:
            raise ValueError(f"--cache {a.cache}: holds sample {cached['sample']}, draws {cached['draws']}; "
                             f"asked {a.sample}, {a.draws}")
        first, full, per_draw, check = (cached[k] for k in ("first", "full", "per_draw", "check"))
        subsets = draw_subsets(first, a.sample, a.draws)
        assert all(np.array_equal(x, y) for x, y in zip(cached["subsets"], subsets))
    for name in analysed:
        done = len(per_draw.get(name, []))
        if name in full and done == a.draws:
            continue
        task = cfg["experiments"][name]["task"]
        vocab = read_json(a.results / "data" / task / "vocab.json")
        dictionary = tasks.dictionary(task_spec(cfg, task))
        metrics = pd.concat([read_csv_checked(m, ["step", "seed", "token_acc"])
                             for m in sorted((a.results / "models" / name).glob("*/metrics.csv"))])
        arch = cfg["experiments"][name]["model"]["arch"]
        groups = read_exports(a.results, name)
        examples = np.unique(np.concatenate([g[0].column("example").to_numpy() for g in groups]))
        if subsets is None:
            subsets = draw_subsets(examples, a.sample, a.draws)
            first = examples
        elif not np.array_equal(examples, first):
            raise ValueError(f"{a.results / 'activations' / name}: exported examples differ from the first "
                             f"experiment's ({len(examples)} vs {len(first)}); one draw is one test set for all")
        analyse = lambda gs: analyze_exports(gs, vocab, arch != "ved", dictionary, metrics)["summary"]  # noqa: E731
        if name not in full:
            full[name] = analyse(groups)
            stored = dict(tables[name])[f"{layout.analysis_dir(name)}/summary.csv"]
            cols = [c for c in stored.columns if c != "seed" and pd.api.types.is_numeric_dtype(stored[c])]
            diff = (full[name].set_index("seed")[cols] - stored.set_index("seed")[cols]).abs().max().max()
            check[name] = {"examples": int(len(examples)), "max_abs_diff_vs_summary_csv": float(diff),
                           "columns": len(cols)}
        per_draw.setdefault(name, [])
        start = time.process_time()
        for d in range(done, a.draws):
            per_draw[name].append(analyse([subset_group(g, subsets[d]) for g in groups]))
            if d % 20 == 19:
                print(f"{name}: {d + 1} draws", file=sys.stderr)
        check[name][f"cpu_s_per_draw_{done}_{a.draws}"] = (time.process_time() - start) / (a.draws - done)
        print(f"{name}: full-set check {check[name]}", file=sys.stderr)
        del groups
    if a.cache:
        pd.to_pickle({"sample": a.sample, "draws": a.draws, "subsets": subsets, "first": first, "full": full,
                      "per_draw": per_draw, "check": check}, a.cache)

    def claims_table(summaries: dict):
        merged = {}
        for name, ts in tables.items():
            ts = [(p, summaries[name] if name in summaries and p.endswith("/summary.csv") else t) for p, t in ts]
            merged[name] = merge_replicates(name, ts)
        table = summarize(merged, experiments, CLAIMS, confidence=cfg["claims"]["confidence"], checks=model_check,
                          tested_on=tested_on)
        return table[table.experiment.isin(analysed)].reset_index(drop=True), by_claim(table)

    full_rows, full_groups = claims_table(full)
    run = read_csv_checked(a.results / "claims.csv", require=["claim_id", "experiment", "verdict", "measured_mean"])
    joined = full_rows.merge(run, on=["paper", "claim_id", "experiment"], suffixes=("", "_run"))
    draws = [claims_table({n: per_draw[n][d] for n in analysed}) for d in range(len(subsets))]
    out = {"benchmark": "aitken_testset_effect", "results": str(a.results), "sample": a.sample, "draws": a.draws,
           "draw_seed": TESTSET_SEED, "exported": int(len(first)), "experiments": analysed, "check": check,
           "check_claims_csv": {"rows": len(joined), "of": len(full_rows),
                                "verdicts_differ": int((joined.verdict != joined.verdict_run).sum()),
                                "max_abs_diff_measured_mean": float((joined.measured_mean
                                                                     - joined.measured_mean_run).abs().max())},
           "rows": [], "groups": []}
    # a row a subset leaves without values (its measure NaN on every seed) has no verdict there: NO_ROW
    keyed = [t.set_index(["claim_id", "experiment"]) for t, _ in draws]
    missing = pd.Series({"measured_mean": np.nan, "ci_low": np.nan, "ci_high": np.nan, "verdict": NO_ROW})
    for _, row in full_rows.iterrows():
        key = (row.claim_id, row.experiment)
        drawn = [t.loc[key] if key in t.index else missing for t in keyed]
        measure = row.measure
        seeds = {}
        if measure in full[row.experiment].columns and not isinstance(full[row.experiment][measure].iloc[0], str):
            f = full[row.experiment].set_index("seed")[measure]
            seeds = {str(seed): {"full": float(f[seed]), **spread([per_draw[row.experiment][d].set_index("seed")
                                                                   .at[seed, measure] for d in range(len(draws))])}
                     for seed in f.index}
        out["rows"].append({
            "claim_id": row.claim_id, "experiment": row.experiment, "measure": measure, "rule": row.rule,
            "statistic": {"full": float(row.measured_mean), **spread([r.measured_mean for r in drawn])},
            "ci_low": {"full": float(row.ci_low), **spread([r.ci_low for r in drawn])},
            "ci_high": {"full": float(row.ci_high), **spread([r.ci_high for r in drawn])},
            "verdict": verdict_counts(row.verdict, [r.verdict for r in drawn]), "per_seed": seeds})
    for _, g in full_groups.iterrows():
        drawn = [t.set_index(["paper", "group"]).loc[(g.paper, g.group)] if (t.group == g.group).any()
                 else pd.Series({"verdict": NO_ROW}) for _, t in draws]
        out["groups"].append({"paper": g.paper, "group": g.group, "experiments": g.experiments,
                              "verdict": verdict_counts(g.verdict, [r.verdict for r in drawn])})
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", type=Path, default=ROOT / "results", help="a finished run's results folder")
    p.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml", help="the config that made it")
    p.add_argument("--measure", choices=sorted(OUTPUTS), default="accuracy_offset",
                   help="accuracy_offset: rows 'accuracy' and 'Fig. 6d's offset'; testset: row 'test set'")
    p.add_argument("--draws", type=int, default=200, help="testset: random subsets of the exported examples")
    p.add_argument("--sample", type=int, default=200, help="testset: the authors' test sequences per subset")
    p.add_argument("--cache", type=Path, help="testset: a pickle of the analysed summaries, written after the "
                   "analyses; when it exists its draws are reused (same --sample, at most --draws) and only the "
                   "further draws analysed")
    p.add_argument("--out", type=Path, help="default: studies/aitken2021/results/<the measure's JSON>")
    a = p.parse_args()
    a.out = a.out or ROOT / "studies" / "aitken2021" / "results" / OUTPUTS[a.measure]
    # the readers move a corrupt workflow output aside; point their results root away from --results so nothing
    # there is ever moved (a bad file stops the script with its name instead)
    os.environ[RESULTS_ROOT_ENV] = str(a.out.resolve().parent)
    torch.set_num_threads(1)
    cfg = yaml.safe_load(a.config.read_text())
    if a.measure == "testset":
        out = testset_effect(a, cfg)
        out["config"] = str(a.config)
        out["command"] = "python studies/aitken2021/aitken_deviation_effects.py " + " ".join(sys.argv[1:])
        a.out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
        print(a.out)
        return
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
