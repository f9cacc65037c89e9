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

    nice -n 10 python bench/snell_best_checkpoint.py --reuse /tmp/run_default2/results --work /tmp/snell_rows/best
        [--set rotten_tomatoes] [--seeds 6] [--steps 3000 --eval-every 250] [--threads 1] [--label demo]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from attnrepro.io import read_csv_checked, read_parquet  # noqa: E402
from attnrepro.snell2021 import config as snellcfg  # noqa: E402
from attnrepro.snell2021.agreement_table import table2_from_runs  # noqa: E402
from attnrepro.snell2021.runs import BEST_MODEL, read_metrics  # noqa: E402

DELTA_COLUMNS = ["A_delta_beta_uf", "A_delta_beta_uf_excess", "tau_delta_beta_uf", "tau_delta_beta_uf_excess"]


def block_for(a: argparse.Namespace) -> dict:
    block = yaml.safe_load(a.config.read_text())["snell2021"]
    cl = block["classification"]
    cl["seeds"] = list(range(a.seeds))
    if a.steps:
        cl["train"] = {**cl["train"], "steps": a.steps, "eval_every": a.eval_every or cl["train"]["eval_every"]}
    block["table2"]["export_at"] = "best"
    snellcfg.check(block)
    return block


def cli(*args: str) -> None:
    subprocess.run([str(Path(sys.executable).with_name("attnrepro")), "snell2021", *args], check=True, cwd=ROOT)


def member_rows(frame: pd.DataFrame, n: int) -> pd.DataFrame:
    return frame[frame.member < n].reset_index(drop=True)


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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml")
    p.add_argument("--reuse", type=Path, required=True, help="a finished run's results directory (read only)")
    p.add_argument("--work", type=Path, required=True, help="where the runs and exports of this measurement go")
    p.add_argument("--set", default="rotten_tomatoes")
    p.add_argument("--seeds", type=int, default=6)
    p.add_argument("--steps", type=int, help="the classification runs' steps (default: the config's)")
    p.add_argument("--eval-every", type=int)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--label", default="demo")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "snell_best_checkpoint.json")
    a = p.parse_args()
    block, prefix = block_for(a), f"cls_{a.set}"
    specs, roles = snellcfg.runs(block), snellcfg.analyses(block)[prefix]["runs"]
    reused = a.reuse / "models" / "snell2021"
    t0 = time.perf_counter()
    trained = ["learned"] + (["uniform"] if a.steps else [])
    for role in trained:
        run = roles[role]
        d = a.work / run
        if not (d / "out" / "model.pt").exists():
            cli("train", run, "--spec-json", json.dumps(specs[run]), "--ckpt-dir", str(d / "ckpt"), "--out-dir",
                str(d / "out"), "--threads", str(a.threads))
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
    everything = json.loads(a.out.read_text()) if a.out.exists() else {}
    everything[a.label] = result
    a.out.write_text(json.dumps(everything, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "per_seed"}, indent=1))


if __name__ == "__main__":
    main()
