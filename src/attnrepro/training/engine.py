"""The training engine: every trained model of the three papers trains through :func:`fit`.

A run trains S *members* stacked in one model: member s has its own initialisation (``Member.seed``, plus
``head_seeds`` for the heads of Snell et al.'s §5.2) and its own batch stream (``Member.data_seed``,
:func:`attnrepro.seeding.generator`). Its loss is its own mean token cross-entropy (:func:`token_loss`; a binary
classifier's label is a one-token target over two classes, Snell et al. §2.4), the stack's loss their sum, gradient
clipping is per member, Adam is element-wise, and dropout draws each member's masks from its own stream
(:mod:`attnrepro.nn.dropout`), so member s trains exactly as a separate run would.

Checkpoints every ``checkpoint_every`` steps hold the weights, the optimizer state, the batch generators' states
(and, for a model with dropout, the dropout generators' states) and the metrics so far (with ``keep_best``, also
each member's weights at its best evaluation so far); what ``record`` returns at each evaluation (probes: large at
the papers' scale) is written beside them, one file per evaluation, so neither memory nor a checkpoint grows with
it. A rerun resumes from the newest checkpoint whose fingerprint (spec, members, training settings, data) matches,
drops the records of later evaluations, and ends bitwise equal to an uninterrupted run on the CPU.

Divergence (a non-finite loss or gradient norm of a member) either stops the run (``divergence="stop"``: an error
that names the run, the member's seed and the step, so that nothing is written a rerun would take as done) or, for
experiments whose result is a rate over runs (Snell et al.'s Fig. 3 and 6), freezes that member
(``divergence="freeze"``): its weights stay where they were, its rows are marked ``diverged`` with NaN metrics,
and the other members go on unchanged.
"""

from __future__ import annotations

import hashlib
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO

import pandas as pd
import torch
import torch.nn.functional as F

from .. import __version__
from ..nn.allocator import hold_freed_memory
from .config import TrainConfig
from ..provenance import fingerprint
from ..data.vocab import Encoded, Source, draw, expand, stack
from ..errors import AttnReproError
from ..nn.dropout import dropout_states, has_dropout, set_dropout_states
from ..io import atomic_path, move_aside
from .progress import HEARTBEAT_SECONDS, progress
from ..nn.stacked import clip_grad_norm_per_seed, per_seed_grad_norm
from ..seeding import generator, stream_seeds

CHECKPOINT_FORMAT = 2  # raised when a checkpoint's contents change: older ones are then stale, not misread
METRIC_COLUMNS = ["step", "member", "seed", "train_loss", "valid_loss", "token_acc", "seq_acc", "diverged"]


@dataclass(frozen=True)
class Member:
    """One run of a stack: its initialisation seed, its batch stream, and (Snell et al. §5.2) its heads' seeds."""

    seed: int
    data_seed: int
    head_seeds: tuple[int, ...] = field(default=())

    @classmethod
    def plain(cls, seed: int, heads: int = 0) -> "Member":
        """An ordinary run: data seed = seed, head seeds from the seed's ``heads`` stream."""
        return cls(int(seed), int(seed), tuple(stream_seeds(seed, "heads", heads)) if heads else ())


@dataclass
class Result:
    model: torch.nn.Module
    metrics: pd.DataFrame                           # one row per member per evaluation, METRIC_COLUMNS
    records: dict[str, list[Path]]                  # per key, what ``record`` returned at each evaluation (pickled
                                                    # DataFrames with ``step`` and ``seed``), in step order
    best: dict | None = None                        # keep_best: ``state_dict`` (each member's slice at its best
                                                    # evaluation) and ``step`` (that evaluation, per member)

    def record_frame(self, key: str) -> pd.DataFrame | None:
        """All evaluations' rows of record ``key`` in one DataFrame (None if there are none)."""
        parts = self.records.get(key)
        return pd.concat([pd.read_pickle(p) for p in parts], ignore_index=True) if parts else None


