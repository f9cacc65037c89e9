"""The cross-field checks of the ``snell2021:`` config block, what its schema cannot say: the copy task, the
thresholds and seeds, Fig. 6's K-head models (§5.2), App. A.1's ``translation.alpha_opt`` and every run's
training. Imports nothing heavy: the config's edge (:func:`attnrepro.run.config.check`) runs it before any job
starts."""

from __future__ import annotations

import math
from typing import Any

from ..errors import AttnReproError
from .config import COPY_RUNS, EXPORT_AT, runs, train_of


def check(block: dict[str, Any]) -> None:
    """Raise :class:`AttnReproError` on the first inconsistency of ``block``, naming its key."""
    n = block["table2"].get("train_sample", 0)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise AttnReproError(f"snell2021.table2.train_sample: {n!r} is not a number of training pairs (an integer "
                             ">= 0; 0 = off)")
    c = block["copy"]
    if c["subset_words"] <= c["length"]:
        raise AttnReproError(f"snell2021.copy.subset_words ({c['subset_words']}) must exceed copy.length "
                             f"({c['length']}): the control draws L words out of more than L")
    if block["fail_below"] >= block["good_above"]:
        raise AttnReproError(f"snell2021.fail_below ({block['fail_below']}) must be below good_above "
                             f"({block['good_above']})")
    if len(set(block["seeds"])) != len(block["seeds"]):
        raise AttnReproError(f"snell2021.seeds: repeated seed in {block['seeds']}")
    for name in c.get("uniform", []):
        if name not in COPY_RUNS:
            raise AttnReproError(f"snell2021.copy.uniform: unknown run {name!r}; choose from {sorted(COPY_RUNS)}")
    check_multihead(block["multihead"], train_of(block, block["multihead"].get("train")))
    check_alpha_opt(block)
    judge = c.get("judge_step")
    if judge is not None and judge > block["train"]["steps"]:
        raise AttnReproError(f"snell2021.copy.judge_step ({judge}) exceeds snell2021.train.steps "
                             f"({block['train']['steps']})")
    for run, spec in runs(block).items():
        t = spec["train"]
        if t["eval_every"] > t["steps"]:
            raise AttnReproError(f"snell2021 run {run}: eval_every ({t['eval_every']}) exceeds steps ({t['steps']})")
        if spec.get("train_sample", 0) > t["n_eval"]:  # one batch, as the held-out set: the memory estimate's bound
            raise AttnReproError(f"snell2021.table2.train_sample ({spec['train_sample']}) exceeds the n_eval "
                                 f"({t['n_eval']}) of run {run}: its training pairs are evaluated as one batch")
    if (at := block["table2"].get("export_at", "final")) not in EXPORT_AT:
        raise AttnReproError(f"snell2021.table2.export_at: {at!r} is not one of {EXPORT_AT}")
    for where in ("table2.proxy", "classification.proxy", "translation.proxy"):
        head, _, tail = where.partition(".")
        if "n_eval" in block.get(head, {}).get(tail, {}).get("train", {}):
            raise AttnReproError(f"snell2021.{where}.train.n_eval: the proxy's probe is read on its task's held-out "
                                 "set; set n_eval in the task's train block")


def check_multihead(m: dict[str, Any], train: dict[str, Any]) -> None:
    """Distinct heads in every K-head model and a different set for each model of a kind (§5.2, Fig. 6); a
    ``judge_step`` within training with an evaluation at or before it (``train``: the block's training)."""
    k, n = m["heads"], m["n_combos"]
    key = "snell2021.multihead"
    judge = m.get("judge_step")
    if judge is not None:
        if judge > train["steps"]:
            raise AttnReproError(f"{key}.judge_step ({judge}) exceeds its train.steps ({train['steps']})")
        first = min([train["eval_every"], *train.get("eval_at", [])])
        if judge < first:
            raise AttnReproError(f"{key}.judge_step ({judge}) is before the first evaluation (step {first}): no "
                                 "evaluation to judge the heads at")
    if k < 2:
        raise AttnReproError(f"{key}.heads ({k}) must be at least 2")
    if m["bad_below"] >= m["good_above"]:
        raise AttnReproError(f"{key}.bad_below ({m['bad_below']}) must be below good_above ({m['good_above']})")
    if m["n_good"] < 1 or m["n_bad"] < k:
        raise AttnReproError(f"{key}: an all-bad model needs {k} distinct bad heads and a one-good model a good "
                             f"one: n_bad ({m['n_bad']}) >= heads ({k}), n_good ({m['n_good']}) >= 1")
    if math.comb(m["n_bad"], k) < n:
        raise AttnReproError(f"{key}.n_bad ({m['n_bad']}): only {math.comb(m['n_bad'], k)} different sets of {k} "
                             f"bad heads for n_combos ({n}) all-bad models; raise n_bad")
    if math.comb(m["n_bad"], k - 1) < math.ceil(n / m["n_good"]):
        raise AttnReproError(f"{key}.n_bad ({m['n_bad']}): too few sets of {k - 1} bad heads for the one-good models")
    if m["candidates_per_round"] <= k or math.comb(m["candidates_per_round"], k) < n:
        raise AttnReproError(f"{key}.candidates_per_round ({m['candidates_per_round']}) must exceed heads ({k}): the "
                             "random models draw different sets of distinct heads from the candidates")
    if m["candidates_per_round"] * m["max_rounds"] < m["n_good"] + m["n_bad"]:
        raise AttnReproError(f"{key}: {m['max_rounds']} rounds of {m['candidates_per_round']} candidates cannot give "
                             f"n_good + n_bad = {m['n_good'] + m['n_bad']} labelled heads")


def check_alpha_opt(block: dict[str, Any]) -> None:
    """Every set of ``translation.alpha_opt.sets`` is a translation set of the block, with the authors' model."""
    a = block.get("translation", {}).get("alpha_opt")
    if not a:
        return
    t = block["translation"]
    for name in a["sets"]:
        if name not in t["sets"]:
            raise AttnReproError(f"snell2021.translation.alpha_opt.sets: {name!r} is not a set of "
                                 f"snell2021.translation.sets ({sorted(t['sets'])})")
    if t.get("architecture") != "authors":
        raise AttnReproError("snell2021.translation.alpha_opt needs translation.architecture: authors (Eq. 32 "
                             "replaces that model's ReLU read-out)")
