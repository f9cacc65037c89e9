"""Every random stream of a run is one function of its seed: :func:`stream_seed`.

A run seed ``s`` (config ``seeds``, ``snell2021.seeds``, … and every other ``seed`` key) feeds several independent
streams — the weight initialisation, the batch order, the dropout masks, the AO positional rotation, a corpus's samples. Stream
``name`` of seed ``s`` is

- ``s`` itself for ``"init"`` (so ``torch.Generator().manual_seed(s)`` draws a run's initial weights), and
- ``SeedSequence([s, STREAMS[name]]).generate_state(1)[0]`` for every other stream (numpy's hash of the pair,
  a 32-bit value independent of the other streams of ``s`` and of every stream of another seed).

Why the bound :data:`MAX_SEED` = 2³² − 1: PyTorch's CPU generator keeps the low 32 bits of its seed, so seeds
0 and 2³² would draw the same weights, and a seed ≥ 2⁶⁴ does not fit its argument at all. The config schema
rejects any seed above it; :func:`check_seed` says so for a seed that reaches the library another way.
Distinct seeds give distinct ``"init"`` streams; the hashed streams of two distinct seeds coincide with
probability 2⁻³² per pair.

Stream numbers are fixed forever (changing one changes every result that uses it); 3 is unused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .errors import AttnReproError

if TYPE_CHECKING:  # torch is imported lazily: the Snakefile imports this module through attnrepro.run.config
    import torch

MAX_SEED = 2**32 - 1

STREAMS = {
    "init": 0,            # weights (the seed itself, see the module docstring)
    "batches": 1,         # the batch order of Aitken/transformer training
    "evaluation": 5,      # a held-out set drawn from a synthetic distribution (Snell et al.'s copy and keyword)
    "heads": 7,           # the seeds of attention heads (Snell et al. §5.2: a head re-drawn on a fixed backbone)
    "rotation_src": 9,    # AO: the random rotation of the source positional code
    "rotation_tgt": 11,   # AO: … of the target positional code
    "corpus_train": 13,   # a corpus's sample of training examples
    "corpus_valid": 15,   # … of validation examples
    "corpus_test": 17,    # … of test examples
    "corpus_heldout": 19,  # … of the held-out set split into validation and test
    "train_sample": 21,   # training pairs whose probes Snell et al.'s Table 7 reads (App. A.4)
    "dropout": 23,        # dropout masks while training (attnrepro.nn.dropout)
}


def check_seed(seed: int, key: str = "seed") -> int:
    """``seed`` as an int in [0, MAX_SEED], else an error naming ``key``."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) <= MAX_SEED:
        raise AttnReproError(f"{key}: {seed!r} is not a seed; seeds are integers from 0 to {MAX_SEED} (2^32 - 1, "
                             f"what PyTorch's CPU generator keeps)")
    return int(seed)


def stream_seeds(seed: int, stream: str, n: int = 1) -> list[int]:
    """``n`` 32-bit seeds of stream ``stream`` of run seed ``seed`` (the K head seeds of a Snell run)."""
    seed = check_seed(seed)
    if stream not in STREAMS:
        raise KeyError(f"unknown random stream {stream!r}; known: {sorted(STREAMS)}")
    if stream == "init":
        if n != 1:
            raise ValueError("the 'init' stream is the seed itself: one value")
        return [seed]
    return [int(x) for x in np.random.SeedSequence([seed, STREAMS[stream]]).generate_state(n)]


def stream_seed(seed: int, stream: str) -> int:
    """The 32-bit seed of stream ``stream`` of run seed ``seed`` (see the module docstring)."""
    return stream_seeds(seed, stream, 1)[0]


def generator(seed: int, stream: str) -> "torch.Generator":
    """A CPU ``torch.Generator`` for stream ``stream`` of run seed ``seed``."""
    import torch

    return torch.Generator().manual_seed(stream_seed(seed, stream))


def rng(seed: int, stream: str) -> np.random.Generator:
    """A numpy ``Generator`` for stream ``stream`` of run seed ``seed``."""
    return np.random.default_rng(stream_seed(seed, stream))
