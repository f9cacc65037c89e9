"""Small measured effects of Snell et al. 2021 deviations that need a copy model or a finished run's tables
(docs/deviations.md, Snell "Remaining differences"), one JSON per measure in ``studies/snell2021/results/``.

``--measure option`` (row 4; the default): one copy run of config/paper.yaml's snell2021 block (default
``copy_same``: permutations of 40 of 40 words, width 256, batch 128) cut to a few seeds and steps, trained twice
through the project's CLI with one option off and on (``--option score_bias``: (W s + b)·h_l, the authors'
attn_lin, vs Eq. 1's no bias). Reports, per variant, the token accuracy per seed at every evaluation and the mean
at the last one; the runs share seeds, data order and every other parameter draw (the bias is drawn after the
other parameters). Writes ``snell_<option>_effect.json``. A few seeds and a few dozen steps are a smoke-sized
reading of the direction and size of an effect, not of the failure rate at 191 updates, which needs the
paper-scale block (docs/deviations.md gives its command).

``--measure heldout`` (row 1: the authors score a copy run on 50 fresh sequences per evaluation, we on a fixed
set of ``n_eval`` 200). A run's tables keep per-seed accuracies only (``eval.parquet`` holds the held-out
sequences, not per-sequence results) and its only full model is the final one (``model.pt``, after the last
update: 200, not the judge step 191), so this reads ``model.pt`` of each ``--runs`` under ``--results``: the
teacher-forced token accuracy of every sequence (the engine's measure per sequence) on the stored held-out set
(checked: its mean is metrics.csv's accuracy at the last step) and on a fresh pool of ``--pool`` sequences
(torch seed :data:`POOL_SEED`). From each, ``--draws`` random ``--sample``-subsets per seed (numpy seed
:data:`DRAW_SEED`, one generator over ``--runs`` in order; from the pool also subsets of the stored size) give
the spread of the accuracy a seed reads, the probability that its fail/pass call (accuracy < ``fail_below``)
differs from the call on the whole set, and the distribution of the run's failure count (every seed its own
subset, as separate runs draw their own). At the judge step it is a projection, labelled so: each seed's accuracy
there (metrics.csv) with the per-sequence spread measured at the last step, a normal reading of a mean of
``--sample``. Writes ``snell_heldout_effect.json``.

``--measure matched_null`` (row 15): per Table 2 row of ``--config`` (its ``analysis/snell2021/<row>/summary.csv``
under ``--results``), the matched null (A maximised over checkpoints against shuffled partners) minus Â for
A(α, β^uf) and A(α, β), per seed and as the mean, and the excess over each. Writes
``snell_matched_null_effect.json``.

    python studies/snell2021/snell_fidelity_effects.py [--run copy_same] [--seeds 4] [--steps 61] [--threads 2]
    python studies/snell2021/snell_fidelity_effects.py --measure heldout --results results_paper \
        [--config config/paper.yaml]
    python studies/snell2021/snell_fidelity_effects.py --measure matched_null --results results \
        [--config config/config.yaml]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from attnrepro.training.engine import token_hits  # noqa: E402
from attnrepro.io import RESULTS_ROOT_ENV, read_csv_checked  # noqa: E402
from attnrepro.snell2021 import config as snellcfg  # noqa: E402
from attnrepro.snell2021.runs import load_data, load_run, read_metrics  # noqa: E402

OPTIONS = {"score_bias": ("copy", "score_bias")}
POOL_SEED, DRAW_SEED = 2021, 50  # the fresh pool's torch seed; the subsets' numpy seed
NULL_PAIRS = [("A_alpha_beta_uf", "A_alpha_beta_uf_null"), ("A_alpha_beta", "A_alpha_beta_null")]
OUTPUTS = {"heldout": "snell_heldout_effect.json", "matched_null": "snell_matched_null_effect.json"}


def spec_for(run: str, seeds: int, steps: int, option: str, on: bool) -> dict:
    block = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())["snell2021"]
    block["seeds"] = list(range(seeds))
    block["train"].update(steps=steps, eval_every=steps, checkpoint_every=steps,
                          eval_at=[s for s in block["train"]["eval_at"] if s < steps])
    section, key = OPTIONS[option]
    block[section][key] = on
    return snellcfg.runs(block)[run]


def option_effect(a: argparse.Namespace) -> dict:
    """Row 4: the run trained with ``a.option`` off and on."""
    out = {"benchmark": f"snell_{a.option}_effect", "run": a.run, "seeds": a.seeds, "steps": a.steps, "variants": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for on in (False, True):
            name = f"{a.option}={on}"
            spec = spec_for(a.run, a.seeds, a.steps, a.option, on)
            d = Path(tmp) / name
            t0 = time.perf_counter()
            cli = str(Path(sys.executable).with_name("attnrepro"))
            subprocess.run([cli, "snell2021", "train", a.run, "--spec-json", json.dumps(spec), "--ckpt-dir",
                            str(d / "ckpt"), "--out-dir", str(d / "out"), "--threads", str(a.threads)],
                           check=True, cwd=ROOT)
            m = pd.read_csv(d / "out" / "metrics.csv")
            last = m[m.step == m.step.max()]
            out["variants"][name] = {
                "seconds": round(time.perf_counter() - t0, 1),
                "token_acc_by_step": {int(s): [round(float(x), 4) for x in g.sort_values("seed").token_acc]
                                      for s, g in m.groupby("step")},
                "mean_final_token_acc": round(float(last.token_acc.mean()), 4)}
            print(name, out["variants"][name]["mean_final_token_acc"], file=sys.stderr)
    return out


@torch.no_grad()
def per_sequence_hits(model, data, chunk: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """(right tokens [S, M], real tokens [M]) of every sequence of ``data`` under teacher forcing, each stacked
    seed: :func:`attnrepro.training.engine.teacher_forced`'s token accuracy (its :func:`~attnrepro.training.engine.token_hits`)
    before its sum over the sequences."""
    hits = []
    for start in range(0, len(data), chunk):
        part = data.subset(slice(start, start + chunk))
        n = model.n_seeds
        src, tgt_in = (x.unsqueeze(0).expand(n, -1, -1) for x in (part.src, part.tgt_in))
        logits = model(src, part.src_len.unsqueeze(0).expand(n, -1), tgt_in)
        hits.append(token_hits(logits, part)[0].sum(-1))
    return torch.cat(hits, 1).numpy().astype(float), data.tgt_mask().sum(-1).numpy().astype(float)


def subset_readings(hits: np.ndarray, tokens: np.ndarray, size: int, draws: int, fail_below: float,
                    rng: np.random.Generator) -> dict:
    """Each seed's token accuracy on ``draws`` random ``size``-subsets of the sequences (without replacement, a
    subset per seed and draw) against the whole set: the spread, and how often the fail/pass call changes."""
    whole = hits.sum(1) / tokens.sum()
    acc = np.empty((hits.shape[0], draws))
    for s in range(hits.shape[0]):
        pick = np.argpartition(rng.random((draws, len(tokens))), size - 1, axis=1)[:, :size]
        acc[s] = hits[s][pick].sum(1) / tokens[pick].sum(1)
    fail, fail_whole = acc < fail_below, whole < fail_below
    count, count_whole = fail.sum(0), int(fail_whole.sum())
    return {"size": size, "draws": draws,
            "per_seed": [{"accuracy_whole": float(whole[s]), "fails_whole": bool(fail_whole[s]),
                          "sd": float(acc[s].std()), "q025": float(np.quantile(acc[s], 0.025)),
                          "q975": float(np.quantile(acc[s], 0.975)), "p_fail": float(fail[s].mean()),
                          "p_call_flips": float((fail[s] != fail_whole[s]).mean())} for s in range(len(whole))],
            "failures_whole": count_whole, "failures_mean": float(count.mean()),
            "failures_q025": float(np.quantile(count, 0.025)), "failures_q975": float(np.quantile(count, 0.975)),
            "failures_min": int(count.min()), "failures_max": int(count.max()),
            "p_failures_differ": float((count != count_whole).mean())}


def projected_flips(mean: np.ndarray, sd: np.ndarray, size: int, fail_below: float, call: np.ndarray) -> list[float]:
    """A projection, not a measurement: P(a ``size``-sequence reading's call differs from ``call``) when that
    reading is normal around ``mean`` with the per-sequence ``sd`` / √size."""
    z = (fail_below - mean) / np.maximum(sd / math.sqrt(size), 1e-12)
    p_fail = 0.5 * (1.0 + np.vectorize(math.erf)(z / math.sqrt(2.0)))
    return [float(1.0 - p if c else p) for p, c in zip(p_fail, call)]


def heldout_effect(a: argparse.Namespace, block: dict) -> dict:
    """Row 1 (see the module docstring)."""
    fail_below, judge = block["fail_below"], block["copy"].get("judge_step")
    out = {"benchmark": "snell_heldout_effect", "results": str(a.results), "fail_below": fail_below,
           "judge_step": judge, "pool": a.pool, "pool_seed": POOL_SEED, "draw_seed": DRAW_SEED, "runs": {}}
    rng = np.random.default_rng(DRAW_SEED)
    for run in a.runs:
        folder = a.results / "models" / "snell2021" / run
        t0 = time.perf_counter()
        spec, model, valid, _ = load_run(folder / "model.pt")
        metrics = read_metrics(folder / "metrics.csv")
        source = copy_source(spec, folder / "model.pt")
        pool = source(torch.Generator().manual_seed(POOL_SEED), a.pool)
        (hits, tokens), (pool_hits, pool_tokens) = per_sequence_hits(model, valid), per_sequence_hits(model, pool)
        last = metrics[metrics.step == metrics.step.max()].sort_values("member")
        gap = float(np.abs(hits.sum(1) / tokens.sum() - last.token_acc.to_numpy()).max())
        if gap > 1e-5:
            raise ValueError(f"{folder / 'metrics.csv'}: the per-sequence accuracies of model.pt on the held-out "
                             f"set do not sum to its accuracy at step {int(last.step.iloc[0])} (gap {gap:.2g})")
        row = {"seeds": [int(s) for s in last.seed], "model_step": int(last.step.iloc[0]), "n_stored": len(valid),
               "check_max_abs_gap": gap,
               "stored": subset_readings(hits, tokens, a.sample, a.draws, fail_below, rng),
               "pool": {str(n): subset_readings(pool_hits, pool_tokens, n, a.draws, fail_below, rng)
                        for n in (a.sample, len(valid))}}
        steps = sorted(int(s) for s in metrics.step.unique())
        at = [s for s in steps if judge is None or s <= judge][-1]
        judged = metrics[metrics.step == at].sort_values("member").token_acc.to_numpy()
        sd = np.array([r["sd"] for r in row["pool"][str(a.sample)]["per_seed"]]) * math.sqrt(a.sample)
        flips = projected_flips(judged, sd, a.sample, fail_below, judged < fail_below)
        row["projection_at_judge_step"] = {
            "step": at, "not_a_measurement": "normal around metrics.csv's accuracy at the step, with the "
                                             "per-sequence sd measured on the pool at the model's step",
            "accuracy": [float(x) for x in judged], "failures": int((judged < fail_below).sum()),
            "p_call_flips": flips, "expected_flips": float(sum(flips))}
        row["seconds"] = round(time.perf_counter() - t0, 1)
        out["runs"][run] = row
        print(run, "failures (stored)", row["stored"]["failures_whole"], "p differ at", a.sample,
              row["stored"]["p_failures_differ"], "expected flips at", at, round(sum(flips), 3), file=sys.stderr)
    return out


def copy_source(spec: dict, path: Path):
    """The run's training distribution (a copy task) as a batch source, for fresh held-out sequences."""
    if spec["data"]["task"] != "copy":
        raise ValueError(f"{path}: --measure heldout reads copy runs; this run's task is {spec['data']['task']!r}")
    return load_data(spec["data"], 1)[0]


def shown(path: Path) -> str:
    """A path relative to the repository where it lies inside it."""
    path = path.resolve()
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def matched_null_effect(a: argparse.Namespace, block: dict) -> dict:
    """Row 15: the matched null − Â per Table 2 row, in points (× 100), per seed and the mean."""
    out = {"benchmark": "snell_matched_null_effect", "results": str(a.results), "config": shown(a.config), "rows": {}}
    for name in snellcfg.table2_analyses(block):
        path = a.results / "analysis" / "snell2021" / name / "summary.csv"
        s = read_csv_checked(path, require=["seed", "A_hat"] + [c for pair in NULL_PAIRS for c in pair])
        row = {"n_seeds": len(s), "A_hat": 100 * float(s.A_hat.mean())}
        for value, null in NULL_PAIRS:
            d = 100 * (s[null] - s.A_hat)
            row[value] = {"value": 100 * float(s[value].mean()), "null": 100 * float(s[null].mean()),
                          "null_minus_A_hat": float(d.mean()), "null_minus_A_hat_per_seed": [float(x) for x in d],
                          "excess_over_A_hat": 100 * float((s[value] - s.A_hat).mean()),
                          "excess_over_null": 100 * float((s[value] - s[null]).mean())}
        out["rows"][name] = row
        print(name, {v: round(row[v]["null_minus_A_hat"], 2) for v, _ in NULL_PAIRS}, file=sys.stderr)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--measure", choices=["option", *OUTPUTS], default="option")
    p.add_argument("--run", default="copy_same")
    p.add_argument("--option", default="score_bias", choices=sorted(OPTIONS))
    p.add_argument("--seeds", type=int, default=4)
    p.add_argument("--steps", type=int, default=61)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--results", type=Path, help="heldout / matched_null: a finished run's results folder")
    p.add_argument("--config", type=Path, help="the config that made it (default: paper.yaml for heldout, "
                                               "config.yaml for matched_null)")
    p.add_argument("--runs", nargs="+", default=["copy_same", "copy_subset", "copy_mixture"])
    p.add_argument("--sample", type=int, default=50, help="heldout: the authors' sequences per evaluation")
    p.add_argument("--draws", type=int, default=10000)
    p.add_argument("--pool", type=int, default=1000, help="heldout: fresh sequences per run")
    a = p.parse_args()
    if a.measure == "option":
        out = option_effect(a)
        dest = ROOT / "studies" / "snell2021" / "results" / f"snell_{a.option}_effect.json"
    else:
        if a.results is None:
            p.error(f"--measure {a.measure} needs --results")
        torch.set_num_threads(a.threads)
        a.config = a.config or ROOT / "config" / ("paper.yaml" if a.measure == "heldout" else "config.yaml")
        dest = ROOT / "studies" / "snell2021" / "results" / OUTPUTS[a.measure]
        # the readers move a corrupt workflow output aside: point their results root here, so that nothing under
        # --results is ever moved (a bad file stops the script with its name instead)
        os.environ[RESULTS_ROOT_ENV] = str(dest.parent)
        block = yaml.safe_load(a.config.read_text())["snell2021"]
        out = (heldout_effect if a.measure == "heldout" else matched_null_effect)(a, block)
    dest.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(dest)


if __name__ == "__main__":
    main()
