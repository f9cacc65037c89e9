"""The claims table: each quantitative statement of a paper, measured over replicates, with an interval and a verdict.

A :class:`Claim` quotes the sentence of the paper it tests (``section``, ``quote``), says how we read it
(``reading``: the measure, a column of an experiment's per-replicate ``summary.csv``, and the threshold), the kind
of that measure (:mod:`attnrepro.verdicts.intervals`: a 0/1 ``proportion`` or a ``continuous`` value per replicate) and
the experiments it applies to (task kind and architecture). ``origin`` tells the papers' own claims from the
project's extensions (the same analysis on a task the paper did not use); the summary line counts the papers'
claims only. :func:`summarize` gives one row per (claim, experiment); each paper's claims live in its wing
(``attnrepro.<paper>.claims``), gathered in :data:`attnrepro.verdicts.papers.CLAIMS`.

Beside the interval and verdict a row says what it rests on: ``model_check`` (each replicate's model against a
:class:`~attnrepro.verdicts.gate.ModelCheck`: the row reads the replicates that passed, ``gated_out`` counts the
others, and it is *not tested* only when too few pass to decide), ``tested_on`` (the paper's setup, or what was
substituted for it), ``samples`` and ``independent`` (what a replicate is, and whether the replicates share a model,
a pool or a run), ``claimed_side`` ("7 of 8" replicates in the claimed region) and ``swing`` (the fewest
replicates that, falling the other way, would move the verdict), ``can_decide`` and ``both_ways_from`` (which
verdicts this n can reach; the smallest n that can go either way), the one-sided p-values the verdict is the dual of
(:mod:`attnrepro.verdicts.evidence`; Holm reads them where a claim joins rows, :mod:`attnrepro.verdicts.combine`),
``note`` (why an undecided row is undecided, in words) and ``diverged`` (runs whose loss went non-finite, counted
as outcomes the claim names in ``diverged_value``). An equivalence margin (``threshold_from`` "margin") states its
width and reason (``margin``) and lies inside the measure's range (:func:`equivalence`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..errors import AttnReproError
from . import evidence
from .descriptive import mean_interval
from .gate import TRANSLATES, Gate, ModelCheck, gate, verdict_note  # noqa: F401  (the wings declare their gates here)
from .intervals import (KINDS, NOT_TESTED, UNIT, Rule, can_decide, decides_from, interval, size_vs_reference,
                        verdict)

COLUMNS = ["paper", "claim_id", "group", "combine", "origin", "section", "quote", "reading", "experiment", "measure",
           "kind", "range", "rule", "threshold_from", "margin", "reference_value", "statistic", "measured_mean",
           "ci_low", "ci_high", "interval", "n", "unit", "samples", "independent", "diverged", "model_check",
           "gated_out", "tested_on", "verdict", "note", "claimed_side", "swing", "can_decide", "both_ways_from",
           "p_reproduced", "p_not_reproduced", "least_p_reproduced", "least_p_not_reproduced", "size_vs_paper",
           "original", "figure"]
STATISTIC = {"continuous": "median", "proportion": "rate", "fisher": "odds ratio"}
THRESHOLD_FROM = ("stated", "paper", "margin")  # a reading of words; the paper's printed number; a margin around it
COMBINE = ("all", "any")                        # a claim's rows: "both", "all tasks" / "some"
PAPER_SETUP = "paper"

PAPERS = {
    "aitken2021": "Aitken et al. 2021, Understanding How Encoder-Decoder Architectures Attend",
    "snell2021": "Snell et al. 2021, Approximating How Single Head Attention Learns",
    "kobayashi2020": "Kobayashi et al. 2020, Attention Module is Not Only a Weight",
    "blog003": "Background post on the attention mechanism",
}
ORIGINS = ("paper", "extension")
VARIANT_ATTENTIONS = ("qkv",)  # Aitken footnote 1's learned attention, tested only by the claims that name it


@dataclass(frozen=True)
class Claim:
    paper: str
    claim_id: str
    section: str                   # where the paper says it: "§3, Fig. 2h"
    quote: str                     # the paper's own words
    reading: str                   # how the measure and threshold read those words
    measure: str                   # column of summary.csv, one value per replicate
    kind: str                      # "proportion" (0/1 per replicate) or "continuous"
    direction: str                 # ">", "<" or "between"
    threshold: float | tuple[float, float]
    task_kinds: tuple[str, ...]    # experiments this claim is tested on
    archs: tuple[str, ...]
    origin: str = "paper"          # or "extension": the project's own check, not the paper's claim
    reference_value: float | None = None  # the paper's own number, where it prints one
    figure: str = ""               # the figure that shows it, relative to results/
    # (task kind, arch) of a comparison experiment: the claim is then about the per-replicate difference
    # measure(this) − measure(that), paired by seed
    versus: tuple[str, str] | None = None
    # the measure's range; declared by every continuous claim (proportions: [0, 1]; fisher: odds ratios [0, ∞])
    bounds: tuple[float, float] | None = None
    threshold_from: str = "stated"  # see THRESHOLD_FROM
    group: str = ""                 # the paper's claim this row belongs to (default: claim_id)
    combine: str = "all"            # how the group's rows make one verdict (COMBINE)
    samples: str = ""               # what a replicate samples, where it is not plain training seeds / text folds
    model_checked: bool = True      # False where the measure is the model's quality itself
    diverged_value: float | None = None  # the outcome a diverged run counts as (proportions over runs)
    original: str = ""              # the measure before a change of reading, reported beside the new one
    measured_by: str = ""           # the config (and what it needs) that measures it where the demo cannot
    cells: tuple[str, ...] = ()     # the cells it is tested on (an experiment's third key); () = every cell
    # AED / AO attention it is tested on ("dot", "qkv": the fourth key); () = the default dot product (and models
    # without the choice), not VARIANT_ATTENTIONS
    attentions: tuple[str, ...] = ()
    independent: bool = True        # False where replicates share a model, a pool or a run (``samples`` says how)
    margin: str = ""                # an equivalence margin's width and why (threshold_from "margin")

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.claim_id}: kind {self.kind!r}; choose one of {KINDS}")
        if self.origin not in ORIGINS:
            raise ValueError(f"claim {self.claim_id}: origin {self.origin!r}; choose one of {ORIGINS}")
        if self.kind == "continuous" and self.bounds is None:
            raise ValueError(f"claim {self.claim_id}: a continuous measure declares its range (bounds)")
        if self.kind == "fisher" and self.versus is None:
            raise ValueError(f"claim {self.claim_id}: a fisher claim names its control (versus)")
        if self.threshold_from not in THRESHOLD_FROM or self.combine not in COMBINE:
            raise ValueError(f"claim {self.claim_id}: threshold_from {self.threshold_from!r} / combine "
                             f"{self.combine!r}; choose from {THRESHOLD_FROM} / {COMBINE}")
        self.region  # validates direction and threshold
        self._check_range()

    def _check_range(self):
        """Thresholds inside the measure's range (one past it could never be met, or never fail); a margin is
        stated with its reason, lies strictly inside the range (one-sided where the range caps it) and holds the
        paper's number."""
        lo, hi = self.measure_range
        th = self.threshold if isinstance(self.threshold, tuple) else (self.threshold,)
        ok = {">": lo <= th[0] < hi, "<": lo < th[0] <= hi, "between": lo <= th[0] < th[-1] <= hi}[self.direction]
        if not ok:
            raise ValueError(f"claim {self.claim_id}: threshold {self.threshold} leaves the measure's range "
                             f"[{lo:g}, {hi:g}]")
        if self.threshold_from != "margin":
            return
        if not self.margin or self.reference_value is None:
            raise ValueError(f"claim {self.claim_id}: an equivalence margin states its width and reason (margin) "
                             f"around the paper's number (reference_value)")
        if self.direction == "between" and not lo < th[0] < th[1] < hi:
            raise ValueError(f"claim {self.claim_id}: margin {self.threshold} reaches the measure's range "
                             f"[{lo:g}, {hi:g}]; make it one-sided there (equivalence)")
        if not self.region.holds(np.array([self.reference_value]))[0]:
            raise ValueError(f"claim {self.claim_id}: the paper's {self.reference_value:g} is outside its margin")

    @property
    def measure_range(self) -> tuple[float, float]:
        return UNIT if self.kind == "proportion" else (0.0, math.inf) if self.kind == "fisher" else self.bounds

    @property
    def region(self) -> Rule:
        """The claimed region of the measure."""
        return Rule(self.direction, self.threshold)

    @property
    def rule(self) -> str:
        if self.kind == "fisher":
            return f"odds ratio of {self.measure} against {'/'.join(self.versus)} {self.region} (Fisher's exact test)"
        what = self.measure if self.versus is None else f"{self.measure} − that of {'/'.join(self.versus)}"
        scale = "fraction of replicates" if self.kind == "proportion" else "median"
        return f"{scale} of {what} {self.region}"

    def applies_to(self, task_kind: str, arch: str, cell: str | None = None, attention: str | None = None) -> bool:
        """Whether an experiment of this task kind, architecture, cell and attention tests the claim (an experiment
        of no named cell tests only a claim of every cell). A claim that names no attention is one of the default
        dot-product attention (or of a model without the choice): an experiment with a variant attention
        (:data:`VARIANT_ATTENTIONS`) tests only the claims that name it."""
        fits = attention in self.attentions if self.attentions else attention not in VARIANT_ATTENTIONS
        return task_kind in self.task_kinds and arch in self.archs and (not self.cells or cell in self.cells) and fits


