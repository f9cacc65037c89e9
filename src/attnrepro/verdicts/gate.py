"""The model gate, per replicate: a row's claim is read on the seeds whose model learnt its task.

Each trained replicate's model is judged on its own (:class:`ModelCheck`: its ``measure`` on the test split at or
above ``threshold``), never on the mean over seeds, which lets one good seed carry a failed one or one failed seed
sink good ones. A row then reads the seeds that passed and says how many failed; it is *not tested* only when seeds
failed and fewer pass than the deciding minimum (the smallest n at which any outcome decides the row,
:func:`attnrepro.verdicts.intervals.decides_from`). A replicate whose gate measure is missing is left out as
unmeasured; an experiment whose table has no gate measure at all is not gated (the column says so).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class ModelCheck:
    """The level each replicate's model must reach before its values test a claim: ``measure`` (a column of its
    summary) ≥ ``threshold``; ``source``: "paper" (the paper prints that level) or "stated" (the project's gate
    for a model that learnt its task)."""

    measure: str
    threshold: float
    source: str = "stated"

    def passed(self, df: pd.DataFrame) -> pd.Series | None:
        """Per replicate (row of ``df``), whether its model passed; None where the measure is not in the table."""
        if self.measure not in df.columns or df[self.measure].isna().all():
            return None
        return df[self.measure].astype(float).ge(self.threshold) & df[self.measure].notna()


# The Bible verses stand in for every paper's translation corpus at a 500-word vocabulary: a model that learnt
# them still scores low BLEU (23% of the test words are <unk>, which counts as a miss), so BLEU 10 asks for more than
# the substitute can give. Its gate asks instead that the model translates, i.e. that its output depends on its
# source: the BLEU its source earns (attnrepro.seq2seq.bleu.source_gain, its BLEU minus the best of 19 scorings
# against other verses' references: above 0 is a permutation test at p = 0.05) is at least one BLEU point, a margin
# clear of what untrained models read on it (docs/deviations.md, Aitken "translation corpus and its gate")
TRANSLATES = ModelCheck("bleu_source_gain", 1.0)


@dataclass(frozen=True)
class Gate:
    """One experiment's gate over its replicates: the ``kept`` mask (None: not gated) and the words for the row."""

    kept: pd.Series | None
    note: str

    @property
    def failed(self) -> int:
        return 0 if self.kept is None else int((~self.kept).sum())


def _values(x: pd.Series) -> str:
    shown = ", ".join(f"{v:.3g}" if not np.isnan(v) else "unmeasured" for v in sorted(x.astype(float))[:4])
    return shown + (", …" if len(x) > 4 else "")


def gate(check: ModelCheck | None, df: pd.DataFrame, unit: str) -> Gate:
    """The experiment's gate: which replicates pass ``check`` and what the model_check column says of them."""
    if check is None:
        return Gate(None, "none")
    kept = check.passed(df)
    if kept is None:
        return Gate(None, f"not measured ({check.measure} absent)")
    n, k = len(kept), int(kept.sum())
    level = f"{check.measure} ≥ {check.threshold:g}"
    if k == n:
        return Gate(kept, f"passed: {level} on all {n} {unit}s (lowest {df[check.measure].min():.3g}; "
                          f"{check.source})")
    return Gate(kept, f"{level} on {k} of {n} {unit}s ({check.source}); below it: "
                      f"{_values(df.loc[~kept, check.measure])}")


def verdict_note(gates: list[tuple[str, Gate]], tested: bool, need: float, kept: int) -> str:
    """The model_check column of a row resting on ``gates`` (experiment, gate): "passed…" where every replicate
    passed, "passed on k…" where some were left out, "failed…" where too few passed to decide."""
    notes = [g.note if len(gates) == 1 else f"{name} {g.note}" for name, g in gates if g.note != "none"]
    text = "; ".join(notes) or "none"
    failed = sum(g.failed for _, g in gates)
    if not failed:
        return text
    if tested:
        return f"passed on the {kept} replicates kept, {failed} left out: {text}"
    need_text = f"fewer than the {need:g} that can decide" if need == need else "too few to decide"
    return f"failed: {text}; {kept} kept, {need_text}"
