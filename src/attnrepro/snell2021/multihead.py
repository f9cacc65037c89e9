"""Fig. 6 of Snell et al. 2021 (§5.2): rejection-sampled head initialisations and the K-head models built of them.

The paper calls a head initialisation W^(k)_init *good* if training with this single head converges, *bad*
otherwise, finds good and bad ones by rejection sampling, and trains 8-head models (Eq. 20–21, contexts summed)
whose heads are (1) all bad, (2) one good and seven bad, (3) drawn independently at random. We follow it and the
authors' ``multihead.py`` (their labelling rule: good = token accuracy above 0.95 at some evaluation of every trial,
bad = below 0.6 at the last evaluation of every trial; each head tried with ``trials`` data orders; labels must
agree; ``judge_step`` reads "the last evaluation" as the last at or before it, the authors' being after 190 updates)
on one backbone initialisation (``backbone_seed``) kept for every candidate and every K-head model:

- :func:`candidates`: candidate heads are tried in rounds of ``candidates_per_round`` (all trials of a round train
  stacked, one run of the engine each, members frozen if they diverge) until ``n_good`` good and ``n_bad`` bad
  heads are found; a round's outcome is one row per candidate and trial.
- :func:`draw_heads`: each K-head model draws its heads *without replacement*, and the models of one kind draw
  *different* sets (:func:`distinct_sets`): all-bad models K of the bad heads, one-good models one good head (the
  good heads taken in turn) and K−1 bad ones, random models K of every candidate tried (a pool larger than K, the
  authors' "8 from a pool of 30 random"), whatever their label.

A label is earned in a 1-head model, but a K-head model sums K contexts (Eq. 21), so it need not transfer: each
K-head model records, per head, how often that head's attention peaks on the copied word
(:func:`attnrepro.snell2021.probes.head_alignment`), and the analysis reports whether the good head is the one that
learned to copy, beside the good head's own 1-head accuracy from the candidates table.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import AttnReproError
from ..seeding import stream_seeds
from .config import COMBOS
from .runs import train as train_run

CANDIDATE_COLUMNS = ["round", "candidate", "head_seed", "trial", "data_seed", "max_acc", "final_acc", "diverged",
                     "label"]


def candidate_heads(backbone_seed: int, n: int) -> list[int]:
    """The candidate head seeds: one stream, independent of the backbone's own head seeds."""
    return stream_seeds(1_000_000 + int(backbone_seed), "heads", n)


def trial_seed(trial: int) -> int:
    """The data seed of trial ``trial``, the same for every candidate (only the head differs between them)."""
    return 1000 * (trial + 1)


def round_members(backbone_seed: int, heads: list[int], trials: int) -> list[list]:
    """A candidates round's stacked members: every candidate head in every trial, candidate-major."""
    return [[backbone_seed, trial_seed(t), [h]] for h in heads for t in range(trials)]


def khead_members(backbone_seed: int, sets: list[list[int]]) -> list[list]:
    """A K-head job's stacked members, one per head set; model i of every kind reads the same data order, so the
    kinds differ only in their heads."""
    return [[backbone_seed, 500_000 + i, hs] for i, hs in enumerate(sets)]


def judged(curves: pd.DataFrame, judge_step: int | None) -> pd.DataFrame:
    """The evaluations the labels read: those at or before ``judge_step`` (None: all). The authors' multihead.py
    evaluates before the update at steps 0, 10, ..., 190 of its 200, so its last reading is after 190 updates;
    our engine also evaluates after the last update, which they never see."""
    return curves if judge_step is None else curves[curves.step <= judge_step]


def label(curves: pd.DataFrame, good_above: float, bad_below: float, judge_step: int | None = None) -> str:
    """The authors' rule on one candidate's trials (``metrics`` rows): good, bad, diverged or unclear; with
    ``judge_step``, only the evaluations at or before it count (:func:`judged`)."""
    curves = judged(curves, judge_step)
    if curves.diverged.any():
        return "diverged"
    best = curves.groupby("member").token_acc.max()
    final = curves[curves.step == curves.step.max()].set_index("member").token_acc
    if (best >= good_above).all():
        return "good"
    return "bad" if (final < bad_below).all() else "unclear"


