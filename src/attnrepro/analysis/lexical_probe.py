"""Lexical probes of Snell et al. 2021.

- Translation / copying, Eq. 4: β_tl = N([h_l; s_t])_{y_t} needs the model's readout and lives beside it,
  :meth:`attnrepro.snell.seq2seq.Seq2Seq.lexical_probe`; β^uf is the same probe on a model trained with uniform
  attention (§3.2).
- Classification, Eq. 9: β_l = σ((2y − 1) γ_l), γ_l = Wᵀ h_l (Eq. 22), below.
"""

from __future__ import annotations

import numpy as np


def classifier_probe(gamma: np.ndarray, label: np.ndarray) -> np.ndarray:
    """β [N, L] from γ [N, L] and the labels y ∈ {0, 1} [N] (Eq. 9)."""
    sign = 2 * np.asarray(label, dtype=float)[:, None] - 1
    return 1 / (1 + np.exp(-sign * np.asarray(gamma, dtype=float)))
