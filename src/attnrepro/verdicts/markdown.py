"""``results/claims.md``: the claims table as a person reads it — first one verdict per paper claim, then per
paper the paper's sentence, our measure, our number with its interval, the verdict and what it rests on — then the
test-split quality of every trained model."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from .claims import MODEL_MEASURES, PAPERS, SETUPS
from .intervals import NOT_REPRODUCED, REPRODUCED, VERDICTS, clopper_pearson, rank_depth

VERDICT_RULES = """\
How to read a verdict. Each claim reads one number per replicate (a training seed; a fold of the text for the
pretrained encoder: the *samples* column says which) and gets a 95% interval that stays inside the measure's range:
for a continuous measure the distribution-free interval of the median from order statistics (the range itself below
6 replicates, where no order statistic reaches 95%), Clopper–Pearson for a 0/1 outcome per run, Fisher's exact test
for a task's outcomes against its control's. *reproduced*: the whole interval is on the claimed side of the
threshold; *not reproduced*: wholly on the other side; *not tested*: the experiment's model failed its model check
(the row says which, and how far); *undecidable at this n*: no result this many replicates can give would decide;
else *inconclusive*. An undecided row says how many replicates would decide it with 80% power if the replicates
fell as these did, and which way. *fragile*: leaving out one replicate moves the verdict. *threshold from*: a
reading of the paper's words (stated), the paper's own number (paper), or a margin around it (margin). *vs paper*
says whether the paper's own number lies in our interval, only where the data are the paper's."""


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
    fragile = int(rows.fragile.astype(bool).sum()) if "fragile" in rows else 0
    return (f"{int(counts.get(VERDICTS[0], 0))} of {len(rows)} reproduced ({', '.join(parts)}; "
            f"{fragile} fragile)")


def _decide(r) -> str:
    n = _fmt(r.replicates_to_decide)
    return f"{n} → {r.would_decide}" if isinstance(r.would_decide, str) and r.would_decide else n


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


def _by_claim_lines(claims: pd.DataFrame) -> list[str]:
    papers = claims[claims.origin == "paper"]
    parts = [f"{setup}: {_counts(papers[papers.setup == setup])}" if setup != "not tested"
             else f"not tested: {int((papers.setup == setup).sum())}" for setup in SETUPS]
    lines = ["## One verdict per claim", "",
             f"**The papers' claims: {len(papers)} — " + "; ".join(parts) + ".**", "",
             "A claim's rows (its experiments, and the rows a sentence such as \"in both the AED and AO networks\" "
             "joins) combined as the sentence says: *all* — reproduced only if every row is, not reproduced if any "
             "tested row is not; *any* — reproduced if some row is. *paper setup*: every row on the paper's model, "
             "task and data; *substitutes*: some row stands in for them (tested on).", "",
             "| paper | claim | combine | experiments | tested on | verdict | fragile |", "|---|---|---|---|---|---|---|"]
    for r in claims.itertuples():
        tag = " (extension)" if r.origin == "extension" else ""
        lines.append(f"| {r.paper} | **{r.group}**{tag} | {r.combine} | {_cell(r.experiments)} | {_cell(r.tested_on)} "
                     f"| {r.verdict} | {'fragile' if r.fragile else ''} |")
    return lines + [""]


def to_markdown(table: pd.DataFrame, models: pd.DataFrame | None = None, missing: pd.DataFrame | None = None,
                references: dict[str, pd.DataFrame] | None = None, claims: pd.DataFrame | None = None) -> str:
    papers = table[table.origin == "paper"]
    extensions = table[table.origin == "extension"]
    lines = ["# Claims", ""]
    if claims is not None and len(claims):
        lines += _by_claim_lines(claims)
    lines += ["## Rows: one per claim and experiment", "", f"**The papers' claim rows: {_counts(papers)}.**"]
    if len(extensions):
        lines.append(f"The project's own checks (the papers' analyses on tasks or models they did not use; not "
                     f"counted above): {_counts(extensions)}.")
    lines += ["", VERDICT_RULES, ""]
    for paper, rows in table.groupby("paper", sort=False):
        lines += [f"### {PAPERS.get(paper, paper)}", "",
                  "| claim | the paper says | how we read it | experiment | tested on | model check | paper "
                  "| ours (95% interval) | n | verdict | fragile | n to decide (80% power) | vs paper | original "
                  "| figure |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows.itertuples():
            fig = f"[{Path(r.figure).name}]({r.figure})" if isinstance(r.figure, str) and r.figure else ""
            tag = " (extension)" if r.origin == "extension" else ""
            diverged = f", {int(r.diverged)} diverged counted" if r.diverged else ""
            lines.append(
                f"| **{r.claim_id}**{tag}, {_cell(r.section)} | {_cell(r.quote)} | {_cell(r.reading)}; "
                f"`{_cell(r.rule)}` in {r.range}, threshold from {r.threshold_from} | {r.experiment} "
                f"| {_cell(r.tested_on)} | {_cell(r.model_check)} | {_fmt(r.reference_value)} | {_ours(r)} "
                f"| {r.n} ({_cell(r.samples)}{diverged}) | {r.verdict} | {'fragile' if r.fragile else ''} "
                f"| {_decide(r)} | {r.size_vs_paper} | {_cell(r.original) if isinstance(r.original, str) else ''} | {fig} |")
        lines.append("")
    if models is not None and len(models):
        lines += ["## Trained models on their test split", "",
                  "Greedy decoding; mean (95% interval over seeds, Student-t on the logit scale of the measure's "
                  "range, so inside it). BLEU: sacrebleu corpus BLEU on "
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