def token_loss(logits: torch.Tensor, batch: Encoded, padded: bool = False) -> torch.Tensor:
    """Mean cross-entropy over each member's real target tokens (Snell et al. Eq. 3 up to 1/(T·B); a binary
    classifier's logits are [0, γ] over a one-token target, so this is its binary cross-entropy): [S]. With
    ``padded`` (``train.loss: padded``), Aitken et al.'s code's loss: the same sum over the real tokens divided by
    B × the padded length (their ``xe_loss_fn``: the log-likelihood zeroed at the pads, then the mean over every
    position), so that padded positions count in the mean with a loss of 0. Their padded length is the task's
    fixed output length; ours the batch's longest target (the same at the toy tasks' batch of 128)."""
    target = batch.tgt_out
    nll = F.cross_entropy(logits.flatten(0, -2), target.flatten(), reduction="none").view(target.shape)
    mask = batch.tgt_mask().to(nll.dtype)
    total = (nll * mask).flatten(1).sum(1)
    return total / mask.flatten(1).shape[1] if padded else total / mask.flatten(1).sum(1)


def token_hits(logits: torch.Tensor, batch: Encoded) -> tuple[torch.Tensor, torch.Tensor]:
    """(hits, mask): where the teacher-forced arg-max of ``logits`` is the target, over the real target tokens
    (``<eos>`` included), and those tokens; the per-token counts behind :func:`teacher_forced`'s accuracies."""
    mask = batch.tgt_mask()
    return (logits.argmax(-1) == batch.tgt_out) & mask, mask


def teacher_forced(model, batch: Encoded) -> dict[str, torch.Tensor]:
    """Held-out loss, and token / sequence accuracy of the teacher-forced arg-max over the real target tokens
    (``<eos>`` included; Snell et al.'s measure): each [S]."""
    logits = model(batch.src, batch.src_len, batch.tgt_in)
    hit, mask = token_hits(logits, batch)
    return {"valid_loss": token_loss(logits, batch),
            "token_acc": hit.flatten(1).sum(1).float() / mask.flatten(1).sum(1),
            "seq_acc": (hit | ~mask).all(-1).float().mean(-1)}


def data_fingerprint(data: Encoded) -> str:
    h = hashlib.sha256()
    for t in (data.src, data.src_len, data.tgt_in, data.tgt_out, data.tgt_len):
        h.update(t.numpy().tobytes())
    return h.hexdigest()[:16]


class SegmentEnd(AttnReproError):
    """A run stopped at its time budget after writing a checkpoint: its next segment (a retry) resumes there."""


_stop_at: float | None = None  # time.monotonic() after which fit checkpoints and stops (set_time_budget)


def set_time_budget(minutes: float | None) -> None:
    """Train for at most ``minutes`` from now (None: no limit): a cluster job's limit, less the time to write its
    checkpoint, so that a run longer than a partition allows continues in segments instead of being killed."""
    global _stop_at
    _stop_at = None if not minutes else time.monotonic() + 60 * minutes


def is_eval_step(cfg: TrainConfig, step: int) -> bool:
    """Every ``eval_every``-th step, the last step, and the steps of ``eval_at`` (0 = before training); a test,
    not a set, so its memory does not grow with ``steps``."""
    return 0 <= step <= cfg.steps and (step == cfg.steps or (step > 0 and step % cfg.eval_every == 0)
                                       or step in cfg.eval_at)


