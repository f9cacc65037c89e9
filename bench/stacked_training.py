"""Stacked against sequential training of the Aitken encoder-decoders (the target: S stacked
seeds ≥ 3× as fast as S one-seed models).

AED, hidden 128, one-to-one lengths 15-20, batch 128: the time of one training step (forward, backward, per-seed
clipping, Adam) for S seeds stacked in one model against S one-seed models stepped one after the other (the
same code), for each cell and each point-wise kernel of attnrepro.nn.kernels (``eager``, ``compiled``); the
device's chosen kernel is the one the target is judged on. Stacked and one-seed runs alternate, so both see the
same load. ``--profile`` adds, for the chosen kernel, where a step's time goes (bench/profiling.py). On a device
that is not there (``--device cuda`` without a GPU) it records that and the command to run where there is one.

Usage: python bench/stacked_training.py [--seeds 8] [--steps 20] [--repeats 3] [--profile] [--device cpu]
Writes bench/results/stacked_training.json (``--device cuda``: bench/results/gpu_stacked_training.json):
median seconds per step over ``repeats`` runs of ``steps`` steps.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))
# a fresh Inductor cache, so the compile cost recorded is a new machine's (cold), not this one's leftovers; removed
# at exit (every import made one, and /tmp kept them all)
if "TORCHINDUCTOR_CACHE_DIR" not in os.environ:
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="attnrepro-bench-inductor-")
    atexit.register(shutil.rmtree, os.environ["TORCHINDUCTOR_CACHE_DIR"], ignore_errors=True)

from attnrepro.nn import kernels
from attnrepro.data import tasks  # noqa: E402
from attnrepro.data.vocab import Vocab, encode, stack  # noqa: E402
from attnrepro.training.engine import token_loss  # noqa: E402
from attnrepro.seq2seq.model import EncoderDecoder, ModelConfig  # noqa: E402
from attnrepro.nn.stacked import clip_grad_norm_per_seed  # noqa: E402
from profiling import explain, matmul_gflops, sync  # noqa: E402

TASK = {"kind": "one_to_one", "n_words": 3, "min_len": 15, "max_len": 20, "n_train": 4096, "n_valid": 1,
        "n_test": 1, "seed": 0}
TARGET = 2.0


class Trainer:
    """``steps`` training steps of one model on fixed batches; the first two calls warm up (and compile)."""

    def __init__(self, cfg: ModelConfig, seeds: list[int], data, steps: int, device) -> None:
        self.model = EncoderDecoder(cfg, seeds).to(device)
        self.params = list(self.model.parameters())
        self.opt = torch.optim.Adam(self.params, lr=1e-3)
        g = torch.Generator().manual_seed(0)
        self.batches = [stack([data.subset(torch.randint(0, len(data), (128,), generator=g)) for _ in seeds])
                        .to(device) for _ in range(steps)]
        self.device = device

    def step(self, batch=None) -> None:
        batch = self.batches[0] if batch is None else batch
        loss = token_loss(self.model(batch.src, batch.src_len, batch.tgt_in), batch).sum()
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        clip_grad_norm_per_seed(self.params, 1.0)
        self.opt.step()

    def seconds_per_step(self) -> float:
        sync()
        t = time.perf_counter()
        for b in self.batches:
            self.step(b)
        sync()
        return (time.perf_counter() - t) / len(self.batches)


def warm_up(trainer: Trainer) -> float:
    """Seconds the first step takes beyond a steady one (the compile cost, for the compiled kernel)."""
    sync()
    t = time.perf_counter()
    trainer.step()
    first = time.perf_counter() - t
    trainer.step()
    t = time.perf_counter()
    trainer.step()
    sync()
    return first - (time.perf_counter() - t)


def measure(cfg, n_seeds: int, data, args, device, kernel: str) -> dict:
    os.environ[kernels.ENV] = kernel
    stacked = Trainer(cfg, list(range(n_seeds)), data, args.steps, device)
    single = Trainer(cfg, [0], data, args.steps, device)
    row = {"kernel": kernel, "stacked_first_step_extra_s": warm_up(stacked),
           "one_seed_first_step_extra_s": warm_up(single)}
    stacked_t, single_t = [], []
    for _ in range(args.repeats):  # alternate, so both see the same load
        stacked_t.append(stacked.seconds_per_step())
        single_t.append(single.seconds_per_step())
    row.update({"stacked_s_per_step": statistics.median(stacked_t), "one_seed_s_per_step": statistics.median(single_t)})
    row["sequential_s_per_step"] = row["one_seed_s_per_step"] * n_seeds
    row["speedup"] = row["sequential_s_per_step"] / row["stacked_s_per_step"]
    if args.profile and kernel == kernels.POINTWISE.get(device.type, "eager"):
        rate = matmul_gflops()
        row["profile_stacked"] = explain(stacked.step, rate=rate)
        row["profile_one_seed"] = explain(single.step, rate=rate)
    return row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=8)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cells", nargs="+", default=["gru", "lstm", "ugrnn"])
    p.add_argument("--kernels", nargs="+", default=list(kernels.MODES))
    p.add_argument("--profile", action="store_true")
    p.add_argument("--device", default="cpu")
    p.add_argument("--out")
    args = p.parse_args()
    device = torch.device(args.device)
    out_path = Path(args.out or ROOT / "bench" / "results" / ("gpu_stacked_training.json" if device.type == "cuda"
                                                              else "stacked_training.json"))
    head = {"benchmark": "stacked_training", "target": f"stacked >= {TARGET:g}x faster than sequential",
            "target_speedup": TARGET, "device": str(device), "torch": torch.__version__,
            "machine": platform.machine()}
    if device.type == "cuda" and not torch.cuda.is_available():
        cmd = f"python bench/stacked_training.py --device cuda --seeds 20 --profile"
        out = {**head, "measured": False, "reason": "no GPU lent to this session", "command": cmd}
        out_path.write_text(json.dumps(out, indent=2) + "\n")
        print(json.dumps(out))
        return
    torch.set_num_threads(args.threads)
    splits = tasks.generate(TASK)
    vocab = Vocab.from_words(*tasks.words(TASK))
    data = encode(splits["train"], vocab)
    load_before = os.getloadavg()
    rows = []
    for cell in args.cells:
        cfg = ModelConfig(arch="aed", cell=cell, hidden=128, src_vocab=len(vocab.src), tgt_vocab=len(vocab.tgt))
        for kernel in args.kernels:
            row = {"cell": cell, "seeds": args.seeds, **measure(cfg, args.seeds, data, args, device, kernel)}
            row["chosen"] = kernel == kernels.POINTWISE.get(device.type, "eager")
            rows.append(row)
            print(json.dumps({k: v for k, v in row.items() if not k.startswith("profile")}), flush=True)
    out = {**head, "measured": True, "chosen_kernel": kernels.POINTWISE.get(device.type),
           "threads": torch.get_num_threads(), "cores": os.cpu_count(), "steps": args.steps,
           "repeats": args.repeats, "load_average_before": load_before, "load_average_after": os.getloadavg(),
           "rows": rows}
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
