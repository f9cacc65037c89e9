"""The cross-field checks of ``snell2021.multihead`` (§5.2, Fig. 6), apart from :mod:`.config` to keep it short;
imports nothing heavy (the Snakefile runs it before any job starts)."""

from __future__ import annotations

import math
from typing import Any

from ..errors import AttnReproError


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
