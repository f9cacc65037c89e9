"""Figures: the registry of every paper's figures (:mod:`.registry`), the scale ladder's figure, and the atomic
saver. Importing the package loads no matplotlib: the Snakefile reads the registry at every start."""

from __future__ import annotations


def __getattr__(name: str):
    if name == "save":
        from .output import save

        return save
    raise AttributeError(name)
