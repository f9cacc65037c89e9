"""Vocabularies and the padded integer tensors the models read.

Layout of one encoded split (M examples):

- ``src``     [M, T_max+1]  source word ids followed by ``<eos>``, right-padded with ``<pad>`` (id 0)
- ``src_len`` [M]           number of real source positions, ``<eos>`` included
- ``tgt_in``  [M, S_max+1]  ``<sos>`` followed by the target words (teacher forcing)
- ``tgt_out`` [M, S_max+1]  the target words followed by ``<eos>``
- ``tgt_len`` [M]           number of real target positions, ``<eos>`` included

Every model of the project reads this one layout (a classifier's label is a one-token target, Snell et al. §2.4),
and a training batch is the same type with a leading member axis, [S, B, ...] (:func:`stack`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Callable, Union

import numpy as np
import pandas as pd
import torch

from .tokens import EOS, PAD, SOS


@dataclass(frozen=True)
class Vocab:
    """Source and target vocabularies; index 0 is always ``<pad>``."""

    src: tuple[str, ...]
    tgt: tuple[str, ...]

    @classmethod
    def from_words(cls, src_words: list[str], tgt_words: list[str]) -> "Vocab":
        return cls(src=(PAD, EOS, *src_words), tgt=(PAD, SOS, EOS, *tgt_words))

    @classmethod
    def from_dict(cls, d: dict) -> "Vocab":
        return cls(src=tuple(d["src"]), tgt=tuple(d["tgt"]))

    def to_dict(self) -> dict:
        return {"src": list(self.src), "tgt": list(self.tgt)}


@dataclass
class Encoded:
    src: torch.Tensor
    src_len: torch.Tensor
    tgt_in: torch.Tensor
    tgt_out: torch.Tensor
    tgt_len: torch.Tensor

    def __len__(self) -> int:
        return self.src.shape[0]

    def subset(self, idx) -> "Encoded":
        return Encoded(*(getattr(self, f)[idx] for f in ("src", "src_len", "tgt_in", "tgt_out", "tgt_len")))

    def to(self, device) -> "Encoded":
        return Encoded(*(getattr(self, f.name).to(device) for f in fields(self)))

    def src_mask(self) -> torch.Tensor:
        """[..., T] bool: True at the real source positions."""
        return torch.arange(self.src.shape[-1], device=self.src.device) < self.src_len[..., None]

    def tgt_mask(self) -> torch.Tensor:
        """[..., S] bool: True at the real target positions (``<eos>`` included)."""
        return torch.arange(self.tgt_out.shape[-1], device=self.tgt_out.device) < self.tgt_len[..., None]


# Where training batches come from: a stored split (rows drawn with replacement) or a distribution sampled on the
# fly, ``distribution(generator, n) -> Encoded`` (Snell et al.'s copy and keyword tasks).
Source = Union[Encoded, Callable[[torch.Generator, int], Encoded]]


def draw(source: Source, gen: torch.Generator, n: int) -> Encoded:
    """``n`` training examples of one member from its batch generator ``gen``."""
    if isinstance(source, Encoded):
        return source.subset(torch.randint(0, len(source), (n,), generator=gen, device=gen.device))
    return source(gen, n)


def stack(parts: list[Encoded]) -> Encoded:
    """Per-member batches -> one batch [S, B, ...], right padding trimmed to the stack's longest sequence."""
    t = max(int(p.src_len.max()) for p in parts)
    s = max(int(p.tgt_len.max()) for p in parts)

    def fit(x: torch.Tensor, width: int) -> torch.Tensor:
        x = x[..., :width]
        return torch.nn.functional.pad(x, (0, width - x.shape[-1]))

    return Encoded(src=torch.stack([fit(p.src, t) for p in parts]), src_len=torch.stack([p.src_len for p in parts]),
                   tgt_in=torch.stack([fit(p.tgt_in, s) for p in parts]),
                   tgt_out=torch.stack([fit(p.tgt_out, s) for p in parts]), tgt_len=torch.stack([p.tgt_len for p in parts]))


def expand(data: Encoded, n: int) -> Encoded:
    """The same rows for each of ``n`` members (a held-out set), padding trimmed: [n, M, ...]."""
    return stack([data] * n)


def encode(df: pd.DataFrame, vocab: Vocab) -> Encoded:
    """Turn a split (columns ``src``, ``tgt``: lists of words) into padded id tensors; unknown words raise."""
    s_index = {w: i for i, w in enumerate(vocab.src)}
    t_index = {w: i for i, w in enumerate(vocab.tgt)}
    m = len(df)
    src_lists = [list(x) for x in df["src"]]
    tgt_lists = [list(x) for x in df["tgt"]]
    t_max = max(len(x) for x in src_lists) + 1
    s_max = max(len(x) for x in tgt_lists) + 1
    src = np.zeros((m, t_max), dtype=np.int64)
    tgt_in = np.zeros((m, s_max), dtype=np.int64)
    tgt_out = np.zeros((m, s_max), dtype=np.int64)
    try:
        for i, (xs, ys) in enumerate(zip(src_lists, tgt_lists)):
            src[i, : len(xs) + 1] = [s_index[w] for w in xs] + [s_index[EOS]]
            tgt_in[i, : len(ys) + 1] = [t_index[SOS]] + [t_index[w] for w in ys]
            tgt_out[i, : len(ys) + 1] = [t_index[w] for w in ys] + [t_index[EOS]]
    except KeyError as err:
        raise ValueError(f"word {err.args[0]!r} of example {i} is not in the vocabulary") from None
    # a set lives on the host: a batch moves to the model's device when it is drawn
    return Encoded(
        src=torch.from_numpy(src),
        src_len=torch.tensor([len(x) + 1 for x in src_lists], device="cpu"),
        tgt_in=torch.from_numpy(tgt_in),
        tgt_out=torch.from_numpy(tgt_out),
        tgt_len=torch.tensor([len(y) + 1 for y in tgt_lists], device="cpu"),
    )


def write_task(splits: dict[str, pd.DataFrame], vocab: dict, out: Path) -> None:
    """A task's splits and ``vocab.json`` in ``out`` (named after the task); each split stamped with the task and
    its vocabulary's fingerprint (:mod:`attnrepro.provenance`), so a reader can tell which file is foreign."""
    import pyarrow as pa

    from ..io import write_json, write_parquet
    from ..provenance import fingerprint, stamp, with_stamp

    mark = stamp("split", task=out.name, vocab=fingerprint(vocab))
    for split, df in splits.items():
        write_parquet(with_stamp(pa.Table.from_pandas(df, preserve_index=False), {**mark, "split": split}),
                      out / f"{split}.parquet")
        print(f"{split}: {len(df)} examples", file=sys.stderr)
    write_json(vocab, out / "vocab.json")
