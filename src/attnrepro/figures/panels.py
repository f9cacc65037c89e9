"""Which analysis tables each figure of Aitken et al. 2021 reads, and from which experiments (the roles of its
config block ``figures.aitken2021.<block>``). Light on imports: the Snakefile reads it to wire the figure rules.

A role names one experiment (``aed: aed_gru_one_to_one``) or a list of them (``shares: [...]``); the figure reads
``results/analysis/<experiment>/<table>`` for each of its tables, and the task's test split where ``data`` is set
(the data set's own input/output lengths, Fig. 5b).
"""

from __future__ import annotations

from dataclasses import dataclass

COMPONENTS = ("temporal.parquet", "input.parquet", "input_delta.parquet", "readout.parquet")


@dataclass(frozen=True)
class Panel:
    block: str                    # key under figures.aitken2021
    roles: tuple[str, ...]        # roles of that block the panel draws
    tables: tuple[str, ...]       # files of results/analysis/<experiment>/ it reads
    data: bool = False            # also the experiment's test split
    caption: str = ""


PANELS: dict[str, Panel] = {
    "fig2a": Panel("fig2", ("aed",), ("temporal.parquet",), caption="AED, one-to-one: temporal components"),
    "fig2b": Panel("fig2", ("aed",), COMPONENTS, caption="AED, one-to-one: input-delta components and readouts"),
    "fig2c": Panel("fig2", ("ao",), ("temporal.parquet",), caption="AO, one-to-one: temporal components"),
    "fig2d": Panel("fig2", ("ao",), COMPONENTS, caption="AO, one-to-one: input-delta components and readouts"),
    "fig2e": Panel("fig2", ("ved",), ("temporal.parquet",), caption="VED, one-to-one: temporal components"),
    "fig2f": Panel("fig2", ("ved",), COMPONENTS, caption="VED, one-to-one: input-delta components and readouts"),
    "fig2g": Panel("fig2", ("reversed",), ("temporal.parquet",), caption="reversed one-to-one: temporal components"),
    "fig2h": Panel("fig2", ("sort",), ("maps.parquet",), caption="sort: attention from the full states and parts"),
    "fig3": Panel("fig3", ("aed", "ao"), ("maps.parquet", *COMPONENTS), caption="AED and AO on eSCAN"),
    "fig4": Panel("fig4", ("ao",), ("maps.parquet", "temporal.parquet", "readout_alignment.parquet",
                                    "word_variance.parquet"), caption="AO on English→French"),
    "fig5a": Panel("fig5", ("shares",), ("summary.csv",), caption="top-alignment breakdown per task/architecture"),
    "fig5b": Panel("fig5", ("offsets",), ("temporal.parquet",), data=True, caption="μ^D·μ^E against offset"),
    "fig5c": Panel("fig5", ("variance",), ("word_variance.parquet",), caption="word variance without μ_t"),
    "fig5d": Panel("fig5", ("readout",), ("readout_alignment.parquet",), caption="χ^E · readouts on eSCAN"),
    "fig6": Panel("fig6", ("aed", "ao"), ("input_delta.parquet", "input.parquet", "offsets.parquet"),
                  caption="off-diagonal attention on eSCAN"),
    "bottleneck": Panel("bottleneck", ("ved", "ved_reversed", "aed"), ("accuracy.parquet",),
                        caption="accuracy against input length"),
}

ROLES: dict[str, tuple[str, ...]] = {}
for _panel in PANELS.values():
    ROLES[_panel.block] = tuple(dict.fromkeys(ROLES.get(_panel.block, ()) + _panel.roles))
LIST_ROLES = {"shares", "offsets", "variance"}


def panels_of(figures: dict) -> list[str]:
    """The panels a config's ``figures.aitken2021`` block asks for."""
    return [name for name, p in PANELS.items() if p.block in figures]


def experiments_of(figures: dict, name: str) -> dict[str, list[str]]:
    """Role -> experiments for panel ``name``."""
    block = figures[PANELS[name].block]
    return {r: ([block[r]] if isinstance(block[r], str) else list(block[r])) for r in PANELS[name].roles}
