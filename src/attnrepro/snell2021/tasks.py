"""The synthetic training distributions of Snell et al. 2021, sampled on the fly from per-seed generators.

Copying (§3.3, App. A.3, §6.2): word ids 0..V−1, then ``<eos>`` = V and ``<sos>`` = V+1 (the authors' layout);
src = x + [<eos>], tgt_in = [<sos>] + x, tgt_out = x + [<eos>] (or the permuted x for ``permutation_function``).

- ``permutation``: x is L distinct words drawn uniformly from V (V = L: every input is a permutation of the same
  set, Fig. 3 red; V > L: the control, Fig. 3 blue; the authors' ``no_rep`` sampler).
- ``mixture``: x is a permutation of {0..L−1} or of {L..2L−1}, each with probability ½ (App. A.3); V = 2L.
- ``permutation_function``: x as ``permutation``; the target is f(x) = [x_π(1), …, x_π(L)] for one fixed
  random permutation π (Eq. 26), drawn from ``task_seed``.

Keyword toy (§6.1): x uniform over {1..V}^L, positive iff the keyword 1 occurs, exactly once in a positive. The
paper balances the classes by rejection sampling; sampling the label first and then x from its class
conditional (keyword at a uniform position, the rest uniform over {2..V}) is the same distribution, without waste.
Here word w is id w−1, so the keyword is id 0.

Each distribution is a callable ``(generator, n) -> Encoded`` (:mod:`attnrepro.data.vocab`), the engine's source of
fresh training batches; the keyword toy's label is its one target token (0 = negative, 1 = positive).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..data.vocab import Encoded
from .config import copy_vocab

COPY_KINDS = ("permutation", "mixture", "permutation_function")


def fixed_permutation(length: int, task_seed: int) -> torch.Tensor:
    return torch.randperm(length, generator=torch.Generator().manual_seed(int(task_seed)))


def copy_batch(kind: str, n: int, length: int, n_words: int, gen: torch.Generator,
               perm: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(src, tgt_in, tgt_out), each [n, length+1]."""
    if kind == "mixture":
        x = torch.rand(n, length, generator=gen, device=gen.device).argsort(-1)
        x = x + length * (torch.rand(n, 1, generator=gen, device=gen.device) < 0.5).long()
        vocab = 2 * length
    else:
        if n_words < length:
            raise ValueError(f"n_words ({n_words}) must be at least the length ({length})")
        x = torch.rand(n, n_words, generator=gen, device=gen.device).argsort(-1)[:, :length]
        vocab = n_words
    y = x[:, perm] if kind == "permutation_function" else x
    eos = torch.full((n, 1), vocab, dtype=torch.long, device=x.device)
    sos = torch.full((n, 1), vocab + 1, dtype=torch.long, device=x.device)
    return torch.cat([x, eos], 1), torch.cat([sos, y], 1), torch.cat([y, eos], 1)


def keyword_batch(n: int, length: int, n_words: int, gen: torch.Generator
                  ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(x [n, L], label [n] float, keyword position [n], −1 for negatives)."""
    label = (torch.rand(n, generator=gen, device=gen.device) < 0.5)
    x = 1 + torch.randint(0, n_words - 1, (n, length), generator=gen, device=gen.device)
    pos = torch.randint(0, length, (n,), generator=gen, device=gen.device)
    rows = torch.arange(n, device=x.device)
    x[rows[label], pos[label]] = 0
    return x, label.float(), torch.where(label, pos, torch.full_like(pos, -1))


def keyword_position(src: torch.Tensor) -> torch.Tensor:
    """l* of each keyword-toy input [..., L], −1 for negatives (the keyword is id 0)."""
    hit = src == 0
    return torch.where(hit.any(-1), hit.int().argmax(-1), -1)


def _full(n: int, width: int, device) -> torch.Tensor:
    return torch.full((n,), width, dtype=torch.long, device=device)


@dataclass(frozen=True)
class CopyTask:
    """A copy distribution (``kind``: permutation, mixture, permutation_function) as a batch source."""

    kind: str
    length: int
    n_words: int
    task_seed: int = 0

    def __call__(self, gen: torch.Generator, n: int) -> Encoded:
        perm = fixed_permutation(self.length, self.task_seed) if self.kind == "permutation_function" else None
        src, tgt_in, tgt_out = copy_batch(self.kind, n, self.length, self.n_words, gen, perm)
        return Encoded(src, _full(n, src.shape[1], src.device), tgt_in, tgt_out, _full(n, tgt_out.shape[1], src.device))

    @property
    def vocab(self) -> int:
        return copy_vocab(self.kind, self.length, self.n_words)


@dataclass(frozen=True)
class KeywordTask:
    """The keyword toy of §6.1 as a batch source: src = x, the label the one target token."""

    length: int
    n_words: int

    def __call__(self, gen: torch.Generator, n: int) -> Encoded:
        x, label, _ = keyword_batch(n, self.length, self.n_words, gen)
        zeros = torch.zeros(n, 1, dtype=torch.long, device=x.device)
        return Encoded(x, _full(n, self.length, x.device), zeros, label.long()[:, None], _full(n, 1, x.device))
