"""The verdicts of two claims tables side by side: one line per (claim, experiment) whose verdict changed, appeared
or disappeared, with the mechanical reason (the rule, the interval kind, the measure, the number) and, where given,
the reason a person wrote down for it.

    python tools/claims_diff.py OLD.md NEW.csv --notes NOTES.yaml --out tools/results/claims_diff.md

``OLD.md`` is a ``claims.md`` of the older format (rows ``| **id**: … | experiment | … | verdict | rule |``)
or a ``claims.csv``; ``NOTES.yaml`` maps ``claim_id`` or ``claim_id/experiment`` to one sentence.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from attnrepro.verdicts.intervals import NOT_TESTED, UNDECIDABLE, rank_depth

ROW = re.compile(r"^\| \*\*(?P<claim>[\w]+)\*\*[^|]*(?:\\\|[^|]*)*\| (?P<experiment>[\w@]+) \| (?P<paper>[^|]*) \| "
                 r"(?P<ours>[^|]*) \| (?P<n>\d+) \| (?P<verdict>[\w ]+) \| `(?P<rule>[^`]*)` \|")


def read_old(path: Path) -> pd.DataFrame:
    if path.suffix == ".csv":
        df = pd.read_csv(path)
        keep = ["claim_id", "experiment", "verdict", "rule", "measured_mean", "n", "interval"]
        return df.rename(columns={"n_seeds": "n"}).reindex(columns=keep)
    rows = []
    for line in path.read_text().splitlines():
        m = ROW.match(line)
        if m:
            mean = m["ours"].split(" ")[0]
            rows.append({"claim_id": m["claim"], "experiment": m["experiment"], "verdict": m["verdict"].strip(),
                         "rule": m["rule"], "measured_mean": float(mean) if mean not in ("–", "") else float("nan"),
                         "n": int(m["n"])})
    return pd.DataFrame(rows)


INTERVALS = {"t": "Student-t interval of the mean", "sign": "sign test",
             "rank": "order-statistic interval of the median, inside the measure's range",
             "clopper-pearson": "Clopper–Pearson interval of a rate",
             "fisher": "Fisher's exact test against the control"}


def reason(old, new) -> str:
    """What changed between two rows of one (claim, experiment), mechanically: the rule, the interval family, the
    replicates, the number, the model check."""
    if old is None:
        return "new row: " + (new.reading if isinstance(new.reading, str) else "a claim added since")
    if new is None:
        return "row removed"
    parts = []
    if old.rule != new.rule:
        parts.append(f"rule was `{old.rule}`, now `{new.rule}`")
    if isinstance(old.get("interval"), str) and old["interval"] != new.interval:
        parts.append(f"interval: {INTERVALS.get(old['interval'], old['interval'])} → "
                     f"{INTERVALS.get(new.interval, new.interval)}")
    if old.n != new.n:
        parts.append(f"{old.n} → {new.n} replicates")
    if not np.isclose(old.measured_mean, new.measured_mean, rtol=0, atol=1e-9, equal_nan=True):
        parts.append(f"measured {old.measured_mean:.3g} → {new.measured_mean:.3g}")
    if isinstance(getattr(new, "model_check", None), str) and new.model_check.startswith("failed"):
        parts.append(f"model check {new.model_check}")
    return "; ".join(parts) or "same number, same rule"


def cause(new) -> str:
    """The reason a verdict moved when today's rules alone explain it: a failed model check, or too few replicates
    for the rank interval to exclude anything."""
    if new.verdict == NOT_TESTED:
        return f"the model failed its check ({new.model_check}); no verdict rests on it"
    if new.verdict == UNDECIDABLE and new.interval == "rank" and rank_depth(int(new.n)) == 0:
        return (f"at {int(new.n)} replicates no order statistic of the median reaches 95% (6 is the fewest), so the "
                "interval is the measure's whole range whatever the values")
    return ""


def diff(old: pd.DataFrame, new: pd.DataFrame, notes: dict) -> list[str]:
    key = ["claim_id", "experiment"]
    merged = old.merge(new, on=key, how="outer", suffixes=("_old", ""), indicator="side")
    lines = []
    for r in merged.itertuples():
        o = None if r.side == "right_only" else pd.Series(
            {"rule": r.rule_old, "measured_mean": r.measured_mean_old, "n": r.n_old,
             "interval": getattr(r, "interval_old", None)})
        n = None if r.side == "left_only" else r
        before = r.verdict_old if o is not None else "(no row)"
        after = r.verdict if n is not None else "(no row)"
        if before == after:
            continue
        written = notes.get(f"{r.claim_id}/{r.experiment}") or notes.get(r.claim_id) or ""
        note = " ".join(x for x in (written, cause(n) if n is not None else "") if x)
        mech = reason(o, n)
        lines.append(f"- **{r.claim_id}** ({r.experiment}): {before} → {after}. {mech}." + (f" Why: {note}" if note else ""))
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--notes", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    notes = yaml.safe_load(args.notes.read_text()) if args.notes else {}
    old, new = read_old(args.old), pd.read_csv(args.new)
    lines = diff(old, new, notes or {})
    header = [f"# Verdicts: {args.old.name} → {args.new.name}", "",
              f"{len(lines)} (claim, experiment) rows changed verdict, appeared or disappeared.", ""]
    args.out.write_text("\n".join(header + lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
