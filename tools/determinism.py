"""How far a training run's numbers depend on the thread count and the CPU kernels (so that verdicts
do not depend on the machine).

One short training run (AED-GRU, one-to-one, 3 stacked seeds, 100 steps) repeated in fresh processes under each
setting; the weights' SHA-256 and the final token accuracies are compared with the default setting's:

- the same setting twice (is a run reproducible at all?),
- two torch threads instead of one (what ``--cores`` or a Slurm allocation could change),
- ``ATEN_CPU_CAPABILITY=default``: ATen's portable kernels instead of this CPU's AVX2 ones (what another x86
  machine, with AVX-512 say, would change),
- ``MKL_CBWR=COMPATIBLE``: MKL's conditional numerical reproducibility, the same code path on any x86 CPU,
- both, which is the setting that removes the CPU's kernels from the result (at the measured cost in time).

Writes ``tools/results/determinism.json``. Run: ``python tools/determinism.py`` (about 5 minutes on 2 cores).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN = r"""
import hashlib, io, json, sys, tempfile, time
import torch
from attnrepro import tasks
from attnrepro.run.config import TrainConfig
from attnrepro.data.vocab import Vocab, encode
from attnrepro.seq2seq.model import ModelConfig
from attnrepro.seq2seq.train import train
torch.set_num_threads(int(sys.argv[1]))
task = dict(kind="one_to_one", n_words=3, min_len=15, max_len=20, n_train=2000, n_valid=100, n_test=100, seed=1)
splits = tasks.generate(task)
vocab = Vocab.from_words(*tasks.words(task))
tr, va = encode(splits["train"], vocab), encode(splits["valid"], vocab)
cfg = TrainConfig.from_dict(dict(steps=100, batch_size=128, lr=0.02, lr_decay=0.999, betas=[0.9, 0.99], eps=1e-8,
                                 grad_clip=1.0, l2=1e-5, checkpoint_every=10000, eval_every=100, n_eval=100))
mc = ModelConfig(arch="aed", cell="gru", hidden=64, src_vocab=len(vocab.src), tgt_vocab=len(vocab.tgt))
t = time.perf_counter()
with tempfile.TemporaryDirectory() as ckpt:
    model, metrics = train(mc, cfg, [0, 1, 2], tr, va, ckpt, sos=vocab.tgt.index("<sos>"),
                           log=io.StringIO())
seconds = time.perf_counter() - t
digest = hashlib.sha256(b"".join(v.numpy().tobytes() for v in model.state_dict().values())).hexdigest()
print(json.dumps({"sha256": digest[:16], "seconds": round(seconds, 2),
                  "token_acc": [round(x, 6) for x in metrics.token_acc.tolist()]}))
"""

SETTINGS = {
    "default": ({}, 1),
    "default, again": ({}, 1),
    "2 threads": ({}, 2),
    "ATEN_CPU_CAPABILITY=default": ({"ATEN_CPU_CAPABILITY": "default"}, 1),
    "MKL_CBWR=COMPATIBLE": ({"MKL_CBWR": "COMPATIBLE"}, 1),
    "both": ({"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"}, 1),
    "both, 2 threads": ({"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"}, 2),
}


def run(env: dict, threads: int) -> dict:
    out = subprocess.run([sys.executable, "-c", RUN, str(threads)], env={**os.environ, **env}, check=True,
                         capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    import torch

    results = {name: run(env, threads) for name, (env, threads) in SETTINGS.items()}
    ref = results["default"]
    for r in results.values():
        r["bitwise_equal_to_default"] = r["sha256"] == ref["sha256"]
        r["max_token_acc_change"] = max(abs(a - b) for a, b in zip(r["token_acc"], ref["token_acc"]))
    both = results["both"]
    summary = {
        "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                    "torch": torch.__version__, "cpu_capability": torch.backends.cpu.get_cpu_capability()},
        "results": results,
        "reproducible_in_one_setting": results["default, again"]["bitwise_equal_to_default"],
        "thread_count_changes_results": not results["2 threads"]["bitwise_equal_to_default"],
        "portable_kernels_thread_independent": both["sha256"] == results["both, 2 threads"]["sha256"],
        "portable_kernels_cost": round(both["seconds"] / ref["seconds"], 2),
    }
    path = ROOT / "tools" / "results" / "determinism.json"
    path.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
