"""The results root: the folder every output of the config in use goes under (config key ``results``; ``results``
by default). Each shipped config names its own, so no command run with one config rebuilds or overwrites another
config's outputs. The Snakefile sets it once from the validated config (:func:`use`); the path builders of
:mod:`attnrepro.layout` and :mod:`attnrepro.snell2021.config` read it (:func:`get`). A leaf module: both import it."""

from __future__ import annotations

from typing import Any

DEFAULT = "results"
_root = DEFAULT


def use(config: dict[str, Any]) -> str:
    """Make ``config``'s results root (validated by the schema: relative, no ``..``) the one in use; returns it."""
    global _root
    _root = str(config.get("results", DEFAULT)).rstrip("/")
    return _root


def get() -> str:
    return _root
