"""Small measured effects of the issue-28 fidelity options on a copy run (docs/deviations.md, Snell section).

One copy run of config/paper.yaml's snell2021 block (default ``copy_same``: permutations of 40 of 40 words, width
256, batch 128) cut to a few seeds and steps, trained twice through the project's CLI with one option off and on
(``--option score_bias``: (W s + b)·h_l, the authors' attn_lin, vs Eq. 1's no bias). Reports, per variant, the
token accuracy per seed at every evaluation and the mean at the last one; the runs share seeds, data order and
every other parameter draw (the bias is drawn after the other parameters). Writes
``bench/results/snell_<option>_effect.json``.

    python bench/snell_fidelity_effects.py [--run copy_same] [--seeds 4] [--steps 61] [--threads 2]

A few seeds and a few dozen steps are a smoke-sized reading of the direction and size of an effect, not of the
failure rate at 191 updates, which needs the paper-scale block (docs/deviations.md gives its command).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from attnrepro.snell2021 import config as snellcfg  # noqa: E402

OPTIONS = {"score_bias": ("copy", "score_bias")}


def spec_for(run: str, seeds: int, steps: int, option: str, on: bool) -> dict:
    block = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())["snell2021"]
    block["seeds"] = list(range(seeds))
    block["train"].update(steps=steps, eval_every=steps, checkpoint_every=steps,
                          eval_at=[s for s in block["train"]["eval_at"] if s < steps])
    section, key = OPTIONS[option]
    block[section][key] = on
    return snellcfg.runs(block)[run]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--run", default="copy_same")
    p.add_argument("--option", default="score_bias", choices=sorted(OPTIONS))
    p.add_argument("--seeds", type=int, default=4)
    p.add_argument("--steps", type=int, default=61)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    out = {"benchmark": f"snell_{a.option}_effect", "run": a.run, "seeds": a.seeds, "steps": a.steps, "variants": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for on in (False, True):
            name = f"{a.option}={on}"
            spec = spec_for(a.run, a.seeds, a.steps, a.option, on)
            d = Path(tmp) / name
            t0 = time.perf_counter()
            subprocess.run([str(Path(sys.executable).with_name("attnrepro")), "snell2021", "train", a.run, "--spec-json",
                            json.dumps(spec), "--ckpt-dir", str(d / "ckpt"), "--out-dir", str(d / "out"),
                            "--threads", str(a.threads)], check=True, cwd=ROOT)
            m = pd.read_csv(d / "out" / "metrics.csv")
            last = m[m.step == m.step.max()]
            out["variants"][name] = {
                "seconds": round(time.perf_counter() - t0, 1),
                "token_acc_by_step": {int(s): [round(float(x), 4) for x in g.sort_values("seed").token_acc]
                                      for s, g in m.groupby("step")},
                "mean_final_token_acc": round(float(last.token_acc.mean()), 4)}
            print(name, out["variants"][name]["mean_final_token_acc"], file=sys.stderr)
    dest = ROOT / "bench" / "results" / f"snell_{a.option}_effect.json"
    dest.write_text(json.dumps(out, indent=1) + "\n")
    print(dest)


if __name__ == "__main__":
    main()
