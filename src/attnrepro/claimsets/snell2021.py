"""Claims of Snell et al. 2021 (paper 002)."""

from ..claims import Claim

CLAIMS: tuple[Claim, ...] = ()
