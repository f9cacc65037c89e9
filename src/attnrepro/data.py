"""Vocabularies and the padded integer tensors the models read.

Layout of one encoded split (M examples):

- ``src``     [M, T_max+1]  source word ids followed by ``<eos>``, right-padded with ``<pad>`` (id 0)
- ``src_len`` [M]           number of real source positions, ``<eos>`` included
- ``tgt_in``  [M, S_max+1]  ``<sos>`` followed by the target words (teacher forcing)
- ``tgt_out`` [M, S_max+1]  the target words followed by ``<eos>``
- ``tgt_len`` [M]           number of real target positions, ``<eos>`` included
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

PAD, SOS, EOS = "<pad>", "<sos>", "<eos>"


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
    return Encoded(
        src=torch.from_numpy(src),
        src_len=torch.tensor([len(x) + 1 for x in src_lists]),
        tgt_in=torch.from_numpy(tgt_in),
        tgt_out=torch.from_numpy(tgt_out),
        tgt_len=torch.tensor([len(y) + 1 for y in tgt_lists]),
    )
