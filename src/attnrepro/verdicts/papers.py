"""The wings, gathered: every paper's claims in one tuple, for the claims step and the scale ladder, with each
paper's model checks and what each experiment substitutes for the paper's setup. The core
(:mod:`attnrepro.verdicts.claims`) knows how to judge a claim and no paper's claims; this module is the one place that
lists the wings (docs/architecture.md)."""

from __future__ import annotations

from ..aitken2021 import blog003
from ..aitken2021 import claims as aitken2021
from .claims import Claim, ModelCheck
from ..kobayashi2020 import claims as kobayashi2020
from ..snell2021 import claims as snell2021

CLAIMS: tuple[Claim, ...] = aitken2021.CLAIMS + blog003.CLAIMS + snell2021.CLAIMS + kobayashi2020.CLAIMS
_WINGS = {"aitken2021": aitken2021, "blog003": aitken2021, "snell2021": snell2021, "kobayashi2020": kobayashi2020}


def model_check(paper: str, experiment: str, task_kind: str, arch: str) -> ModelCheck | None:
    """The level an experiment's model must reach before its rows of ``paper``'s claims count."""
    return _WINGS[paper].model_check(experiment, task_kind, arch) if paper in _WINGS else None


def tested_on(paper: str, experiment: str, task_kind: str, arch: str) -> str:
    """"paper" where the experiment is the paper's model, task and data; else what was substituted."""
    if paper == "blog003":
        return "paper"  # the post measures nothing: its rows are the project's own setting
    return _WINGS[paper].tested_on(experiment, task_kind, arch) if paper in _WINGS else "paper"