def equivalence(reference: float, margin: float, bounds: tuple[float, float]) -> dict:
    """``direction`` and ``threshold`` of "within ± ``margin`` of the paper's ``reference``" on a measure of range
    ``bounds``: the interval (reference − margin, reference + margin), one-sided where a side reaches the range
    (a variance drop of 0.95 ± 0.1 on (−∞, 1] is "> 0.85")."""
    low, high = reference - margin, reference + margin
    if low <= bounds[0] and high >= bounds[1]:
        raise ValueError(f"a margin of ±{margin:g} around {reference:g} covers the whole range {bounds}")
    if high >= bounds[1]:
        return {"direction": ">", "threshold": low}
    if low <= bounds[0]:
        return {"direction": "<", "threshold": high}
    return {"direction": "between", "threshold": (low, high)}


def summarize(summaries: dict[str, pd.DataFrame], experiments: dict[str, tuple[str, ...]],
              claims: tuple[Claim, ...], confidence: float = 0.95, checks=None, tested_on=None) -> pd.DataFrame:
    """One row per (claim, experiment it applies to).

    ``summaries``: experiment -> per-replicate DataFrame (column ``seed`` or ``fold``, and the measures);
    ``experiments``: experiment -> (task kind, architecture[, cell[, attention]]); the cell picks a ``versus`` partner when
    several experiments of the partner's kind and architecture exist (VED-GRU against AED-GRU). ``checks(paper,
    experiment, task kind, arch)``: its :class:`ModelCheck` or None; ``tested_on(paper, experiment, task kind,
    arch)``: "paper" or what was substituted (:mod:`attnrepro.verdicts.papers` gathers the wings').
    """
    rows = []
    for claim in claims:
        for name, key in sorted(experiments.items()):
            if claim.applies_to(*key):
                row = _row(claim, name, summaries, experiments, confidence, checks, tested_on)
                if row is not None:
                    rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def _gates(claim: Claim, names: list[str], summaries: dict[str, pd.DataFrame],
           experiments: dict[str, tuple[str, ...]], checks, unit: str) -> list[tuple[str, Gate]]:
    """Each experiment the row rests on with its per-replicate gate (none where the measure is the model's quality
    itself, or the wing names no check)."""
    if not claim.model_checked:
        return [(name, Gate(None, "none: the measure is the model's quality")) for name in names[:1]]
    return [(name, gate(checks(claim.paper, name, *experiments[name][:2]) if checks else None, summaries[name],
                        unit)) for name in names]


