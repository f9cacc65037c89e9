"""Accuracy against input length: the fixed-size context bottleneck of encoder-decoders without attention (the
background post, paper 003) measured on the exported greedy decodes, and the decodes' word error rate and BLEU."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..seq2seq.bleu import bleu, source_gain, text
from ..errors import AttnReproError
from ..data.tokens import PAD


def accuracy_by_length(dec: pd.DataFrame, src_len: pd.Series) -> pd.DataFrame:
    """``dec``: one seed's decoder rows (example, target, predicted); ``src_len``: input words per example (without
    ``<eos>``), indexed by example. Columns length, n, token_acc, seq_acc."""
    real = dec[dec.target != PAD]
    correct = (real.predicted == real.target).groupby(real.example)
    per_example = pd.DataFrame({"token_acc": correct.mean(), "seq_acc": correct.all().astype(float)})
    per_example["length"] = src_len.reindex(per_example.index).to_numpy()
    g = per_example.groupby("length")
    out = g[["token_acc", "seq_acc"]].mean()
    out.insert(0, "n", g.size())
    return out.reset_index()


def short_long_gap(by_length: pd.DataFrame) -> float:
    """Token accuracy on the shortest third of the input lengths minus on the longest third, weighted by examples:
    near 0 when length does not matter, large when a fixed-size context runs out of room."""
    lengths = np.sort(by_length.length.unique())
    if len(lengths) < 3:
        return float("nan")
    k = len(lengths) // 3
    def acc(ls):
        sel = by_length[by_length.length.isin(ls)]
        return float((sel.token_acc * sel.n).sum() / sel.n.sum())
    return acc(lengths[:k]) - acc(lengths[-k:])


def sentences(dec: pd.DataFrame) -> tuple[list[str], list[str]]:
    """Greedy translations and their references as the text BLEU reads (:func:`attnrepro.seq2seq.bleu.text`), one per
    example, ordered by example. The translation is the example's whole decode (column ``hypothesis``, see
    :mod:`attnrepro.seq2seq.export`), not its ``predicted`` rows: those stop at the target's length, and words a decode
    emits past it (one that runs long) must count against it."""
    if "hypothesis" not in dec.columns:
        raise AttnReproError("decoder rows have no 'hypothesis' column (the whole greedy decode per example): "
                             "exported before it was added; rerun `attnrepro export`")
    rows = dec.sort_values(["example", "s"])
    if (rows.groupby("example")["hypothesis"].nunique() > 1).any():
        raise AttnReproError("decoder rows: an example's rows disagree on its 'hypothesis'")
    hyps, refs = [], []
    for _, ex in rows.groupby("example", sort=True):
        hyps.append(text(ex["hypothesis"].iloc[0].split(), "hypothesis"))
        refs.append(text(ex["target"], "reference"))
    return hyps, refs


def corpus_bleu(dec: pd.DataFrame) -> float:
    """Corpus BLEU (sacrebleu, 0-100) of one seed's whole greedy decodes (:func:`sentences`) against the test
    targets, beside token accuracy as Snell et al. and Aitken et al. report translation models."""
    return bleu(*sentences(dec))


def corpus_source_gain(dec: pd.DataFrame) -> float:
    """The BLEU one seed's decodes owe to their sources (:func:`attnrepro.seq2seq.bleu.source_gain`): the translation
    gate's measure on the substitute corpus."""
    return source_gain(*sentences(dec))


def edit_distance(hyp: list[str], ref: list[str]) -> int:
    """Levenshtein distance between two word lists (substitutions, insertions, deletions cost 1)."""
    prev = list(range(len(ref) + 1))
    for i, h in enumerate(hyp, 1):
        cur = [i]
        for j, r in enumerate(ref, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (h != r)))
        prev = cur
    return prev[-1]


def word_accuracy(dec: pd.DataFrame) -> float:
    """1 − word error rate of one seed's greedy decodes (Aitken et al. §4's eSCAN accuracy, claim
    ``escan_word_accuracy``): the edit distance of each whole decode to its target (each cut at ``<eos>``, as
    :func:`attnrepro.seq2seq.bleu.text`; :func:`sentences`) summed over examples, over the number of target words. Unlike
    positional accuracy, one inserted or dropped word costs one error, not every word after it; a decode that runs
    past its target's end costs one insertion per extra word."""
    hyps, refs = sentences(dec)
    errors = sum(edit_distance(h.split(), r.split()) for h, r in zip(hyps, refs))
    words = sum(len(r.split()) for r in refs)
    return 1.0 - errors / words if words else float("nan")


def early_late_accuracy(dec: pd.DataFrame) -> dict[str, float]:
    """``early_acc`` / ``late_acc``: token accuracy on the first / last third of each example's output words (by
    relative position s / length), the two sides of the post's trade-off of reading the source reversed."""
    real = dec[dec.target != PAD]
    where = real.s / (real.groupby("example").s.transform("max") + 1)
    correct = (real.predicted == real.target).astype(float)
    early, late = correct[where < 1 / 3], correct[where >= 2 / 3]
    return {"early_acc": float(early.mean()) if len(early) else float("nan"),
            "late_acc": float(late.mean()) if len(late) else float("nan")}


def early_late_gap(dec: pd.DataFrame) -> float:
    """Token accuracy on the first third of each example's output words minus on its last third (by relative
    position s / length): the post's trade-off of reading the source reversed — early words closer to their
    source, easier; later ones farther, harder — shows as a larger gap reversed than forwards."""
    acc = early_late_accuracy(dec)
    return acc["early_acc"] - acc["late_acc"]