def fit(model: torch.nn.Module, members: list[Member], source: Source, valid: Encoded, cfg: TrainConfig,
        ckpt_dir: str | Path, *, name: str, spec: dict, divergence: str = "stop",
        evaluate: Callable = teacher_forced, record: Callable | None = None, device="cpu",
        log: TextIO = sys.stderr, on_step: Callable[[int], None] | None = None, keep_best: bool = False) -> Result:
    """Train ``model`` (its members built from ``members``) on batches from ``source``, evaluating on ``valid``
    at :func:`is_eval_step`; ``evaluate(model, batch)`` returns per-member metrics, ``record(model, batch)`` named
    DataFrames with a ``member`` column (the probes of Snell et al.'s Table 2) that are kept for every evaluation.
    ``spec`` is everything else the run depends on (its model and task), for the checkpoints' fingerprint;
    ``on_step(step)`` is called after every completed step (tests use it to interrupt a run). ``keep_best``: also
    return (:attr:`Result.best`) each member's weights at its evaluation of highest ``token_acc`` (the first such
    evaluation; :func:`best_update`), the checkpoint the authors read Snell et al.'s Δ at."""
    if divergence not in ("stop", "freeze"):
        raise ValueError(f"divergence must be 'stop' or 'freeze', not {divergence!r}")
    hold_freed_memory()  # a step's buffers are reused, not mapped anew (attnrepro.nn.allocator)
    ckpt_dir = Path(ckpt_dir)
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    device = torch.device(device)
    valid_batch = expand(valid, len(members)).to(device)
    # what the results depend on; checkpoint_every is left out so changing it keeps the checkpoints
    fp = fingerprint({"spec": spec, "members": [[m.seed, m.data_seed, list(m.head_seeds)] for m in members],
                      "train": {k: v for k, v in cfg.to_dict().items() if k != "checkpoint_every"},
                      "data": data_fingerprint(source) if isinstance(source, Encoded) else None,
                      "valid": data_fingerprint(valid), "format": CHECKPOINT_FORMAT, "code": __version__,
                      **({"keep_best": True} if keep_best else {}),  # absent when off: checkpoints as before
                      # per-member dropout streams: checkpoints of a dropout run from before them (global-generator
                      # masks) are stale; absent without dropout, so those runs' checkpoints stay valid
                      **({"dropout": "per-member"} if has_dropout(model) else {})})
    model = model.to(device)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=cfg.lr, betas=cfg.betas, eps=cfg.eps)
    gens = [generator(m.data_seed, "batches") for m in members]
    state = {"step": 0, "metrics": [], "diverged": {}, "seconds": 0.0}
    if keep_best:  # part of the checkpoint, so a resumed run keeps the same best weights
        state["best"] = {"acc": [float("-inf")] * len(members), "step": [-1] * len(members),
                         "state_dict": {k: v.detach().clone() for k, v in model.state_dict().items()}}
    record_dir = ckpt_dir / "records"

    initial = {k: v.clone() for k, v in model.state_dict().items()}
    initial_dropout = dropout_states(model)

    def restore(loaded: dict) -> None:
        try:
            model.load_state_dict(loaded["model"])
            opt.load_state_dict(loaded["optimizer"])
            for g, gs in zip(gens, loaded["generators"]):
                g.set_state(gs)
            if initial_dropout:
                set_dropout_states(model, loaded["dropout"])
            state.update({k: loaded[k] for k in state})
        except Exception:  # a half-applied checkpoint must not leak into the fresh start
            model.load_state_dict(initial)
            set_dropout_states(model, initial_dropout)
            gens[:] = [generator(m.data_seed, "batches") for m in members]
            raise

    loaded = _load_checkpoint(ckpt_dir, fp, log, restore)
    if loaded is not None:
        print(f"{name}: resuming from step {state['step']} ({ckpt_dir})", file=log, flush=True)
    for part in record_dir.glob("*.pkl"):  # evaluations after the checkpoint (or of a fresh start) are redone
        if int(part.stem.rsplit(".", 1)[1]) > state["step"] or loaded is None:
            part.unlink()
    frozen = {s: [p.detach()[s].clone() for p in params] for s in state["diverged"]}
    started = time.perf_counter() - state["seconds"]
    losses = torch.full((len(members),), float("nan"), device="cpu")

    def evaluation(step: int) -> None:
        model.eval()
        with torch.no_grad():
            scores = {k: v.float().cpu() for k, v in evaluate(model, valid_batch).items()}
            records = record(model, valid_batch) if record is not None else {}
        model.train()
        for s, m in enumerate(members):
            gone = s in state["diverged"]
            state["metrics"].append({"step": step, "member": s, "seed": m.seed,
                                     "train_loss": float("nan") if gone else float(losses[s]),
                                     **{k: float("nan") if gone else float(v[s]) for k, v in scores.items()},
                                     "diverged": gone})
        if keep_best:
            best_update(state["best"], model.state_dict(),
                        [float("nan") if s in state["diverged"] else float(a)
                         for s, a in enumerate(scores["token_acc"])], step)
        for key, df in records.items():
            df = df[~df.member.isin(list(state["diverged"]))]
            with atomic_path(record_dir / f"{key}.{step:08d}.pkl") as tmp:
                df.assign(step=step, seed=[members[s].seed for s in df.member]).to_pickle(tmp, compression=None)
        active = [s for s in range(len(members)) if s not in state["diverged"]]
        mean = lambda v: float(v[active].mean()) if active else float("nan")  # noqa: E731
        extra = {"diverged": len(state["diverged"])} if state["diverged"] else {}
        progress(name, step, cfg.steps, time.perf_counter() - started, log, device=device.type, loss=mean(losses),
                 acc=mean(scores["token_acc"]), **extra)
        said[0] = time.perf_counter()

    said = [time.perf_counter()]  # when the last progress line was written

    def heartbeat(step: int, note: str = "") -> None:
        active = [s for s in range(len(members)) if s not in state["diverged"]]
        loss = float(losses[active].mean()) if active else float("nan")
        progress(name, step, cfg.steps, time.perf_counter() - started, log, device=device.type, loss=loss, note=note)
        said[0] = time.perf_counter()

    if state["step"] == 0 and is_eval_step(cfg, 0):
        evaluation(0)
    for step in range(state["step"], cfg.steps):
        batch = stack([draw(source, g, cfg.batch_size) for g in gens]).to(device)
        losses = token_loss(model(batch.src, batch.src_len, batch.tgt_in), batch, padded=cfg.loss == "padded")
        objective = losses
        if cfg.l2:  # per member, so the sum keeps members independent
            objective = losses + cfg.l2 * sum(p.pow(2).flatten(1).sum(1) for p in params)
        active = torch.ones(len(members), dtype=torch.bool, device=device)
        active[list(state["diverged"])] = False
        opt.zero_grad(set_to_none=True)
        torch.where(active, objective, torch.zeros_like(objective)).sum().backward()
        losses, norms = losses.detach(), per_seed_grad_norm(params)
        bad = active & ~(torch.isfinite(losses) & torch.isfinite(norms))
        for s in bad.nonzero().flatten().tolist():
            what = f"loss {float(losses[s])}" if not torch.isfinite(losses[s]) else f"gradient norm {float(norms[s])}"
            if divergence == "stop":
                raise AttnReproError(
                    f"{name}: seed {members[s].seed} diverged at step {step + 1} ({what}); nothing was written. "
                    f"Lower the learning rate (train.lr = {cfg.lr:g}) or clip gradients (train.grad_clip)")
            print(f"{name}: seed {members[s].seed} diverged at step {step + 1} ({what}); frozen, counted as diverged",
                  file=log, flush=True)
            state["diverged"][s] = step + 1
            frozen[s] = [p.detach()[s].clone() for p in params]
        if frozen:
            with torch.no_grad():
                for p in params:
                    if p.grad is not None:
                        p.grad[list(frozen)] = 0.0
        if cfg.grad_clip is not None:
            clip_grad_norm_per_seed(params, cfg.grad_clip)
        for group in opt.param_groups:
            group["lr"] = cfg.lr * cfg.lr_decay ** step
        opt.step()
        with torch.no_grad():
            for s, values in frozen.items():
                for p, v in zip(params, values):
                    p[s] = v
        done = step + 1
        losses = losses.cpu()
        if is_eval_step(cfg, done):
            evaluation(done)
        state["step"], state["seconds"] = done, time.perf_counter() - started
        out_of_time = _stop_at is not None and done < cfg.steps and time.monotonic() >= _stop_at
        if (done % cfg.checkpoint_every == 0 or out_of_time) and done < cfg.steps:
            _save_checkpoint(ckpt_dir, {**state, "fingerprint": fp, "model": model.state_dict(),
                                        "optimizer": opt.state_dict(), "generators": [g.get_state() for g in gens],
                                        **({"dropout": dropout_states(model)} if initial_dropout else {})})
            heartbeat(done, f"checkpoint written ({ckpt_dir.name})")
        elif not is_eval_step(cfg, done) and time.perf_counter() - said[0] >= HEARTBEAT_SECONDS:
            heartbeat(done)
        if out_of_time:
            raise SegmentEnd(f"{name}: time budget spent at step {done}/{cfg.steps}; checkpointed in {ckpt_dir}, "
                             "exiting so that the next attempt continues from there")
        if on_step is not None:
            on_step(done)
    metrics = pd.DataFrame(state["metrics"]).reindex(columns=METRIC_COLUMNS)
    records: dict[str, list[Path]] = {}
    for part in sorted(record_dir.glob("*.pkl"), key=lambda p: int(p.stem.rsplit(".", 1)[1])):
        records.setdefault(part.stem.rsplit(".", 1)[0], []).append(part)
    best = {"state_dict": state["best"]["state_dict"], "step": list(state["best"]["step"])} if keep_best else None
    return Result(model, metrics, records, best)


