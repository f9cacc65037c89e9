"""Aitken et al. 2021, Fig. 6a with the comparison §4.2 states beside it: the input-delta components
χ_twice^E + Δh_t^E of the encoder states that read 'twice', coloured by the word before it, for AED (recurrence:
"three separate clusters separated by the preceding word") and AO ("all occurrences of 'twice' are the same
input-delta component cluster regardless of what word preceded it"). Each panel's title carries the η² that the
claim ``escan_aed_twice_context`` reads (:func:`~attnrepro.aitken2021.escan_mechanisms.word_context_ratio`).

A module of its own beside :mod:`.figures` (which is at the size limit); the same conventions: a pure function
from the analysis tables to ``(figure, data)``.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from ..errors import AttnReproError
from .escan_mechanisms import word_context_ratio, word_states

LABELS = {"aed": "AED", "ao": "AO"}


def _vectors(df: pd.DataFrame, prefix: str) -> np.ndarray:
    cols = sorted((c for c in df.columns if c.startswith(prefix) and c[len(prefix):].isdigit()),
                  key=lambda c: int(c[len(prefix):]))
    return df[cols].to_numpy(dtype=float)


def _input_axes(chi: pd.DataFrame, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and first two principal directions of the encoder's input components χ_x^E (the plane of the
    paper's input panels), with their explained-variance ratios."""
    missing = [c for c in ("side", "token") if c not in chi.columns]
    x = _vectors(chi[chi.side == "encoder"], "chi") if not missing else np.empty((0, 0))
    if missing or x.shape[1] == 0:
        raise AttnReproError(f"{what}: missing columns {missing or ['chi0', '...']} (has {list(chi.columns)[:8]})")
    if len(x) < 3:
        raise AttnReproError(f"{what}: {len(x)} encoder input components, too few for two principal components")
    mean = x.mean(0)
    _, sv, vt = np.linalg.svd(x - mean, full_matrices=False)
    return mean, vt[:2], (sv**2)[:2] / (sv**2).sum()


def fig6a(t: dict[str, dict], names: dict[str, str], title: str = "", word: str = "twice"
          ) -> tuple[plt.Figure, pd.DataFrame]:
    """Fig. 6a: per role of ``t`` (``aed``, ``ao``; each ``{"input_delta.parquet": ..., "input.parquet": ...}``
    of one seed), the encoder's input-delta components on the first two principal components of its χ^E, all
    states grey, those reading ``word`` coloured by the preceding word (one colour per word across panels).
    ``names``: role -> experiment, for titles and errors. Data: every coloured point (role, preceding, pc1, pc2)
    and each role's η² by the preceding word (``eta2``, over the full vectors, not the projection)."""
    states, planes = {}, {}
    for role in t:
        what = f"{names[role]}/input_delta.parquet"
        states[role] = word_states(t[role]["input_delta.parquet"], word, what)
        planes[role] = _input_axes(t[role]["input.parquet"], f"{names[role]}/input.parquet")
    preceding = sorted({w for s in states.values() for w in s.preceding})
    colors = sns.color_palette("tab10" if len(preceding) <= 10 else "husl", len(preceding))
    palette = dict(zip(preceding, colors))
    fig, axes = plt.subplots(1, len(t), figsize=(5.2 * len(t), 4.4), squeeze=False)
    rows = []
    for ax, role in zip(axes[0], t):
        delta = t[role]["input_delta.parquet"]
        _, pcs, ratio = planes[role]
        every = _vectors(delta[delta.side == "encoder"], "v") @ pcs.T
        ax.scatter(every[:, 0], every[:, 1], s=3, c="lightgrey", linewidths=0, rasterized=True,
                   label="all input words")
        p = _vectors(states[role], "v") @ pcs.T
        prev = states[role].preceding.to_numpy()
        eta2 = word_context_ratio(states[role])
        for w in preceding:
            sel = prev == w
            if sel.any():
                ax.scatter(p[sel, 0], p[sel, 1], s=10, color=palette[w], label=f"'{word}' after '{w}'")
        ax.set(xlabel=f"input PC1 ({ratio[0]:.0%} var.)", ylabel=f"input PC2 ({ratio[1]:.0%} var.)")
        ax.set_title(f"{LABELS.get(role, role)} ({names[role]}): η² by preceding word = {eta2:.2f}", fontsize=9)
        ax.legend(fontsize=6, markerscale=1.5)
        rows.append(pd.DataFrame({"role": role, "experiment": names[role], "preceding": prev,
                                  "pc1": p[:, 0], "pc2": p[:, 1], "eta2": eta2}))
    fig.suptitle(title or f"Fig. 6a: input-delta components of '{word}' by the preceding word")
    fig.tight_layout()
    return fig, pd.concat(rows, ignore_index=True)
