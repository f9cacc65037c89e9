"""Snell et al. 2021, deviations.md's Snell row 13: Table 2's Δ columns with Δ (gradient × input of log p, §5.1)
read from each member's best checkpoint (the authors') or from the final model (``model.pt``, this project's
default) — one axis, everything else the same run.

The classification set ``--set`` of ``--config``'s snell2021 block, with ``snell2021.table2.export_at: best``: its
learned run is trained through the project's CLI (``attnrepro snell2021 train``; the spec's ``keep_best`` writes
``model_best.pt`` beside ``model.pt``), both models are exported (``attnrepro snell2021 export``), and Table 2's
row is computed twice by :func:`attnrepro.snell2021.agreement_table.table2_from_runs`, once per saliency table
(the same probes, seed pairing and β^uf checkpoint). ``--seeds``, ``--steps`` and ``--eval-every`` change the
block's ``classification`` settings; the uniform run is trained the same way, or, with ``--reuse`` (a finished
run's results, read only) and the config's own steps, read from there (its members < ``--seeds``). The proxy is
always read from ``--reuse`` (its spec does not depend on these settings; β^px enters no Δ column). With
``--reuse`` at the config's settings, the final model's Δ is compared with the finished run's export
(``check_final_delta``: largest |difference|).

    nice -n 10 python studies/snell2021/snell_best_checkpoint.py --reuse /tmp/run_default2/results
        --work /tmp/snell_rows/best
        [--set rotten_tomatoes] [--seeds 6] [--steps 3000 --eval-every 250] [--threads 1] [--label demo]

``--mode proxy_epochs`` (row 11: steps, not epochs): the Table 2 row ``--row`` (``cls_<set>`` or ``mt_<set>``) of a
finished ``--reuse`` run, with its proxy (the config's recipe, one axis: its length) trained again through the CLI
for ``--epochs`` epochs of the row's training set converted to steps (:func:`epoch_steps`: ⌈n/batch⌉ steps an
epoch, as a data loader that keeps the last short batch), evaluated once an epoch and at the config's own proxy
steps. Table 2's β^px columns are recomputed (:func:`table2_from_runs`, the run's own learned and uniform probes and
Δ) with β^px read at the config's steps (checked against the finished proxy), at the last epoch, and at the epoch of
least held-out loss (the authors' best validation epoch), each with the claims' readings (:func:`claim_readings`).
Writes ``snell_proxy_epochs_effect.json``.

``--mode paper_options`` (row 20): the demo's snell2021 block with config/paper.yaml's Snell recipe options
(:func:`with_paper_options`: copy score bias and judge step with its evaluations; classification ``<bos>``/``<eos>``,
embeddings of width 300, the proxy with a bias at the paper's learning rate and its least-loss evaluation,
``export_at: best``), everything else at the demo's size and seeds: ``cls_<set>``'s learned, uniform and proxy runs
and ``copy_same``, ``copy_subset`` trained through the CLI, Table 2's row and Fig. 3's failures read as the claims
read them, beside the same readings of the finished demo run (``--reuse``); with ``--translation <set>`` also
``mt_<set>``'s row (the authors' 2-layer model with dropout, their proxy recipe). Writes
``snell_paper_options_effect.json``.

    nice -n 10 python studies/snell2021/snell_best_checkpoint.py --mode proxy_epochs --reuse /tmp/run_default2/results
        --work /tmp/snell_rows2/px [--row cls_rotten_tomatoes --epochs 60 | --row mt_bible --epochs 30]
    nice -n 10 python studies/snell2021/snell_best_checkpoint.py --mode paper_options --reuse /tmp/run_default2/results
        --work /tmp/snell_rows2/paper [--proxy-evals 10] [--translation bible]

``--mode train_split`` (row 21, :mod:`snell_train_split`): App. A.4's Table 7, Table 2's ``cls_<set>`` row with
``table2.train_sample: --train-sample`` training pairs. Writes ``snell_train_split_effect.json``. The modes share
:mod:`snell_rerun`'s helpers.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(Path(__file__).parent)]  # the package, and the shared snell_rerun

from snell_rerun import CLAIM_COLUMNS, REPORTED, claim_readings, cli, member_rows, row_table, train_runs  # noqa: E402
from snell_train_split import train_split  # noqa: E402

from attnrepro.verdicts.intervals import Rule, interval, verdict  # noqa: E402
from attnrepro.io import read_csv_checked, read_parquet  # noqa: E402
from attnrepro.snell2021 import config as snellcfg  # noqa: E402
from attnrepro.snell2021.validation import check as snell_check  # noqa: E402
from attnrepro.snell2021.agreement_table import table2_from_runs  # noqa: E402
from attnrepro.snell2021.run_tables import curve_summary  # noqa: E402
from attnrepro.snell2021.runs import BEST_MODEL, load_data, read_metrics  # noqa: E402

DELTA_COLUMNS = ["A_delta_beta_uf", "A_delta_beta_uf_excess", "tau_delta_beta_uf", "tau_delta_beta_uf_excess"]


def block_for(a: argparse.Namespace) -> dict:
    block = yaml.safe_load(a.config.read_text())["snell2021"]
    cl = block["classification"]
    cl["seeds"] = list(range(a.seeds))
    if a.steps:
        cl["train"] = {**cl["train"], "steps": a.steps, "eval_every": a.eval_every or cl["train"]["eval_every"]}
    block["table2"]["export_at"] = "best"
    snell_check(block)
    return block


def compare(final: pd.DataFrame, best: pd.DataFrame, metrics: pd.DataFrame, best_steps: list[int]) -> dict:
    """Per seed the Δ columns at the final and best models, their difference, the best step and the accuracy there;
    and the means over seeds."""
    f, b = final.set_index("seed").sort_index(), best.set_index("seed").sort_index()
    per_seed = []
    for member, seed in enumerate(f.index):
        m = metrics[metrics.member == member].set_index("step").token_acc
        rec = {"seed": int(seed), "best_step": best_steps[member], "final_step": int(m.index.max()),
               "token_acc_best": round(float(m[best_steps[member]]), 4), "token_acc_final": round(float(m.iloc[-1]), 4),
               "A_hat": float(f.at[seed, "A_hat"])}
        for c in DELTA_COLUMNS:
            rec[f"{c}|final"], rec[f"{c}|best"] = float(f.at[seed, c]), float(b.at[seed, c])
            rec[f"{c}|best-final"] = float(b.at[seed, c] - f.at[seed, c])
        per_seed.append(rec)
    keys = [k for k in per_seed[0] if "|" in k or k == "A_hat"]
    return {"per_seed": per_seed, "mean": {k: float(np.mean([r[k] for r in per_seed])) for k in keys},
            "seeds_with_best_before_final": sum(r["best_step"] != r["final_step"] for r in per_seed)}


def epoch_steps(n_train: int, batch: int, epochs: int) -> tuple[int, int]:
    """(steps an epoch, steps in all) for ``epochs`` passes over ``n_train`` examples in batches of ``batch``, the
    last short batch kept (a data loader without ``drop_last``, as the authors' training loops)."""
    if min(n_train, batch, epochs) < 1:
        raise ValueError(f"epoch_steps needs positive sizes, got n_train={n_train}, batch={batch}, epochs={epochs}")
    per = math.ceil(n_train / batch)
    return per, per * epochs


def with_paper_options(demo: dict, paper: dict, proxy_evals: int) -> dict:
    """The demo's snell2021 block with the paper config's Snell recipe options (deviations.md, Snell row 20), the
    sizes, seeds and step counts the demo's: copy ``score_bias`` and ``judge_step`` with the paper's evaluations up
    to the demo's last step added to the demo's; ``table2.export_at``; classification ``embed`` and ``bos_eos``; the
    classification proxy's ``bias`` and learning rate, evaluated ``proxy_evals`` times over its (demo) steps so
    that its least-loss evaluation has several to choose from (the paper's: 12 over 12,000 steps); translation's
    ``architecture`` and ``dropout`` and its proxy's, likewise."""
    b = copy.deepcopy(demo)
    b["copy"].update(score_bias=paper["copy"]["score_bias"], judge_step=paper["copy"]["judge_step"])
    steps = b["train"]["steps"]
    b["train"]["eval_at"] = sorted({*b["train"].get("eval_at", []),
                                    *(s for s in paper["train"]["eval_at"] if s <= steps)})
    b["table2"]["export_at"] = paper["table2"]["export_at"]
    cl, pc = b["classification"], paper["classification"]
    cl.update(embed=pc["embed"], bos_eos=pc["bos_eos"])
    px = cl["proxy"]["train"]
    if px["steps"] % proxy_evals:
        raise ValueError(f"--proxy-evals {proxy_evals} does not divide the proxy's {px['steps']} steps")
    cl["proxy"] = {**cl["proxy"], "bias": pc["proxy"]["bias"],
                   "train": {**px, "lr": pc["proxy"]["train"]["lr"], "eval_every": px["steps"] // proxy_evals}}
    tr, pt = b["translation"], paper["translation"]   # the authors' 2-layer model and their proxy recipe
    tr.update(architecture=pt["architecture"], dropout=pt["dropout"])
    # translation inherits the block's eval_at, which now holds the copy judge step's evaluations: keep the demo's
    tr["train"] = {"eval_at": demo["train"].get("eval_at", []), **tr.get("train", {})}
    tx = tr["proxy"]["train"]
    if tx["steps"] % proxy_evals:
        raise ValueError(f"--proxy-evals {proxy_evals} does not divide the translation proxy's {tx['steps']} steps")
    tr["proxy"] = {**tr["proxy"], "bias": pt["proxy"]["bias"],
                   "train": {**tx, "lr": pt["proxy"]["train"]["lr"], "eval_every": tx["steps"] // proxy_evals}}
    return b


def proxy_epochs(a: argparse.Namespace) -> dict:
    """Row 11 (see the module docstring)."""
    block = yaml.safe_load(a.config.read_text())["snell2021"]
    roles, specs = snellcfg.analyses(block)[a.row]["runs"], copy.deepcopy(snellcfg.runs(block))
    for spec in specs.values():
        if "data_dir" in spec["data"]:  # translation: the finished run's prepared corpus
            spec["data"]["data_dir"] = str(a.reuse / "data" / Path(spec["data"]["data_dir"]).name)
    reused = a.reuse / "models" / "snell2021"
    # a finished run whose learned or uniform tables are gone: that run again, from the same spec (checked below
    # against the finished run's summary.csv)
    again = [roles[r] for r in ("learned", "uniform") if not (reused / roles[r] / "probes.parquet").exists()]
    train_runs(specs, again, a.work, a.threads)
    where = {r: (a.work / roles[r] / "out" if roles[r] in again else reused / roles[r]) for r in ("learned", "uniform")}
    spec = specs[roles["proxy"]]
    train_set = load_data(spec["data"], 1)[0]
    t = spec["train"]
    per, steps = epoch_steps(len(train_set), t["batch_size"], a.epochs)
    ours = t["steps"]
    t.update(steps=steps, eval_every=per, eval_at=[ours], checkpoint_every=steps)
    t0 = time.perf_counter()
    train_runs({roles["proxy"]: spec}, [roles["proxy"]], a.work, a.threads)
    out = a.work / roles["proxy"] / "out"
    probes = {r: read_parquet(where[r] / "probes.parquet") for r in ("learned", "uniform")}
    metrics = read_metrics(where["learned"] / "metrics.csv")
    saliency = read_parquet(a.reuse / "activations" / "snell2021" / roles["learned"] / "saliency.parquet")
    proxy, pm = read_parquet(out / "probes.parquet"), read_csv_checked(out / "metrics.csv", require=["step", "valid_loss"])
    stored = read_parquet(reused / roles["proxy"] / "probes.parquet")
    key = ["example", "t"]
    mine = proxy[proxy.step == ours].sort_values(key).beta
    check = float(max(np.abs(np.asarray(x) - np.asarray(y)).max()
                      for x, y in zip(mine, stored[stored.step == stored.step.max()].sort_values(key).beta)))
    epochs = pm[pm.step % per == 0]
    best = int(epochs.loc[epochs.valid_loss.idxmin(), "step"])
    result = {"benchmark": "snell_proxy_epochs_effect", "row": a.row, "config": str(a.config), "n_train": len(train_set),
              "batch_size": t["batch_size"], "epochs": a.epochs, "steps_per_epoch": per, "steps": steps,
              "config_steps": ours, "train": t, "seconds_train": round(time.perf_counter() - t0, 1),
              "trained_again": again, "check_config_steps_beta_px_max_abs_diff": check, "best_epoch_step": best,
              "valid_loss": {int(r.step): float(r.valid_loss) for r in pm.itertuples()}, "readings": {}}
    for name, step in ((f"config_{ours}", ours), (f"epochs_{a.epochs}_last", steps), (f"epochs_{a.epochs}_best", best)):
        at = {**probes, "proxy": proxy[proxy.step == step]}
        result["readings"][name] = {"step": step, **row_table(table2_from_runs(at, metrics, saliency)[0])}
    stored_row = read_csv_checked(a.reuse / "analysis" / "snell2021" / a.row / "summary.csv", require=REPORTED)
    mine_row = result["readings"][f"config_{ours}"]["per_seed"]
    result["check_config_steps_vs_summary_max_abs_diff"] = {
        c: float(np.abs(np.asarray(mine_row[c]) - stored_row[c].to_numpy(dtype=float)).max()) for c in REPORTED}
    return result


def copy_readings(metrics: dict[str, pd.DataFrame], block: dict, judge_step: int | None) -> dict:
    """Fig. 3's claims on ``copy_same`` against ``copy_subset``, judged at the last evaluation at or before
    ``judge_step`` (None: the last): the failures, and the three claims' intervals and verdicts."""
    s = {r: curve_summary(m, block["fail_below"], block["good_above"], judge_step).sort_values("seed")
         for r, m in metrics.items()}
    same, ctrl = s["copy_same"], s["copy_subset"]
    prop, fish, slower = Rule("between", (0.05, 0.95)), Rule(">", 1.0), Rule(">", 0.0)
    ivs = {"some_seeds_fail": (interval(same.failed, "proportion", prop), prop),
           "fails_more_than_control": (interval(same.failed, "fisher", fish, control=ctrl.failed), fish),
           "converges_slower": (interval(same.steps_to_good_censored.to_numpy() - ctrl.steps_to_good_censored.to_numpy(),
                                         "continuous", slower), slower)}
    return {"judged_at": int(max(st for st in metrics["copy_same"].step.unique()
                                 if judge_step is None or st <= judge_step)),
            "final_acc": {r: [round(float(x), 4) for x in v.final_acc] for r, v in s.items()},
            "failures": {r: int(v.failed.sum()) for r, v in s.items()},
            "claims": {k: {"estimate": float(iv.estimate), "low": float(iv.low), "high": float(iv.high),
                           "verdict": verdict(iv, rule)} for k, (iv, rule) in ivs.items()}}


def translation_rows(a: argparse.Namespace, block: dict) -> dict:
    """Row 20's ``mt_<a.translation>`` Table 2 row with the paper options (learned, uniform and proxy trained, Δ from
    ``model_best.pt``) beside the finished demo run's summary.csv."""
    prefix = f"mt_{a.translation}"
    specs, roles = copy.deepcopy(snellcfg.runs(block)), snellcfg.analyses(block)[prefix]["runs"]
    for spec in specs.values():
        if "data_dir" in spec["data"]:
            spec["data"]["data_dir"] = str(a.reuse / "data" / Path(spec["data"]["data_dir"]).name)
    names = [roles[r] for r in ("learned", "uniform", "proxy")]
    train_runs(specs, names, a.work, a.threads)
    out = a.work / "export" / f"{prefix}_best"
    if not (out / "saliency.parquet").exists():
        cli("export", "--model", str(a.work / roles["learned"] / "out" / BEST_MODEL), "--out-dir", str(out),
            "--threads", str(a.threads))
    probes = {r: read_parquet(a.work / roles[r] / "out" / "probes.parquet") for r in ("learned", "uniform", "proxy")}
    pm = read_csv_checked(a.work / roles["proxy"] / "out" / "metrics.csv", require=["step", "valid_loss"])
    rows = table2_from_runs(probes, read_metrics(a.work / roles["learned"] / "out" / "metrics.csv"),
                            read_parquet(out / "saliency.parquet"), proxy_metrics=pm)[0]
    demo = read_csv_checked(a.reuse / "analysis" / "snell2021" / prefix / "summary.csv", require=CLAIM_COLUMNS)
    return {f"{prefix}_demo": row_table(demo),
            f"{prefix}_paper_options": {**row_table(rows), "proxy_best_step": int(pm.loc[pm.valid_loss.idxmin(), "step"]),
                                        "proxy_valid_loss": {int(r.step): float(r.valid_loss) for r in pm.itertuples()}}}


def paper_options(a: argparse.Namespace) -> dict:
    """Row 20 (see the module docstring)."""
    demo = yaml.safe_load(a.config.read_text())["snell2021"]
    block = with_paper_options(demo, yaml.safe_load(a.paper_config.read_text())["snell2021"], a.proxy_evals)
    snell_check(block)
    specs, prefix = snellcfg.runs(block), f"cls_{a.set}"
    roles = snellcfg.analyses(block)[prefix]["runs"]
    t0 = time.perf_counter()
    train_runs(specs, [roles["learned"], roles["uniform"], roles["proxy"], "copy_same", "copy_subset"], a.work,
               a.threads)
    learned = a.work / roles["learned"] / "out"
    out = a.work / "export" / "model_best"
    if not (out / "saliency.parquet").exists():
        cli("export", "--model", str(learned / BEST_MODEL), "--out-dir", str(out), "--threads", str(a.threads))
    seconds = time.perf_counter() - t0
    probes = {r: read_parquet(a.work / roles[r] / "out" / "probes.parquet") for r in ("learned", "uniform", "proxy")}
    pm = read_csv_checked(a.work / roles["proxy"] / "out" / "metrics.csv", require=["step", "valid_loss"])
    rows = table2_from_runs(probes, read_metrics(learned / "metrics.csv"), read_parquet(out / "saliency.parquet"),
                            proxy_metrics=pm)[0]
    demo_rows = read_csv_checked(a.reuse / "analysis" / "snell2021" / prefix / "summary.csv", require=CLAIM_COLUMNS)
    copies = {"demo": {r: read_metrics(a.reuse / "models" / "snell2021" / r / "metrics.csv")
                       for r in ("copy_same", "copy_subset")},
              "paper_options": {r: read_metrics(a.work / r / "out" / "metrics.csv") for r in ("copy_same", "copy_subset")}}
    judge = block["copy"]["judge_step"]
    table2 = {"demo": row_table(demo_rows), "paper_options": row_table(rows)}
    if a.translation:
        table2.update(translation_rows(a, block))
    return {"benchmark": "snell_paper_options_effect", "set": a.set, "config": str(a.config),
            "block": {k: block[k] for k in ("copy", "train", "table2", "classification")},
            "seconds_train_and_export": round(seconds, 1), "proxy_best_step": int(pm.loc[pm.valid_loss.idxmin(), "step"]),
            "proxy_valid_loss": {int(r.step): float(r.valid_loss) for r in pm.itertuples()},
            "table2": table2,
            "copy": {"demo_at_last": copy_readings(copies["demo"], block, None),
                     "demo_at_judge_step": copy_readings(copies["demo"], block, judge),
                     "paper_options_at_last": copy_readings(copies["paper_options"], block, None),
                     "paper_options_at_judge_step": copy_readings(copies["paper_options"], block, judge)}}


def best_checkpoint(a: argparse.Namespace) -> dict:
    """Row 13 (see the module docstring)."""
    block, prefix = block_for(a), f"cls_{a.set}"
    specs, roles = snellcfg.runs(block), snellcfg.analyses(block)[prefix]["runs"]
    reused = a.reuse / "models" / "snell2021"
    t0 = time.perf_counter()
    trained = ["learned"] + (["uniform"] if a.steps else [])
    train_runs(specs, [roles[r] for r in trained], a.work, a.threads)
    learned = a.work / roles["learned"] / "out"
    for model in ("model.pt", BEST_MODEL):
        out = a.work / "export" / model.removesuffix(".pt")
        if not (out / "saliency.parquet").exists():
            cli("export", "--model", str(learned / model), "--out-dir", str(out), "--threads", str(a.threads))
    seconds = time.perf_counter() - t0
    probes = {"learned": read_parquet(learned / "probes.parquet"),
              "uniform": read_parquet((a.work / roles["uniform"] / "out" if a.steps else reused / roles["uniform"])
                                      / "probes.parquet"),
              "proxy": read_parquet(reused / roles["proxy"] / "probes.parquet")}
    probes["uniform"] = member_rows(probes["uniform"], a.seeds)
    metrics = read_metrics(learned / "metrics.csv")
    proxy_metrics = read_csv_checked(reused / roles["proxy"] / "metrics.csv", require=["step", "valid_loss"])
    saliency = {m: read_parquet(a.work / "export" / m / "saliency.parquet") for m in ("model", "model_best")}
    rows = {m: table2_from_runs(probes, metrics, s, proxy_metrics=proxy_metrics)[0] for m, s in saliency.items()}
    import torch

    best_steps = torch.load(learned / BEST_MODEL, map_location="cpu", weights_only=False)["best_step"]
    result = {"benchmark": "snell_best_checkpoint", "label": a.label, "set": a.set, "seeds": a.seeds,
              "train": specs[roles["learned"]]["train"], "reuse": str(a.reuse), "work": str(a.work),
              "trained": trained, "seconds_train_and_export": round(seconds, 1),
              **compare(rows["model"], rows["model_best"], metrics, best_steps)}
    if not a.steps:  # the same spec as the finished run: its export is the final model's Δ, bit for bit or nearly
        stored = read_parquet(a.reuse / "activations" / "snell2021" / roles["learned"] / "saliency.parquet")
        stored = member_rows(stored, a.seeds).sort_values(["member", "example", "t"])
        ours = saliency["model"].sort_values(["member", "example", "t"])
        result["check_final_delta"] = float(max(np.abs(np.asarray(x) - np.asarray(y)).max()
                                                for x, y in zip(ours.delta, stored.delta)))
    return result


OUTPUTS = {"best": "snell_best_checkpoint.json", "proxy_epochs": "snell_proxy_epochs_effect.json",
           "paper_options": "snell_paper_options_effect.json", "train_split": "snell_train_split_effect.json"}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", choices=list(OUTPUTS), default="best")
    p.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml")
    p.add_argument("--paper-config", type=Path, default=ROOT / "config" / "paper.yaml")
    p.add_argument("--reuse", type=Path, required=True, help="a finished run's results directory (read only)")
    p.add_argument("--work", type=Path, required=True, help="where the runs and exports of this measurement go")
    p.add_argument("--set", default="rotten_tomatoes")
    p.add_argument("--seeds", type=int, default=6)
    p.add_argument("--steps", type=int, help="the classification runs' steps (default: the config's)")
    p.add_argument("--eval-every", type=int)
    p.add_argument("--row", default="cls_rotten_tomatoes", help="proxy_epochs: the Table 2 row")
    p.add_argument("--epochs", type=int, default=60, help="proxy_epochs: the authors' proxy epochs (60 / 30)")
    p.add_argument("--proxy-evals", type=int, default=10, help="paper_options: the proxy's evaluations")
    p.add_argument("--translation", help="paper_options: also this translation set's Table 2 row (e.g. bible)")
    p.add_argument("--train-sample", type=int, default=200, help="train_split: the training pairs Table 7 reads")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--label", default="demo")
    p.add_argument("--out", type=Path, help="default studies/snell2021/results/<the mode's JSON>")
    a = p.parse_args()
    a.out = a.out or ROOT / "studies" / "snell2021" / "results" / OUTPUTS[a.mode]
    result = {"best": best_checkpoint, "proxy_epochs": proxy_epochs, "paper_options": paper_options,
              "train_split": train_split}[a.mode](a)
    everything = json.loads(a.out.read_text()) if a.out.exists() else {}
    everything[a.label] = result
    a.out.write_text(json.dumps(everything, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k not in ("per_seed", "readings", "table2")}, indent=1))
    print(a.out)


if __name__ == "__main__":
    main()
