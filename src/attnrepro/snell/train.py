"""Training loops of Snell et al. 2021's synthetic experiments, many runs stacked in one process.

A *member* of a stack is one run: its backbone seed, its head seeds and its data seed (the generator of its
batches). Each member's loss is its own mean, the stack's loss their sum, and Adam is element-wise, so member s
trains exactly as a separate run would (tests/test_snell_model.py). Optimiser as the authors' code: Adam with
PyTorch's defaults (lr 1e-3), no clipping, fresh batches every step.

Evaluation follows the authors' copy code: teacher-forced token accuracy over every target position (``<eos>``
included) on held-out sequences — here one fixed set of ``n_eval`` sequences drawn from ``eval_seed``, the same for
every member (the authors draw 50 fresh ones per evaluation) — at step 0 and every ``eval_every`` steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from . import tasks
from .classifier import Classifier, ClassifierConfig
from .seq2seq import Seq2Seq, Seq2SeqConfig, head_seeds_of, per_seed_loss


@dataclass(frozen=True)
class Member:
    seed: int                                     # backbone seed (and the run's name)
    data_seed: int
    head_seeds: tuple[int, ...] = field(default=())

    @classmethod
    def plain(cls, seed: int, heads: int = 1) -> "Member":
        return cls(seed, seed, tuple(head_seeds_of(seed, heads)))


def data_generator(data_seed: int) -> torch.Generator:
    """Batch stream of one run; independent of every initialisation stream."""
    return torch.Generator().manual_seed(int(np.random.SeedSequence([int(data_seed), 3]).generate_state(1)[0]))


def _eval_generator(eval_seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(int(np.random.SeedSequence([int(eval_seed), 5]).generate_state(1)[0]))


def _adam_steps(opt, steps: int, stack_loss, evaluate, eval_at) -> None:
    """Evaluate at step 0, then ``steps`` Adam steps on the stack's summed loss ``stack_loss()`` (each member's
    own mean), evaluating after every step for which ``eval_at(step)`` holds."""
    evaluate(0)
    for step in range(1, steps + 1):
        loss = stack_loss()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if eval_at(step):
            evaluate(step)


def _every(eval_every: int, steps: int):
    return lambda step: step % eval_every == 0 or step == steps


def train_copy(task: dict, model_cfg: Seq2SeqConfig, members: list[Member], *, steps: int, eval_every: int,
               n_eval: int, batch_size: int, lr: float = 1e-3, eval_seed: int = 0, threads: int | None = None,
               log=None, on_eval=None) -> pd.DataFrame:
    """Train ``members`` on a copy distribution (``task``: kind, length, n_words, task_seed); returns one row per
    member per evaluation: step, member, seed, data_seed, token_acc, valid_loss.

    ``on_eval(step, model, (src, tgt_in, tgt_out))`` is called at every evaluation with the held-out batch
    (probes of Table 2 read the model there)."""
    if threads:
        torch.set_num_threads(threads)
    kind, length, n_words = task["kind"], task["length"], task.get("n_words", task["length"])
    perm = tasks.fixed_permutation(length, task.get("task_seed", 0)) if kind == "permutation_function" else None
    model = Seq2Seq(model_cfg, [m.seed for m in members], [list(m.head_seeds) for m in members])
    opt = torch.optim.Adam(model.trainable_parameters(), lr=lr)
    gens = [data_generator(m.data_seed) for m in members]
    ev = tasks.copy_batch(kind, n_eval, length, n_words, _eval_generator(eval_seed), perm)
    ev = tuple(x.expand(len(members), *x.shape) for x in ev)
    rows = []

    def evaluate(step):
        with torch.no_grad():
            logits = model(ev[0], ev[1])
            acc = (logits.argmax(-1) == ev[2]).float().flatten(1).mean(1)
            loss = per_seed_loss(logits, ev[2])
        for i, m in enumerate(members):
            rows.append({"step": step, "member": i, "seed": m.seed, "data_seed": m.data_seed,
                         "token_acc": float(acc[i]), "valid_loss": float(loss[i])})
        if on_eval is not None:
            on_eval(step, model, ev)
        if log is not None:
            print(f"step {step}: mean token acc {acc.mean():.3f}, min {acc.min():.3f}", file=log, flush=True)

    def stack_loss():
        src, tgt_in, tgt_out = tasks.stack([tasks.copy_batch(kind, batch_size, length, n_words, g, perm)
                                            for g in gens])
        return per_seed_loss(model(src, tgt_in), tgt_out).sum()

    _adam_steps(opt, steps, stack_loss, evaluate, _every(eval_every, steps))
    return pd.DataFrame(rows)


def train_keyword(task: dict, model_cfg: ClassifierConfig, seeds: list[int], *, steps: int, eval_every: int,
                  n_eval: int, batch_size: int, lr: float = 1e-3, eval_seed: int = 0, threads: int | None = None,
                  log=None) -> pd.DataFrame:
    """The keyword toy of §6.1 (``task``: length, n_words): train the classifier (usually with uniform attention)
    and record, on held-out positive sequences, γ_{l*}, γ_{l*+1}, γ̄ and γ_L (Eq. 22), one row per seed per
    evaluation (means over the positives), plus accuracy on the whole held-out set."""
    if threads:
        torch.set_num_threads(threads)
    length, n_words = task["length"], task["n_words"]
    model = Classifier(model_cfg, seeds)
    opt = torch.optim.Adam(model.trainable_parameters(), lr=lr)
    gens = [data_generator(s) for s in seeds]
    x, y, pos = tasks.keyword_batch(n_eval, length, n_words, _eval_generator(eval_seed))
    xs = x.expand(len(seeds), *x.shape)
    positive = pos >= 0
    nxt = (pos + 1).clamp(max=length - 1)  # γ_{l*+1}; a keyword in the last position has none, see below
    has_next = positive & (pos + 1 < length)
    rows = []

    def evaluate(step):
        with torch.no_grad():
            logit, cache = model.run_with_cache(xs)
            gamma = cache["gamma"]                                   # [S, B, L]
            acc = ((logit > 0).float() == y).float().mean(1)
            rows_idx = torch.arange(len(y))
        for i, s in enumerate(seeds):
            g = gamma[i]
            rows.append({"step": step, "seed": s, "acc": float(acc[i]),
                         "gamma_key": float(g[rows_idx[positive], pos[positive]].mean()),
                         "gamma_next": float(g[rows_idx[has_next], nxt[has_next]].mean()),
                         "gamma_mean": float(g[positive].mean()),
                         "gamma_last": float(g[positive, -1].mean())})
        if log is not None:
            print(f"step {step}: acc {acc.mean():.3f}", file=log, flush=True)

    def stack_loss():
        xb, yb, _ = tasks.stack([tasks.keyword_batch(batch_size, length, n_words, g) for g in gens])
        return F.binary_cross_entropy_with_logits(model(xb), yb, reduction="none").mean(1).sum()

    _adam_steps(opt, steps, stack_loss, evaluate, _every(eval_every, steps))
    return pd.DataFrame(rows)


def eval_schedule(steps: int) -> list[int]:
    """The paper's classification checkpoints (App. A.8): 0, 10, 50, 100, 150, 200, 250, then every 250."""
    early = [0, 10, 50, 100, 150, 200, 250]
    return sorted({s for s in early if s <= steps} | set(range(250, steps + 1, 250)) | {steps})


