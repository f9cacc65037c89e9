"""A prepared translation data set (``results/data/<name>/``: the ``data`` or ``prepare`` rule's train/test
Parquet and ``vocab.json``) as id tensors for the Snell seq2seq, whose one embedding serves both sides.

The authors share one sentencepiece vocabulary and one embedding between source and target; the prepared sets
keep a source and a target vocabulary, so we join them: a word spelt the same on both sides (punctuation, names,
``<unk>``, ``<eos>``) gets one id. Padding stays id 0 on both sides.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..data.vocab import Encoded, Vocab, encode
from ..data.tokens import PAD


def joint_vocab(src: list[str], tgt: list[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(joint words, source id -> joint id, target id -> joint id): the source words in order, then the target
    words the source lacks. Both lists must start with ``<pad>`` (so padding maps to 0)."""
    if src[0] != PAD or tgt[0] != PAD:
        raise ValueError("both vocabularies must start with <pad>")
    words = list(dict.fromkeys([*src, *tgt]))
    index = {w: i for i, w in enumerate(words)}
    return words, np.array([index[w] for w in src]), np.array([index[w] for w in tgt])


def remap(data: Encoded, src_map: np.ndarray, tgt_map: np.ndarray) -> Encoded:
    """``data`` with its source and target ids in the joint vocabulary."""
    import torch

    s, t = torch.as_tensor(src_map, device="cpu"), torch.as_tensor(tgt_map, device="cpu")  # the host's copy of the set
    return Encoded(src=s[data.src], src_len=data.src_len, tgt_in=t[data.tgt_in], tgt_out=t[data.tgt_out],
                   tgt_len=data.tgt_len)


def load(data_dir: Path, splits: tuple[str, ...] = ("train", "test")) -> tuple[dict[str, Encoded], list[str]]:
    """The named splits of a prepared set in joint ids, and the joint words."""
    from ..io import read_json, read_parquet

    data_dir = Path(data_dir)
    vocab = Vocab.from_dict(read_json(data_dir / "vocab.json"))
    words, src_map, tgt_map = joint_vocab(list(vocab.src), list(vocab.tgt))
    out = {}
    for split in splits:
        df = read_parquet(data_dir / f"{split}.parquet", columns=["src", "tgt"])
        if len(df) == 0:
            raise ValueError(f"{data_dir / f'{split}.parquet'}: the split is empty")
        out[split] = remap(encode(df, vocab), src_map, tgt_map)
    return out, words
