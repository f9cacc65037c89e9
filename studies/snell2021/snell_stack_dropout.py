"""Snell et al. 2021, deviations.md's Snell row 8: does a translation member's training depend on the stack it
trains in? The authors' translation model (``architecture: authors``, dropout between its LSTM layers) drew its
dropout masks from torch's global generator, which the members of a stack share, so a member's masks depended on
which members shared its stack; since :mod:`attnrepro.nn.dropout` each member draws them from its own stream, as every
other draw (initialisation, batches), and stack minus alone should be float noise.

At a tiny size — ``--config``'s snell2021 block (default: the smoke config: seeds, width, held-out size) with
``translation.architecture: authors``, ``--dropout``, ``--steps`` steps of ``--batch`` at ``--lr``, on a prepared
translation set (``--data``: a finished run's ``data/<set>``, read only) — the learned run is trained through the
project's CLI (``attnrepro snell2021 train``, one process per run) as one stack of ``--seeds`` seeds and as each
seed alone, and the uniform run once as a stack (its β^uf is shared by both readings, so A(α, β^uf) differs only
through α). Per seed: final train loss, held-out loss and token accuracy (``metrics.csv``) and A(α, β^uf) (α at
the learned run's most accurate evaluation, the maximum over the uniform run's evaluations, Table 2's reading),
alone and stacked, their difference, and the seed-to-seed spread (sd over the stacked members). The same with
dropout 0 (``control``): a member alone and stacked then differ only by the stack's shared padding and the
batched arithmetic, so what remains above it is dropout's.

    nice -n 10 python studies/snell2021/snell_stack_dropout.py --data /tmp/run_default2/results/data/bible
        --work /tmp/snell_rows/stack [--seeds 3] [--steps 300] [--hidden 16]
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

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from attnrepro.io import read_parquet  # noqa: E402
from attnrepro.snell2021 import config as snellcfg  # noqa: E402
from attnrepro.snell2021.agreement import agreement  # noqa: E402
from attnrepro.snell2021.agreement_table import reference_alpha  # noqa: E402
from attnrepro.snell2021.probes import stacked  # noqa: E402
from attnrepro.snell2021.runs import read_metrics  # noqa: E402

MEASURES = ["train_loss", "valid_loss", "token_acc", "A_alpha_beta_uf"]


def specs_for(a: argparse.Namespace, dropout: float) -> dict[str, dict]:
    block = yaml.safe_load(a.config.read_text())["snell2021"]
    t = block["translation"]
    t.update(seeds=list(range(a.seeds)), architecture="authors", dropout=dropout, hidden=a.hidden)
    t["train"] = {**t.get("train", {}), "steps": a.steps, "batch_size": a.batch, "lr": a.lr,
                  "eval_every": a.eval_every, "checkpoint_every": a.steps, "eval_at": [0]}
    name = next(iter(t["sets"]))
    out = {}
    for role in ("learned", "uniform"):
        spec = snellcfg.runs(block)[f"mt_{name}_{role}"]
        spec["data"] = {**spec["data"], "data_dir": str(a.data)}
        out[role] = spec
    return out


def train(run: str, spec: dict, d: Path, threads: int) -> Path:
    if not (d / "out" / "model.pt").exists():
        subprocess.run([str(Path(sys.executable).with_name("attnrepro")), "snell2021", "train", run, "--spec-json",
                        json.dumps(spec), "--ckpt-dir", str(d / "ckpt"), "--out-dir", str(d / "out"), "--threads",
                        str(threads)], check=True, cwd=ROOT, capture_output=True)
    return d / "out"


def readings(out: Path, beta_uf: dict[int, np.ndarray]) -> dict[int, dict]:
    """Per seed of a finished learned run: its last evaluation's losses and accuracy, and A(α, β^uf)."""
    metrics, probes = read_metrics(out / "metrics.csv"), read_parquet(out / "probes.parquet")
    res = {}
    for member in sorted(metrics.member.unique()):
        m = metrics[metrics.member == member].sort_values("step")
        seed = int(m.seed.iloc[0])
        _, alpha, lengths = stacked(probes, "alpha", member)
        a_ref = reference_alpha(alpha, m.token_acc.to_numpy())
        res[seed] = {**{k: float(m[k].iloc[-1]) for k in MEASURES[:3]},
                     "A_alpha_beta_uf": max(agreement(a_ref, b, lengths) for b in beta_uf[seed])}
    return res


def one_setting(a: argparse.Namespace, dropout: float) -> dict:
    specs, work = specs_for(a, dropout), a.work / f"dropout_{dropout:g}"
    t0 = time.perf_counter()
    uf_out = train("uniform", specs["uniform"], work / "uniform", a.threads)
    uf = read_parquet(uf_out / "probes.parquet")
    beta_uf = {s: stacked(uf, "beta", member)[1] for member, s in enumerate(range(a.seeds))}  # paired by index
    stack = readings(train("stack", specs["learned"], work / "stack", a.threads), beta_uf)
    alone = {}
    for member, triple in enumerate(specs["learned"]["members"]):
        alone.update(readings(train(f"alone_{member}", {**specs["learned"], "members": [triple]},
                                    work / f"alone_{member}", a.threads), {triple[0]: beta_uf[member]}))
    per_seed = [{"seed": s, **{f"{k}|alone": alone[s][k] for k in MEASURES},
                 **{f"{k}|stack": stack[s][k] for k in MEASURES},
                 **{f"{k}|stack-alone": stack[s][k] - alone[s][k] for k in MEASURES}} for s in sorted(stack)]
    df = pd.DataFrame(per_seed)
    return {"dropout": dropout, "seconds": round(time.perf_counter() - t0, 1), "per_seed": per_seed,
            "max_abs_stack_minus_alone": {k: float(df[f"{k}|stack-alone"].abs().max()) for k in MEASURES},
            "seed_sd_stacked": {k: float(df[f"{k}|stack"].std(ddof=1)) for k in MEASURES},
            "seed_range_stacked": {k: float(df[f"{k}|stack"].max() - df[f"{k}|stack"].min()) for k in MEASURES}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", type=Path, default=ROOT / "config" / "smoke.yaml")
    p.add_argument("--data", type=Path, required=True, help="a prepared translation set (read only)")
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--eval-every", type=int, default=50)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.003)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--dropout", type=float, default=0.5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", type=Path, default=ROOT / "studies" / "snell2021" / "results" / "snell_stack_dropout.json")
    a = p.parse_args()
    config = a.config.resolve()
    result = {"benchmark": "snell_stack_dropout",
              "config": str(config.relative_to(ROOT) if config.is_relative_to(ROOT) else config),
              "data": str(a.data), "seeds": a.seeds, "steps": a.steps, "eval_every": a.eval_every,
              "batch_size": a.batch, "lr": a.lr, "hidden": a.hidden,
              "dropout": one_setting(a, a.dropout), "control": one_setting(a, 0.0)}
    a.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({f"{k}.{m}": result[k][m] for k in ("dropout", "control")
                      for m in ("max_abs_stack_minus_alone", "seed_sd_stacked")}, indent=1))


if __name__ == "__main__":
    main()
