"""Peer benchmark: Snell et al. 2021's permutation-copy training at the authors' settings.

The authors' script (SequenceCopying/seq2seq.py) trains one seed at a time: LSTM width 256, L = 40 of 40 words,
batch 128, 200 steps; it takes 64 s per seed on a 2-core CPU of this machine's kind, 21 minutes for the 20
seeds of one Fig. 3 curve. Target: our 20 seeds, stacked in one process, same settings, evaluation every 50
steps on 50 sequences, in ≤ 10 minutes on the same machine.

Training 200 steps of 20 stacked seeds takes long on 2 cores, so we time a few steps and extrapolate: the cost
per step is the slope between a short and a longer run (setup cancels), the cost of one evaluation is timed on
its own, and the estimate is setup + 200 steps + 5 evaluations (steps 0, 50, …, 200). Median of ``--repeats``
runs. Writes ``bench/results/snell_copy.json``.

The machine is shared, so the 64 s of the peer may not hold at the time of the run. For a ratio taken in the same
run, ``--peer-like`` also times one seed of a plain single-run model in the authors' style (``torch.nn.LSTM``
encoder and decoder, one seed per process, same sizes and optimiser; written here, not the authors' code) and
reports its per-seed time on this machine now.

    python bench/snell_copy.py [--seeds 20] [--short 2] [--long 5] [--repeats 3] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from attnrepro.training.config import TrainConfig  # noqa: E402
from attnrepro.training.engine import Member, fit  # noqa: E402
from attnrepro.snell2021 import tasks  # noqa: E402
from attnrepro.snell2021.seq2seq import Seq2Seq, Seq2SeqConfig  # noqa: E402
from attnrepro.seeding import generator  # noqa: E402
from profiling import cpu_model, matmul_gflops, sync  # noqa: E402

PEER_SECONDS_PER_SEED = 64.0
TARGET_SECONDS = 600.0
STEPS, EVAL_EVERY, N_EVAL = 200, 50, 50
TASK = {"kind": "permutation", "length": 40, "n_words": 40}
HIDDEN, BATCH = 256, 128


def time_training(n_seeds: int, steps: int, device="cpu") -> float:
    """Seconds for ``steps`` steps of ``n_seeds`` stacked seeds through the engine (the authors' Adam, one
    evaluation at the end, no checkpoint) on ``device``."""
    import io
    import tempfile

    task = tasks.CopyTask(**TASK)
    members = [Member.plain(s, heads=1) for s in range(n_seeds)]
    cfg = TrainConfig.from_dict({"steps": steps, "batch_size": BATCH, "lr": 1e-3, "lr_decay": 1.0,
                                 "betas": [0.9, 0.999], "eps": 1e-8, "grad_clip": None, "l2": 0.0,
                                 "checkpoint_every": steps, "eval_every": steps, "n_eval": N_EVAL})
    model = Seq2Seq(Seq2SeqConfig(task.vocab, HIDDEN), [m.seed for m in members], [list(m.head_seeds) for m in members])
    valid = task(generator(0, "evaluation"), N_EVAL)
    sync()
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as ckpt:
        fit(model, members, task, valid, cfg, ckpt, name="bench", spec={}, log=io.StringIO(), device=device)
    sync()
    return time.perf_counter() - t


def time_evaluation(n_seeds: int, device="cpu") -> float:
    model = Seq2Seq(Seq2SeqConfig(tasks.copy_vocab("permutation", 40, 40), HIDDEN), list(range(n_seeds))).to(device)
    src, tgt_in, tgt_out = tasks.copy_batch("permutation", N_EVAL, 40, 40, torch.Generator().manual_seed(0))
    src, tgt_in, tgt_out = (x.expand(n_seeds, *x.shape).to(device) for x in (src, tgt_in, tgt_out))
    src_len = torch.full(src.shape[:2], src.shape[-1], device=device)
    sync()
    t = time.perf_counter()
    with torch.no_grad():
        (model(src, src_len, tgt_in).argmax(-1) == tgt_out).float().mean().item()
    return time.perf_counter() - t


class PeerLike(torch.nn.Module):
    """One seed, torch.nn.LSTM encoder/decoder, shared embedding, bilinear attention, tanh readout."""

    def __init__(self, vocab: int, hidden: int) -> None:
        super().__init__()
        self.embedding = torch.nn.Embedding(vocab, hidden)
        self.encoder = torch.nn.LSTM(hidden, hidden)
        self.decoder = torch.nn.LSTM(hidden, hidden)
        self.query = torch.nn.Linear(hidden, hidden)
        self.project = torch.nn.Linear(hidden, hidden)
        self.hidden = torch.nn.Linear(2 * hidden, hidden)
        self.out = torch.nn.Linear(hidden, vocab)

    def forward(self, src, tgt_in):  # [L, B], [T, B] -> logits [T, B, V]
        enc, state = self.encoder(self.embedding(src))
        dec, _ = self.decoder(self.embedding(tgt_in), state)
        alpha = torch.softmax(torch.einsum("tbh,lbh->tbl", self.query(dec), enc), -1)
        context = self.project(torch.einsum("tbl,lbh->tbh", alpha, enc))
        return self.out(torch.tanh(self.hidden(torch.cat([dec, context], -1))))


def time_peer_like(steps: int, device="cpu") -> float:
    """Seconds for ``steps`` training steps of one seed of :class:`PeerLike` on ``device`` (cuDNN's LSTM on CUDA)."""
    vocab = tasks.copy_vocab("permutation", 40, 40)
    torch.manual_seed(0)
    model = PeerLike(vocab, HIDDEN).to(device)
    opt = torch.optim.Adam(model.parameters())
    gen = torch.Generator().manual_seed(0)
    sync()
    t = time.perf_counter()
    for _ in range(steps):
        src, tgt_in, tgt_out = (x.to(device) for x in tasks.copy_batch("permutation", BATCH, 40, 40, gen))
        logits = model(src.T, tgt_in.T)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), tgt_out.T.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
    sync()
    return time.perf_counter() - t


