"""The claims table: each quantitative statement of a paper, measured over seeds, with a 95% CI and a verdict.

A :class:`Claim` names a per-seed measure (a column of an experiment's ``summary.csv``) and the experiments it
applies to (task kind and architecture). :func:`summarize` turns the per-seed values into one row per
(claim, experiment) with a Student-t confidence interval over seeds. Each paper's claims are
in its own module of :mod:`attnrepro.claimsets`; :data:`CLAIMS` gathers them.

Verdict rule, stated once for every claim: with the claim "measure ``direction`` ``threshold``",
``reproduced`` when the whole CI lies on the claimed side, ``not reproduced`` when the whole CI lies on the other
side, ``inconclusive`` otherwise (and always with fewer than two seeds, where no CI exists).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

COLUMNS = ["paper", "claim_id", "description", "reference_value", "measured_mean", "ci_low", "ci_high",
           "n_seeds", "verdict", "experiment", "rule", "figure"]

PAPERS = {
    "aitken2021": "Aitken et al. 2021, Understanding How Encoder-Decoder Architectures Attend",
    "snell2021": "Snell et al. 2021, Approximating How Single Head Attention Learns",
    "kobayashi2020": "Kobayashi et al. 2020, Attention Module is Not Only a Weight",
    "blog003": "Background post on the attention mechanism",
}


@dataclass(frozen=True)
class Claim:
    paper: str
    claim_id: str
    description: str
    measure: str                   # column of summary.csv, one value per seed
    direction: str                 # ">" or "<"
    threshold: float
    task_kinds: tuple[str, ...]    # experiments this claim is tested on
    archs: tuple[str, ...]
    reference_value: float | None = None  # the paper's own number, where it prints one
    figure: str = ""               # the figure that shows it, relative to results/
    # (task kind, arch) of a comparison experiment: the claim is then about the per-seed difference
    # measure(this) − measure(that), paired by seed
    versus: tuple[str, str] | None = None

    @property
    def rule(self) -> str:
        what = self.measure if self.versus is None else f"{self.measure} − that of {'/'.join(self.versus)}"
        return f"{what} {self.direction} {self.threshold:g} with the whole 95% CI"

    def applies_to(self, task_kind: str, arch: str) -> bool:
        return task_kind in self.task_kinds and arch in self.archs


def _registered() -> tuple[Claim, ...]:
    # one module per paper, so that each paper's claims live beside nothing else
    from .claimsets import aitken2021, blog003, kobayashi2020, snell2021

    return aitken2021.CLAIMS + blog003.CLAIMS + snell2021.CLAIMS + kobayashi2020.CLAIMS


CLAIMS: tuple[Claim, ...] = _registered()


def confidence_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean and Student-t CI over seeds; the CI is NaN with fewer than two values."""
    values = np.asarray(values, dtype=float)
    mean = float(values.mean())
    if len(values) < 2:
        return mean, float("nan"), float("nan")
    sem = stats.sem(values)
    if sem == 0:
        return mean, mean, mean
    low, high = stats.t.interval(confidence, len(values) - 1, loc=mean, scale=sem)
    return mean, float(low), float(high)


def verdict(claim: Claim, low: float, high: float) -> str:
    if np.isnan(low):
        return "inconclusive"
    above, below = low > claim.threshold, high < claim.threshold
    if claim.direction == ">":
        return "reproduced" if above else "not reproduced" if below else "inconclusive"
    return "reproduced" if below else "not reproduced" if above else "inconclusive"


def summarize(summaries: dict[str, pd.DataFrame], experiments: dict[str, tuple[str, str]],
              claims: tuple[Claim, ...] = CLAIMS, confidence: float = 0.95) -> pd.DataFrame:
    """One row per (claim, experiment it applies to).

    ``summaries``: experiment -> per-seed DataFrame (column ``seed`` and the measures);
    ``experiments``: experiment -> (task kind, architecture).
    """
    rows = []
    for claim in claims:
        for name, (kind, arch) in sorted(experiments.items()):
            if not claim.applies_to(kind, arch):
                continue
            values = _values(claim, name, summaries, experiments)
            if len(values) == 0:
                continue
            mean, low, high = confidence_interval(values, confidence)
            rows.append({
                "paper": claim.paper, "claim_id": claim.claim_id, "description": claim.description,
                "reference_value": claim.reference_value, "measured_mean": mean, "ci_low": low, "ci_high": high,
                "n_seeds": len(values), "verdict": verdict(claim, low, high), "experiment": name,
                "rule": claim.rule, "figure": claim.figure,
            })
    return pd.DataFrame(rows, columns=COLUMNS)


