"""Every random stream of a run as a function of one integer seed and the stream's name.

A model's weights are drawn from ``torch.Generator().manual_seed(seed)`` (:func:`attnrepro.stacked.init_stacked`);
everything else a run draws comes from :func:`generator`, whose state is ``SeedSequence([seed, STREAMS[name]])``
(NumPy's hash of the pair), so two streams of one seed, or one stream of two seeds, never coincide:

- ``batches``: the order of a run's training batches (its *data seed*, Snell et al.'s "data order");
- ``evaluation``: a held-out set drawn from a synthetic distribution (Snell et al.'s copy and keyword tasks);
- ``heads``: the initialisation seeds of attention heads (Snell et al. §5.2: a head is re-drawn on a fixed backbone).
"""

from __future__ import annotations

import numpy as np

STREAMS = {"batches": 1, "evaluation": 5, "heads": 7}


def states(seed: int, stream: str, n: int = 1) -> list[int]:
    """``n`` 32-bit integers of stream ``stream`` of ``seed``."""
    return [int(x) for x in np.random.SeedSequence([int(seed), STREAMS[stream]]).generate_state(n)]


def generator(seed: int, stream: str):
    """A CPU ``torch.Generator`` seeded from stream ``stream`` of ``seed``."""
    import torch  # not at import time: the Snakefile reads the head seeds of the config through this module

    return torch.Generator().manual_seed(states(seed, stream)[0])
