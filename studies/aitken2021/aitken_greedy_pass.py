"""Measured effect of which decodes the Aitken et al. 2021 analysis reads (docs/deviations.md, Aitken row "which
decodes are analysed"): the teacher-forced pass (ours, the default export) against the free-running greedy pass
(the authors' notebook: teacher forcing off, χ^D keyed by the previous *predicted* word; ``attnrepro export --pass
greedy``), on a finished run's trained models.

Reads, under ``--results`` (read only), for each of ``--experiments``: ``models/<experiment>/<chunk>/{model.pt,
metrics.csv}``, ``data/<task>/`` and the run's ``analysis/<experiment>/summary.csv``, plus every table the run's
claims step read (``layout.claim_sources`` of ``--config``). Writes under ``--work``: the greedy export
(``activations/<experiment>/<chunk>/``) and its analysis (``analysis/<experiment>/``), made by the same two commands
as the workflow's export and analyze rules (the export with ``--pass greedy``), and two claims tables
(``claims_teacher_forced.csv``: the run's own tables; ``claims_greedy.csv``: the same with these experiments'
summary.csv swapped for the greedy one), by the workflow's claims command at today's claims code.
Writes ``--out`` (default ``studies/aitken2021/results/aitken_greedy_pass.json``): per experiment and seed every numeric
summary.csv column, teacher-forced and greedy, their medians over seeds, the decodes' agreement with the target
inputs (the share of decoder steps s ≥ 1 whose input word differs between the passes), and per claim row of these
experiments the statistic, interval and verdict under each pass. A rerun reuses the exports and analyses already
under ``--work`` (delete it to redo them).

    nice -n 10 python studies/aitken2021/aitken_greedy_pass.py --results /tmp/run_slice/results_paper_slice \\
        --config config/paper_slice.yaml --work /tmp/greedy_export
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from attnrepro.run import layout  # noqa: E402
from attnrepro.io import use_results_root  # noqa: E402
from attnrepro.run.config import task_spec  # noqa: E402
from attnrepro.run.validation import validate  # noqa: E402

CLI = [sys.executable, "-m", "attnrepro.cli"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def run(cmd: list[str], log: Path) -> None:
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as f:
        done = subprocess.run(cmd, env=ENV, stdout=f, stderr=subprocess.STDOUT)
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd[:4])} … failed ({done.returncode}); see {log}")


def greedy_analysis(results: Path, work: Path, config: dict, name: str, n_examples: int) -> Path:
    """The export (greedy pass) and analyze rules' commands for one experiment; returns its analysis folder."""
    spec = config["experiments"][name]
    task = task_spec(config, spec["task"])
    data_dir = results / "data" / spec["task"]
    chunks = sorted(p.name for p in (results / "models" / name).iterdir() if (p / "model.pt").is_file())
    exports = []
    for chunk in chunks:
        out = work / "activations" / name / chunk
        if not (out / "readout.parquet").is_file():
            run(CLI + ["export", "--model", str(results / "models" / name / chunk / "model.pt"), "--experiment", name,
                       "--data-dir", str(data_dir), "--n-examples", str(n_examples), "--pass", "greedy",
                       "--out-dir", str(out), "--device", "cpu", "--threads", "1"],
                work / "logs" / f"export_{name}.log")
        exports.append(str(out))
    analysis = work / "analysis" / name
    if not (analysis / "summary.csv").is_file():
        run(CLI + ["aitken2021", "analyze", "--export-dirs", *exports, "--data-dir", str(data_dir),
                   "--arch", spec["model"]["arch"], "--task-json", json.dumps(task, sort_keys=True),
                   "--metrics", *[str(results / "models" / name / c / "metrics.csv") for c in chunks],
                   "--out-dir", str(analysis)], work / "logs" / f"analyze_{name}.log")
    return analysis


def claims(config: dict, results: Path, swap: dict[str, Path], out: Path, confidence: float) -> pd.DataFrame:
    """The claims command over the run's tables, with ``swap``'s experiments' summary.csv replaced."""
    root = use_results_root(config)
    sources = []
    for s in layout.claim_sources(config):
        d = dict(vars(s))
        rel = Path(d["path"]).relative_to(root)
        d["path"] = str(swap[d["experiment"]] / "summary.csv") if (
            d["experiment"] in swap and rel.name == "summary.csv") else str(results / rel)
        sources.append(d)
    run(CLI + ["claims", "--sources-json", json.dumps(sources), "--confidence", str(confidence), "--out", str(out),
               "--markdown", str(out.with_suffix(".md")), "--by-claim", str(out.with_name(out.stem + "_by_claim.csv"))],
        out.with_suffix(".log"))
    return pd.read_csv(out)


