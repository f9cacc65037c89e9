"""Claims of Kobayashi et al. 2020 (paper 004)."""

from ..claims import Claim

CLAIMS: tuple[Claim, ...] = ()
