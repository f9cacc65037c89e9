"""Word alignments from source-target attention and their alignment error rate (Kobayashi et al. 2020, §5).

AER (Och & Ney 2000), over a corpus of sentence pairs with predicted links A, sure gold links S and possible
gold links P ⊇ S:

    AER = 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|)

with each |·| summed over sentences. Links are (source position, target position) pairs, 0-based.

Gold files use the Pharaoh format common to alignment tools: one line per sentence pair, links separated by
spaces; ``i-j`` is a sure link of source word i and target word j, ``ipj`` or ``i-jp`` (``P``) a possible one.

Hard alignments are read off soft ones as in Li et al. (2019), whom the paper follows: each target word is
linked to the source word with the largest score at the decoder step that predicts it. Two soft alignments per
layer (§5): the attention weights averaged over heads (Attention-weights) and the norm of the head-summed
weighted vectors ‖Σ_h α^h_ij f^h(x_j)‖ (Vector-norms).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import torch

from ..errors import AttnReproError
from .norms import vector_norms

Links = set[tuple[int, int]]

_LINK = re.compile(r"^(\d+)([-p?])(\d+)([SsPp]?)$")


def parse_pharaoh_line(line: str, one_based: bool = False) -> tuple[Links, Links]:
    """One line -> (sure, possible) with sure ⊆ possible. ``one_based`` shifts files that count from 1."""
    sure, possible = set(), set()
    shift = 1 if one_based else 0
    for item in line.split():
        m = _LINK.match(item)
        if m is None:
            raise ValueError(f"not an alignment link: {item!r}")
        link = (int(m.group(1)) - shift, int(m.group(3)) - shift)
        if min(link) < 0:
            raise ValueError(f"negative position in {item!r}")
        possible.add(link)
        if m.group(2) == "-" and m.group(4) in ("", "S", "s"):
            sure.add(link)
    return sure, possible


def read_pharaoh(path: str | Path, one_based: bool = False) -> list[tuple[Links, Links]]:
    """A gold alignment file: per line (sure, possible). Errors name the file and line."""
    path = Path(path)
    if not path.exists():
        raise AttnReproError(f"{path}: gold alignment file not found")
    out = []
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        try:
            out.append(parse_pharaoh_line(line, one_based))
        except ValueError as err:
            raise AttnReproError(f"{path}:{n}: {err}") from None
    return out


def format_pharaoh(links: Links) -> str:
    return " ".join(f"{i}-{j}" for i, j in sorted(links))


def aer(predicted: list[Links], sure: list[Links], possible: list[Links]) -> float:
    """Corpus-level alignment error rate; ``possible`` is completed with ``sure`` (P ⊇ S by definition)."""
    if not (len(predicted) == len(sure) == len(possible)):
        raise ValueError(f"{len(predicted)} predicted, {len(sure)} sure and {len(possible)} possible sentences")
    a_s = a_p = n_a = n_s = 0
    for a, s, p in zip(predicted, sure, possible):
        p = p | s
        a_s += len(a & s)
        a_p += len(a & p)
        n_a += len(a)
        n_s += len(s)
    if n_a + n_s == 0:
        raise ValueError("no links at all: AER is undefined")
    return 1.0 - (a_s + a_p) / (n_a + n_s)


def hard_alignment(soft: np.ndarray, src_len: int, tgt_len: int) -> Links:
    """Soft alignment [Q, K] of one sentence pair -> {(argmax_j soft[i, j < src_len], i) : i < tgt_len}."""
    soft = np.asarray(soft)
    best = soft[:tgt_len, :src_len].argmax(axis=1)
    return {(int(j), i) for i, j in enumerate(best)}


def soft_alignments(alpha: torch.Tensor, f: torch.Tensor) -> dict[str, torch.Tensor]:
    """The two head-merged soft alignments of §5 from one layer's α [..., H, Q, K] and f [..., H, K, d]:
    ``weight`` = mean_h α^h_ij, ``norm`` = ‖Σ_h α^h_ij f^h(x_j)‖; both [..., Q, K]."""
    return {"weight": alpha.mean(-3), "norm": vector_norms(alpha, f)["summed_norm"]}


def extract(soft: np.ndarray, src_len: np.ndarray, tgt_len: np.ndarray) -> list[Links]:
    """Hard alignments of a batch: ``soft`` [B, Q, K], lengths [B] (real words only, e.g. without <eos>)."""
    return [hard_alignment(s, int(n), int(m)) for s, n, m in zip(soft, src_len, tgt_len)]


def aer_by_layer(soft: list[dict[str, np.ndarray]], src_len: np.ndarray, tgt_len: np.ndarray,
                 sure: list[Links], possible: list[Links]) -> "pd.DataFrame":
    """AER of every layer and extraction method: ``soft[l][method]`` [B, Q, K] for one seed, lengths in words.
    Returns columns layer (1-based), method, aer."""
    import pandas as pd

    rows = []
    for layer, methods in enumerate(soft, start=1):
        for method, scores in methods.items():
            rows.append({"layer": layer, "method": method,
                         "aer": aer(extract(scores, src_len, tgt_len), sure, possible)})
    return pd.DataFrame(rows)


def best_and_mean(per_layer: "pd.DataFrame") -> dict[str, float]:
    """Table 3's numbers for one seed: each method's AER in its best layer and averaged over layers; how much
    lower the norm-based AER is than the weight-based one in the best layers (``aer_best_gain``) and on average
    over layers (``aer_mean_gain``), > 0 where norms align better; and, with several layers, how much larger that
    gain is in the lowest layer than the mean gain of the layers above it (Fig. 7, ``aer_lowest_layer_extra_gain``)."""
    g = per_layer.groupby("method").aer
    best, mean = g.min(), g.mean()
    out = {f"aer_{m}_best": float(best[m]) for m in best.index}
    out.update({f"aer_{m}_mean": float(mean[m]) for m in mean.index})
    if {"weight", "norm"} <= set(best.index):
        out["aer_best_gain"] = float(best["weight"] - best["norm"])
        out["aer_mean_gain"] = float(mean["weight"] - mean["norm"])
        gain = per_layer.pivot(index="layer", columns="method", values="aer").sort_index()
        gain = gain["weight"] - gain["norm"]
        if len(gain) > 1:
            out["aer_lowest_layer_extra_gain"] = float(gain.iloc[0] - gain.iloc[1:].mean())
    return out
