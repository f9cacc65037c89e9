"""The workflow on a real GPU: what the device measures, and the one JSON it all goes into.

``measure`` (run on the GPU machine): the device (name, torch, CUDA, driver), its large-matmul rates (fp32 and
TF32), and Snell et al.'s copy setting (LSTM width 256, L = 40, batch 128): 20 stacked seeds against 20 one-seed runs
of the same code one after another, against a one-seed cuDNN ``torch.nn.LSTM`` model (bench/snell_copy.PeerLike),
per step as the slope between a short and a long run; TF32 on against off for the stack; and, from torch's profiler,
how much of a step's wall time the GPU spends in kernels (a launch-bound step leaves it idle). Writes
``gpu_snell.json`` under ``--out-dir``.

``collect`` (here): bench/results/gpu.json from the device's files — this ``measure``, bench/stacked_training.py
``--device cuda`` (Aitken's AED at H = 128, 20 seeds), bench/paper_cost.py ``measure --device cuda`` (seconds per
step and peak GPU memory of every paper shape), the Snell copy block's job times from its workflow run — with the
paper config's predicted GPU-hours per training job and per rule.

    python bench/gpu.py measure --out-dir $OUT          (on the GPU)
    python bench/gpu.py collect --from DIR [--out F]     (DIR: the device's files, e.g. gpu_run.tgz unpacked)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

SEEDS, SHORT, LONG, REPEATS = 20, 5, 25, 3


def device_facts() -> dict:
    props = torch.cuda.get_device_properties(0)
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True)
    except FileNotFoundError:
        smi = subprocess.CompletedProcess([], 1)
    return {"device": torch.cuda.get_device_name(), "multiprocessors": props.multi_processor_count,
            "memory_gib": round(props.total_memory / 2 ** 30, 1), "torch": torch.__version__,
            "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
            "driver": smi.stdout.strip() if smi.returncode == 0 else None}


def matmul_tflops(tf32: bool, n: int = 8192, repeats: int = 10) -> float:
    """A large fp32 matrix product's rate (TF32 tensor cores if ``tf32``): the ceiling of dense work here."""
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(repeats):
        a @ b
    torch.cuda.synchronize()
    torch.backends.cuda.matmul.allow_tf32 = False
    return 2 * n ** 3 * repeats / (time.perf_counter() - t) / 1e12


def slope(run, short: int, long: int) -> float:
    """Seconds per step: the difference of a long and a short run over their step difference (setup cancels)."""
    return (run(long) - run(short)) / (long - short)


def kernel_busy(step, calls: int = 3) -> dict:
    """Of a step's wall time, the share the GPU spends in kernels (torch's profiler, CUDA activity), and the number
    of kernels a step launches."""
    from torch.profiler import ProfilerActivity, profile

    step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        t = time.perf_counter()
        for _ in range(calls):
            step()
        torch.cuda.synchronize()
        wall = (time.perf_counter() - t) / calls
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    busy = sum(e.time_range.elapsed_us() for e in kernels) / 1e6 / calls
    # the operators' own device time, a second reading of the same (kept if the kernel events read empty)
    by_op = sum(getattr(a, "self_device_time_total", 0.0) for a in prof.key_averages()) / 1e6 / calls
    return {"wall_s": wall, "kernel_s": busy, "busy_fraction": busy / wall, "kernels_per_step": len(kernels) / calls,
            "operator_device_s": by_op}


def aitken_profiles() -> dict:
    """:func:`kernel_busy` of Aitken's AED (H = 128, one-to-one, batch 128) per cell, 20 stacked seeds and one."""
    import stacked_training as st

    from attnrepro.data import tasks
    from attnrepro.data.vocab import Vocab, encode
    from attnrepro.seq2seq.model import ModelConfig

    vocab = Vocab.from_words(*tasks.words(st.TASK))
    data = encode(tasks.generate(st.TASK)["train"], vocab)
    out = {}
    for cell in ("gru", "lstm", "ugrnn"):
        cfg = ModelConfig(arch="aed", cell=cell, hidden=128, src_vocab=len(vocab.src), tgt_vocab=len(vocab.tgt))
        out[cell] = {n: kernel_busy(st.Trainer(cfg, list(range(n)), data, 1, torch.device("cuda")).step)
                     for n in (SEEDS, 1)}
    return out


