"""Where a training step's time goes: matrix products, element-wise work, other operators, and the Python and
dispatch overhead between them; and how fast the matrix products run against this machine's large-matmul rate.
Shared by the benchmarks that must explain a missed target (bench/stacked_training.py, bench/snell_copy.py)."""

from __future__ import annotations

import platform
import statistics
import time
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile
from torch.utils.flop_counter import FlopCounterMode

MATMUL = {"aten::bmm", "aten::baddbmm", "aten::mm", "aten::addmm", "aten::_mkldnn_rnn_layer",
          "aten::mkldnn_rnn_layer", "aten::mkldnn_rnn_layer_backward"}
# one pass over memory per call: arithmetic, activations and their derivatives, copies; compiled point-wise graphs
ELEMENTWISE = ("add", "sub", "mul", "div", "neg", "rsub", "where", "lerp", "addcmul", "sigmoid", "tanh", "exp",
               "copy_", "cat", "stack", "fill_", "zero_", "clone", "contiguous", "pow", "sqrt", "masked_fill",
               "threshold_backward", "relu", "_foreach", "lerp_", "addcdiv", "maximum", "clamp", "CompiledFxGraph")


def cpu_model() -> str:
    """The CPU's model name as the kernel reports it (platform's processor string where it does not)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def sync() -> None:
    """Wait for the GPU's queued work, where there is a GPU, so a wall-clock reading covers it."""
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def matmul_gflops(n: int = 2048, repeats: int = 5) -> float:
    """The rate of a large single-precision matrix product on this machine: the best any dense work here can do."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - t)
    return 2 * n ** 3 / statistics.median(times) / 1e9


def step_flops(step) -> int:
    """Floating-point operations of one call of ``step`` as PyTorch counts them (matrix products only)."""
    with FlopCounterMode(display=False) as counter:
        step()
    return counter.get_total_flops()


def _category(name: str) -> str:
    if name in MATMUL:
        return "matmul"
    if any(k in name for k in ELEMENTWISE):
        return "elementwise"
    return "other_ops"


def breakdown(step, calls: int = 3) -> dict:
    """Seconds per call of ``step`` (already warmed up) by category, from the profiler's self times of the
    operators called on this thread; what is left of the wall time is Python and dispatch overhead. The profiler
    adds its own few microseconds per operator to that last part."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        t = time.perf_counter()
        for _ in range(calls):
            step()
        wall = (time.perf_counter() - t) / calls
    out = {"matmul": 0.0, "elementwise": 0.0, "other_ops": 0.0}
    for ev in prof.key_averages():
        if ev.key.startswith("aten::") or "CompiledFxGraph" in ev.key:
            out[_category(ev.key)] += ev.self_cpu_time_total / 1e6 / calls
    out = {f"{k}_s": v for k, v in out.items()}
    out["python_and_dispatch_s"] = max(wall - sum(out.values()), 0.0)
    out["wall_s_profiled"] = wall
    return out


def explain(step, calls: int = 3, rate: float | None = None) -> dict:
    """:func:`breakdown` plus the matrix products' achieved rate against the machine's (``rate``, GFLOP/s)."""
    parts = breakdown(step, calls)
    flops = step_flops(step)
    rate = rate or matmul_gflops()
    parts.update({"matmul_gflop_per_step": flops / 1e9, "machine_matmul_gflops": rate,
                  "achieved_matmul_gflops": flops / 1e9 / parts["matmul_s"] if parts["matmul_s"] else None,
                  "matmul_floor_s": flops / 1e9 / rate})
    return parts