def _values(claim: Claim, name: str, summaries: dict[str, pd.DataFrame],
            experiments: dict[str, tuple[str, str]]) -> np.ndarray:
    df = summaries[name]
    if claim.measure not in df.columns:
        return np.array([])
    if claim.versus is None:
        return df[claim.measure].dropna().to_numpy()
    others = [n for n, ka in experiments.items() if ka == claim.versus]
    if len(others) != 1:  # nothing, or no single experiment, to compare with
        return np.array([])
    other = summaries[others[0]][["seed", claim.measure]]
    paired = df[["seed", claim.measure]].merge(other, on="seed", suffixes=("", "_versus")).dropna()
    return (paired[claim.measure] - paired[f"{claim.measure}_versus"]).to_numpy()


MODEL_MEASURES = {"token_acc": "token accuracy", "seq_acc": "sequence accuracy", "bleu": "BLEU"}


def model_quality(summaries: dict[str, pd.DataFrame], confidence: float = 0.95) -> pd.DataFrame:
    """How well each trained model does on its test split (greedy decoding): mean and CI over seeds of every
    measure of ``MODEL_MEASURES`` its summary has, one row per experiment; translation models report BLEU beside
    token accuracy, as the papers do."""
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


def _fmt(x: float) -> str:
    return "–" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.3g}"


def to_markdown(table: pd.DataFrame, models: pd.DataFrame | None = None) -> str:
    """``results/claims.md``: per paper, claim by claim, the paper's value, ours with CI and seeds, the verdict;
    then the test-split quality of every trained model (``model_quality``)."""
    n_ok = int((table.verdict == "reproduced").sum())
    lines = ["# Claims", "", f"**{n_ok} of {len(table)} claims reproduce** "
             f"({int((table.verdict == 'not reproduced').sum())} do not, "
             f"{int((table.verdict == 'inconclusive').sum())} inconclusive). Verdicts: the whole 95% CI over seeds "
             "on the claimed side of the threshold in *rule* = reproduced, wholly on the other side = not "
             "reproduced, else inconclusive.", ""]
    for paper, rows in table.groupby("paper", sort=False):
        lines += [f"## {PAPERS.get(paper, paper)}", "",
                  "| claim | experiment | paper | ours (95% CI) | seeds | verdict | rule | figure |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in rows.itertuples():
            ours = f"{_fmt(r.measured_mean)} ({_fmt(r.ci_low)} – {_fmt(r.ci_high)})"
            fig = f"[{Path(r.figure).name}]({r.figure})" if isinstance(r.figure, str) and r.figure else ""
            desc = r.description.replace("|", "\\|")  # a bare | would end the table cell
            lines.append(f"| **{r.claim_id}**: {desc} | {r.experiment} | {_fmt(r.reference_value)} | "
                         f"{ours} | {r.n_seeds} | {r.verdict} | `{r.rule}` | {fig} |")
        lines.append("")
    if models is not None and len(models):
        lines += ["## Trained models on their test split", "",
                  "Greedy decoding; mean (95% CI over seeds). BLEU: sacrebleu corpus BLEU on space-joined words.", "",
                  "| experiment | seeds | " + " | ".join(MODEL_MEASURES.values()) + " |",
                  "|---|---|" + "---|" * len(MODEL_MEASURES)]
        for r in models.to_dict("records"):
            cells = [f"{_fmt(r[m])} ({_fmt(r[f'{m}_low'])} – {_fmt(r[f'{m}_high'])})" if not pd.isna(r[m]) else "–"
                     for m in MODEL_MEASURES]
            lines.append(f"| {r['experiment']} | {int(r['n_seeds'])} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)
