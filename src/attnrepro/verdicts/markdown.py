"""``results/claims.md``: the claims table as a person reads it — first a screen of counts per paper (claims decided
and reproduced, on the paper's setup and on substitutes) with every undecided claim and what holds it open, then
one verdict per paper claim, then per paper the paper's sentence, our measure, our number with its interval, the
verdict and what it rests on — then the test-split quality of every trained model."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from .claims import MODEL_MEASURES, PAPERS
from .intervals import DECIDED, NOT_REPRODUCED, NOT_TESTED, REPRODUCED, VERDICTS, clopper_pearson, rank_depth

VERDICT_RULES = """\
How to read a verdict. Each claim reads one number per replicate (a training seed; a fold of the text for the
pretrained encoder: the *samples* column says which, and whether the replicates are independent) and gets a 95%
interval that stays inside the measure's range: for a continuous measure the distribution-free interval of the
median from order statistics (the range itself below 6 replicates, where no order statistic reaches 95%),
Clopper–Pearson for a 0/1 outcome per run, Fisher's exact test for a task's outcomes against its control's.
*reproduced*: the whole interval is on the claimed side of the threshold; *not reproduced*: wholly on the other side;
*not tested*: too few replicates' models passed their gate to decide (each replicate is gated on its own; a row
reads the ones that passed and says how many it left out); *undecidable at this n*: no outcome this many replicates
can give would decide either way; else *inconclusive* — and a row that can only go one way at this n says which,
with the smallest n at which it could go both ways. *on the claimed side*: how many replicates lie in the claimed
region ("7 of 8"; a rate's count is its k/n). *threshold from*: a reading of the paper's words (stated), the
paper's own number (paper), or an equivalence margin around it (margin, with its width and reason). *vs paper* says
whether the paper's own number lies in our interval, where the data are the paper's or the claim is a margin around
its number."""

HELD_BY_TEXT = ("*seeds*: too few replicates for any outcome to decide; *gate*: the models are below their gate; "
                "*threshold direction*: this n can cross the threshold one way only; *Holm*: decided on a row alone, "
                "not after the correction over the claim's rows; *interval*: the interval spans the threshold.")


def _fmt(x) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3g}"


def _ours(r) -> str:
    if r.interval == "clopper-pearson":
        return f"{_fmt(r.measured_mean)} = {round(r.measured_mean * r.n)}/{r.n} ({_fmt(r.ci_low)} – {_fmt(r.ci_high)})"
    if r.interval == "fisher":
        return f"odds ratio {_fmt(r.measured_mean)} ({_fmt(r.ci_low)} – {_fmt(r.ci_high)})"
    # a committed table of the earlier rules (Student-t or sign test) reads as it was written
    scale = "median" if r.interval == "rank" else "mean"
    return f"{scale} {_fmt(r.measured_mean)} ({_fmt(r.ci_low)} – {_fmt(r.ci_high)}{_ties(r)})"


def _ties(r) -> str:
    """Where the middle replicates tie (a median interval of zero width) a decided verdict rests on the sign test,
    the rank interval's dual: how many replicates lie on the claimed side of the threshold and the Clopper–Pearson
    interval of that share, which is never of zero width. From the row alone: with depth d (:func:`rank_depth`), at
    least n + 1 − d lie on the side the verdict names (all n where d = 1, i.e. every replicate ties)."""
    if r.interval != "rank" or r.ci_low != r.ci_high or r.verdict not in (REPRODUCED, NOT_REPRODUCED) or not r.n:
        return ""
    n = int(r.n)
    d = rank_depth(n)
    side = n + 1 - d
    k = side if r.verdict == REPRODUCED else n - side
    low, high = clopper_pearson(k, n)
    if d == 1:
        return f": all {n} tie; on the claimed side {k} of {n}, {_fmt(low)} – {_fmt(high)}"
    bound = "at least" if r.verdict == REPRODUCED else "at most"
    return f": the middle {n + 2 - 2 * d} tie; on the claimed side {bound} {k} of {n}, {_fmt(low)} – {_fmt(high)}"


def _counts(rows: pd.DataFrame) -> str:
    counts = rows.verdict.value_counts()
    parts = [f"{int(counts.get(v, 0))} {v}" for v in VERDICTS[1:]]
    dependent = ""
    if "independent" in rows:  # a committed table of the earlier columns has no such count
        reproduced = rows[rows.verdict == REPRODUCED]
        shared = int((~reproduced.independent.fillna(True).astype(bool)).sum())
        dependent = f"; {shared} of the reproduced on replicates that are not independent"
    return f"{int(counts.get(VERDICTS[0], 0))} of {len(rows)} reproduced ({', '.join(parts)}{dependent})"


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
             "The same claims in committed claims tables of other configurations (workflow/reference/; each config's "
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


def _figures(text) -> str:
    if not isinstance(text, str) or not text:
        return ""
    return ", ".join(f"[{Path(f).stem}]({f})" for f in text.split("; "))


def _paper_counts(rows: pd.DataFrame) -> list[str]:
    decided = rows[rows.verdict.isin(DECIDED)]
    reproduced = decided[decided.verdict == REPRODUCED]
    shared = int((~reproduced.independent.fillna(True).astype(bool)).sum())
    cells = [len(rows), len(decided), f"{len(reproduced)}" + (f" ({shared} not independent)" if shared else ""),
             int((decided.verdict == NOT_REPRODUCED).sum()),
             int((~rows.verdict.isin(DECIDED) & (rows.verdict != NOT_TESTED)).sum()),
             int((rows.verdict == NOT_TESTED).sum())]
    for setup in ("paper setup", "substitutes"):
        d = decided[decided.setup == setup]
        cells.append(f"{len(d)}, {int((d.verdict == REPRODUCED).sum())}")
    return [str(c) for c in cells]


def _headline_lines(claims: pd.DataFrame) -> list[str]:
    """The first screen: per paper, claims decided and reproduced, on its setup and on substitutes; then every
    undecided claim of the papers and what holds it open."""
    papers = claims[claims.origin == "paper"]
    decided = papers[papers.verdict.isin(DECIDED)]
    reproduced = decided[decided.verdict == REPRODUCED]
    shared = int((~reproduced.independent.fillna(True).astype(bool)).sum())
    undecided = papers[~papers.verdict.isin(DECIDED)]
    lines = [f"**The papers' claims: {len(papers)} — {len(decided)} decided ({len(reproduced)} reproduced, "
             f"{len(decided) - len(reproduced)} not reproduced), "
             f"{int((undecided.verdict != NOT_TESTED).sum())} undecided, {int((undecided.verdict == NOT_TESTED).sum())} "
             f"not tested; {shared} of the {len(reproduced)} reproduced rest on replicates that are not independent "
             f"(folds of one model's text, heads from one pool, seeds sharing one proxy run).**", "",
             "| paper | claims | decided | reproduced | not reproduced | undecided | not tested "
             "| paper's setup: decided, reproduced | substitutes: decided, reproduced |",
             "|---|---|---|---|---|---|---|---|---|"]
    for paper, rows in papers.groupby("paper", sort=False):
        lines.append(f"| {PAPERS.get(paper, paper)} | " + " | ".join(_paper_counts(rows)) + " |")
    if len(undecided):
        lines += ["", "### Undecided claims, and what holds each open", "", HELD_BY_TEXT, "",
                  "| paper | claim | verdict | held by | why | figure |", "|---|---|---|---|---|---|"]
        lines += [f"| {r.paper} | {r.group} | {_cell(r.scope)} | {r.held_by} | {_cell(r.why)} | {_figures(r.figure)} |"
                  for r in undecided.itertuples()]
    return lines + [""]


def _by_claim_lines(claims: pd.DataFrame) -> list[str]:
    lines = ["## One verdict per claim", "",
             "A claim's rows (its experiments, and the rows a sentence such as \"in both the AED and AO networks\" "
             "joins) combined as the sentence says, over the rows that were tested: *all* — not reproduced if a row "
             "is after Holm's correction over the claim's rows, reproduced only if every row is; *any* — the mirror. "
             "A claim with rows not tested reads as what was tested. *paper setup*: every tested row on the paper's "
             "model, task and data; *substitutes*: some row stands in for them (tested on).", "",
             "| paper | claim | combine | experiments | tested on | verdict | on the claimed side |",
             "|---|---|---|---|---|---|---|"]
    for r in claims.itertuples():
        tag = " (extension)" if r.origin == "extension" else ""
        lines.append(f"| {r.paper} | **{r.group}**{tag} | {r.combine} | {_cell(r.experiments)} | {_cell(r.tested_on)} "
                     f"| {_cell(r.scope)} | {_cell(r.claimed_side) if isinstance(r.claimed_side, str) else ''} |")
    return lines + [""]


def to_markdown(table: pd.DataFrame, models: pd.DataFrame | None = None, missing: pd.DataFrame | None = None,
                references: dict[str, pd.DataFrame] | None = None, claims: pd.DataFrame | None = None) -> str:
    papers = table[table.origin == "paper"]
    extensions = table[table.origin == "extension"]
    lines = ["# Claims", ""]
    if claims is not None and len(claims):
        lines += _headline_lines(claims) + _by_claim_lines(claims)
    lines += ["## Rows: one per claim and experiment", "", f"**The papers' claim rows: {_counts(papers)}.**"]
    if len(extensions):
        lines.append(f"The project's own checks (the papers' analyses on tasks or models they did not use; not "
                     f"counted above): {_counts(extensions)}.")
    lines += ["", VERDICT_RULES, ""]
    for paper, rows in table.groupby("paper", sort=False):
        lines += [f"### {PAPERS.get(paper, paper)}", "",
                  "| claim | the paper says | how we read it | experiment | tested on | model check | paper "
                  "| ours (95% interval) | n | verdict | on the claimed side | vs paper | original | figure |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows.itertuples():
            fig = f"[{Path(r.figure).name}]({r.figure})" if isinstance(r.figure, str) and r.figure else ""
            tag = " (extension)" if r.origin == "extension" else ""
            diverged = f", {int(r.diverged)} diverged counted" if r.diverged else ""
            shared = "" if r.independent else "; not independent"
            margin = f" ({_cell(r.margin)})" if isinstance(r.margin, str) and r.margin else ""
            note = f": {_cell(r.note)}" if isinstance(r.note, str) and r.note else ""
            side = r.claimed_side if isinstance(r.claimed_side, str) else ""
            lines.append(
                f"| **{r.claim_id}**{tag}, {_cell(r.section)} | {_cell(r.quote)} | {_cell(r.reading)}; "
                f"`{_cell(r.rule)}` in {r.range}, threshold from {r.threshold_from}{margin} | {r.experiment} "
                f"| {_cell(r.tested_on)} | {_cell(r.model_check)} | {_fmt(r.reference_value)} | {_ours(r)} "
                f"| {r.n} ({_cell(r.samples)}{shared}{diverged}) | {r.verdict}{note} | {side} "
                f"| {r.size_vs_paper} | {_cell(r.original) if isinstance(r.original, str) else ''} | {fig} |")
        lines.append("")
    if models is not None and len(models):
        lines += ["## Trained models on their test split", "",
                  "Greedy decoding; mean (95% interval over seeds, Student-t on the logit scale of the measure's "
                  "range, so inside it). BLEU: sacrebleu corpus BLEU on "
                  "space-joined words; BLEU from the source: that BLEU minus the best of 19 scorings of the same "
                  "outputs against other sentences' references (what an output blind to its source keeps).", "",
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
