"""Run every benchmark of bench/ and write their results side by side: bench/results/*.json and the table
bench/results/summary.md. Benchmarks are not tests; nothing here asserts a time.

Usage: python bench/run_all.py [--quick] [--summary-only] [--dry-run]
    --quick         fewer steps and repeats (a check that every benchmark runs, not numbers to publish)
    --summary-only  rewrite summary.md from the JSON files already in bench/results/
    --dry-run       print the benchmark commands it would run, run nothing
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
TOOL_RESULTS = ROOT / "tools" / "results"  # the two regression tools it also runs write theirs there
FRESH = Path(tempfile.gettempdir()) / "attnrepro_bench_config"  # the default run kept for claims_stable.py


def commands(quick: bool) -> list[list[str]]:
    py = sys.executable
    reps = ["--repeats", "1"] if quick else ["--repeats", "3"]
    return [
        [py, "bench/export_layout.py", "--out", "bench/results/export_layout.json"],
        [py, "bench/probe_records.py", "--rounds", "1" if quick else "5"],
        [py, "bench/export_analysis.py", *reps, *(["--train-steps", "5"] if quick else [])],
        [py, "bench/stacked_training.py", "--steps", "3" if quick else "20", *reps],
        [py, "bench/snell_copy.py", *(["--seeds", "2", "--short", "1", "--long", "2", "--peer-like", "2"]
                                      if quick else []), *reps],
        [py, "bench/workflow.py", "--config", "config/smoke.yaml"],
        [py, "tools/byte_identical.py", "--config", "config/smoke.yaml"],
        *([] if quick else [
            [py, "bench/workflow.py", "--config", "config/config.yaml", "--keep", str(FRESH)],
            # the fresh default run's verdicts against the committed table (its exit status 1, a row
            # that moved without being marginal, is a result for the summary, not a failure of the benchmark)
            [py, "tools/claims_stable.py", "workflow/reference/claims_config.csv",
             str(FRESH / "results" / "claims.csv"), "--json", "tools/results/claims_stable_config.json"]]),
    ]


def verdict(measured: float, target: float, higher_is_better: bool = False) -> str:
    """'met' or 'missed by N%' (how far the measurement is from the target, relative to the target)."""
    ok = measured >= target if higher_is_better else measured <= target
    return "met" if ok else f"**missed** by {abs(measured - target) / target:.0%}"


# whole-workflow targets: the default and smoke runs' limits, and the paper slice finishing on this CPU in 2 h
WORKFLOW_TARGETS = {"workflow_smoke": (5 * 60, "≤ 5 min"), "workflow_config": (30 * 60, "≤ 30 min"),
                    "workflow_paper_slice": (2 * 3600, "≤ 2 h")}
BEFORE_SNELL_WORKFLOW_S = 21.8 * 60  # the default run's time before Snell et al. joined the DAG
PEER_RATIO, FLOOR_FRACTION = 1.3, 0.8  # per seed vs a one-seed nn.LSTM model; share of the matmul floor
TRAINING_CUT = 0.30  # the default workflow's summed training time, down by at least this
NOTES = RESULTS / "summary_notes.md"  # hand-written notes that no JSON holds, appended as they are


def summary_rows() -> list[str]:
    rows = ["| benchmark | result | target | verdict |", "|---|---|---|---|"]
    tools = [*TOOL_RESULTS.glob("byte_identical*.json"), *TOOL_RESULTS.glob("claims_stable*.json")]
    for path in sorted([*RESULTS.glob("*.json"), *tools], key=lambda p: p.name):
        r = json.loads(path.read_text())
        name = path.stem
        if name == "stacked_training":
            target = r.get("target_speedup", 3.0)
            other = {(x["cell"], x["kernel"]): x for x in r["rows"] if "kernel" in x}
            for row in r["rows"]:
                if not row.get("chosen", True):
                    continue
                alt = [x for (c, k), x in other.items() if c == row["cell"] and k != row.get("kernel")]
                alt_text = "".join(f"; {x['kernel']} kernel: {x['speedup']:.2f}× ({x['stacked_s_per_step']:.3f} vs "
                                   f"{x['sequential_s_per_step']:.3f} s/step)" for x in alt)
                rows.append(f"| stacked training, AED-{row['cell'].upper()} H=128, {row['seeds']} seeds, CPU, "
                            f"{row.get('kernel', 'eager')} kernel | {row['speedup']:.2f}× faster than sequential "
                            f"({row['stacked_s_per_step']:.3f} vs {row['sequential_s_per_step']:.3f} s/step{alt_text})"
                            f" | ≥ {target:g}× | {verdict(row['speedup'], target, higher_is_better=True)} |")
        elif name == "snell_copy":
            peer = r.get("peer_like_same_run") or {}
            same_run = (f"; {r['speedup_vs_peer_like_same_run']:.1f}× a one-seed nn.LSTM model timed in the same "
                        f"run ({peer['per_seed_s']:.0f} s/seed)" if peer else "")
            rows.append(f"| peer: Snell permutation copy, {r['settings']['seeds']} seeds stacked | "
                        f"{r['estimated_seconds'] / 60:.1f} min ({r['seconds_per_seed']:.0f} s/seed{same_run}) | "
                        f"≤ {r['target_seconds'] / 60:.0f} min | {verdict(r['estimated_seconds'], r['target_seconds'])} |")
            if peer:
                rows.append(f"| Snell copy, {r['settings']['seeds']} stacked seeds vs the one-seed nn.LSTM model "
                            f"(same run), per seed | {r['speedup_vs_peer_like_same_run']:.2f}× faster | "
                            f"≥ {PEER_RATIO:g}× | "
                            f"{verdict(r['speedup_vs_peer_like_same_run'], PEER_RATIO, higher_is_better=True)} |")
            if "arithmetic" in r:
                floor = r["arithmetic"]["floor_seconds"] / r["estimated_seconds"]
                rows.append(f"| Snell copy, {r['settings']['seeds']} stacked seeds: the matrix products' floor "
                            f"({r['arithmetic']['flops_per_step'] / 1e9:.0f} GFLOP per step at this machine's "
                            f"{r['arithmetic']['matmul_gflops']:.0f} GFLOP/s) over the estimated run | "
                            f"{floor:.2f} of the floor | ≥ {FLOOR_FRACTION:g} | "
                            f"{verdict(floor, FLOOR_FRACTION, higher_is_better=True)} |")
        elif r.get("benchmark") == "training_time":  # the default's training jobs, two runs on one machine
            m = r.get("models")
            same = (f"; models and metrics: {m['n_files'] - len(m['differ'])} of {m['n_files']} files byte-identical"
                    if m else "")
            rows.append(f"| the default workflow's {r['n_jobs']} training jobs, summed: {r['new']} vs {r['old']} "
                        f"(`{name}.json`) | {r['new_s'] / 60:.1f} vs {r['old_s'] / 60:.1f} min ({r['change']:+.1%}; "
                        + ", ".join(f"{k} {v['change']:+.1%}" for k, v in r["by_rule"].items())
                        + f"{same}) | ≤ −{TRAINING_CUT:.0%} | "
                          f"{verdict(-r['change'], TRAINING_CUT, higher_is_better=True)} |")
            if raised := r.get("seeds_raised"):  # the new code at the config whose seeds it raised
                rows.append(f"| the same, the new code at the config with its raised seeds ({raised['n_jobs']} jobs "
                            f"rerun at both configs at once, each scaled by its own ratio) vs {r['old']} | "
                            f"{raised['new_s'] / 60:.1f} vs {raised['old_s'] / 60:.1f} min ({raised['change']:+.1%}) "
                            f"| ≤ +0% | {'met' if raised['change'] <= 0 else '**missed**'} |")
        elif name == "kernel_profile" and "before" in next(iter(r["shapes"].values())):
            what = ", ".join(f"{k}={v}" for k, v in r.get("before_env", {}).items()) or r["versions"]["before"]
            for shape, by in r["shapes"].items():
                b, t = by["before"]["best_s_per_step"], by["this"]["best_s_per_step"]
                rows.append(f"| one training step, {shape}, before ({what}) and now, least of {r['rounds']} "
                            f"alternating rounds | {b:.4f} → "
                            f"{t:.4f} s/step ({b / t:.2f}×) | – | – |")
        elif name == "probe_records":  # a Snell run's records at each evaluation, outside the model
            t = r["seconds"]
            rows.append(f"| Snell probe records of one evaluation ({r['rows']:,} rows of α and β): rows built, "
                        f"pickled, read back, tabled | per-row arrays {t['per_row_arrays']:.3f} s, Arrow lists "
                        f"{t['arrow_lists']:.3f} s ({r['speedup']:g}×; same table) | — | — |")
        elif name == "export_analysis":
            rows.append(f"| export + Aitken decomposition, {r['experiment']} ({r['seeds']} seeds, {r['n_examples']} "
                        f"examples) | {r['median_total_s']:.1f} s (export {r['median_export_s']:.1f} s at "
                        f"{r['write_mb_per_s']:.1f} MB/s written; analysis {r['median_analyze_s']:.1f} s at "
                        f"{r['read_and_analyze_mb_per_s']:.1f} MB/s read) | < {r['target_seconds']:.0f} s | "
                        f"{verdict(r['median_total_s'], r['target_seconds'])} |")
        elif name.startswith("workflow_"):
            target, text = WORKFLOW_TARGETS.get(name, (30 * 60, "≤ 30 min"))
            mem = "" if name != "workflow_config" else f"; largest job {verdict(r['peak_job_rss_mb'], 4096)} (≤ 4 GB)"
            extra, extra_verdict = "", ""
            if name == "workflow_config":  # no slower than before Snell joined the DAG
                extra = f"; before Snell: ≤ {BEFORE_SNELL_WORKFLOW_S / 60:.1f} min"
                extra_verdict = f"; before-Snell target {verdict(r['wall_s'], BEFORE_SNELL_WORKFLOW_S)}"
            rows.append(f"| whole workflow, {r['config']}, --cores {r['cores']} ({r['n_jobs']} jobs) | "
                        f"{r['wall_s'] / 60:.1f} min, largest job {r['peak_job_rss_mb'] / 1024:.2f} GB "
                        f"({r['peak_job']}) | {text}{', ≤ 4 GB' if name == 'workflow_config' else ''}{extra} | "
                        f"{verdict(r['wall_s'], target)}{mem}{extra_verdict} |")
        elif name.startswith("byte_identical"):  # two runs in two folders, the same bytes
            same = r["identical"] == r["compared"] and not r["in_one_run_only"]
            rows.append(f"| {r['config']} twice, two folders | {r['identical']} of {r['compared']} files identical "
                        f"(logs, benchmarks, checkpoints left out) | all | {'met' if same else '**missed**'} |")
        elif name.startswith("claims_stable"):  # a fresh run's verdicts against the committed table
            # "marginal" (swing 1) since the claims tables dropped "fragile"; an older comparison says "fragile"
            word = "marginal" if "moved_not_marginal" in r else "fragile"
            edge = sum(m[word] for m in r["moved"])
            rows.append(f"| fresh {Path(r['committed']).stem.removeprefix('claims_')} run vs committed claims table | "
                        f"{r['equal_verdicts']} of {r['rows_in_both']} verdicts equal ({edge} moved, {word}; "
                        f"{r['equal_means']} means equal) | equal or {word} | "
                        f"{'met' if r[f'moved_not_{word}'] == 0 and not r['in_one_table_only'] else '**missed**'} |")
        elif name == "export_layout":
            best = min(r["layouts"], key=lambda x: x["read_one_seed_s"])
            rows.append(f"| export layout (design choice) | fastest one-seed read: {best['layout']}, "
                        f"{best['read_mb_per_s']:.0f} MB/s | – | – |")
    rows.append(gpu_row(RESULTS / "gpu.json"))
    return rows


def gpu_row(path: Path) -> str:
    """The GPU target's row: from bench/results/gpu.json (bench/gpu.py collect) where a GPU has run it."""
    head = "| GPU: 20 stacked seeds vs 20 sequential | "
    if not path.exists():
        return head + "not measured (no GPU has run it); `bash bench/gpu_device.sh` on one (docs/speed.md) | ≥ 10× | – |"
    g = json.loads(path.read_text())
    ratios = [(r["cell"], r["speedup"]) for r in g["aitken_stacked_vs_sequential"]]
    if g.get("snell_copy"):
        ratios.append(("Snell copy", g["snell_copy"]["speedup_vs_sequential"]))
    text = ", ".join(f"{name} {x:.1f}×" for name, x in ratios) or "no ratio in gpu.json"
    met = ratios and min(x for _, x in ratios) >= 10
    return head + f"{g['device']['device']}: {text} (`gpu.json`) | ≥ 10× | {'met' if met else '**missed**'} |"


