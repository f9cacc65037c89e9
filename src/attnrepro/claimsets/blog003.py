"""Claims of the background post (paper 003)."""

from ..claims import Claim

CLAIMS: tuple[Claim, ...] = ()
