"""The one registry of every figure and table the workflow draws: each wing's ``panels.py`` declares its figures
as :class:`Figure` entries in a dict ``FIGURES``, and :func:`all_figures` gathers them. Light on imports: the
Snakefile reads it at every start to wire the figure rules and their report captions; matplotlib loads only when
a figure is drawn."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import AttnReproError

PAPERS = ("aitken2021", "snell2021", "kobayashi2020")


@dataclass(frozen=True)
class Figure:
    """One figure or table of a paper.

    ``inputs`` says what it reads, in its wing's terms (the wing's ``panels.py`` says which); ``read`` turns that
    and the JSON object the figure rule passes (``--inputs-json``) into the arguments of ``draw``, which returns
    ``(figure, data)``: the matplotlib figure and the numbers behind it (its CSV). ``caption`` is what the
    workflow's report says under it. ``rule`` groups the figures of a wing that one figure rule draws, where the
    wing has more than one because their inputs differ (Kobayashi's ``scored``: §5, from the scored experiments);
    empty for the rest."""
    name: str
    paper: str
    inputs: Any
    read: Callable = field(repr=False, compare=False)  # (figure, inputs JSON) -> the arguments of draw
    draw: Callable = field(repr=False, compare=False)  # (*arguments) -> (figure, data)
    caption: str
    rule: str = ""


def declare(*figures: Figure) -> dict[str, Figure]:
    """Name -> figure, in the order given; every name once, every figure with a caption."""
    out: dict[str, Figure] = {}
    for f in figures:
        if f.name in out:
            raise ValueError(f"figure {f.paper}/{f.name} declared twice")
        if not f.caption.strip():
            raise ValueError(f"figure {f.paper}/{f.name} has no caption")
        out[f.name] = f
    return out


def figures_of(paper: str) -> dict[str, Figure]:
    """Name -> figure of one paper (its wing's ``panels.FIGURES``)."""
    if paper not in PAPERS:
        raise AttnReproError(f"unknown paper {paper!r}; choose one of {PAPERS}")
    return importlib.import_module(f"attnrepro.{paper}.panels").FIGURES


def all_figures() -> list[Figure]:
    """Every figure of every paper, paper by paper."""
    return [f for paper in PAPERS for f in figures_of(paper).values()]


def get(paper: str, name: str) -> Figure:
    figures = figures_of(paper)
    if name not in figures:
        raise AttnReproError(f"unknown {paper} figure {name!r}; choose one of {tuple(figures)}")
    return figures[name]


def need(figure: Figure, inputs: dict, *keys: str) -> None:
    """Stop with the keys of ``--inputs-json`` that a figure's reader needs and did not get."""
    missing = [k for k in keys if k not in inputs]
    if missing:
        raise AttnReproError(f"--inputs-json: figure {figure.paper}/{figure.name} needs {missing}")


def draw(paper: str, name: str, inputs: dict) -> tuple:
    """``(figure, data)`` of one figure, from what its rule passes."""
    figure = get(paper, name)
    return figure.draw(*figure.read(figure, inputs))
