"""One-axis trainings that measure two Aitken et al. 2021 deviations on the toy tasks (docs/deviations.md, Aitken
rows "toy lengths" and "reversal's recipe"), by the route of the section's measurements M1–M6: the workflow's own
commands ``attnrepro data | train | export | aitken2021 analyze`` on small models, two arms that differ in one
setting, compared on the claims' measures read from each arm's ``summary.csv``.

- ``lengths``: one-to-one (§3, Fig. 2a–d), AED, the analysed networks' L2 1e-3: sequence lengths 15–20
  (``max_len: 20``, the demo's task) against 15–19 (``max_len: 19``, the authors' ``randint(15, 20)`` and
  ``config/paper*.yaml``).
- ``options``: one-to-one as ``lengths``' ``max_len 19`` arm (the ``baseline`` arm, the same run), against one
  arm per option of Aitken et al.'s code (:data:`attnrepro.seq2seq.model.OPTIONS`, ``train.loss``): ``readout_bias
  false``, ``first_input uniform``, ``init aitken``, ``loss padded``, ``initial_state learned`` (docs/deviations.md,
  the Aitken rows of those names), and ``all five`` together; ``--labels`` runs some of them.
- ``reversal``: the reversed task (§3 'Additional Tasks', Fig. 2g), lengths 15–19 as ``config/paper*.yaml``, AED
  (and AO with ``--archs aed ao``): the demo's L2 1e-5 against one-to-one's 1e-3, the recipe the paper configs
  give reversal (the authors' notebook analyses no reversal network).

Everything else is the demo's (``config/config.yaml``): its task block (20,000 training sequences, 500 test
sequences, all exported), its training block (Adam lr 0.02 × 0.999 per step, eps 1e-8, clip 1, batch 128) with
``--steps``, and its model block for the arch with ``--hidden``. Every command runs on the CPU with one torch
thread, under ``nice`` (the machine is shared). Writes ``--work`` (the arms' data, models, exports and analyses;
a stage whose output exists is skipped, so a rerun reads the arms) and ``--out`` (default
``studies/aitken2021/results/aitken_toy_effects_<comparison>.json``): per arm and arch the four commands with
their wall time (null where an earlier invocation ran the stage), the measures per seed and their means, and for reversal the
side reading of :func:`mirror_reading`. 2026-11-26 on the shared 2-core machine: a training took 110–116 s (AED)
or 75–98 s (AO), data, export and analysis 5–13 s each; ``lengths`` 4.6 min, ``reversal --archs aed ao`` 8.5 min.

    python studies/aitken2021/aitken_toy_effects.py lengths --work /tmp/aitken_toy \
        [--steps 1000 --hidden 64 --seeds 0 1]
    python studies/aitken2021/aitken_toy_effects.py reversal --work /tmp/aitken_toy --archs aed ao
    python studies/aitken2021/aitken_toy_effects.py options --work /tmp/aitken_toy [--labels baseline "init aitken"]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from attnrepro.aitken2021.alignment import temporal_antidiagonal  # noqa: E402
from attnrepro.run.config import chunk_name, experiment_spec  # noqa: E402
from attnrepro.io import read_csv_checked, read_parquet  # noqa: E402

# the measures the toy tasks' claims read (src/attnrepro/aitken2021/claims.py) and the shares beside them
MEASURES = {
    "lengths": ["token_acc", "seq_acc", "share_mu_mu", "share_top1_mu_mu", "agree_mu_mu", "temporal_diagonal_share",
                "temporal_argmax_rho", "encoder_delta_norm_projected", "cos_temporal_input_delta",
                "cos_temporal_input_delta_excess", "variance_drop", "pc3_input", "readout_state_ratio"],
    "options": ["token_acc", "seq_acc", "share_mu_mu", "share_top1_mu_mu", "agree_mu_mu", "temporal_diagonal_share",
                "temporal_argmax_rho", "encoder_delta_norm_projected", "cos_temporal_input_delta",
                "cos_temporal_input_delta_excess", "variance_drop", "pc3_input", "readout_state_ratio"],
    "reversal": ["token_acc", "seq_acc", "temporal_antidiagonal_share", "temporal_argmax_rho", "share_mu_mu",
                 "agree_mu_mu", "readout_state_ratio", "encoder_delta_norm_projected"],
}

# comparison -> (the demo's task it starts from, the task's fixed changes, the arms: label -> (task, train) changes,
# and for ``options`` the model's)
L2 = {"l2": 1.0e-3}
COMPARISONS = {
    "lengths": ("one_to_one", {}, {"max_len 20": ({"max_len": 20}, {"l2": 1.0e-3}),
                                   "max_len 19": ({"max_len": 19}, {"l2": 1.0e-3})}),
    "reversal": ("reversed", {"max_len": 19}, {"l2 1e-5": ({}, {"l2": 1.0e-5}),
                                               "l2 1e-3": ({}, {"l2": 1.0e-3})}),
    "options": ("one_to_one", {"max_len": 19}, {
        "baseline": ({}, L2, {}),
        "readout_bias false": ({}, L2, {"readout_bias": False}),
        "first_input uniform": ({}, L2, {"first_input": "uniform"}),
        "init aitken": ({}, L2, {"init": "aitken"}),
        "loss padded": ({}, {**L2, "loss": "padded"}, {}),
        "initial_state learned": ({}, L2, {"initial_state": "learned"}),
        "all five": ({}, {**L2, "loss": "padded"}, {"readout_bias": False, "first_input": "uniform", "init": "aitken",
                                                    "initial_state": "learned"}),
    }),
}

# the demo's experiment whose model block each arch uses (its one-to-one networks: same vocabulary and lengths)
DEMO_MODEL = {"aed": "aed_gru_one_to_one", "ao": "ao_gru_one_to_one"}


def run(cmd: list[str], log: Path) -> float:
    """One CLI stage under ``nice -n 10``, its output to ``log``; its wall seconds. A failing stage stops the script
    naming its log."""
    start = time.perf_counter()
    with log.open("w") as fh:
        done = subprocess.run(["nice", "-n", "10", *cmd], stdout=fh, stderr=subprocess.STDOUT,
                              env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    if done.returncode:
        raise RuntimeError(f"{shlex.join(cmd)} exited {done.returncode}; see {log}")
    return time.perf_counter() - start


def arm_specs(cfg: dict, comparison: str, label: str, arch: str, steps: int, hidden: int) -> tuple[dict, dict]:
    """The arm's task block and resolved experiment spec: the demo's, with the comparison's changes."""
    task_name, fixed, arms = COMPARISONS[comparison]
    task_change, train_change, *model_change = arms[label]
    task = {**cfg["tasks"][task_name], **fixed, **task_change}
    spec = experiment_spec(cfg, DEMO_MODEL[arch])
    spec["task"] = task_name
    spec["model"]["hidden"] = hidden
    spec["model"].update(*model_change)
    spec["train"].update(train_change, steps=steps)
    return task, spec


