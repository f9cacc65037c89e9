"""Stacked against sequential training of the Aitken encoder-decoders (issue 7, benchmark 2, demo scale).

AED-GRU, hidden 128, one-to-one lengths 15-20, batch 128: the time of one training step (forward, backward, Adam)
for S seeds stacked in one model against S one-seed models stepped one after the other, and the same for the
other cells. Optionally with ``torch.compile`` of the stacked step.

Usage: python bench/stacked_training.py [--seeds 8] [--steps 20] [--repeats 3] [--compile] [--device cpu]
Writes bench/results/stacked_training.json: median seconds per step over ``repeats`` runs of ``steps`` steps.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import torch

from attnrepro import tasks
from attnrepro.data import Vocab, encode
from attnrepro.model import EncoderDecoder, ModelConfig
from attnrepro.data import stack
from attnrepro.engine import token_loss

TASK = {"kind": "one_to_one", "n_words": 3, "min_len": 15, "max_len": 20, "n_train": 4096, "n_valid": 1,
        "n_test": 1, "seed": 0}


def step_time(cfg: ModelConfig, seeds: list[int], data, steps: int, device, compile_step: bool = False) -> float:
    model = EncoderDecoder(cfg, seeds).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(0)

    def step(batch):
        loss = token_loss(model(batch.src, batch.src_len, batch.tgt_in), batch).sum()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    run = torch.compile(step) if compile_step else step
    batches = [stack([data.subset(torch.randint(0, len(data), (128,), generator=g)) for _ in seeds]).to(device)
               for _ in range(steps + 2)]
    for b in batches[:2]:  # warm-up (and compilation)
        run(b)
    if device.type == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for b in batches[2:]:
        run(b)
    if device.type == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) / steps


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=8)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--cells", nargs="+", default=["gru", "lstm", "ugrnn"])
    p.add_argument("--compile", action="store_true")
    p.add_argument("--device", default="cpu")
    p.add_argument("--out", default="bench/results/stacked_training.json")
    args = p.parse_args()
    device = torch.device(args.device)
    splits = tasks.generate(TASK)
    vocab = Vocab.from_words(*tasks.words(TASK))
    data = encode(splits["train"], vocab)
    rows = []
    for cell in args.cells:
        cfg = ModelConfig(arch="aed", cell=cell, hidden=128, src_vocab=len(vocab.src), tgt_vocab=len(vocab.tgt))
        seeds = list(range(args.seeds))
        stacked = [step_time(cfg, seeds, data, args.steps, device) for _ in range(args.repeats)]
        single = [step_time(cfg, [0], data, args.steps, device) for _ in range(args.repeats)]
        row = {"cell": cell, "seeds": args.seeds, "stacked_s_per_step": statistics.median(stacked),
               "one_seed_s_per_step": statistics.median(single)}
        row["sequential_s_per_step"] = row["one_seed_s_per_step"] * args.seeds
        row["speedup"] = row["sequential_s_per_step"] / row["stacked_s_per_step"]
        if args.compile:
            row["compiled_stacked_s_per_step"] = statistics.median(
                step_time(cfg, seeds, data, args.steps, device, compile_step=True) for _ in range(args.repeats))
        rows.append(row)
        print(json.dumps(row), flush=True)
    out = {"benchmark": "stacked_training", "target": "stacked >= 3x faster than sequential (2-core CPU)",
           "machine": platform.processor() or platform.machine(), "cores": torch.get_num_threads(),
           "torch": torch.__version__, "device": str(device), "steps": args.steps, "repeats": args.repeats,
           "rows": rows}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
