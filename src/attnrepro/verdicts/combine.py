"""One verdict per paper claim: a sentence's rows (its experiments, "in both the AED and AO networks", "across all
tasks") combined as the sentence says, over the rows that were tested, with the error controlled over the rows.

*all* (``combine``): *not reproduced* if some row is refuted after Holm's step-down over the tested rows (its
one-sided p-value for "the claim holds on this row", :func:`attnrepro.verdicts.evidence.p_values`, at α/2 with α = 1 −
confidence); *reproduced* if every tested row is (an intersection–union test: each row at α/2, no correction
needed). *any* ("some"): the mirror — *reproduced* if some row is after Holm, *not reproduced* if every tested row is.
Otherwise undecided: *undecidable at this n* where no outcome of the rows' replicates could decide the claim either
way (Holm's first step, p ≤ α/2m, out of reach of every row's least p-value, and the other way blocked by a row that
cannot reach it), else *inconclusive*. With one row Holm is that row's own verdict.

A claim some of whose rows are *not tested* (a model below its gate) reads as what was tested: its verdict is the
tested rows', ``scope`` says on which and which were not ("reproduced on snell2021_cls_rotten_tomatoes;
snell2021_cls_parlspeech not tested"); it is *not tested* only when no row is. ``held_by`` and ``why`` say what keeps
an undecided claim open: the model gate, too few replicates (seeds), a threshold this n can cross in one direction
only (threshold direction), Holm's correction, or an interval that spans the threshold.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .claims import PAPER_SETUP
from .intervals import (BOTH_WAYS, INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTED, ONLY_NOT_REPRODUCED, ONLY_REPRODUCED,
                        REPRODUCED, UNDECIDABLE)

BY_CLAIM_COLUMNS = ["paper", "group", "origin", "section", "quote", "combine", "rows", "experiments", "tested_on",
                    "setup", "verdict", "scope", "not_tested_on", "claimed_side", "independent", "held_by", "why",
                    "figure", "row_verdicts"]
SETUPS = ("paper setup", "substitutes", "not tested")
HELD_BY = ("gate", "seeds", "threshold direction", "Holm", "interval")
_REACH = {REPRODUCED: (BOTH_WAYS, ONLY_REPRODUCED), NOT_REPRODUCED: (BOTH_WAYS, ONLY_NOT_REPRODUCED)}
_P = {REPRODUCED: ("p_reproduced", "least_p_reproduced"), NOT_REPRODUCED: ("p_not_reproduced",
                                                                          "least_p_not_reproduced")}


def holm(p: np.ndarray, alpha: float) -> np.ndarray:
    """Holm's step-down over the hypotheses of p-values ``p`` at familywise level ``alpha``: which are rejected
    (a NaN p-value never is)."""
    p = np.asarray(p, dtype=float)
    m = len(p)
    rejected = np.zeros(m, dtype=bool)
    for i, j in enumerate(np.argsort(np.where(np.isnan(p), np.inf, p), kind="stable")):
        if not p[j] <= alpha / (m - i):
            break
        rejected[j] = True
    return rejected


def _some(rows: pd.DataFrame, way: str, alpha: float) -> np.ndarray:
    """Which rows decide ``way`` for the claim after Holm over all of them (a row must also decide it alone)."""
    alone = (rows.verdict == way).to_numpy()
    return alone if len(rows) == 1 else alone & holm(rows[_P[way][0]].to_numpy(dtype=float), alpha)


def _some_reachable(rows: pd.DataFrame, way: str, alpha: float) -> bool:
    """Whether some outcome of the rows' replicates could make one row decide ``way`` after Holm."""
    can = rows.can_decide.isin(_REACH[way]).to_numpy()
    if len(rows) > 1:
        can = can & (rows[_P[way][1]].to_numpy(dtype=float) <= alpha / len(rows))
    return bool(can.any())


def _row_held(r) -> tuple[str, str]:
    """(held_by, why) of one row that keeps its claim open."""
    note = r.note if _text(r.note) else ""
    if r.verdict == NOT_TESTED:
        return "gate", r.model_check
    if r.verdict == UNDECIDABLE:
        return "seeds", note
    if r.can_decide in (ONLY_REPRODUCED, ONLY_NOT_REPRODUCED):
        return "threshold direction", note
    return "interval", note + (f" ({r.claimed_side} on the claimed side)" if _text(r.claimed_side) else "")


def _text(x) -> bool:
    return isinstance(x, str) and bool(x)


def _labels(g: pd.DataFrame) -> pd.Series:
    """How the claim's words name each row: its experiment, or "claim (experiment)" where the group joins several
    claims' rows."""
    if g.claim_id.nunique() == 1:
        return g.experiment
    return g.claim_id + " (" + g.experiment + ")"


