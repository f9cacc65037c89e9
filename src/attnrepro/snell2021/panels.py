"""The registry of Snell et al. 2021's figures and tables: per name, the analyses it reads (a function of the
figure spec, :func:`.config.figure_spec`) and the function that draws it (:mod:`.figures`, ``(figure, data)``).
Light on imports: the Snakefile reads it to wire the figure rules. Adding a figure: a function in
:mod:`.figures`, one line here, one caption in workflow/report/ (docs/architecture.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

COPY_SETS = ("same", "subset", "mixture")


@dataclass(frozen=True)
class Figure:
    analyses: Callable                  # figure spec -> the analyses (results/analysis/snell2021/<name>/) it reads
    draw: Callable = field(repr=False)  # (read, spec) -> (figure, data); read(analysis, file) -> DataFrame
    table: bool = False                 # drawn from the Table 2 analyses (its own rules; also an HTML page)


def _f():
    from . import figures  # matplotlib only when a figure is drawn: the Snakefile reads FIGURES at every start

    return figures


def _fig3(read, spec):
    curves = {k: read(f"copy_{k}", "curves.parquet") for k in COPY_SETS}
    uniform = {k: read(f"copy_{k}_uniform", "curves.parquet") for k in COPY_SETS if k in spec["uniform"]}
    return _f().fig3(curves["same"], curves["subset"], curves["mixture"], uniform, spec["labels"], spec["fail_below"])


def _copy_analyses(spec) -> list[str]:
    return ["copy_same", "copy_subset", "copy_mixture", "copy_permute"] + [f"copy_{k}_uniform" for k in spec["uniform"]]


def _fig3_failures(read, spec):
    import pandas as pd

    failures = pd.concat([read(a, "failures.csv") for a in _copy_analyses(spec)], ignore_index=True)
    return _f().fig3_failures(failures, spec["labels"], spec.get("judge_step"))


def _fig6(read, spec):
    import pandas as pd

    summary = pd.concat([read("multihead", f"summary_{c}.csv") for c in ("all_bad", "one_good", "random")])
    return _f().fig6(read("multihead", "curves.parquet"), summary, read("multihead", "candidates.parquet"),
                     spec["fail_below"], spec.get("multihead_judge_step"))


def table2_rows(spec) -> dict[str, str]:
    """Table 2's rows, label -> analysis: copy, each classification set, each translation set."""
    labels = spec["labels"]
    return {labels["table2"]: "table2", **{labels.get(n, n): f"cls_{n}" for n in spec["classification"]},
            **{labels.get(n, n): f"mt_{n}" for n in spec["translation"]}}


def _table2(read, spec):
    frame = _f().table2_frame({label: read(a, "summary.csv") for label, a in table2_rows(spec).items()},
                              spec["references"])
    return _f().table2(frame), frame


def _fig2(read, spec):
    rows = table2_rows(spec)
    frame = _f().fig2_frame({label: read(a, "xi_curves.csv") for label, a in rows.items()},
                            {label: read(a, "summary.csv") for label, a in rows.items()})
    return _f().fig2(frame), frame


def _table10(read, spec):
    labels = spec["labels"]
    frame = _f().table10_frame({labels.get(n, n): read(f"cls_{n}", "summary.csv") for n in spec["classification"]})
    return _f().table10(frame), frame


FIGURES: dict[str, Figure] = {
    "fig3": Figure(lambda s: [f"copy_{k}" for k in COPY_SETS] + [f"copy_{k}_uniform" for k in COPY_SETS
                                                                   if k in s["uniform"]], _fig3),
    "fig3_failures": Figure(_copy_analyses, _fig3_failures),
    "sec6_2": Figure(lambda s: ["copy_subset", "copy_permute"],
                     lambda read, s: _f().sec6_2(read("copy_subset", "curves.parquet"),
                                                 read("copy_permute", "curves.parquet"), s["labels"], s["fail_below"])),
    "fig4": Figure(lambda s: ["counts"], lambda read, s: _f().fig4(read("counts", "tables.parquet"), s["labels"])),
    "fig6": Figure(lambda s: ["multihead"], _fig6),
    "fig7": Figure(lambda s: ["keyword"], lambda read, s: _f().fig7(read("keyword", "curves.parquet"))),
    "fig2": Figure(lambda s: list(table2_rows(s).values()), _fig2, table=True),
    "table2": Figure(lambda s: list(table2_rows(s).values()), _table2, table=True),
    "table10": Figure(lambda s: [f"cls_{n}" for n in s["classification"]], _table10, table=True),
}