def _row(claim: Claim, name: str, summaries: dict[str, pd.DataFrame], experiments: dict[str, tuple[str, ...]],
         confidence: float, checks, tested_on) -> dict | None:
    """The row of ``claim`` on experiment ``name``; None where it has no value there."""
    kind, arch = experiments[name][:2]
    values, control, partner, diverged = _values(claim, name, summaries, experiments)
    if len(values) == 0:
        return None
    rule, bounds = claim.region, claim.measure_range
    unit = "fold" if "fold" in summaries[name].columns else "seed"
    gates = _gates(claim, [name] + ([partner] if partner else []), summaries, experiments, checks, unit)
    total = len(values) + (len(control) if control is not None else 0)
    failed = any(g.failed for _, g in gates)
    if failed:
        kept = {**summaries, **{n: summaries[n][g.kept.to_numpy()] for n, g in gates if g.kept is not None}}
        kept_values, kept_control, _, kept_diverged = _values(claim, name, kept, experiments)
    else:
        kept_values, kept_control, kept_diverged = values, control, diverged
    n_kept = len(kept_values) if claim.kind != "fisher" else min(len(kept_values), 0 if kept_control is None else len(kept_control))
    need = decides_from(claim.kind, rule, bounds, confidence)
    tested = not failed or (n_kept > 0 and not n_kept < need)
    if tested:  # a not-tested row shows every replicate's number, on which no verdict rests
        values, control, diverged = kept_values, kept_control, kept_diverged
    gated_out = total - (len(values) + (len(control) if control is not None else 0)) if tested else 0
    try:
        iv = interval(values, claim.kind, rule, confidence, bounds, control)
    except ValueError as e:
        raise AttnReproError(f"claim {claim.paper}/{claim.claim_id} on experiment {name}: {e}") from None
    decision = verdict(iv, rule, confidence, bounds) if tested else NOT_TESTED
    where = tested_on(claim.paper, name, kind, arch) if tested_on else PAPER_SETUP
    p_rep, p_not = evidence.p_values(values, claim.kind, rule, control) if tested else (math.nan, math.nan)
    least = evidence.least_p_values(claim.kind, rule, iv.n, bounds, iv.n2) if tested else (math.nan, math.nan)
    count = evidence.claimed_count(values, claim.kind, rule)
    reach = can_decide(claim.kind, rule, iv.n, bounds, confidence, iv.n2) if tested else ""
    both = decides_from(claim.kind, rule, bounds, confidence, both=True)
    # the paper's number is compared only with a measurement of the paper's setup (or with the margin around it
    # that the claim reads), on a tested model
    size = size_vs_reference(iv, claim.reference_value) \
        if tested and (where == PAPER_SETUP or claim.threshold_from == "margin") else ""
    return {
        "paper": claim.paper, "claim_id": claim.claim_id, "group": claim.group or claim.claim_id,
        "combine": claim.combine, "origin": claim.origin, "section": claim.section, "quote": claim.quote,
        "reading": claim.reading, "experiment": name, "measure": claim.measure, "kind": claim.kind,
        "range": f"[{bounds[0]:g}, {bounds[1]:g}]", "rule": claim.rule, "threshold_from": claim.threshold_from,
        "margin": claim.margin, "reference_value": claim.reference_value, "statistic": STATISTIC[claim.kind],
        "measured_mean": iv.estimate, "ci_low": iv.low, "ci_high": iv.high, "interval": iv.method,
        "n": iv.n + (iv.n2 or 0), "unit": unit,
        "samples": claim.samples or ("folds of one pretrained model's text" if unit == "fold" else "training seeds"),
        "independent": claim.independent and unit != "fold", "diverged": diverged,
        "model_check": verdict_note(gates, tested, need, n_kept), "gated_out": gated_out, "tested_on": where,
        "verdict": decision,
        "note": evidence.note(decision, iv, reach, both, need, n_kept, gated_out, total, size,
                              claim.threshold_from == "margin", claim.reference_value),
        "claimed_side": f"{count} of {iv.n}" if count is not None and tested else "",
        "swing": evidence.swing(values, claim.kind, rule, confidence, bounds, control) if tested else math.nan,
        "can_decide": reach, "both_ways_from": both, "p_reproduced": p_rep, "p_not_reproduced": p_not,
        "least_p_reproduced": least[0], "least_p_not_reproduced": least[1], "size_vs_paper": size,
        "original": _original(claim, name, summaries, experiments), "figure": claim.figure,
    }


