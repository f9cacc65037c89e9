"""The recurrent kernel (attnrepro.nn.kernels) on its own: which point-wise implementation each device gets.

For each cell and shape, the time of one forward + backward pass of ``Cell.sequence`` over a masked sequence:
``autograd`` (autograd through a loop of ``Cell.step``: the op before the hand-written backward), ``eager``
(hand-written backward, point-wise functions run op by op) and ``compiled`` (the same with torch.compile'd point-wise functions). Shapes:
the stacked-training benchmark's (AED H = 128, batch 128, T = 20, 8 seeds and 1) and Snell's copy task (LSTM 256,
batch 128, T = 41, 20 seeds and 1). Then the compile cost, each in a fresh process: with an empty Inductor cache
(``cold``: a job on a new machine), with the cache the cold run left (``warm``: every later job), and the cost of a
second sequence length in the same process (none: the compiled functions are per step, so T is not in their
shapes). Median of ``--repeats``. Writes bench/results/recurrent_kernel.json.

    python bench/recurrent_kernel.py [--repeats 5] [--threads 2] [--device cpu]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from attnrepro.nn import kernels  # noqa: E402
from attnrepro.nn.cells import CELLS  # noqa: E402
from attnrepro.nn.stacked import init_stacked  # noqa: E402

SHAPES = {"aed": dict(batch=128, hidden=128, length=20, seeds=(8, 1), cells=("gru", "lstm", "ugrnn")),
          "snell_copy": dict(batch=128, hidden=256, length=41, seeds=(20, 1), cells=("lstm",))}


def autograd_sequence(cell, gx, state, mask):
    """Autograd through a loop of ``step``: the reference the kernel is tested against."""
    hs = []
    for t in range(gx.shape[2]):
        state = torch.where(mask[:, :, t, None], cell.step(gx[:, :, t], state), state)
        hs.append(cell.output(state))
    return torch.stack(hs, 2), state


def problem(cell_name: str, seeds: int, batch: int, hidden: int, length: int, device):
    cell = CELLS[cell_name](seeds, 8, hidden)
    init_stacked(cell, list(range(seeds)))
    cell.to(device)
    g = torch.Generator().manual_seed(0)
    # time-major underneath, as Cell.input_projection stores it: the op then reads it without a copy
    gx = torch.randn(seeds, length, batch, cell.w_x.shape[-1], generator=g).to(device).transpose(1, 2)
    gx.requires_grad_()
    state = torch.zeros(seeds, batch, cell.state_factor * hidden, device=device)
    lengths = torch.randint(length // 2, length + 1, (seeds, batch), generator=g).to(device)
    mask = torch.arange(length, device=device) < lengths[..., None]
    return cell, gx, state, mask


def fwd_bwd(cell, gx, state, mask, mode: str) -> None:
    run = (lambda: autograd_sequence(cell, gx, state, mask)) if mode == "autograd" else \
        (lambda: cell.sequence(gx, state, mask))
    if mode != "autograd":
        os.environ[kernels.ENV] = mode
    out, final = run()
    (out.sum() + final.sum()).backward()
    gx.grad = None
    cell.zero_grad(set_to_none=True)


def timed(fn, repeats: int, device) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def compile_probe(cell_name: str, seeds: int, batch: int, hidden: int, length: int, device) -> dict:
    """In this (fresh) process: the first compiled call's extra time, then a second sequence length's."""
    p = problem(cell_name, seeds, batch, hidden, length, device)
    first = timed(lambda: fwd_bwd(*p, "compiled"), 1, device)
    steady = timed(lambda: fwd_bwd(*p, "compiled"), 3, device)
    q = problem(cell_name, seeds, batch, hidden, length - 5, device)
    new_length_first = timed(lambda: fwd_bwd(*q, "compiled"), 1, device)
    new_length_steady = timed(lambda: fwd_bwd(*q, "compiled"), 3, device)
    return {"first_call_s": first, "steady_s": steady, "compile_s": first - steady,
            "new_length_extra_s": new_length_first - new_length_steady}


def probe_in_subprocess(args: list[str], cache_dir: str, threads: int) -> dict:
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache_dir}
    out = subprocess.run([sys.executable, __file__, "--probe", *args, "--threads", str(threads)], env=env,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--device", default="cpu")
    p.add_argument("--shapes", nargs="+", default=list(SHAPES))
    p.add_argument("--probe", nargs=5, metavar=("CELL", "S", "B", "H", "T"), help=argparse.SUPPRESS)
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "recurrent_kernel.json"))
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    if args.probe:
        c, *dims = args.probe
        print(json.dumps(compile_probe(c, *map(int, dims), device)))
        return
    rows = []
    for shape in args.shapes:
        spec = SHAPES[shape]
        for cell_name in spec["cells"]:
            for seeds in spec["seeds"]:
                prob = problem(cell_name, seeds, spec["batch"], spec["hidden"], spec["length"], device)
                row = {"shape": shape, "cell": cell_name, "seeds": seeds, "batch": spec["batch"],
                       "hidden": spec["hidden"], "length": spec["length"]}
                for mode in ("autograd", "eager", "compiled"):
                    fwd_bwd(*prob, mode)  # warm-up (and compilation)
                    row[f"{mode}_s"] = timed(lambda: fwd_bwd(*prob, mode), args.repeats, device)
                row["compiled_vs_eager"] = row["eager_s"] / row["compiled_s"]
                row["eager_vs_autograd"] = row["autograd_s"] / row["eager_s"]
                rows.append(row)
                print(json.dumps(row), flush=True)
    compile_rows = []
    for shape in args.shapes:
        spec = SHAPES[shape]
        for cell_name in spec["cells"]:
            dims = [cell_name, str(spec["seeds"][0]), str(spec["batch"]), str(spec["hidden"]), str(spec["length"])]
            with tempfile.TemporaryDirectory() as cache:
                cold = probe_in_subprocess(dims, cache, args.threads)
                warm = probe_in_subprocess(dims, cache, args.threads)
            compile_rows.append({"shape": shape, "cell": cell_name, "seeds": spec["seeds"][0],
                                 "cold_compile_s": cold["compile_s"], "warm_compile_s": warm["compile_s"],
                                 "new_length_extra_s": cold["new_length_extra_s"], "cold": cold, "warm": warm})
            print(json.dumps(compile_rows[-1]), flush=True)
    out = {"benchmark": "recurrent_kernel", "device": str(device), "threads": torch.get_num_threads(),
           "torch": torch.__version__, "machine": platform.machine(), "load_average": os.getloadavg(),
           "repeats": args.repeats, "chosen": kernels.POINTWISE, "rows": rows, "compile": compile_rows}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