def profile_text(shape: str) -> str:
    """Where one step of ``shape`` goes now, from bench/results/kernel_profile.json ("" without it)."""
    path = RESULTS / "kernel_profile.json"
    k = json.loads(path.read_text()) if path.exists() else {"shapes": {}}
    if shape not in k["shapes"]:
        return ""
    p, rate = k["shapes"][shape]["this"], k["machine_matmul_gflops"]
    at_rate = p["achieved_matmul_gflops"] >= 0.9 * rate
    return (f" Profiled (kernel_profile.md): of a {p['s_per_step']:.2f} s step, matrix products "
            f"{p['matmul_s']:.2f} s at {p['achieved_matmul_gflops']:.0f} GFLOP/s (the machine's 2048² rate then: "
            f"{rate:.0f}), element-wise work {p['elementwise_s']:.2f} s, other operators "
            f"{p['other_ops_s']:.2f} s, Python and dispatch {p['python_and_dispatch_s']:.2f} s"
            + (": the products run at the machine's rate, and what bounds the step is the gate arithmetic's passes "
               "over memory." if at_rate else "."))


def why_missed() -> list[str]:
    """For each missed target, the measurements that say where the time goes."""
    lines = []
    before_snell = BEFORE_SNELL_WORKFLOW_S
    for path in sorted(RESULTS.glob("*.json")):
        r, name = json.loads(path.read_text()), path.stem
        if name == "stacked_training":
            for row in r["rows"]:
                if row.get("chosen", True) and row["speedup"] < r.get("target_speedup", 3.0):
                    compiled = row.get("compiled_stacked_s_per_step")
                    fused = (f" torch.compile, which fuses the gate arithmetic into few passes, makes the stacked "
                             f"step {row['stacked_s_per_step'] / compiled:.1f}× faster "
                             f"({row['sequential_s_per_step'] / compiled:.1f}× sequential eager)." if compiled else "")
                    prof = ""
                    if "profile_stacked" in row and "profile_one_seed" in row:
                        st, one = row["profile_stacked"], row["profile_one_seed"]
                        budget = row["sequential_s_per_step"] / r.get("target_speedup", 3.0)
                        core = st["matmul_s"] + st["elementwise_s"]
                        prof = (f" Profiled: the stack's step is {st['matmul_s']:.3f} s of matrix products, "
                                f"{st['elementwise_s']:.3f} s element-wise, {st['other_ops_s']:.3f} s other "
                                f"operators and {st['python_and_dispatch_s']:.3f} s Python and dispatch; one seed's "
                                f"is {one['matmul_s']:.3f}, {one['elementwise_s']:.3f}, {one['other_ops_s']:.3f} "
                                f"and {one['python_and_dispatch_s']:.3f} s. {r.get('target_speedup', 3.0):g}× needs "
                                f"a stacked step of ≤ {budget:.3f} s; its matrix products and element-wise work "
                                f"alone take {core:.3f} s"
                                + (", so the operators' own work has to shrink (fewer passes over memory, by fused gate arithmetic; faster products)."
                                   if core > budget else
                                   f", so the other operators and the overhead ({st['other_ops_s'] + st['python_and_dispatch_s']:.3f} s) are what misses it."))
                    lines.append(f"- Stacked {row['cell'].upper()}: {row['seeds']} stacked seeds cost "
                                 f"{row['stacked_s_per_step'] / row['one_seed_s_per_step']:.1f}× one seed's step "
                                 f"on {r['cores']} threads.{prof}{fused}")
        elif name == "snell_copy" and not r["meets_target"]:
            peer = r.get("peer_like_same_run") or {}
            lines.append(f"- Snell copy: one step of {r['settings']['seeds']} stacked seeds takes "
                         f"{statistics.median(x['per_step_s'] for x in r['runs']):.2f} s"
                         + (f", against {peer['per_step_s']:.2f} s for one seed of a plain nn.LSTM model"
                            if peer else "") + f" (load average before/after: "
                         f"{r['machine']['load_average_before'][0]:.1f}/{r['machine']['load_average_after'][0]:.1f})."
                         + (f" Its matrix products alone are {r['arithmetic']['flops_per_step'] / 1e9:.0f} GFLOP "
                            f"per step: {r['settings']['steps']} steps at this machine's large-matmul rate "
                            f"({r['arithmetic']['matmul_gflops']:.0f} GFLOP/s) take at least "
                            f"{r['arithmetic']['floor_seconds'] / 60:.1f} min. Meeting the "
                            f"{r['target_seconds'] / 60:.0f}-minute target needs "
                            f"{r['arithmetic']['floor_seconds'] / r['target_seconds']:.0%} of that rate over the "
                            f"whole run, element-wise work included; ours sustains "
                            f"{r['arithmetic']['floor_seconds'] / r['estimated_seconds']:.0%}."
                            if "arithmetic" in r else "") + profile_text("snell_copy"))
        elif name == "export_analysis" and not r["meets_target"]:
            lines.append(f"- Export + analysis: export {r['median_export_s']:.1f} s (two encoder passes and a "
                         f"greedy decode, step by step), analysis {r['median_analyze_s']:.1f} s.")
        elif name.startswith("workflow_") and (r["wall_s"] > WORKFLOW_TARGETS.get(name, (1800,))[0]
                                               or (name == "workflow_config" and r["wall_s"] > before_snell)):
            top = ", ".join(f"{rule} {sec / 60:.1f} min" for rule, sec in list(r["seconds_by_rule"].items())[:5])
            lines.append(f"- Whole workflow ({r['config']}): job time by rule (summed, {r['cores']} cores): {top}.")
    return (["", "## Where a target is missed", ""] + lines) if lines else []


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--summary-only", action="store_true", help="rewrite summary.md from the JSON files there")
    p.add_argument("--dry-run", action="store_true", help="print the benchmark commands, run nothing")
    args = p.parse_args()
    if args.dry_run:
        print("\n".join(" ".join(["python", *cmd[1:]]) for cmd in commands(args.quick)))
        return
    for cmd in [] if args.summary_only else commands(args.quick):
        print("+", " ".join(cmd[1:]), flush=True)
        status = subprocess.run(cmd, cwd=ROOT).returncode
        if status and not (cmd[1] == "tools/claims_stable.py" and status == 1):
            raise SystemExit(f"benchmark failed (exit {status}): {' '.join(cmd[1:])}")
    head = [f"# Benchmarks", "", f"Machine: {platform.machine()}, {torch.get_num_threads()} threads, torch "
            f"{torch.__version__}. Each JSON beside this file holds the details (median of ≥ 3 runs).", ""]
    notes = NOTES.read_text().rstrip("\n").splitlines() if NOTES.exists() else []
    (RESULTS / "summary.md").write_text("\n".join(head + summary_rows() + why_missed() + notes) + "\n")
    print((RESULTS / "summary.md").read_text())


if __name__ == "__main__":
    main()
