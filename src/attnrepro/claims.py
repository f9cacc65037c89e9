"""The claims table: each quantitative statement of a paper, measured over replicates, with an interval and a verdict.

A :class:`Claim` quotes the sentence of the paper it tests (``section``, ``quote``), says how we read it
(``reading``: the measure, a column of an experiment's per-replicate ``summary.csv``, and the threshold), the kind
of that measure (:mod:`attnrepro.intervals`: a 0/1 ``proportion`` or a ``continuous`` value per replicate) and
the experiments it applies to (task kind and architecture). ``origin`` tells the papers' own claims from the
project's extensions (the same analysis on a task the paper did not use); the summary line counts the papers'
claims only. :func:`summarize` gives one row per (claim, experiment); each paper's claims live in its wing
(``attnrepro.<paper>.claims``), gathered in :data:`attnrepro.papers.CLAIMS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import AttnReproError
from .intervals import KINDS, VERDICTS, Rule, interval, replicates_to_decide, size_vs_reference, student_t, verdict

COLUMNS = ["paper", "claim_id", "origin", "section", "quote", "reading", "experiment", "measure", "kind", "rule",
           "reference_value", "measured_mean", "ci_low", "ci_high", "interval", "n", "unit", "verdict",
           "replicates_to_decide", "size_vs_paper", "figure"]

PAPERS = {
    "aitken2021": "Aitken et al. 2021, Understanding How Encoder-Decoder Architectures Attend",
    "snell2021": "Snell et al. 2021, Approximating How Single Head Attention Learns",
    "kobayashi2020": "Kobayashi et al. 2020, Attention Module is Not Only a Weight",
    "blog003": "Background post on the attention mechanism",
}
ORIGINS = ("paper", "extension")


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

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.claim_id}: kind {self.kind!r}; choose one of {KINDS}")
        if self.origin not in ORIGINS:
            raise ValueError(f"claim {self.claim_id}: origin {self.origin!r}; choose one of {ORIGINS}")
        self.region  # validates direction and threshold

    @property
    def region(self) -> Rule:
        """The claimed region of the measure."""
        return Rule(self.direction, self.threshold)

    @property
    def rule(self) -> str:
        what = self.measure if self.versus is None else f"{self.measure} − that of {'/'.join(self.versus)}"
        scale = "fraction of replicates" if self.kind == "proportion" else "mean"
        return f"{scale} of {what} {self.region}"

    def applies_to(self, task_kind: str, arch: str) -> bool:
        return task_kind in self.task_kinds and arch in self.archs


def confidence_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean and Student-t interval over seeds (error bars of figures); NaN bounds with fewer than two values."""
    return student_t(values, confidence)


def summarize(summaries: dict[str, pd.DataFrame], experiments: dict[str, tuple[str, ...]],
              claims: tuple[Claim, ...], confidence: float = 0.95) -> pd.DataFrame:
    """One row per (claim, experiment it applies to).

    ``summaries``: experiment -> per-replicate DataFrame (column ``seed`` or ``fold``, and the measures);
    ``experiments``: experiment -> (task kind, architecture[, cell]); the cell picks a ``versus`` partner when
    several experiments of the partner's kind and architecture exist (VED-GRU against AED-GRU).
    """
    rows = []
    for claim in claims:
        for name, (kind, arch, *_) in sorted(experiments.items()):
            if not claim.applies_to(kind, arch):
                continue
            values = _values(claim, name, summaries, experiments)
            if len(values) == 0:
                continue
            rule = claim.region
            iv = interval(values, claim.kind, rule, confidence)
            decision = verdict(iv, rule, confidence)
            undecided = decision not in VERDICTS[:2]
            rows.append({
                "paper": claim.paper, "claim_id": claim.claim_id, "origin": claim.origin, "section": claim.section,
                "quote": claim.quote, "reading": claim.reading, "experiment": name, "measure": claim.measure,
                "kind": claim.kind, "rule": claim.rule, "reference_value": claim.reference_value,
                "measured_mean": iv.estimate, "ci_low": iv.low, "ci_high": iv.high, "interval": iv.method,
                "n": iv.n, "unit": "fold" if "fold" in summaries[name].columns else "seed", "verdict": decision,
                "replicates_to_decide": replicates_to_decide(values, iv, rule, confidence) if undecided else math.nan,
                "size_vs_paper": size_vs_reference(iv, claim.reference_value), "figure": claim.figure,
            })
    return pd.DataFrame(rows, columns=COLUMNS)


