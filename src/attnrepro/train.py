"""The training engine: S seeds of one experiment trained together as stacked parameters, with checkpoints.

Each seed draws its own initial weights and its own batches from generators seeded by that seed alone, the loss
is the sum of the seeds' own mean losses (so the gradient of seed s is that of a separate run), and gradient
clipping is per seed. Adam is element-wise, so one optimizer over the stack equals S optimizers.

Checkpoints hold the weights, the optimizer state, the batch generators' states and the metrics so far; a rerun
resumes from the newest one whose fingerprint (config, seeds, data) matches and, on the CPU, ends bitwise equal
to an uninterrupted run.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Callable, TextIO

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from tqdm import tqdm

from .config import TrainConfig, fingerprint
from .data import Encoded
from .errors import AttnReproError
from .evaluation import accuracies
from .io import atomic_path, move_aside, quarantine
from .model import EncoderDecoder, ModelConfig, build_model
from .stacked import clip_grad_norm_per_seed

METRIC_COLUMNS = ["step", "seed", "train_loss", "valid_loss", "token_acc", "seq_acc"]


def batch_generator(seed: int) -> torch.Generator:
    """The generator of seed ``seed``'s batch order; independent of its weight-initialisation generator."""
    return torch.Generator().manual_seed(int(np.random.SeedSequence([int(seed), 1]).generate_state(1)[0]))


def stacked_batch(data: Encoded, idx: torch.Tensor, device) -> tuple[torch.Tensor, ...]:
    """Gather per-seed batches ``idx`` [S, B] and trim the padding to the longest sequence in the stack."""
    t = int(data.src_len[idx].max())
    s = int(data.tgt_len[idx].max())
    return (data.src[idx][..., :t].to(device), data.src_len[idx].to(device),
            data.tgt_in[idx][..., :s].to(device), data.tgt_out[idx][..., :s].to(device))


def per_seed_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy over each seed's non-pad target tokens: [S]."""
    nll = F.cross_entropy(logits.flatten(0, 2), target.flatten(), reduction="none").view(target.shape)
    mask = (target != 0).float()
    return (nll * mask).flatten(1).sum(1) / mask.flatten(1).sum(1)


@torch.no_grad()
def evaluate(model: EncoderDecoder, data: Encoded, device, sos: int) -> pd.DataFrame:
    """Teacher-forced loss and greedy-decoding token / sequence accuracy per seed on ``data``."""
    model.eval()
    n = model.n_seeds
    expand = lambda x: x.unsqueeze(0).expand(n, *x.shape).to(device)
    src, src_len, tgt_in, tgt_out = (expand(x) for x in (data.src, data.src_len, data.tgt_in, data.tgt_out))
    loss = per_seed_loss(model(src, src_len, tgt_in), tgt_out)
    pred = model.greedy_decode(src, src_len, tgt_out.shape[-1], sos)
    token_acc, seq_acc = accuracies(pred, tgt_out)
    model.train()
    return pd.DataFrame({"seed": model.seeds, "valid_loss": loss.cpu().numpy(),
                         "token_acc": token_acc.cpu().numpy(), "seq_acc": seq_acc.cpu().numpy()})


def _checkpoints(ckpt_dir: Path) -> list[Path]:
    return sorted(ckpt_dir.glob("ckpt_*.pt"))


def _save_checkpoint(ckpt_dir: Path, state: dict) -> None:
    path = ckpt_dir / f"ckpt_{state['step']:08d}.pt"
    with atomic_path(path) as tmp:
        torch.save(state, tmp)
    for old in _checkpoints(ckpt_dir):
        if old != path:
            old.unlink(missing_ok=True)


def _load_checkpoint(ckpt_dir: Path, fp: str, log: TextIO) -> dict | None:
    """The newest readable checkpoint with fingerprint ``fp``; unreadable or stale ones are reported and moved
    aside (``.corrupt`` / ``.stale``), never deleted."""
    for path in reversed(_checkpoints(ckpt_dir)):
        try:
            state = torch.load(path, map_location="cpu", weights_only=False)
        except Exception as err:  # a truncated file raises anything from EOFError to RuntimeError
            aside = move_aside(path, ".corrupt")
            print(f"checkpoint {path} is unreadable ({type(err).__name__}: {err}); moved aside to {aside.name}",
                  file=log)
            continue
        if state.get("fingerprint") != fp:
            aside = move_aside(path, ".stale")
            print(f"checkpoint {path} belongs to another configuration; moved aside to {aside.name}", file=log)
            continue
        return state
    return None


def data_fingerprint(data: Encoded) -> str:
    h = hashlib.sha256()
    for t in (data.src, data.tgt_in, data.tgt_out):
        h.update(t.numpy().tobytes())
    return h.hexdigest()[:16]