def arm(cfg: dict, comparison: str, label: str, arch: str, a: argparse.Namespace) -> dict:
    """Data, training, export and analysis of one arm; its summary's measures per seed."""
    task, spec = arm_specs(cfg, comparison, label, arch, a.steps, a.hidden)
    tag = label.replace(" ", "_")
    # arms whose tasks agree share one data folder (reversal's two recipes, its AED and AO); the folder is named
    # after the task, as the workflow's results/data/<task> (train checks it)
    data = a.work / comparison / f"data_{task['min_len']}-{task['max_len']}" / COMPARISONS[comparison][0]
    base = a.work / comparison / f"{arch}_{tag}"
    chunk, logs = chunk_name(a.seeds), base / "logs"
    model, export, analysis = base / "models" / chunk, base / "activations" / chunk, base / "analysis"
    seeds = [str(s) for s in a.seeds]
    cli = [sys.executable, "-m", "attnrepro.cli"]
    commands = [
        (data / "vocab.json", "data", [*cli, "data", "--task-json", json.dumps(task), "--out-dir", str(data)]),
        (model / "model.pt", "train",
         [*cli, "train", "--spec-json", json.dumps(spec), "--seeds", *seeds, "--data-dir", str(data),
          "--ckpt-dir", str(base / "checkpoints"), "--model-out", str(model / "model.pt"),
          "--metrics-out", str(model / "metrics.csv"), "--name", f"{arch}_{tag}", "--device", "cpu",
          "--threads", "1"]),
        (export / "decoder.parquet", "export",
         [*cli, "export", "--model", str(model / "model.pt"), "--data-dir", str(data), "--n-examples",
          str(task["n_test"]), "--out-dir", str(export), "--device", "cpu", "--threads", "1"]),
        (analysis / "summary.csv", "analyze",
         [*cli, "aitken2021", "analyze", "--export-dirs", str(export), "--data-dir", str(data), "--arch", arch,
          "--task-json", json.dumps(task), "--metrics", str(model / "metrics.csv"), "--out-dir", str(analysis)]),
    ]
    logs.mkdir(parents=True, exist_ok=True)
    ran = []
    for done, stage, cmd in commands:
        # a stage whose output exists was run earlier (its wall time is in that run's JSON): null here
        seconds = None if done.exists() else round(run(cmd, logs / f"{stage}.log"), 1)
        ran.append({"stage": stage, "wall_s": seconds, "command": shlex.join(cmd)})
        print(f"{comparison} {arch} {label}: {stage} {seconds} s", file=sys.stderr)
    summary = read_csv_checked(analysis / "summary.csv", require=["seed", "token_acc"])
    # a measure the arch does not have (the AED-only readout ratio on an AO) is absent or NaN: null here
    per_seed = [{"seed": int(r["seed"]), **{m: None if pd.isna(r.get(m)) else float(r[m])
                                            for m in MEASURES[comparison]}} for _, r in summary.iterrows()]
    mean = {m: [r[m] for r in per_seed if r[m] is not None] for m in MEASURES[comparison]}
    row = {"task": task, "train": spec["train"], "model": spec["model"], "ran": ran, "per_seed": per_seed,
           "mean": {m: float(np.mean(v)) if v else None for m, v in mean.items()}}
    if comparison == "reversal":
        row["mirror"] = mirror_reading(analysis, data, task["min_len"])
    return row