def versus_partner(claim: Claim, name: str, experiments: dict[str, tuple[str, ...]]) -> str | None:
    """The one experiment a ``versus`` claim compares ``name`` with: of the claim's (kind, arch), and of the same
    cell when there are several; None when there is no single one."""
    others = [n for n, (kind, arch, *_) in experiments.items() if (kind, arch) == claim.versus]
    if len(others) > 1:
        cell = experiments[name][2:3]
        others = [n for n in others if experiments[n][2:3] == cell]
    return others[0] if len(others) == 1 else None


def _values(claim: Claim, name: str, summaries: dict[str, pd.DataFrame],
            experiments: dict[str, tuple[str, ...]]) -> np.ndarray:
    df = summaries[name]
    if claim.measure not in df.columns:
        return np.array([])
    if claim.versus is None:
        return df[claim.measure].dropna().to_numpy(dtype=float)
    other = versus_partner(claim, name, experiments)
    if other is None or claim.measure not in summaries[other].columns:
        return np.array([])
    paired = df[["seed", claim.measure]].merge(summaries[other][["seed", claim.measure]], on="seed",
                                               suffixes=("", "_versus")).dropna()
    return (paired[claim.measure] - paired[f"{claim.measure}_versus"]).to_numpy(dtype=float)


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
        names = [n for n, (kind, arch, *_) in sorted(experiments.items()) if claim.applies_to(kind, arch)]
        if not names:
            why = "no experiment of its task and model in this config"
        elif not any(claim.measure in summaries[n].columns for n in names):
            why = f"{claim.measure} is not measured on {', '.join(names)}"
        elif claim.versus is not None and all(versus_partner(claim, n, experiments) is None for n in names):
            why = f"no {'/'.join(claim.versus)} experiment to compare {', '.join(names)} with"
        else:
            why = f"{claim.measure} has no value on {', '.join(names)} (undefined at this scale)"
        rows.append({"paper": claim.paper, "claim_id": claim.claim_id, "origin": claim.origin, "why": why})
    return pd.DataFrame(rows, columns=["paper", "claim_id", "origin", "why"])


MODEL_MEASURES = {"token_acc": "token accuracy", "seq_acc": "sequence accuracy", "bleu": "BLEU"}


def model_quality(summaries: dict[str, pd.DataFrame], confidence: float = 0.95) -> pd.DataFrame:
    """How well each trained model does on its test split (greedy decoding): mean and Student-t interval over
    seeds of every measure of ``MODEL_MEASURES`` its summary has, one row per experiment; translation models
    report BLEU beside token accuracy, as the papers do. Descriptive: no verdict rests on these intervals."""
    rows = []
    for name, df in sorted(summaries.items()):
        row: dict = {"experiment": name}
        for measure in MODEL_MEASURES:
            if measure in df.columns and df[measure].notna().any():
                values = df[measure].dropna().to_numpy()
                row[measure], row[f"{measure}_low"], row[f"{measure}_high"] = confidence_interval(values, confidence)
                row["n_seeds"] = len(values)
        if len(row) > 1:
            rows.append(row)
    columns = ["experiment", "n_seeds"] + [f"{m}{s}" for m in MODEL_MEASURES for s in ("", "_low", "_high")]
    return pd.DataFrame(rows).reindex(columns=columns)
