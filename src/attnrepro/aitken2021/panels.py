"""The registry of Aitken et al. 2021's figures: per panel, the config block and roles it draws, the analysis
tables it reads (``results/analysis/<experiment>/<table>``), and the function that draws it. Light on imports:
the Snakefile reads it to wire the figure rules; matplotlib loads only when a panel is drawn.

A role names one experiment (``aed: aed_gru_one_to_one``) or a list of them (``shares: [...]``); the figure reads
each of its tables for each experiment of its roles, and the task's test split where ``data`` is set (the data
set's own input/output lengths, Fig. 5b). Adding a figure: a function in :mod:`.figures` that returns
``(figure, data)``, one line here, one caption in workflow/report/ (docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

COMPONENTS = ("temporal.parquet", "input.parquet", "input_delta.parquet", "readout.parquet")
BOTTLENECK_LABELS = {"ved": "VED", "ved_reversed": "VED, source reversed", "aed": "AED"}


@dataclass(frozen=True)
class PanelInputs:
    """What a panel's drawing function gets, already read by the command line: experiment -> table file -> rows
    (of ``seed`` only, where the panel draws one seed), and the test split of each experiment where it asks."""
    roles: dict[str, list[str]]
    tables: dict[str, dict]
    meta: dict[str, dict]
    seed: int
    tests: dict[str, object] = field(default_factory=dict)

    def of(self, role: str) -> dict:
        """The tables of the role's (first) experiment."""
        return self.tables[self.roles[role][0]]

    def each(self, role: str, table: str) -> dict:
        """One table of every experiment of a list role."""
        return {name: self.tables[name][table] for name in self.roles[role]}

    def title(self, role: str) -> str:
        return f"{self.roles[role][0]}, seed {self.seed}"


@dataclass(frozen=True)
class Panel:
    block: str                    # key under figures.aitken2021
    roles: tuple[str, ...]        # roles of that block the panel draws
    tables: tuple[str, ...]       # files of results/analysis/<experiment>/ it reads
    draw: Callable = field(repr=False)  # PanelInputs -> (figure, data)
    data: bool = False            # also the experiment's test split
    one_seed: bool = True         # rows of the drawn seed only (False: every seed, for error bars)
    caption: str = ""


def _f():
    from . import figures  # matplotlib only when a panel is drawn: the Snakefile reads PANELS at every start

    return figures


def _fc():
    from . import figures_context

    return figures_context


PANELS: dict[str, Panel] = {
    "fig2a": Panel("fig2", ("aed",), ("temporal.parquet",), lambda p: _f().temporal_figure(p.of("aed"), p.title("aed")),
                   caption="AED, one-to-one: temporal components"),
    "fig2b": Panel("fig2", ("aed",), COMPONENTS, lambda p: _f().input_figure(p.of("aed"), p.title("aed"), p.seed),
                   caption="AED, one-to-one: input-delta components and readouts"),
    "fig2c": Panel("fig2", ("ao",), ("temporal.parquet",), lambda p: _f().temporal_figure(p.of("ao"), p.title("ao")),
                   caption="AO, one-to-one: temporal components"),
    "fig2d": Panel("fig2", ("ao",), COMPONENTS, lambda p: _f().input_figure(p.of("ao"), p.title("ao"), p.seed),
                   caption="AO, one-to-one: input-delta components and readouts"),
    "fig2e": Panel("fig2", ("ved",), ("temporal.parquet",),
                   lambda p: _f().temporal_figure(p.of("ved"), p.title("ved"), inset=False),
                   caption="VED, one-to-one: temporal components"),
    "fig2f": Panel("fig2", ("ved",), COMPONENTS, lambda p: _f().input_figure(p.of("ved"), p.title("ved"), p.seed),
                   caption="VED, one-to-one: input-delta components and readouts"),
    "fig2g": Panel("fig2", ("reversed",), ("temporal.parquet",),
                   lambda p: _f().temporal_figure(p.of("reversed"), p.title("reversed")),
                   caption="reversed one-to-one: temporal components"),
    "fig2h": Panel("fig2", ("sort",), ("maps.parquet",), lambda p: _f().fig2h(p.of("sort"), p.title("sort")),
                   caption="sort: attention from the full states and parts"),
    "fig3": Panel("fig3", ("aed", "ao"), ("maps.parquet", *COMPONENTS),
                  lambda p: _f().fig3({r: p.of(r) for r in ("aed", "ao")}, f"eSCAN, seed {p.seed}", seed=p.seed),
                  caption="AED and AO on eSCAN"),
    "fig4": Panel("fig4", ("ao",), ("maps.parquet", "temporal.parquet", "readout_alignment.parquet",
                                    "word_variance.parquet"), lambda p: _f().fig4(p.of("ao"), p.title("ao")),
                  caption="AO on English→French"),
    "fig5a": Panel("fig5", ("shares",), ("summary.csv",), lambda p: _f().fig5a(p.each("shares", "summary.csv"), p.meta),
                   one_seed=False, caption="top-alignment breakdown per task/architecture"),
    "fig5b": Panel("fig5", ("offsets",), ("temporal.parquet",),
                   lambda p: _f().fig5b(p.each("offsets", "temporal.parquet"), p.tests, p.meta), data=True,
                   caption="μ^D·μ^E against offset"),
    "fig5c": Panel("fig5", ("variance",), ("word_variance.parquet",),
                   lambda p: _f().fig5c(p.each("variance", "word_variance.parquet"), p.meta), one_seed=False,
                   caption="word variance without μ_t"),
    "fig5d": Panel("fig5", ("readout",), ("readout_alignment.parquet",),
                   lambda p: _f().fig5d(p.of("readout")["readout_alignment.parquet"], f"Fig. 5d: {p.title('readout')}"),
                   caption="χ^E · readouts on eSCAN"),
    "fig6": Panel("fig6", ("aed", "ao"), ("input_delta.parquet", "input.parquet", "offsets.parquet"),
                  lambda p: _f().fig6({r: p.of(r) for r in ("aed", "ao")}, f"eSCAN, seed {p.seed}", seed=p.seed),
                  caption="off-diagonal attention on eSCAN"),
    "fig6a": Panel("fig6", ("aed", "ao"), ("input_delta.parquet", "input.parquet"),
                   lambda p: _fc().fig6a({r: p.of(r) for r in ("aed", "ao")}, {r: p.roles[r][0] for r in ("aed", "ao")},
                                         f"Fig. 6a: 'twice' by the preceding word, eSCAN, seed {p.seed}"),
                   caption="'twice' states by the preceding word, AED beside AO"),
    "bottleneck": Panel("bottleneck", ("ved", "ved_reversed", "aed"), ("accuracy.parquet",),
                        lambda p: _f().bottleneck({r: p.of(r)["accuracy.parquet"] for r in BOTTLENECK_LABELS},
                                                  BOTTLENECK_LABELS),
                        one_seed=False, caption="accuracy against input length"),
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
