"""The wings, gathered: every paper's claims in one tuple, for the claims step and the scale ladder. The core
(:mod:`attnrepro.claims`) knows how to judge a claim and no paper's claims; this module is the one place that
lists the wings (docs/architecture.md)."""

from __future__ import annotations

from .aitken2021 import blog003
from .aitken2021 import claims as aitken2021
from .claims import Claim
from .kobayashi2020 import claims as kobayashi2020
from .snell2021 import claims as snell2021

CLAIMS: tuple[Claim, ...] = aitken2021.CLAIMS + blog003.CLAIMS + snell2021.CLAIMS + kobayashi2020.CLAIMS