def best_update(best: dict, weights: dict[str, torch.Tensor], acc: list[float], step: int) -> list[int]:
    """Copy into ``best["state_dict"]`` the slice (leading dimension: the member) of every member whose accuracy
    ``acc`` at evaluation ``step`` exceeds its best so far (``best["acc"]``; a tie keeps the earlier evaluation, as
    ``np.argmax`` over the curve, and a NaN, a diverged member, never counts); returns those members."""
    better = [s for s, a in enumerate(acc) if a > best["acc"][s]]
    with torch.no_grad():
        for k, v in weights.items():
            for s in better:
                best["state_dict"][k][s] = v[s]
    for s in better:
        best["acc"][s], best["step"][s] = float(acc[s]), int(step)
    return better


def _checkpoints(ckpt_dir: Path) -> list[Path]:
    return sorted(ckpt_dir.glob("ckpt_*.pt"))


def _save_checkpoint(ckpt_dir: Path, state: dict) -> None:
    path = ckpt_dir / f"ckpt_{state['step']:08d}.pt"
    with atomic_path(path) as tmp:
        torch.save(state, tmp)
    for old in _checkpoints(ckpt_dir):
        if old != path:
            old.unlink(missing_ok=True)


def _load_checkpoint(ckpt_dir: Path, fp: str, log: TextIO, restore: Callable[[dict], None]) -> dict | None:
    """The newest readable checkpoint with fingerprint ``fp``, applied by ``restore``; unreadable ones, stale ones
    and ones whose contents do not fit the model are reported and moved aside (``.corrupt`` / ``.stale``), never
    deleted."""
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
        try:
            restore(state)
        except (KeyError, TypeError, ValueError, RuntimeError) as err:
            aside = move_aside(path, ".corrupt")
            why = str(err).strip().splitlines()[-1].strip() if str(err).strip() else ""
            print(f"checkpoint {path} does not fit this model ({type(err).__name__}: {why}); moved aside to "
                  f"{aside.name}", file=log)
            continue
        return state
    return None