def candidates(spec: dict, ckpt_dir, *, name: str, log=sys.stderr, device="cpu") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rejection sampling (``spec``: a 1-head seq2seq run without members, plus ``multihead``); returns (metrics of
    every round, one row per candidate and trial with its head's label)."""
    m = spec["multihead"]
    per, trials = m["candidates_per_round"], m["trials"]
    heads = candidate_heads(m["backbone_seed"], per * m["max_rounds"])
    metrics, outcome = [], []
    for rnd in range(m["max_rounds"]):
        found = pd.DataFrame(outcome, columns=CANDIDATE_COLUMNS).drop_duplicates("candidate").label.value_counts()
        if found.get("good", 0) >= m["n_good"] and found.get("bad", 0) >= m["n_bad"]:
            break
        cands = heads[rnd * per : (rnd + 1) * per]
        result, _ = train_run({**spec, "members": round_members(m["backbone_seed"], cands, trials)}, Path(ckpt_dir) / f"round_{rnd}", name=f"{name} round {rnd}",
                              log=log, device=device)
        curves = result.metrics.assign(round=rnd)
        metrics.append(curves)
        read = judged(curves, m.get("judge_step"))  # max_acc and final_acc as the label reads them
        last = read.step.max()
        for j, h in enumerate(cands):
            c = read[read.member.isin(range(j * trials, (j + 1) * trials))]
            verdict = label(c, m["good_above"], m["bad_below"])
            for t in range(trials):
                ct = c[c.member == j * trials + t]
                outcome.append({"round": rnd, "candidate": rnd * per + j, "head_seed": h, "trial": t,
                                "data_seed": trial_seed(t), "max_acc": ct.token_acc.max(),
                                "final_acc": ct[ct.step == last].token_acc.iloc[0],
                                "diverged": bool(ct.diverged.any()), "label": verdict})
        counts = pd.DataFrame(outcome).drop_duplicates("candidate").label.value_counts().to_dict()
        print(f"{name}: after round {rnd}, {counts}", file=log, flush=True)
    table = pd.DataFrame(outcome, columns=CANDIDATE_COLUMNS)
    found = table.drop_duplicates("candidate").label.value_counts()
    if found.get("good", 0) < m["n_good"] or found.get("bad", 0) < m["n_bad"]:
        raise AttnReproError(
            f"{name}: {found.get('good', 0)} good and {found.get('bad', 0)} bad heads in {m['max_rounds']} rounds of "
            f"{per} candidates; snell2021.multihead asks for n_good {m['n_good']} and n_bad {m['n_bad']}: raise "
            "max_rounds or candidates_per_round")
    return pd.concat(metrics, ignore_index=True), table


def distinct_sets(rng: np.random.Generator, pool: list[int], k: int, n: int, fixed: list[int] | None = None
                  ) -> list[list[int]]:
    """``n`` different sets of ``k`` distinct heads of ``pool`` (each set in drawing order); ``fixed[i]`` (if
    given) is the first head of set i and the other k−1 come from ``pool``."""
    extra = k - (fixed is not None)
    per_first = max(pd.Series(fixed).value_counts()) if fixed else n   # sets that share their first head
    if len(pool) < extra or math.comb(len(pool), extra) < per_first:
        raise AttnReproError(f"{n} different sets of {k} distinct heads cannot be drawn from {len(pool)} heads")
    sets, seen = [], set()
    while len(sets) < n:
        head = [] if fixed is None else [fixed[len(sets)]]
        chosen = head + [int(h) for h in rng.choice(pool, extra, replace=False)]
        key = frozenset(chosen)
        if key not in seen:  # Eq. 21 sums the heads: a set, not an ordering, is what makes a model
            seen.add(key)
            sets.append(chosen)
    return sets


def draw_heads(table: pd.DataFrame, kind: str, heads: int, n: int, sampling_seed: int) -> list[list[int]]:
    """The head seeds of the ``n`` K-head models of ``kind`` from the candidates ``table``."""
    labels = table.drop_duplicates("candidate").set_index("head_seed").label
    rng = np.random.default_rng([int(sampling_seed), COMBOS.index(kind)])
    good, bad = list(labels[labels == "good"].index), list(labels[labels == "bad"].index)
    if kind == "all_bad":
        return distinct_sets(rng, bad, heads, n)
    if kind == "one_good":
        if not good:
            raise AttnReproError("no good head was found: one_good models cannot be built")
        order = [int(h) for h in rng.permutation(good)]
        return distinct_sets(rng, bad, heads, n, fixed=[order[i % len(order)] for i in range(n)])
    return distinct_sets(rng, list(labels.index), heads, n)