def _original(claim: Claim, name: str, summaries: dict[str, pd.DataFrame],
              experiments: dict[str, tuple[str, ...]]) -> str:
    """The measure a changed reading replaced (paired with the same partner), its median over replicates."""
    if not claim.original or claim.original not in summaries[name].columns:
        return ""
    before, *_ = _values(replace(claim, measure=claim.original, kind="continuous", bounds=(-math.inf, math.inf)),
                         name, summaries, experiments)
    return f"{claim.original}: median {float(np.median(before)):.3g}" if len(before) else ""


def versus_partner(claim: Claim, name: str, experiments: dict[str, tuple[str, ...]]) -> str | None:
    """The one experiment a ``versus`` claim compares ``name`` with: of the claim's (kind, arch), and of the same
    cell when there are several, and then of the name with the other architecture and task kind (ved_gru_sort_short
    -> aed_gru_sort_short: one task's variants; aed_gru_one_to_one -> aed_gru_sort, not aed_gru_sort_short); None
    when there is no single one."""
    others = [n for n, (kind, arch, *_) in experiments.items() if (kind, arch) == claim.versus]
    if len(others) > 1:
        cell = experiments[name][2:3]
        others = [n for n in others if experiments[n][2:3] == cell]
    if len(others) > 1:
        kind, arch = experiments[name][:2]
        others = [n for n in others if n == name.replace(arch, claim.versus[1], 1).replace(kind, claim.versus[0], 1)]
    return others[0] if len(others) == 1 else None


