"""How context enters the states of eSCAN models (Aitken et al. 2021, §4.2): Fig. 6 (AED's 'twice' states by
the preceding word; AO's alignment and its parts around t = s) and Fig. 6a with the comparison §4.2 states beside
it: the input-delta components χ_twice^E + Δh_t^E of the encoder states that read 'twice', coloured by the word
before it, for AED (recurrence: "three separate clusters separated by the preceding word") and AO ("all
occurrences of 'twice' are the same input-delta component cluster regardless of what word preceded it"). Each
Fig. 6a panel's title carries the η² that the claim ``escan_aed_twice_context`` reads
(:func:`~attnrepro.aitken2021.escan_mechanisms.word_context_ratio`). Pure functions from the analysis tables to
``(figure, data)``, as :mod:`.figures`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from ..data.tokens import SPECIALS
from ..errors import AttnReproError
from . import escan_mechanisms
from .escan_mechanisms import word_context_ratio, word_states
from .figures import TASK_COLORS, principal_axes, vectors

LABELS = {"aed": "AED", "ao": "AO"}


def preceding_words(input_delta: pd.DataFrame) -> pd.Series:
    """The input word read one step earlier by the same example (None at t = 0)."""
    enc = input_delta[input_delta.side == "encoder"]
    return pd.Series(escan_mechanisms.preceding_words(enc.example, enc.pos, enc.token), index=enc.index)


def fig6(t: dict, title: str = "", word: str = "twice", words: tuple[str, ...] = ("twice", "and", "left", "run"),
         seed: int = 0):
    """(a) AED: input-delta components of ``word`` coloured by the preceding word, over all encoder states;
    (b) AO: a_st and its parts when ``word`` is at t = s; (c) AO: μ_s^D·(χ^E + Δh^E) at t = s per input word;
    (d) AO: the same against the offset t − s for a few words."""
    fig, axes = plt.subplots(1, 4, figsize=(20, 4.6))
    aed = t["aed"]
    enc = aed["input_delta.parquet"][aed["input_delta.parquet"].side == "encoder"]
    chi = aed["input.parquet"]
    mean, pcs, ratio = principal_axes(vectors(chi[chi.side == "encoder"], "chi"))
    prev = preceding_words(aed["input_delta.parquet"])
    p = vectors(enc, "v") @ pcs.T
    ax = axes[0]
    ax.scatter(p[:, 0], p[:, 1], s=4, c="lightgrey", linewidths=0, label="all words")
    target = (enc.token == word).to_numpy()
    prev_t = prev[target]
    palette = dict(zip(sorted(prev_t.dropna().unique()), sns.color_palette("tab10")))
    for w, color in palette.items():
        sel = target.copy()
        sel[target] = (prev_t == w).to_numpy()
        ax.scatter(p[sel, 0], p[sel, 1], s=10, color=color, label=f"'{word}' after '{w}'")
    ax.set_xlabel(f"input PC1 ({ratio[0]:.0%} var.)")
    ax.set_ylabel(f"input PC2 ({ratio[1]:.0%} var.)")
    ax.set_title(f"(a) AED: '{word}' by preceding word", fontsize=9)
    ax.legend(fontsize=6)
    a_points = pd.DataFrame({"pc1": p[target, 0], "pc2": p[target, 1], "preceding": prev_t.to_numpy()})

    off = t["ao"]["offsets.parquet"]
    by_s = off[(off.by == "s") & (off.word == word)].sort_values("offset")
    ax = axes[1]
    for col, color, label in (("a", "k", "$a_{st}$"), ("mu_mu", "goldenrod", "$\\mu^D_s\\cdot\\mu^E_t$"),
                              ("mu_input", "hotpink", "$\\mu^D_s\\cdot(\\chi^E_x+\\Delta h^E_t)$"),
                              ("rest", "grey", "$a_{st}-\\mu^D_s\\cdot h^E_t$")):
        ax.plot(by_s.offset, by_s[col], marker="o", ms=3, color=color, label=label)
    ax.axvline(0, color="k", lw=0.5, ls=":")
    ax.set_xlabel("t − s")
    ax.set_title(f"(b) AO: alignment with '{word}' at t = s", fontsize=9)
    ax.legend(fontsize=6)
    by_t = off[off.by == "t"]
    at0 = by_t[(by_t.offset == 0) & ~by_t.word.isin(SPECIALS)].sort_values("mu_input")
    axes[2].barh(at0.word, at0.mu_input, color=[TASK_COLORS["escan"] if w not in words else "tab:red" for w in at0.word])
    axes[2].axvline(0, color="k", lw=0.5)
    axes[2].set_xlabel("$\\mu^D_s\\cdot(\\chi^E_x+\\Delta h^E_t)$ at t = s")
    axes[2].set_title("(c) AO: input-delta · temporal, t = s", fontsize=9)
    for w, color in zip(words, sns.color_palette("tab10")):
        one = by_t[by_t.word == w].sort_values("offset")
        axes[3].plot(one.offset, one.mu_input, marker="o", ms=3, color=color, label=w)
    axes[3].axvline(0, color="grey", lw=6, alpha=0.3)
    axes[3].set_xlabel("offset t − s")
    axes[3].set_ylabel("$\\mu^D_s\\cdot(\\chi^E_x+\\Delta h^E_t)$")
    axes[3].set_title("(d) AO: against offset", fontsize=9)
    axes[3].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return fig, pd.concat([a_points.assign(panel="a"), by_s.assign(panel="b"), by_t.assign(panel="cd")],
                          ignore_index=True)



def _input_axes(chi: pd.DataFrame, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and first two principal directions of the encoder's input components χ_x^E (the plane of the
    paper's input panels), with their explained-variance ratios."""
    missing = [c for c in ("side", "token") if c not in chi.columns]
    x = vectors(chi[chi.side == "encoder"], "chi") if not missing else np.empty((0, 0))
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
        every = vectors(delta[delta.side == "encoder"], "v") @ pcs.T
        ax.scatter(every[:, 0], every[:, 1], s=3, c="lightgrey", linewidths=0, rasterized=True,
                   label="all input words")
        p = vectors(states[role], "v") @ pcs.T
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
