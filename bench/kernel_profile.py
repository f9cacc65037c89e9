"""Where a training step's time goes in the models the recurrent op runs.

Snell et al.'s copy model at the authors' shape (20 stacked seeds, LSTM width 256, L = 40, batch 128) and Aitken
et al.'s AED at H = 128 with 8 stacked seeds (GRU, LSTM, UGRNN; bench/stacked_training.py's problem), and the
default config's AED-GRU (H = 64, 3 seeds, one thread: ``demo_gru``). For each: seconds per step (median and least
of ``--repeats`` timings of about 2 s of steps each), the categories of
bench/profiling.py (matrix products and their achieved rate, element-wise work, other operators, Python and
dispatch) and the operators, by name and input shape, with the most self time.

Each shape runs as the engine trains it, with freed memory held (attnrepro.nn.allocator; code that has no such module
runs without). ``--before DIR`` profiles the code of another checkout (its ``src``) in a subprocess, alternating
with this one so that both see the same load, and the report sets the two side by side; ``--before-env NAME=VALUE``
sets a variable for the before runs only (``--before . --before-env ATTNREPRO_HOLD_FREED_MEMORY=0``: this code with
malloc as it was). Writes bench/results/kernel_profile.json and kernel_profile.md.

    python bench/kernel_profile.py [--before /path/to/checkout [--before-env NAME=VALUE]] [--repeats 3]
                                   [--rounds 1] [--threads 2] [--top 12]

``--rounds N`` alternates the two versions N times per shape and keeps, for each, the round of least time (on a
shared machine others' load only adds time), with every round's least time beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from profiling import _category, explain, matmul_gflops  # noqa: E402

SNELL = {"seeds": 20, "hidden": 256, "batch": 128, "length": 40}
AITKEN = {"seeds": 8, "hidden": 128, "cells": ("gru", "lstm", "ugrnn")}
# the default config's Aitken models (config/config.yaml: AED-GRU, H = 64, 3 seeds a job, one thread a job), where
# the default workflow's training time goes
DEMO = {"seeds": 3, "hidden": 64, "threads": 1}


def snell_step(seeds: int = SNELL["seeds"], device: str = "cpu"):
    """One training step of the stacked copy model at the authors' setting, as a closure (for a profiler)."""
    from attnrepro.snell2021 import tasks
    from attnrepro.snell2021.seq2seq import Seq2Seq, Seq2SeqConfig

    s, n = seeds, SNELL["length"]
    model = Seq2Seq(Seq2SeqConfig(tasks.copy_vocab("permutation", n, n), SNELL["hidden"]), list(range(s))).to(device)
    src, tgt_in, tgt_out = tasks.copy_batch("permutation", SNELL["batch"], n, n, torch.Generator().manual_seed(0))
    src, tgt_in, tgt_out = (x.expand(s, *x.shape).contiguous().to(device) for x in (src, tgt_in, tgt_out))
    src_len = torch.full(src.shape[:2], src.shape[-1], device=device)
    opt = torch.optim.Adam(model.parameters())

    def step():
        loss = torch.nn.functional.cross_entropy(model(src, src_len, tgt_in).flatten(0, 2), tgt_out.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step


def aitken_step(cell: str, hidden: int = AITKEN["hidden"], seeds: int = AITKEN["seeds"]):
    import stacked_training as st

    data = st.encode(st.tasks.generate(st.TASK)["train"], vocab := st.Vocab.from_words(*st.tasks.words(st.TASK)))
    cfg = st.ModelConfig(arch="aed", cell=cell, hidden=hidden, src_vocab=len(vocab.src), tgt_vocab=len(vocab.tgt))
    return st.Trainer(cfg, list(range(seeds)), data, 1, torch.device("cpu")).step


def top_ops(step, top: int) -> list[dict]:
    """The ``top`` operators (name and input shapes) with the most self time in one call of ``step``."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        step()
    rows = [{"op": ev.key, "shapes": str(ev.input_shapes), "calls": ev.count, "self_s": ev.self_cpu_time_total / 1e6,
             "category": _category(ev.key)} for ev in prof.key_averages(group_by_input_shape=True)
            if ev.key.startswith("aten::")]
    return sorted(rows, key=lambda r: -r["self_s"])[:top]


def profile_one(name: str, step, repeats: int, top: int, rate: float) -> dict:
    t = time.perf_counter()
    step()
    step()
    n = max(1, round(2.0 / ((time.perf_counter() - t) / 2)))  # steps per timing: about 2 s of them
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(n):
            step()
        times.append((time.perf_counter() - t) / n)
    # the least of the timings too: on a shared machine the others' load only ever adds time
    return {"shape": name, "s_per_step": statistics.median(times), "best_s_per_step": min(times),
            **explain(step, calls=1, rate=rate), "top": top_ops(step, top)}


def worker(shape: str, repeats: int, top: int, threads: int, rate: float) -> dict:
    torch.set_num_threads(threads)
    try:
        from attnrepro.nn.allocator import hold_freed_memory
    except ImportError:  # code from before attnrepro.nn.allocator
        held = False
    else:
        held = hold_freed_memory()
    if shape == "snell_copy":
        step = snell_step()
    elif shape == "demo_gru":
        threads = DEMO["threads"]
        torch.set_num_threads(threads)
        rate = matmul_gflops()  # this thread count's rate
        step = aitken_step("gru", DEMO["hidden"], DEMO["seeds"])
    else:
        step = aitken_step(shape.split("_", 1)[1])
    return {**profile_one(shape, step, repeats, top, rate), "freed_memory_held": held, "threads": threads,
            "matmul_gflops": rate}


def run(src: Path, shape: str, args, rate: float, extra_env: dict | None = None) -> dict:
    """One shape profiled by the code under ``src`` in a fresh process (its own imports, nothing cached)."""
    env = {**os.environ, "PYTHONPATH": str(src), **(extra_env or {})}
    cmd = [sys.executable, __file__, "--worker", shape, "--repeats", str(args.repeats), "--top", str(args.top),
           "--threads", str(args.threads), "--rate", str(rate)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"kernel_profile: profiling {shape} with {src} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def markdown(result: dict) -> str:
    lines = ["# Where a training step's time goes (bench/kernel_profile.py)", "",
             f"torch {result['torch']}, {result['threads']} threads; machine matmul rate "
             f"{result['machine_matmul_gflops']:.0f} GFLOP/s (2048² product); load before "
             f"{result['load_average_before'][0]:.2f}, after {result['load_average_after'][0]:.2f}. "
             f"Versions: {', '.join(f'`{k}` = {v}' for k, v in result['versions'].items())}"
             + (f" (before with {', '.join(f'{k}={v}' for k, v in result['before_env'].items())})"
                if result.get("before_env") else "") + ".", "",
             "| shape | version | threads | s/step (median) | s/step (least) | matmul s | achieved GFLOP/s | GFLOP/step "
             "| element-wise s | other ops s | Python+dispatch s | freed memory held |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for shape, by_version in result["shapes"].items():
        for version, r in by_version.items():
            lines.append(f"| {shape} | {version} | {r.get('threads', result['threads'])} | {r['s_per_step']:.4f} | "
                         f"{r['best_s_per_step']:.4f} | {r['matmul_s']:.3f} | "
                         f"{r['achieved_matmul_gflops'] or 0:.0f} | {r['matmul_gflop_per_step']:.1f} | "
                         f"{r['elementwise_s']:.3f} | {r['other_ops_s']:.3f} | {r['python_and_dispatch_s']:.3f} | "
                         f"{'yes' if r.get('freed_memory_held') else 'no'} |")
    for shape, by_version in result["shapes"].items():
        for version, r in by_version.items():
            lines += ["", f"## {shape}, {version}: the operators with the most self time (one profiled step)", "",
                      "| operator | input shapes | calls | self s | category |", "|---|---|---|---|---|"]
            lines += [f"| {o['op']} | {o['shapes']} | {o['calls']} | {o['self_s']:.3f} | {o['category']} |"
                      for o in r["top"]]
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", help="a checkout whose src/ to profile beside this one")
    p.add_argument("--before-env", action="append", default=[], metavar="NAME=VALUE",
                   help="an environment variable for the before runs only (repeatable)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--rounds", type=int, default=1, help="alternations of before and this per shape")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--top", type=int, default=12)
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--rate", type=float, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.repeats, args.top, args.threads, args.rate)))
        return
    torch.set_num_threads(args.threads)
    rate, load = matmul_gflops(), os.getloadavg()
    before_env = dict(kv.split("=", 1) for kv in args.before_env)
    versions = {"this": str(ROOT)} | ({"before": str(Path(args.before).resolve())} if args.before else {})
    shapes = ["snell_copy", *(f"aitken_{c}" for c in AITKEN["cells"]), "demo_gru"]
    result = {"benchmark": "kernel_profile", "torch": torch.__version__, "threads": args.threads,
              "rounds": args.rounds,
              "machine_matmul_gflops": rate, "load_average_before": load, "versions": versions,
              "before_env": before_env,
              "shapes": {s: {} for s in shapes}}
    for shape in shapes:
        runs = {v: [] for v in versions}
        for _ in range(args.rounds):
            for version in runs:  # alternate: both see the same load
                runs[version].append(run(Path(versions[version]) / "src", shape, args, rate,
                                         before_env if version == "before" else None))
                print(f"{shape} {version}: {runs[version][-1]['best_s_per_step']:.4f} s/step (least)", flush=True)
        for version, rs in runs.items():  # the round of least time stands for the version; the others' times kept
            result["shapes"][shape][version] = {**min(rs, key=lambda r: r["best_s_per_step"]),
                                                "best_s_per_step_by_round": [r["best_s_per_step"] for r in rs]}
    result["load_average_after"] = os.getloadavg()
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "kernel_profile.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "kernel_profile.md").write_text(markdown(result))


if __name__ == "__main__":
    main()