def _values(claim: Claim, name: str, summaries: dict[str, pd.DataFrame], experiments: dict[str, tuple[str, ...]]
            ) -> tuple[np.ndarray, np.ndarray | None, str | None, int]:
    """(values, the control group's values for fisher, the versus partner, diverged runs counted)."""
    empty = (np.array([]), None, None, 0)
    df = summaries[name]
    if claim.measure not in df.columns:
        return empty
    if claim.versus is None:
        values, diverged = _outcomes(claim, df)
        return values, None, None, diverged
    other = versus_partner(claim, name, experiments)
    if other is None or claim.measure not in summaries[other].columns:
        return empty
    if claim.kind == "fisher":  # two independent groups of runs, not paired
        (values, d1), (control, d2) = _outcomes(claim, df), _outcomes(claim, summaries[other])
        return (values, control, other, d1 + d2) if len(control) else empty
    paired = df[["seed", claim.measure]].merge(summaries[other][["seed", claim.measure]], on="seed",
                                               suffixes=("", "_versus")).dropna()
    return (paired[claim.measure] - paired[f"{claim.measure}_versus"]).to_numpy(dtype=float), None, other, 0


def _outcomes(claim: Claim, df: pd.DataFrame) -> tuple[np.ndarray, int]:
    """One value per replicate; a diverged run (column ``diverged``) counts as ``claim.diverged_value``."""
    values = df[claim.measure].astype(float)
    diverged = df["diverged"].fillna(0).astype(bool) if "diverged" in df.columns else pd.Series(False, df.index)
    if claim.diverged_value is not None:
        values = values.where(~diverged, claim.diverged_value)
    return values.dropna().to_numpy(dtype=float), int(diverged.sum()) if claim.diverged_value is not None else 0