def mirror_reading(analysis: Path, data: Path, min_len: int) -> list[dict]:
    """The reversal rows' anti-diagonal, per seed, beside the summary's ``temporal_antidiagonal_share``: argmax_t
    μ_s^D·μ_t^E over every exported encoder step for the n = ``min_len`` + 1 decoder steps every example reaches,
    argmax + s (constant on an exact anti-diagonal), the share of the steps on its most common value
    (:func:`attnrepro.aitken2021.alignment.temporal_antidiagonal`, the measure itself since d9d9914; this reading
    found that the earlier measure, fixed at the shortest input's mirror t = n − 1 − s, could not pass), and the
    share on the mirror of the test split's mean input, t = round(mean words) − 1 − s."""
    temporal = read_parquet(analysis / "temporal.parquet")
    mean_words = float(read_parquet(data / "test.parquet")["src"].map(len).mean())
    mu = [c for c in temporal.columns if c.startswith("mu")]
    s = np.arange(min_len + 1)
    rows = []
    for seed, part in temporal.groupby("seed"):
        enc = part[part.side == "encoder"].sort_values("pos")[mu].to_numpy()
        dec = part[part.side == "decoder"].sort_values("pos")[mu].to_numpy()
        best = np.argmax(dec[: len(s)] @ enc.T, axis=1)
        offset = best + s
        rows.append({"seed": int(seed), "mean_words": mean_words, "argmax_t": best.tolist(),
                     "argmax_plus_s": offset.tolist(),
                     "antidiagonal_share_modal": temporal_antidiagonal(dec, enc, len(s))[0],
                     "antidiagonal_share_mean": float(np.mean(offset == round(mean_words) - 1))})
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("comparison", choices=sorted(COMPARISONS))
    p.add_argument("--work", type=Path, required=True, help="the arms' data, models, exports and analyses")
    p.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml", help="the demo config")
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    p.add_argument("--archs", nargs="+", choices=sorted(DEMO_MODEL), default=["aed"])
    p.add_argument("--labels", nargs="+", help="run only these arms of the comparison (default: all)")
    p.add_argument("--out", type=Path)
    a = p.parse_args()
    labels = a.labels or list(COMPARISONS[a.comparison][2])
    if unknown := set(labels) - set(COMPARISONS[a.comparison][2]):
        p.error(f"--labels: {sorted(unknown)} not arms of {a.comparison} ({list(COMPARISONS[a.comparison][2])})")
    out_path = a.out or ROOT / "studies" / "aitken2021" / "results" / f"aitken_toy_effects_{a.comparison}.json"
    cfg = yaml.safe_load(a.config.read_text())
    config = a.config.resolve()
    out = {"benchmark": "aitken_toy_effects", "comparison": a.comparison,
           "config": str(config.relative_to(ROOT) if config.is_relative_to(ROOT) else config),
           "steps": a.steps, "hidden": a.hidden, "seeds": a.seeds, "arms": {}}
    for arch in a.archs:
        for label in labels:
            out["arms"][f"{arch} {label}"] = row = arm(cfg, a.comparison, label, arch, a)
            means = ", ".join(f"{m} {v:.3f}" for m, v in row["mean"].items() if v is not None)
            print(f"{arch} {label}: {means}", file=sys.stderr)
    out_path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(out_path)


if __name__ == "__main__":
    main()
