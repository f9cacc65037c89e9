"""HTML pages of tables for ``snakemake --report``, which shows an HTML result in a frame but a CSV as nothing.

Generic over columns, so that a table gaining a column shows it without a change here: a column ``X_sd`` beside
``X`` is shown as "X ± sd", a pair ``X_low``/``X_high`` as one interval column ``X``; a ``verdict`` column is
coloured by value and counted in each section's summary line.
"""

from __future__ import annotations

import html
import math
import re

import pandas as pd

STYLE = """
body { font: 13px/1.4 system-ui, sans-serif; margin: 1em; color: #1e293b; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #cbd5e1; padding: 3px 6px; vertical-align: top; text-align: left; }
th { background: #f1f5f9; position: sticky; top: 0; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.long { min-width: 24em; max-width: 48em; }
.verdict-reproduced { background: #dcfce7; }
.verdict-not-reproduced { background: #fee2e2; }
.verdict-inconclusive, [class^="verdict-undecidable"] { background: #fef9c3; }
.verdict-not-tested { background: #e2e8f0; }
p.summary { font-weight: 600; }
"""


def _number(x) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.3g}" if isinstance(x, float) else str(x)


def display_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame as display strings, ``X``/``X_sd`` merged into "X ± sd" and ``X_low``/``X_high`` into "lo – hi"."""
    out = {}
    cols = list(frame.columns)
    for col in cols:
        if col.endswith("_sd") and col[:-3] in cols:
            continue
        if col.endswith("_high") and col[:-5] + "_low" in cols:
            continue
        if col.endswith("_low") and col[:-4] + "_high" in cols:
            high = frame[col[:-4] + "_high"]
            out[col[:-4]] = [f"{_number(lo)} – {_number(hi)}" if _number(lo) else ""
                             for lo, hi in zip(frame[col], high)]
        elif col + "_sd" in cols:
            out[f"{col} ± sd"] = [f"{_number(v)} ± {_number(sd)}" if _number(sd) else _number(v)
                                  for v, sd in zip(frame[col], frame[col + "_sd"])]
        else:
            out[col] = [_number(v) for v in frame[col]]
    return pd.DataFrame(out, index=frame.index)


def table_html(frame: pd.DataFrame) -> str:
    """One ``<table>`` of the frame (display_columns), numbers right-aligned, verdicts coloured."""
    shown = display_columns(frame)
    numeric = {c for c in shown if all(re.fullmatch(r"[-+0-9.e ±–]*", v or "") for v in shown[c])}
    head = "".join(f"<th>{html.escape(c)}</th>" for c in shown)
    rows = []
    for _, row in shown.iterrows():
        cells = []
        for col, value in row.items():
            cls = "num" if col in numeric else ("long" if len(value) > 80 else "")
            if col == "verdict":
                cls = "verdict-" + re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")
            cells.append(f'<td class="{cls}">{html.escape(value)}</td>' if cls else f"<td>{html.escape(value)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def verdict_summary(frame: pd.DataFrame) -> str:
    """"k of n rows reproduced (...)": how many rows have each verdict, most frequent first."""
    if "verdict" not in frame:
        return ""
    counts = frame.verdict.fillna("no verdict").value_counts()
    parts = ", ".join(f"{n} {verdict}" for verdict, n in counts.items())
    return f"{len(frame)} rows: {parts}"


def page(title: str, sections: list[tuple[str, pd.DataFrame]], note: str = "") -> str:
    """A whole HTML page: a title, a note, and per section a heading, its verdict summary and its table."""
    body = [f"<h1>{html.escape(title)}</h1>"] + ([f"<p>{html.escape(note)}</p>"] if note else [])
    for heading, frame in sections:
        if heading:
            body.append(f"<h2>{html.escape(heading)}</h2>")
        summary = verdict_summary(frame)
        if summary:
            body.append(f'<p class="summary">{html.escape(summary)}</p>')
        body.append(table_html(frame))
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>"
            f"<body>{''.join(body)}</body></html>\n")


def sections(frame: pd.DataFrame, by: str | None, headings: dict[str, str] | None = None):
    """The frame split by the values of column ``by`` (in order of appearance), that column dropped."""
    if by is None:
        return [("", frame)]
    headings = headings or {}
    return [(headings.get(key, str(key)), part.drop(columns=by))
            for key, part in frame.groupby(by, sort=False, dropna=False)]
