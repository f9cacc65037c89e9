"""Snell et al. 2021's figures and tables, as entries of the figure registry (:mod:`attnrepro.figures.registry`):
per name, the analyses it reads (:class:`Reads`, from the figure spec, :func:`.config.figure_spec`), the function
that draws it (:mod:`.figures`, ``(read, spec) -> (figure, data)``) and its caption. Light on imports: the Snakefile reads it to wire the figure rule. Adding a
figure: a function in :mod:`.figures` and one entry here (docs/architecture.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..figures.registry import Figure, declare, need

COPY_SETS = ("same", "subset", "mixture")
TABLE_FILES = ("summary.csv", "xi_curves.csv")  # what Table 2, Table 10 and Fig. 2 read of each Table 2 analysis


@dataclass(frozen=True)
class Reads:
    """What a figure reads: ``analyses(spec)``, the analyses under ``results/analysis/snell2021/`` (none: the
    config draws no such figure), and of each the ``files`` (none named: every file its kind writes,
    :data:`.config.ANALYSIS_OUTPUTS`)."""
    analyses: Callable
    files: tuple[str, ...] = ()


def read(figure: Figure, inputs: dict) -> tuple:
    """``(read, spec)`` from the figure rule's ``{"spec": the figure spec, "analysis_dir": where the analyses
    wrote}``; ``read(analysis, file)`` is the DataFrame of one analysis file."""
    from ..io import read_csv_checked, read_parquet

    need(figure, inputs, "spec")
    d = Path(inputs.get("analysis_dir", "results/analysis/snell2021"))

    def table(analysis: str, file: str):
        path = d / analysis / file
        return read_parquet(path) if file.endswith(".parquet") else read_csv_checked(path)

    return table, inputs["spec"]


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


def _figure(name: str, reads: Reads, draw, caption: str) -> Figure:
    return Figure(name, "snell2021", reads, read, draw, caption)


def _table2_analyses(spec) -> list[str]:
    return list(table2_rows(spec).values())


TABLE2 = Reads(_table2_analyses, TABLE_FILES)
# Table 10 reads what Table 2 reads (drawn beside it, from the same jobs), where there are classification sets
TABLE10 = Reads(lambda s: _table2_analyses(s) if s["classification"] else [], TABLE_FILES)


FIGURES: dict[str, Figure] = declare(
    _figure("fig3", Reads(lambda s: [f"copy_{k}" for k in COPY_SETS] + [f"copy_{k}_uniform" for k in COPY_SETS
                                                                          if k in s["uniform"]]), _fig3,
            "Fig. 3 — token accuracy of every seed when copying permutations of one word set (red) vs subsets of a "
            "larger vocabulary (blue), the mixture of two disjoint sets (right), frozen uniform attention dashed."),
    _figure("fig3_failures", Reads(_copy_analyses), _fig3_failures,
            "Fig. 3 failures — the fraction of seeds below the failure threshold at every evaluation, per copy run, "
            "with its 95% Clopper–Pearson band (dotted: where the runs are judged)."),
    _figure("sec6_2", Reads(lambda s: ["copy_subset", "copy_permute"]),
            lambda read, s: _f().sec6_2(read("copy_subset", "curves.parquet"), read("copy_permute", "curves.parquet"),
                                        s["labels"], s["fail_below"]),
            "§6.2 — copying vs a fixed permutation function."),
    _figure("fig4", Reads(lambda s: ["counts"]),
            lambda read, s: _f().fig4(read("counts", "tables.parquet"), s["labels"]),
            "Fig. 4 — the count table C (Eq. 16) normalised to Trans (Eq. 17) and IBM Model 1 after EM, per "
            "distribution."),
    _figure("fig6", Reads(lambda s: ["multihead"]), _fig6,
            "Fig. 6 — 8-head models whose heads were rejection-sampled as all bad, one good, or random."),
    _figure("fig7", Reads(lambda s: ["keyword"]), lambda read, s: _f().fig7(read("keyword", "curves.parquet")),
            "Fig. 7 — γ at the keyword, after it, its mean and at the last position, under uniform attention "
            "(§6.1)."),
    _figure("fig2", TABLE2, _fig2,
            "Fig. 2 — the contextualised agreement ξ (Eq. 11) read off, for every row of Table 2 (copy task, "
            "classification sets, translation sets). Top: the agreement A(α, α̂(τ)) of the reference run's attention "
            "α (at its best checkpoint) with a second run's attention at its checkpoints τ, against the levels "
            "A(α, β_uf) and A(α, β) of the same seed (dashed); τ₀ (dotted) is the first checkpoint that agrees more. "
            "Bottom: the second run's performance p̂(τ) (token accuracy, or classification accuracy); "
            "ξ(u, v) = p̂(τ₀) is marked. The first seed pair is bold, the others thin; no mark means ξ is undefined "
            "(no checkpoint agrees more). The numbers are in fig2.csv (percentages)."),
    _figure("table2", TABLE2, _table2,
            "Table 2 — agreement A (Eq. 10) and contextualised agreement ξ (Eq. 11) of attention α with the lexical "
            "probe β, the frozen-uniform attention β^uf and the proxy, per task. Each number is the mean ± standard "
            "deviation over the row's seeds (``n_seeds``); the same numbers are in table2.csv and drawn in its PNG."),
    _figure("table10", TABLE10, _table10,
            "Table 10 — attention trained with β frozen vs β^uf (App. A.6). Each number is the mean ± standard "
            "deviation over the row's seeds (``n_seeds``); the same numbers are in table10.csv and drawn in its "
            "PNG."),
)