def train(model_cfg: ModelConfig, cfg: TrainConfig, seeds: list[int], train_data: Encoded, valid_data: Encoded,
          ckpt_dir: str | Path, *, sos: int, device: str | torch.device = "cpu", log: TextIO = sys.stderr,
          progress: bool = True, on_step: Callable[[int], None] | None = None) -> tuple[EncoderDecoder, pd.DataFrame]:
    """Train ``seeds`` stacked; returns the model and the metrics (one row per seed per evaluation).

    ``on_step(step)`` is called after every completed step (tests use it to interrupt a run).
    """
    ckpt_dir = Path(ckpt_dir)
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    device = torch.device(device)
    valid = valid_data.subset(slice(0, cfg.n_eval))
    # what the results depend on; checkpoint_every is left out so changing it keeps the checkpoints
    fp = fingerprint({"model": model_cfg.to_dict(), "seeds": list(seeds),
                      "train": {k: v for k, v in cfg.to_dict().items() if k != "checkpoint_every"},
                      "data": data_fingerprint(train_data), "valid": data_fingerprint(valid)})

    model = build_model(model_cfg, seeds).to(device)
    params = list(model.parameters())
    opt = torch.optim.Adam(params, lr=cfg.lr, betas=cfg.betas, eps=cfg.eps)
    gens = [batch_generator(s) for s in seeds]
    rows: list[dict] = []
    start = 0

    state = _load_checkpoint(ckpt_dir, fp, log)
    if state is not None:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        for g, gs in zip(gens, state["generators"]):
            g.set_state(gs)
        rows, start = state["metrics"], state["step"]
        print(f"resuming from step {start} ({ckpt_dir})", file=log)

    n_train = len(train_data)
    bar = tqdm(range(start, cfg.steps), initial=start, total=cfg.steps, file=log, disable=not progress,
               mininterval=5.0, desc="train", unit="step")
    for step in bar:
        idx = torch.stack([torch.randint(0, n_train, (cfg.batch_size,), generator=g, device=g.device) for g in gens])
        src, src_len, tgt_in, tgt_out = stacked_batch(train_data, idx, device)
        losses = per_seed_loss(model(src, src_len, tgt_in), tgt_out)
        l2 = sum(p.pow(2).sum() for p in params)  # separable over seeds, so the sum keeps seeds independent
        opt.zero_grad(set_to_none=True)
        (losses.sum() + cfg.l2 * l2).backward()
        clip_grad_norm_per_seed(params, cfg.grad_clip)
        for group in opt.param_groups:
            group["lr"] = cfg.lr * cfg.lr_decay ** step
        opt.step()
        done = step + 1
        if done % cfg.eval_every == 0 or done == cfg.steps:
            ev = evaluate(model, valid, device, sos)
            ev.insert(0, "step", done)
            ev.insert(2, "train_loss", losses.detach().cpu().numpy())
            rows.extend(ev.to_dict("records"))
            bar.set_postfix(loss=f"{losses.mean().item():.4f}", token_acc=f"{ev.token_acc.mean():.4f}")
            print(f"step {done}: " + ", ".join(f"seed {r.seed} tok {r.token_acc:.4f} seq {r.seq_acc:.4f}"
                                               for r in ev.itertuples()), file=log)
        if done % cfg.checkpoint_every == 0 and done < cfg.steps:
            _save_checkpoint(ckpt_dir, {
                "step": done, "fingerprint": fp, "model": model.state_dict(), "optimizer": opt.state_dict(),
                "generators": [g.get_state() for g in gens], "metrics": rows,
            })
        if on_step is not None:
            on_step(done)
    bar.close()
    return model, pd.DataFrame(rows, columns=METRIC_COLUMNS)


def save_model(model: EncoderDecoder, vocab: dict, path: str | Path) -> None:
    with atomic_path(path) as tmp:
        torch.save({"model_config": model.cfg.to_dict(), "seeds": model.seeds, "vocab": vocab,
                    "state_dict": model.state_dict()}, tmp)


def load_model(path: str | Path, device="cpu") -> tuple[EncoderDecoder, dict]:
    path = Path(path)
    if not path.exists():
        raise AttnReproError(f"{path}: model file not found")
    try:
        blob = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as err:  # torch.load of a truncated file raises anything from EOFError to RuntimeError
        raise quarantine(path, f"not a readable model file ({type(err).__name__}: {err})") from err
    try:
        model = build_model(ModelConfig(**blob["model_config"]), blob["seeds"])
        model.load_state_dict(blob["state_dict"])
    except (KeyError, TypeError, RuntimeError, ValueError) as err:
        raise AttnReproError(f"{path}: written by an incompatible version of attnrepro ({err}); retrain it") from err
    return model.to(device), blob["vocab"]
