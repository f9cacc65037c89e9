"""Aitken et al. 2021's figures, as entries of the figure registry (:mod:`attnrepro.figures.registry`): per panel,
what it reads (:class:`Reads`: the config block and roles it draws, the analysis tables
``results/analysis/<experiment>/<table>``), the function that draws it, and its caption. Light on imports: the
Snakefile reads it to wire the figure rule; matplotlib loads only when a panel is drawn.

A role names one experiment (``aed: aed_gru_one_to_one``) or a list of them (``shares: [...]``); the figure reads
each of its tables for each experiment of its roles, and the task's test split where ``data`` is set (the data
set's own input/output lengths, Fig. 5b). Adding a figure: a function in :mod:`.figures` (or the module of its
kind beside it) that returns ``(figure, data)``, and one entry here (docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import AttnReproError
from ..figures.registry import Figure, declare, need

COMPONENTS = ("temporal.parquet", "input.parquet", "input_delta.parquet", "readout.parquet")
BOTTLENECK_LABELS = {"ved": "VED", "ved_reversed": "VED, source reversed", "aed": "AED"}


@dataclass(frozen=True)
class Reads:
    """What a panel reads: the roles of the config block ``figures.aitken2021.<block>`` it draws, the files of
    ``results/analysis/<experiment>/`` it reads, the experiment's test split where ``data`` is set, and the rows of
    the drawn seed only where ``one_seed`` is set (else every seed, for error bars)."""
    block: str
    roles: tuple[str, ...]
    tables: tuple[str, ...]
    data: bool = False
    one_seed: bool = True


@dataclass(frozen=True)
class PanelInputs:
    """What a panel's drawing function gets, already read: experiment -> table file -> rows (of ``seed`` only,
    where the panel draws one seed), and the test split of each experiment where it asks."""
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


def read(figure: Figure, inputs: dict) -> tuple[PanelInputs]:
    """The panel's tables, from the figure rule's ``{"roles": ROLE -> [EXPERIMENT, ...], "meta": EXPERIMENT ->
    {analysis_dir, data_dir, task_kind, arch, cell}, "seed": SEED}``."""
    from ..io import read_csv_checked, read_parquet

    need(figure, inputs, "roles", "meta", "seed")
    reads: Reads = figure.inputs
    meta, roles, seed = inputs["meta"], inputs["roles"], inputs["seed"]
    if not isinstance(roles, dict) or not all(isinstance(ns, list) for ns in roles.values()):
        raise AttnReproError(f"--inputs-json: roles: expected an object ROLE -> [EXPERIMENT, ...], got {roles!r}")
    if not isinstance(meta, dict) or not isinstance(seed, int):
        raise AttnReproError("--inputs-json: expected meta (an object EXPERIMENT -> {...}) and seed (an integer)")
    for role, names in roles.items():
        for n in names:
            if n not in meta:
                raise AttnReproError(f"--inputs-json: experiment {n!r} of role {role!r} is not in its meta")
    missing = set(reads.roles) - set(roles)
    if missing:
        raise AttnReproError(f"figure {figure.name} needs roles {sorted(missing)} in --inputs-json")

    def table(name: str, file: str):
        path = Path(meta[name]["analysis_dir"]) / file
        df = read_csv_checked(path, ["seed"], nonempty=True) if file.endswith(".csv") else read_parquet(path)
        if reads.one_seed and "seed" in df.columns:
            if seed not in set(df.seed):
                raise AttnReproError(f"{path}: no rows of seed {seed}")
            df = df[df.seed == seed].reset_index(drop=True)
        return df

    names = list(dict.fromkeys(n for r in reads.roles for n in roles[r]))
    tests = {n: read_parquet(Path(meta[n]["data_dir"]) / "test.parquet", columns=["src", "tgt"]) for n in names} \
        if reads.data else {}
    return (PanelInputs(roles, {n: {t: table(n, t) for t in reads.tables} for n in names}, meta, seed, tests),)


def _f():
    from . import figures  # matplotlib only when a panel is drawn: the Snakefile reads FIGURES at every start

    return figures


def _fcmp():
    from . import figures_compare

    return figures_compare


def _fc():
    from . import figures_context

    return figures_context


TEMPORAL = ("Temporal components μ_t^E (encoder, orange) and μ_s^D (decoder, purple) on their two principal "
            "components; square = first step, star = last, lighter = earlier. Inset (attention models): "
            "softmax_t(μ_s^D·μ_t^E), the attention the temporal components alone give. Paper: diagonal for "
            "one-to-one (2a AED, 2c AO), anti-diagonal for the reversed task (2g); VED's clusters follow one another "
            "with μ_T^E next to μ_1^D (2e).")
INPUT = ("Input-delta components of encoder (light) and decoder (dark) coloured by word, encoder input components "
         "χ_x^E (crosses) and readout vectors acting on the context (lines), on the principal components of χ^E. "
         "Paper: encoder points cluster at their χ_x^E for AED/AO, far less for VED (2f); each readout aligns with "
         "its source word's χ^E.")


def _panel(name: str, title: str, reads: Reads, draw, caption: str) -> Figure:
    """A panel whose caption is its one-sentence ``title``, then how to read it."""
    return Figure(name, "aitken2021", reads, read, draw, f"{title} {caption}")


FIGURES: dict[str, Figure] = declare(
    _panel("fig2a", "AED, one-to-one: temporal components.",
           Reads("fig2", ("aed",), ("temporal.parquet",)),
           lambda p: _f().temporal_figure(p.of("aed"), p.title("aed")), TEMPORAL),
    _panel("fig2b", "AED, one-to-one: input-delta components and readouts.",
           Reads("fig2", ("aed",), COMPONENTS),
           lambda p: _f().input_figure(p.of("aed"), p.title("aed"), p.seed), INPUT),
    _panel("fig2c", "AO, one-to-one: temporal components.",
           Reads("fig2", ("ao",), ("temporal.parquet",)),
           lambda p: _f().temporal_figure(p.of("ao"), p.title("ao")), TEMPORAL),
    _panel("fig2d", "AO, one-to-one: input-delta components and readouts.",
           Reads("fig2", ("ao",), COMPONENTS),
           lambda p: _f().input_figure(p.of("ao"), p.title("ao"), p.seed), INPUT),
    _panel("fig2e", "VED, one-to-one: temporal components.",
           Reads("fig2", ("ved",), ("temporal.parquet",)),
           lambda p: _f().temporal_figure(p.of("ved"), p.title("ved"), inset=False), TEMPORAL),
    _panel("fig2f", "VED, one-to-one: input-delta components and readouts.",
           Reads("fig2", ("ved",), COMPONENTS),
           lambda p: _f().input_figure(p.of("ved"), p.title("ved"), p.seed), INPUT),
    _panel("fig2g", "Reversed one-to-one: temporal components.",
           Reads("fig2", ("reversed",), ("temporal.parquet",)),
           lambda p: _f().temporal_figure(p.of("reversed"), p.title("reversed")), TEMPORAL),
    _panel("fig2h", "Sort: attention from the full states and parts.",
           Reads("fig2", ("sort",), ("maps.parquet",)), lambda p: _f().fig2h(p.of("sort"), p.title("sort")),
           "Softmax_t of, clockwise from top left, h_s^D·h_t^E, μ_s^D·μ_t^E, χ_y^D·Δh_t^E and Δh_s^D·χ_x^E for "
           "one test example. Paper: μ·μ negligible, Δh^D·χ^E carries the permutation."),
    _panel("fig3", "AED and AO on eSCAN.",
           Reads("fig3", ("aed", "ao"), ("maps.parquet", *COMPONENTS)),
           lambda p: _f().fig3({r: p.of(r) for r in ("aed", "ao")}, f"eSCAN, seed {p.seed}", seed=p.seed),
           "eSCAN, AED (top) and AO (bottom): a sample attention matrix, the temporal components with their "
           "attention inset, and input-delta components with input components and readouts."),
    _panel("fig4", "AO on English→French.",
           Reads("fig4", ("ao",), ("maps.parquet", "temporal.parquet", "readout_alignment.parquet",
                                   "word_variance.parquet")),
           lambda p: _f().fig4(p.of("ao"), p.title("ao")),
           "Offline verse-aligned Bibles instead of ParaCrawl: sample attention, temporal "
           "components, and readouts of frequent French words · input components of frequent English words."),
    _panel("fig5a", "Top-alignment breakdown per task/architecture.",
           Reads("fig5", ("shares",), ("summary.csv",), one_seed=False),
           lambda p: _fcmp().fig5a(p.each("shares", "summary.csv"), p.meta),
           "Share of Σ|nine terms of Eq. 3| at each decoder step's top five alignments (averaged per step, then over "
           "steps: the authors' calculate_dot_ratios with 5) carried by μ·μ (dark), μ·χ + μ·Δh (medium) and the other "
           "six terms (light), mean over seeds with 95% CIs, colour = task. The table beside it has all nine shares "
           "and each term's map agreement."),
    _panel("fig5b", "μ^D·μ^E against offset.",
           Reads("fig5", ("offsets",), ("temporal.parquet",), data=True),
           lambda p: _fcmp().fig5b(p.each("offsets", "temporal.parquet"), p.tests, p.meta),
           "μ_s^D·μ_t^E against the offset t − s at several decoder steps s; dotted: the offset the data set's own "
           "lengths predict for that step (s·T/S − s averaged over test sequences)."),
    _panel("fig5c", "Word variance without μ_t.",
           Reads("fig5", ("variance",), ("word_variance.parquet",), one_seed=False),
           lambda p: _fcmp().fig5c(p.each("variance", "word_variance.parquet"), p.meta),
           "Per input word, the variance of h_t^E − μ_t^E over that of h_t^E among the states that read it "
           "(every seed)."),
    _panel("fig5d", "χ^E · readouts on eSCAN.",
           Reads("fig5", ("readout",), ("readout_alignment.parquet",)),
           lambda p: _fcmp().fig5d(p.of("readout")["readout_alignment.parquet"], f"Fig. 5d: {p.title('readout')}"),
           "χ_x^E · readout for every input word and output word (AO on eSCAN). Paper: each action's readout is "
           "largest for its own command word; 'and' and 'twice' are nobody's maximum."),
    _panel("fig6", "Off-diagonal attention on eSCAN.",
           Reads("fig6", ("aed", "ao"), ("input_delta.parquet", "input.parquet", "offsets.parquet")),
           lambda p: _fc().fig6({r: p.of(r) for r in ("aed", "ao")}, f"eSCAN, seed {p.seed}", seed=p.seed),
           "eSCAN: (a) AED input-delta components of 'twice' coloured by the preceding word; (b) AO alignment a_st "
           "and its parts around t = s when 'twice' is at t = s; (c) μ_s^D·(χ^E + Δh^E) at t = s per input word; "
           "(d) the same against t − s."),
    _panel("fig6a", "'Twice' states by the preceding word, AED beside AO.",
           Reads("fig6", ("aed", "ao"), ("input_delta.parquet", "input.parquet")),
           lambda p: _fc().fig6a({r: p.of(r) for r in ("aed", "ao")}, {r: p.roles[r][0] for r in ("aed", "ao")},
                                 f"Fig. 6a: 'twice' by the preceding word, eSCAN, seed {p.seed}"),
           "Fig. 6a with the comparison of §4.2 beside it: encoder input-delta components χ^E + Δh_t^E of every "
           "input word (grey) and of the states reading 'twice' coloured by the word before it, AED (left) and AO "
           "(right), on the principal components of each model's χ^E. Title: η², the share of the variance of the "
           "'twice' states (full vectors) that the preceding word explains, as the claim escan_aed_twice_context "
           "reads it. Paper: AED's 'twice' states form one cluster per preceding verb (η² near 1); AO's one "
           "cluster. AO's h_t^E depends on the word and its position only, so any η² it shows comes from what the "
           "position of 'twice' tells of the word before it, not from context it learnt."),
    _panel("bottleneck", "Accuracy against input length.",
           Reads("bottleneck", ("ved", "ved_reversed", "aed"), ("accuracy.parquet",), one_seed=False),
           lambda p: _fcmp().bottleneck({r: p.of(r)["accuracy.parquet"] for r in BOTTLENECK_LABELS},
                                        BOTTLENECK_LABELS),
           "The background post's bottleneck: sequence and token accuracy against input length for VED reading the "
           "source forwards, VED reading it reversed (Sutskever et al. 2014), and AED; mean over seeds with a 95% "
           "CI band."),
)

ROLES: dict[str, tuple[str, ...]] = {}
for _figure in FIGURES.values():
    ROLES[_figure.inputs.block] = tuple(dict.fromkeys(ROLES.get(_figure.inputs.block, ()) + _figure.inputs.roles))
LIST_ROLES = {"shares", "offsets", "variance"}


def panels_of(figures: dict) -> list[str]:
    """The panels a config's ``figures.aitken2021`` block asks for."""
    return [name for name, f in FIGURES.items() if f.inputs.block in figures]


def experiments_of(figures: dict, name: str) -> dict[str, list[str]]:
    """Role -> experiments for panel ``name``."""
    reads = FIGURES[name].inputs
    block = figures[reads.block]
    return {r: ([block[r]] if isinstance(block[r], str) else list(block[r])) for r in reads.roles}