def merge_replicates(name: str, tables: list[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """One experiment's per-replicate tables (its analysis summary, its AER summary, …) joined on the replicate
    column (``seed`` or ``fold``); a measure in two tables is an error, not a silent pick."""
    for path, df in tables:  # a replicate counted twice would narrow every interval and could flip a verdict
        for key in ("seed", "fold"):
            if key in df.columns and df[key].duplicated().any():
                twice = sorted(df.loc[df[key].duplicated(), key].unique().tolist())
                raise AttnReproError(f"{path}: {key}(s) {twice} appear in more than one row; each replicate is one "
                                     f"row (a table appended to or copied together?)")
    (first_path, out), *rest = tables
    for path, df in rest:
        key = [k for k in ("seed", "fold") if k in out.columns and k in df.columns]
        both = (set(out.columns) & set(df.columns)) - set(key)
        if not key or both:
            raise AttnReproError(f"experiment {name}: {path} and {first_path} "
                                 + (f"both hold {sorted(both)}" if both else "share no seed or fold column"))
        out = out.merge(df, on=key, how="outer")
    return out


def unmeasured(table: pd.DataFrame, summaries: dict[str, pd.DataFrame], experiments: dict[str, tuple[str, ...]],
               claims: tuple[Claim, ...]) -> pd.DataFrame:
    """The claims with no row in ``table`` and why: no experiment of theirs in this config, the measure not in
    their experiments' tables, no value (NaN at this scale), or no experiment to compare with."""
    measured = set(zip(table.paper, table.claim_id))
    rows = []
    for claim in claims:
        if (claim.paper, claim.claim_id) in measured:
            continue
        names = [n for n, key in sorted(experiments.items()) if claim.applies_to(*key)]
        if not names:
            why = "no experiment of its task and model in this config"
        elif not any(claim.measure in summaries[n].columns for n in names):
            why = f"{claim.measure} is not measured on {', '.join(names)}"
        elif claim.versus is not None and all(versus_partner(claim, n, experiments) is None for n in names):
            why = f"no {'/'.join(claim.versus)} experiment to compare {', '.join(names)} with"
        else:
            why = f"{claim.measure} has no value on {', '.join(names)} (undefined at this scale)"
        if claim.measured_by:  # whatever kept it out of this run, the config that measures it
            why += f"; measured by {claim.measured_by}"
        rows.append({"paper": claim.paper, "claim_id": claim.claim_id, "origin": claim.origin, "why": why})
    return pd.DataFrame(rows, columns=["paper", "claim_id", "origin", "why"])


MODEL_MEASURES = {"token_acc": "token accuracy", "seq_acc": "sequence accuracy", "bleu": "BLEU",
                  "bleu_source_gain": "BLEU from the source"}
# sacrebleu's scale; the gain is a difference of two BLEUs
MODEL_BOUNDS = {"token_acc": UNIT, "seq_acc": UNIT, "bleu": (0.0, 100.0), "bleu_source_gain": (-100.0, 100.0)}


def model_quality(summaries: dict[str, pd.DataFrame], confidence: float = 0.95) -> pd.DataFrame:
    """How well each trained model does on its test split (greedy decoding): mean over seeds of every measure of
    ``MODEL_MEASURES`` its summary has and its interval inside the measure's range (:data:`MODEL_BOUNDS`;
    :func:`attnrepro.verdicts.descriptive.mean_interval`), one row per experiment; translation models report BLEU
    beside token accuracy, as the papers do. Descriptive: no verdict rests on these intervals."""
    rows = []
    for name, df in sorted(summaries.items()):
        row: dict = {"experiment": name}
        for measure in MODEL_MEASURES:
            if measure in df.columns and df[measure].notna().any():
                values = df[measure].dropna().to_numpy()
                row[measure], row[f"{measure}_low"], row[f"{measure}_high"] = mean_interval(
                    values, MODEL_BOUNDS[measure], confidence)
                row["n_seeds"] = len(values)
        if len(row) > 1:
            rows.append(row)
    columns = ["experiment", "n_seeds"] + [f"{m}{s}" for m in MODEL_MEASURES for s in ("", "_low", "_high")]
    return pd.DataFrame(rows).reindex(columns=columns)