def step_flops(n_seeds: int) -> int:
    """Floating-point operations of one training step of ``n_seeds`` stacked seeds (forward and backward), as
    PyTorch's own FLOP counter counts them (matrix products; element-wise work is not counted)."""
    from torch.utils.flop_counter import FlopCounterMode

    model = Seq2Seq(Seq2SeqConfig(tasks.copy_vocab("permutation", 40, 40), HIDDEN), list(range(n_seeds)))
    src, tgt_in, tgt_out = tasks.copy_batch("permutation", BATCH, 40, 40, torch.Generator().manual_seed(0))
    src, tgt_in, tgt_out = (x.expand(n_seeds, *x.shape) for x in (src, tgt_in, tgt_out))
    src_len = torch.full(src.shape[:2], src.shape[-1])
    with FlopCounterMode(display=False) as counter:
        loss = torch.nn.functional.cross_entropy(model(src, src_len, tgt_in).flatten(0, 2), tgt_out.flatten())
        loss.backward()
    return counter.get_total_flops()


def arithmetic_floor(n_seeds: int) -> dict:
    """How fast ``n_seeds`` seeds could train at best: their matrix products at the machine's large-matmul rate."""
    flops, rate = step_flops(n_seeds), matmul_gflops()
    return {"flops_per_step": flops, "matmul_gflops": rate,
            "floor_seconds": flops * STEPS / (rate * 1e9)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--short", type=int, default=2, help="steps of the short timed run")
    p.add_argument("--long", type=int, default=5, help="steps of the long timed run")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "snell_copy.json"))
    p.add_argument("--peer-like", type=int, default=10, help="steps of the one-seed peer-like run (0: skip)")
    p.add_argument("--peer-only", action="store_true",
                   help="time only the peer-like run and add it to the existing --out JSON")
    p.add_argument("--floor-only", action="store_true",
                   help="add only the arithmetic floor (FLOPs, matmul rate) to the existing --out JSON")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    load_before = os.getloadavg()
    if args.floor_only:
        result = json.loads(Path(args.out).read_text())
        result["arithmetic"] = arithmetic_floor(result["settings"]["seeds"])
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
        print(json.dumps(result["arithmetic"]))
        return
    if args.peer_only:
        result = json.loads(Path(args.out).read_text())
        per_step = statistics.median(time_peer_like(args.peer_like) / args.peer_like for _ in range(args.repeats))
        result["peer_like_same_run"] = {"per_step_s": per_step, "per_seed_s": per_step * STEPS,
                                        "twenty_seeds_sequential_s": per_step * STEPS * args.seeds,
                                        "load_average": os.getloadavg(), "threads": torch.get_num_threads()}
        result["speedup_vs_peer_like_same_run"] = per_step * STEPS * args.seeds / result["estimated_seconds"]
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
        print(json.dumps({k: result[k] for k in ("peer_like_same_run", "speedup_vs_peer_like_same_run")}))
        return
    runs = []
    for r in range(args.repeats):
        short, long = time_training(args.seeds, args.short), time_training(args.seeds, args.long)
        per_step = (long - short) / (args.long - args.short)
        evaluation = time_evaluation(args.seeds)
        # the short run holds `short` steps and two evaluations; what is left is setup
        setup = max(short - args.short * per_step - 2 * evaluation, 0.0)
        total = setup + STEPS * per_step + (STEPS // EVAL_EVERY + 1) * evaluation
        runs.append({"short_s": short, "long_s": long, "per_step_s": per_step, "evaluation_s": evaluation,
                     "setup_s": setup, "estimated_total_s": total})
        print(f"run {r}: {per_step:.2f} s/step, eval {evaluation:.2f} s -> {total:.0f} s for {args.seeds} seeds",
              flush=True)
    peer_like = None
    if args.peer_like:
        per_step = statistics.median(time_peer_like(args.peer_like) / args.peer_like for _ in range(args.repeats))
        peer_like = {"per_step_s": per_step, "per_seed_s": per_step * STEPS,
                     "twenty_seeds_sequential_s": per_step * STEPS * args.seeds}
        print(f"peer-like one seed: {per_step:.2f} s/step", flush=True)
    total = statistics.median(x["estimated_total_s"] for x in runs)
    peer = PEER_SECONDS_PER_SEED * args.seeds
    result = {
        "benchmark": "snell_copy",
        "settings": {**TASK, "hidden": HIDDEN, "batch_size": BATCH, "steps": STEPS, "eval_every": EVAL_EVERY,
                     "n_eval": N_EVAL, "seeds": args.seeds, "stacked": True},
        "method": f"extrapolated from {args.short}- and {args.long}-step runs; median of {args.repeats}",
        "estimated_seconds": total, "seconds_per_seed": total / args.seeds,
        "peer_seconds": peer, "speedup_vs_peer": peer / total, "target_seconds": TARGET_SECONDS,
        "peer_like_same_run": peer_like,
        "speedup_vs_peer_like_same_run": (peer_like["twenty_seeds_sequential_s"] / total) if peer_like else None,
        "meets_target": total <= TARGET_SECONDS,
        "arithmetic": arithmetic_floor(args.seeds),
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "platform": platform.platform(),
                    "load_average_before": load_before, "load_average_after": os.getloadavg()},
        "torch": torch.__version__, "threads": torch.get_num_threads(), "runs": runs,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: result[k] for k in ("estimated_seconds", "speedup_vs_peer", "meets_target")}))


if __name__ == "__main__":
    main()