def number(v) -> float | None:
    """A JSON number; None for NaN (strict JSON has no NaN)."""
    return None if pd.isna(v) else float(v)


def input_disagreement(results: Path, work: Path, name: str) -> dict[str, float]:
    """Per seed, the share of decoder steps s ≥ 1 whose input word differs between the two passes."""
    out = {}
    for chunk in sorted((work / "activations" / name).iterdir()):
        cols = ["seed", "example", "s", "token"]
        tf = pd.read_parquet(results / "activations" / name / chunk.name / "decoder.parquet", columns=cols)
        gr = pd.read_parquet(chunk / "decoder.parquet", columns=cols)
        both = tf.merge(gr, on=["seed", "example", "s"], suffixes=("_tf", "_gr"))
        both = both[both.s > 0]
        for seed, rows in both.groupby("seed"):
            out[str(seed)] = float((rows.token_tf != rows.token_gr).mean())
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--results", type=Path, required=True, help="a finished run's results folder (read only)")
    p.add_argument("--config", type=Path, default=ROOT / "config" / "paper_slice.yaml")
    p.add_argument("--work", type=Path, default=Path("/tmp/greedy_export"))
    p.add_argument("--experiments", nargs="+", default=["aed_gru_one_to_one", "aed_gru_escan", "ao_gru_escan"])
    p.add_argument("--out", type=Path, default=ROOT / "studies" / "aitken2021" / "results" / "aitken_greedy_pass.json")
    args = p.parse_args()
    config = yaml.safe_load(args.config.read_text())
    validate(config, ROOT / "workflow" / "schemas" / "config.schema.yaml")  # fills the schema's defaults in
    results, work = args.results.resolve(), args.work.resolve()

    report = {"results": str(results), "config": str(args.config), "experiments": {}}
    swap = {}
    for name in args.experiments:
        swap[name] = greedy_analysis(results, work, config, name, config["export"]["n_examples"])
        tf = pd.read_csv(results / "analysis" / name / "summary.csv").set_index("seed")
        gr = pd.read_csv(swap[name] / "summary.csv").set_index("seed")
        numeric = [c for c in tf.columns if c in gr.columns and pd.api.types.is_numeric_dtype(tf[c])]
        columns = {}
        for c in numeric:
            columns[c] = {"teacher_forced": {str(s): number(v) for s, v in tf[c].items()},
                          "greedy": {str(s): number(v) for s, v in gr[c].reindex(tf.index).items()},
                          "median_teacher_forced": number(tf[c].median()),
                          "median_greedy": number(gr[c].median())}
        report["experiments"][name] = {"input_words_differ": input_disagreement(results, work, name),
                                       "summary": columns}

    confidence = config["claims"]["confidence"]
    tf_claims = claims(config, results, {}, work / "claims_teacher_forced.csv", confidence)
    gr_claims = claims(config, results, swap, work / "claims_greedy.csv", confidence)
    keys = ["claim_id", "experiment", "measure"]
    both = tf_claims.merge(gr_claims, on=keys, suffixes=("_tf", "_gr"))
    both = both[both.experiment.isin(args.experiments)]
    report["claims"] = [
        {k: r[k] for k in keys} | {f"{c}_{p}": (None if pd.isna(r[f"{c}_{p}"]) else r[f"{c}_{p}"])
                                   for c in ("measured_mean", "ci_low", "ci_high", "verdict", "model_check")
                                   for p in ("tf", "gr")}
        for _, r in both.iterrows()]
    moved = [c for c in report["claims"] if c["verdict_tf"] != c["verdict_gr"]]
    report["verdicts_moved"] = moved
    args.out.write_text(json.dumps(report, indent=1, default=float, allow_nan=False) + "\n")
    for c in report["claims"]:
        print(f"{c['claim_id']:45s} {c['experiment']:20s} {c['measure']:32s} "
              f"{c['measured_mean_tf']!s:>10.8} → {c['measured_mean_gr']!s:>10.8}  "
              f"{c['verdict_tf']} → {c['verdict_gr']}")
    print(f"verdicts moved: {len(moved)}; wrote {args.out}")


if __name__ == "__main__":
    main()
