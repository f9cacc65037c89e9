"""Snell et al. 2021, deviations.md's Snell row 5: Eq. 21 as printed (the K heads' contexts summed) against the
authors' ``multihead.py`` (their mean), on Fig. 6's K-head models — one axis, the same candidates and labels.

``--reuse``: a finished run of ``--config`` (read only) whose Fig. 6 block ran with ``multihead.combine: sum`` (the
default config's). Its ``models/snell2021/multihead_candidates/candidates.parquet`` is read as is; each kind's
K-head job is trained again through the project's CLI (``attnrepro snell2021 train multihead_<kind>
--candidates …``, which draws the same head sets) with ``combine: mean`` under ``--work``; the sum's models are the
finished run's own. Both go through :func:`attnrepro.snell2021.run_tables.multihead_summary` (the analysis the
claims read): per kind the models' final accuracies, successes (final accuracy ≥ ``good_above``), the success rate
with its 95% Clopper–Pearson interval (:func:`attnrepro.verdicts.intervals.clopper_pearson`) and the head sets (checked
equal under both). Writes ``--out``.

    nice -n 10 python studies/snell2021/snell_multihead_combine.py --reuse /tmp/run_default2/results
        --work /tmp/snell_rows/mh
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from attnrepro.verdicts.intervals import clopper_pearson  # noqa: E402
from attnrepro.io import read_parquet  # noqa: E402
from attnrepro.snell2021 import config as snellcfg  # noqa: E402
from attnrepro.snell2021.run_tables import candidate_table, multihead_summary  # noqa: E402
from attnrepro.snell2021.runs import read_metrics  # noqa: E402


def summarise(run: Path, candidates, combo: str, block: dict) -> dict:
    """One kind's K-head models under one setting: per model its final accuracy, success and heads; the rate."""
    heads = read_parquet(run / "heads.parquet")
    s = multihead_summary(read_metrics(run / "metrics.csv"), heads, candidates, combo, block["fail_below"],
                          block["good_above"], block["multihead"].get("judge_step"))
    ok = s.success.dropna()
    k, n = int(ok.sum()), len(ok)
    low, high = clopper_pearson(k, n)
    sets = {int(m): sorted(int(h) for h in g.head_seed.unique()) for m, g in heads.groupby("member")}
    return {"final_acc": [round(float(x), 4) for x in s.final_acc], "success": [float(x) for x in s.success],
            "n_good_heads": [float(x) for x in s.n_good_heads], "k": k, "n": n, "rate": k / n if n else None,
            "clopper_pearson_95": [round(low, 3), round(high, 3)], "head_sets": sets}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml")
    p.add_argument("--reuse", type=Path, required=True, help="a finished run (combine: sum) of --config, read only")
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", type=Path,
                   default=ROOT / "studies" / "snell2021" / "results" / "snell_multihead_combine.json")
    a = p.parse_args()
    block = yaml.safe_load(a.config.read_text())["snell2021"]
    if block["multihead"].get("combine", "sum") != "sum":
        raise SystemExit(f"{a.config}: snell2021.multihead.combine is not sum; --reuse must hold the sum's models")
    models = a.reuse / "models" / "snell2021"
    cand_file = models / "multihead_candidates" / "candidates.parquet"
    candidates = candidate_table(read_parquet(cand_file))
    mean_block = {**block, "multihead": {**block["multihead"], "combine": "mean"}}
    specs = snellcfg.runs(mean_block)
    out = {"benchmark": "snell_multihead_combine", "config": str(a.config), "reuse": str(a.reuse),
           "good_above": block["good_above"], "judge_step": block["multihead"].get("judge_step"),
           "train": specs["multihead_random"]["train"], "kinds": {}}
    for combo in snellcfg.COMBOS:
        run = f"multihead_{combo}"
        d = a.work / run
        t0 = time.perf_counter()
        if not (d / "out" / "model.pt").exists():
            subprocess.run([str(Path(sys.executable).with_name("attnrepro")), "snell2021", "train", run,
                            "--spec-json", json.dumps(specs[run]), "--candidates", str(cand_file), "--ckpt-dir",
                            str(d / "ckpt"), "--out-dir", str(d / "out"), "--threads", str(a.threads)],
                           check=True, cwd=ROOT, capture_output=True)
        summed, meaned = summarise(models / run, candidates, combo, block), summarise(d / "out", candidates, combo,
                                                                                      mean_block)
        if summed["head_sets"] != meaned["head_sets"]:
            raise SystemExit(f"{run}: the mean's head sets differ from the sum's: not a one-axis comparison")
        out["kinds"][combo] = {"sum": summed, "mean": meaned, "seconds_mean": round(time.perf_counter() - t0, 1)}
        print(combo, "sum", summed["k"], "/", summed["n"], "mean", meaned["k"], "/", meaned["n"], file=sys.stderr)
    a.out.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