def measure(args) -> None:
    import kernel_profile
    import snell_copy

    out = {"benchmark": "gpu_snell", **device_facts(),
           "matmul_tflops": {"fp32": matmul_tflops(False), "tf32": matmul_tflops(True)}}
    print(json.dumps(out), flush=True)
    snell_copy.time_training(1, 2, "cuda")  # CUDA's start and cuBLAS's handles, paid before any timing
    stacked, one, tf32 = [], [], []
    for _ in range(REPEATS):  # alternate, so both see the same load
        stacked.append(slope(lambda k: snell_copy.time_training(SEEDS, k, "cuda"), SHORT, LONG))
        one.append(slope(lambda k: snell_copy.time_training(1, k, "cuda"), SHORT, LONG))
        torch.backends.cuda.matmul.allow_tf32 = True
        tf32.append(slope(lambda k: snell_copy.time_training(SEEDS, k, "cuda"), SHORT, LONG))
        torch.backends.cuda.matmul.allow_tf32 = False
    snell_copy.time_peer_like(2, "cuda")
    peer = statistics.median(slope(lambda k: snell_copy.time_peer_like(k, "cuda"), SHORT, LONG) for _ in range(REPEATS))
    s, o = statistics.median(stacked), statistics.median(one)
    flops = snell_copy.step_flops(SEEDS)
    out["snell_copy"] = {
        "setting": {**snell_copy.TASK, "hidden": snell_copy.HIDDEN, "batch": snell_copy.BATCH, "seeds": SEEDS,
                    "precision": "fp32 (TF32 off) unless named"},
        "method": f"seconds per step: slope of {SHORT}- and {LONG}-step engine runs (one evaluation each), median of "
                  f"{REPEATS}; stacked and one-seed alternate",
        "stacked_s_per_step": s, "one_seed_s_per_step": o, "sequential_s_per_step": o * SEEDS,
        "speedup_vs_sequential": o * SEEDS / s, "stacked_tf32_s_per_step": statistics.median(tf32),
        "peer_like_cudnn_s_per_step": peer, "speedup_vs_peer_like_sequential": peer * SEEDS / s,
        "flops_per_step": flops, "floor_fraction_fp32": flops / (out["matmul_tflops"]["fp32"] * 1e12) / s,
        "runs": {"stacked": stacked, "one_seed": one, "stacked_tf32": tf32}}
    print(json.dumps(out["snell_copy"]), flush=True)
    out["snell_copy"]["profile_stacked"] = kernel_busy(kernel_profile.snell_step(SEEDS, "cuda"))
    out["snell_copy"]["profile_one_seed"] = kernel_busy(kernel_profile.snell_step(1, "cuda"))
    print(json.dumps({k: out["snell_copy"][k] for k in ("profile_stacked", "profile_one_seed")}), flush=True)
    out["aitken_aed_profiles"] = aitken_profiles()
    print(json.dumps(out["aitken_aed_profiles"]), flush=True)
    Path(args.out_dir, "gpu_snell.json").write_text(json.dumps(out, indent=1) + "\n")


def training_jobs(cfg: dict) -> list[dict]:
    """Every training job of a config: rule, job, shape key (bench/paper_cost.py's) and steps."""
    import paper_cost

    from attnrepro.run import config as cfglib
    from attnrepro.snell2021 import config as snellcfg

    jobs = [{"rule": "train", "job": name, "shape": paper_cost.shape(cfg, name),
             "steps": cfglib.experiment_spec(cfg, name)["train"]["steps"]} for name in cfg["experiments"]]
    for name, spec in (snellcfg.runs(cfg["snell2021"]) if cfg.get("snell2021") else {}).items():
        if not name.startswith("multihead_"):  # Fig. 6's jobs: rounds of rejection sampling, not a step count
            jobs.append({"rule": "snell2021_train", "job": name, "shape": paper_cost.snell_shape(spec),
                         "steps": spec["train"]["steps"]})
    return jobs


def gpu_hours(jobs: list[dict], shapes: dict[str, dict], overhead: float) -> tuple[list[dict], dict[str, dict]]:
    """Per training job, its predicted GPU seconds (steps × the shape's measured seconds per step × ``overhead``,
    the evaluations and start-up on top of the steps) and peak GPU memory; per rule, the sum in GPU-hours, the
    largest job and how many jobs had no measured shape. A job whose shape was not timed is listed with ``s`` None."""
    rows, rules = [], {}
    for job in jobs:
        m = shapes.get(job["shape"], {})
        timed = "s_per_step" in m
        rows.append({**job, "s_per_step": m.get("s_per_step"), "s": job["steps"] * m["s_per_step"] * overhead
                     if timed else None, "peak_gpu_mb": m.get("peak_gpu_mb"), "why_not": None if timed else
                     m.get("error", "shape not timed")[:120]})
        r = rules.setdefault(job["rule"], {"gpu_hours": 0.0, "jobs": 0, "not_timed": 0, "largest_s": 0.0,
                                           "largest_peak_gpu_mb": 0.0})
        r["jobs"] += 1
        if timed:
            r["gpu_hours"] += rows[-1]["s"] / 3600
            r["largest_s"] = max(r["largest_s"], rows[-1]["s"])
            r["largest_peak_gpu_mb"] = max(r["largest_peak_gpu_mb"], m.get("peak_gpu_mb") or 0.0)
        else:
            r["not_timed"] += 1
    return rows, rules


