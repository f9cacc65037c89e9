"""``results/claims.md``: the claims table as a person reads it — per paper, the paper's sentence, our measure,
our number with its interval, the verdict — then the test-split quality of every trained model."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from .claims import MODEL_MEASURES, PAPERS
from .intervals import VERDICTS

VERDICT_RULES = """\
How to read a verdict. Each claim reads one number per replicate (a training seed; a fold of the text for the
pretrained encoder) and gets a 95% interval by the kind of that number: Clopper–Pearson for a 0/1 outcome per run,
Student-t over replicates for a continuous one, and the sign test (the share of replicates on the claimed side,
which must exclude ½) when every replicate gives the same value. *reproduced*: the whole interval is on the claimed
side of the threshold; *not reproduced*: wholly on the other side; *undecidable at this n*: even the most extreme
result this many replicates can give would not decide, and the last column says how many would; else
*inconclusive*. *vs paper* says whether the paper's own number lies in our interval."""


def _fmt(x) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3g}"


def _ours(r) -> str:
    if r.interval == "clopper-pearson":
        return f"{_fmt(r.measured_mean)} = {round(r.measured_mean * r.n)}/{r.n} ({_fmt(r.ci_low)} – {_fmt(r.ci_high)})"
    if r.interval == "sign":
        return (f"{_fmt(r.measured_mean)}, every {r.unit} (sign test: share on the claimed side "
                f"{_fmt(r.ci_low)} – {_fmt(r.ci_high)})")
    return f"{_fmt(r.measured_mean)} ({_fmt(r.ci_low)} – {_fmt(r.ci_high)})"


def _counts(rows: pd.DataFrame) -> str:
    counts = rows.verdict.value_counts()
    parts = [f"{int(counts.get(v, 0))} {v}" for v in VERDICTS[1:]]
    return f"{int(counts.get(VERDICTS[0], 0))} of {len(rows)} reproduced ({', '.join(parts)})"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")  # a bare | would end the table cell


KEY = ["paper", "claim_id", "experiment"]


def beside(table: pd.DataFrame, references: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per claim row of this run or of any committed reference table (another config's claims.csv, e.g.
    the paper slice's), keyed by paper, claim and experiment: the paper's number, then per table (this run first)
    its number with interval and its verdict; "–" where a table has no such row."""
    tables = {"this run": table, **references}
    keys = pd.concat([t[KEY + ["origin", "reference_value"]] for t in tables.values()]).drop_duplicates(KEY)
    out = keys.reset_index(drop=True)
    for label, t in tables.items():
        cells = t.assign(**{f"{label}: ours": [_ours(r) for r in t.itertuples()],
                            f"{label}: verdict": t.verdict})[KEY + [f"{label}: ours", f"{label}: verdict"]]
        out = out.merge(cells.drop_duplicates(KEY), on=KEY, how="left")
    return out.fillna({c: "–" for c in out.columns if ": " in c})


def _beside_lines(table: pd.DataFrame, references: dict[str, pd.DataFrame]) -> list[str]:
    rows = beside(table, references)
    labels = ["this run", *references]
    lines = ["## Beside the committed runs", "",
             "The same claims in committed claims tables of other configurations (bench/results/; each config's "
             "comment says its scale and recipe). Where two verdicts differ, scale or recipe decides the claim at "
             "one of them, not the method alone.", "",
             "| table | the papers' claims | the project's own checks |", "|---|---|---|"]
    for label, t in {"this run": table, **references}.items():
        counts = [_counts(t[t.origin == o]) if (t.origin == o).any() else "none" for o in ("paper", "extension")]
        lines.append(f"| {label} | {counts[0]} | {counts[1]} |")
    lines += ["", "| claim | experiment | paper | " + " | ".join(f"{label} (95% interval) | verdict" for label in labels)
              + " |", "|---|---|---|" + "---|---|" * len(labels)]
    for r in rows.to_dict("records"):
        cells = " | ".join(f"{r[f'{label}: ours']} | {r[f'{label}: verdict']}" for label in labels)
        lines.append(f"| {r['claim_id']} | {r['experiment']} | {_fmt(r['reference_value'])} | {cells} |")
    return lines + [""]


def to_markdown(table: pd.DataFrame, models: pd.DataFrame | None = None, missing: pd.DataFrame | None = None,
                references: dict[str, pd.DataFrame] | None = None) -> str:
    papers = table[table.origin == "paper"]
    extensions = table[table.origin == "extension"]
    lines = ["# Claims", "", f"**The papers' claims: {_counts(papers)}.**"]
    if len(extensions):
        lines.append(f"The project's own checks (the papers' analyses on tasks or models they did not use; not "
                     f"counted above): {_counts(extensions)}.")
    lines += ["", VERDICT_RULES, ""]
    for paper, rows in table.groupby("paper", sort=False):
        lines += [f"## {PAPERS.get(paper, paper)}", "",
                  "| claim | the paper says | how we read it | experiment | paper | ours (95% interval) | n | verdict "
                  "| n to decide | vs paper | figure |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows.itertuples():
            fig = f"[{Path(r.figure).name}]({r.figure})" if isinstance(r.figure, str) and r.figure else ""
            tag = " (extension)" if r.origin == "extension" else ""
            lines.append(
                f"| **{r.claim_id}**{tag}, {_cell(r.section)} | {_cell(r.quote)} | {_cell(r.reading)}; "
                f"`{_cell(r.rule)}` | {r.experiment} | {_fmt(r.reference_value)} | {_ours(r)} | {r.n} {r.unit}s "
                f"| {r.verdict} | {_fmt(r.replicates_to_decide)} | {r.size_vs_paper} | {fig} |")
        lines.append("")
    if models is not None and len(models):
        lines += ["## Trained models on their test split", "",
                  "Greedy decoding; mean (95% Student-t interval over seeds). BLEU: sacrebleu corpus BLEU on "
                  "space-joined words.", "",
                  "| experiment | seeds | " + " | ".join(MODEL_MEASURES.values()) + " |",
                  "|---|---|" + "---|" * len(MODEL_MEASURES)]
        for r in models.to_dict("records"):
            cells = [f"{_fmt(r[m])} ({_fmt(r[f'{m}_low'])} – {_fmt(r[f'{m}_high'])})" if not pd.isna(r[m]) else "–"
                     for m in MODEL_MEASURES]
            lines.append(f"| {r['experiment']} | {int(r['n_seeds'])} | " + " | ".join(cells) + " |")
        lines.append("")
    if missing is not None and len(missing):
        lines += ["## Claims with no row in this run", "",
                  "Registered claims this run could not measure (they count in no verdict above).", "",
                  "| paper | claim | why |", "|---|---|---|"]
        lines += [f"| {PAPERS.get(r.paper, r.paper)} | {r.claim_id}{' (extension)' if r.origin == 'extension' else ''} "
                  f"| {_cell(r.why)} |" for r in missing.itertuples()]
        lines.append("")
    if references:
        lines += _beside_lines(table, references)
    return "\n".join(lines)