def _padded(x: np.ndarray, length: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """Trim right padding to the longest row; returns (ids, mask)."""
    width = int(length.max())
    x = torch.as_tensor(x[..., :width])
    mask = torch.arange(width)[None] < torch.as_tensor(length)[..., None]
    return x, mask


def train_text_classifier(train_set, test_set, model_cfg: ClassifierConfig, seeds: list[int], *, steps: int,
                          batch_size: int, lr: float = 1e-3, threads: int | None = None, log=None,
                          on_eval=None) -> pd.DataFrame:
    """Train the §2.4 classifier on an encoded set (:class:`attnrepro.snell.text.Encoded`), seeds stacked, each
    seed drawing its own batches; evaluate test accuracy at :func:`eval_schedule`. ``on_eval(step, model, (x,
    mask, y))`` sees the test set. Returns one row per seed per evaluation: step, seed, acc, valid_loss."""
    if threads:
        torch.set_num_threads(threads)
    model = Classifier(model_cfg, seeds)
    opt = torch.optim.Adam(model.trainable_parameters(), lr=lr)
    gens = [data_generator(s) for s in seeds]
    tx, tmask = _padded(test_set.x, test_set.length)
    ty = torch.as_tensor(test_set.label)
    n = len(seeds)
    ev = (tx.expand(n, *tx.shape), tmask.expand(n, *tmask.shape), ty.expand(n, *ty.shape))
    schedule = set(eval_schedule(steps))
    rows = []

    def evaluate(step):
        with torch.no_grad():
            logit = model(ev[0], ev[1])
            acc = ((logit > 0).float() == ev[2]).float().mean(1)
            loss = F.binary_cross_entropy_with_logits(logit, ev[2], reduction="none").mean(1)
        rows.extend({"step": step, "seed": s, "acc": float(acc[i]), "valid_loss": float(loss[i])}
                    for i, s in enumerate(seeds))
        if on_eval is not None:
            on_eval(step, model, ev)
        if log is not None:
            print(f"step {step}: test accuracy {acc.mean():.3f}", file=log, flush=True)

    def stack_loss():
        idx = np.stack([torch.randint(0, len(train_set.x), (batch_size,), generator=g).numpy() for g in gens])
        x, mask = _padded(train_set.x[idx], train_set.length[idx])
        y = torch.as_tensor(train_set.label[idx])
        return F.binary_cross_entropy_with_logits(model(x, mask), y, reduction="none").mean(1).sum()

    _adam_steps(opt, steps, stack_loss, evaluate, schedule.__contains__)
    return pd.DataFrame(rows)


def _trim(data, idx) -> tuple[torch.Tensor, ...]:
    """Rows ``idx`` [S,B] of an :class:`attnrepro.data.Encoded` set, right padding cut to the longest row:
    (src, src_mask, tgt_in, tgt_out, tgt_mask), each [S,B,·]."""
    src_len, tgt_len = data.src_len[idx], data.tgt_len[idx]
    ls, lt = int(src_len.max()), int(tgt_len.max())
    src_mask = torch.arange(ls) < src_len[..., None]
    tgt_mask = torch.arange(lt) < tgt_len[..., None]
    return data.src[idx][..., :ls], src_mask, data.tgt_in[idx][..., :lt], data.tgt_out[idx][..., :lt], tgt_mask


def train_translation(train_set, test_set, model_cfg: Seq2SeqConfig, seeds: list[int], *, steps: int,
                      batch_size: int, eval_every: int, lr: float = 1e-3, threads: int | None = None, log=None,
                      on_eval=None) -> pd.DataFrame:
    """Train the seq2seq on a translation set (:class:`attnrepro.data.Encoded` in joint ids,
    :mod:`attnrepro.snell.parallel`), seeds stacked, each seed drawing its own batches (with replacement, as
    :func:`train_text_classifier`) and its loss the mean over its real target tokens. At step 0 and every
    ``eval_every`` steps, teacher-forced token accuracy over the real target tokens (``<eos>`` included) of
    ``test_set``; ``on_eval(step, model, (src, src_mask, tgt_in, tgt_out, tgt_mask))`` sees that set. Returns
    one row per seed per evaluation: step, seed, token_acc, valid_loss."""
    if threads:
        torch.set_num_threads(threads)
    model = Seq2Seq(model_cfg, seeds)
    opt = torch.optim.Adam(model.trainable_parameters(), lr=lr)
    gens = [data_generator(s) for s in seeds]
    n = len(seeds)
    ev = _trim(test_set, torch.arange(len(test_set)).expand(n, -1))
    rows = []

    def evaluate(step):
        src, src_mask, tgt_in, tgt_out, tgt_mask = ev
        with torch.no_grad():
            logits = model(src, tgt_in, src_mask)
            hit = ((logits.argmax(-1) == tgt_out) & tgt_mask).float().flatten(1).sum(1)
            acc = hit / tgt_mask.flatten(1).sum(1)
            loss = per_seed_loss(logits, tgt_out, tgt_mask)
        rows.extend({"step": step, "seed": s, "token_acc": float(acc[i]), "valid_loss": float(loss[i])}
                    for i, s in enumerate(seeds))
        if on_eval is not None:
            on_eval(step, model, ev)
        if log is not None:
            print(f"step {step}: test token accuracy {acc.mean():.3f}", file=log, flush=True)

    def stack_loss():
        idx = torch.stack([torch.randint(0, len(train_set), (batch_size,), generator=g) for g in gens])
        src, src_mask, tgt_in, tgt_out, tgt_mask = _trim(train_set, idx)
        return per_seed_loss(model(src, tgt_in, src_mask), tgt_out, tgt_mask).sum()

    _adam_steps(opt, steps, stack_loss, evaluate, _every(eval_every, steps))
    return pd.DataFrame(rows)