def _why(g: pd.DataFrame, blocking: pd.DataFrame, holm_blocked: pd.DataFrame, way: str, alpha: float,
         ) -> tuple[str, str]:
    """``held_by`` (the causes, in :data:`HELD_BY`'s order) and ``why`` (per row, identical reasons joined)."""
    held, reasons = set(), {}
    for r in blocking.itertuples():
        cause, text = _row_held(r)
        held.add(cause)
        reasons.setdefault(text, []).append(r.label)
    m = len(g)
    for r in holm_blocked.itertuples():
        held.add("Holm")
        p = getattr(r, _P[way][0])
        reasons.setdefault(f"{way} alone (p = {p:.3g}), not after Holm over {m} rows (needs p ≤ {alpha / m:.3g})",
                           []).append(r.label)
    why = "; ".join(f"{', '.join(names)}: {text}" if text else ", ".join(names) for text, names in reasons.items())
    return ", ".join(h for h in HELD_BY if h in held), why


def _combine(tested: pd.DataFrame, combine: str, alpha: float):
    """(verdict, the rows it rests on, the rows that keep it open, the rows Holm held back, the way Holm tests)."""
    empty = tested.iloc[:0]
    if tested.empty:
        return NOT_TESTED, empty, empty, empty, NOT_REPRODUCED
    # "all": one refuted row refutes, every row must reproduce; "any": the mirror
    some, every = (NOT_REPRODUCED, REPRODUCED) if combine == "all" else (REPRODUCED, NOT_REPRODUCED)
    hits = _some(tested, some, alpha)
    if hits.any():
        return some, tested[hits], empty, empty, some
    if (tested.verdict == every).all():
        return every, tested, empty, empty, some
    held_back = tested[tested.verdict == some]
    blocking = tested[~tested.verdict.isin([some, every])]
    can_every = tested.can_decide.isin(_REACH[every]).all()
    verdict_ = INCONCLUSIVE if can_every or _some_reachable(tested, some, alpha) else UNDECIDABLE
    return verdict_, tested, blocking, held_back, some


def by_claim(table: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """One row per paper claim (``group``) of the rows table (module docstring). ``setup``: "not tested" (no row
    tested), "substitutes" (some tested row is not on the paper's setup) or "paper setup"; ``claimed_side``: the
    counts of the rows a decided verdict rests on; ``independent``: whether all of those rows' replicates are."""
    alpha = (1 - confidence) / 2
    rows = []
    for (paper, group), g in table.groupby(["paper", "group"], sort=False):
        g = g.assign(label=_labels(g))
        tested = g[g.verdict != NOT_TESTED]
        untested = g[g.verdict == NOT_TESTED]
        verdict_, basis, blocking, held_back, way = _combine(tested, g["combine"].iloc[0], alpha)
        if verdict_ == NOT_TESTED:
            held_by, why = _why(g, untested, untested.iloc[:0], way, alpha)
        elif verdict_ in (REPRODUCED, NOT_REPRODUCED):
            held_by, why = "", ""
        else:
            held_by, why = _why(tested, blocking, held_back, way, alpha)
        where = sorted(set(tested.tested_on))
        setup = "not tested" if tested.empty else "paper setup" if where == [PAPER_SETUP] else "substitutes"
        scope = verdict_
        if len(untested) and len(tested):
            scope = (f"{verdict_} on {', '.join(dict.fromkeys(tested.label))}; "
                     f"{', '.join(dict.fromkeys(untested.label))} not tested")
        decided = verdict_ in (REPRODUCED, NOT_REPRODUCED)
        sides = [s for s in dict.fromkeys(basis.claimed_side) if _text(s)] if decided else []
        figures = [f for f in dict.fromkeys(g.figure) if _text(f)]
        rows.append({
            "paper": paper, "group": group, "origin": g.origin.iloc[0], "section": g.section.iloc[0],
            "quote": g.quote.iloc[0], "combine": g["combine"].iloc[0], "rows": len(g),
            "experiments": ", ".join(sorted(set(g.experiment))), "tested_on": "; ".join(sorted(set(g.tested_on))),
            "setup": setup, "verdict": verdict_, "scope": scope,
            "not_tested_on": ", ".join(dict.fromkeys(untested.label)), "claimed_side": ", ".join(sides),
            "independent": bool((basis if decided else tested).independent.astype(bool).all()) if len(tested)
            else math.nan,
            "held_by": held_by, "why": why, "figure": "; ".join(figures),
            "row_verdicts": "; ".join(f"{r.claim_id}@{r.experiment}: {r.verdict}" for r in g.itertuples())})
    return pd.DataFrame(rows, columns=BY_CLAIM_COLUMNS)