def block_overhead(block_jobs: dict[str, float], jobs: list[dict], shapes: dict[str, dict]) -> float | None:
    """The workflow's own training jobs on the GPU (seconds by job name) over steps × seconds per step of their
    shape: what evaluations, probes, checkpoints and start-up add to the steps. The median over the jobs that have
    both; None without any."""
    by_name = {j["job"]: j for j in jobs}
    ratios = [s / (by_name[n]["steps"] * shapes[by_name[n]["shape"]]["s_per_step"]) for n, s in block_jobs.items()
              if n in by_name and "s_per_step" in shapes.get(by_name[n]["shape"], {})]
    return statistics.median(ratios) if ratios else None


def _read(path: Path) -> dict | None:
    return json.loads(path.read_text()) if path.is_file() else None


def _block_job_seconds(source: Path) -> dict[str, float]:
    """The Snell copy block's training jobs' wall seconds from Snakemake's benchmark files (snell_run.tgz)."""
    import io
    import tarfile

    import pandas as pd

    out = {}
    if (source / "snell_run.tgz").is_file():
        with tarfile.open(source / "snell_run.tgz") as tar:
            for member in tar.getmembers():
                if member.name.startswith("results_paper/benchmarks/snell2021/train/") and member.isfile():
                    table = pd.read_csv(io.BytesIO(tar.extractfile(member).read()), sep="\t")
                    out[Path(member.name).stem] = float(table["s"].iloc[0])
    return out


def collect(args) -> None:
    """bench/results/gpu.json from the files of one device run (bench/gpu_device.sh's $OUT/w)."""
    import yaml

    src = args.source
    snell, stacked, steps = (_read(src / f) for f in ("gpu_snell.json", "gpu_stacked_training.json",
                                                       "gpu_step_times.json"))
    cfg = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    jobs, shapes = training_jobs(cfg), (steps or {}).get("shapes", {})
    block = _block_job_seconds(src)
    overhead = block_overhead(block, jobs, shapes)
    rows, rules = gpu_hours(jobs, shapes, overhead or 1.0)
    out = {"benchmark": "gpu", "source": "bench/gpu_device.sh on the device machine; bench/gpu.py collect",
           "device": {k: (snell or {}).get(k) for k in ("device", "multiprocessors", "memory_gib", "torch", "cuda",
                                                         "cudnn", "driver")},
           "matmul_tflops": (snell or {}).get("matmul_tflops"),
           "snell_copy": (snell or {}).get("snell_copy"), "aitken_aed_profiles": (snell or {}).get("aitken_aed_profiles"),
           "aitken_stacked_vs_sequential": [{k: r[k] for k in ("cell", "seeds", "kernel", "stacked_s_per_step",
                                                               "one_seed_s_per_step", "speedup")}
                                            for r in (stacked or {}).get("rows", [])],
           "copy_block_job_s": block,
           "eval_overhead": overhead, "eval_overhead_from": "the copy block's jobs on the GPU" if overhead else
           "not measured (1.0 used: steps alone)",
           "paper_shapes": shapes, "gpu_hours_by_rule": rules, "jobs": rows,
           "missing": [f for f, d in (("gpu_snell.json", snell), ("gpu_stacked_training.json", stacked),
                                      ("gpu_step_times.json", steps)) if d is None]}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps({k: out[k] for k in ("device", "gpu_hours_by_rule", "missing")}, indent=1))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--out-dir", type=Path, required=True)
    c = sub.add_parser("collect")
    c.add_argument("--from", dest="source", type=Path, required=True)
    c.add_argument("--out", type=Path, default=RESULTS / "gpu.json")
    args = p.parse_args()
    if args.cmd == "measure":
        if not torch.cuda.is_available():
            sys.exit("bench/gpu.py measure: torch sees no CUDA device (run it on the GPU machine)")
        args.out_dir.mkdir(parents=True, exist_ok=True)
        measure(args)
    else:
        collect(args)


if __name__ == "__main__":
    main()
