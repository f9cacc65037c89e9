"""Claims of the background post (paper 003): the fixed-size context of an encoder-decoder without attention is a
bottleneck for long inputs; reading the source reversed (Sutskever et al. 2014) eases it; attention removes it.
Measured by ``short_long_gap``: token accuracy on the shortest third of input lengths minus on the longest third
(:func:`attnrepro.analysis.accuracy.short_long_gap`), on the ``bottleneck`` tasks."""

from ..claims import Claim

CLAIMS: tuple[Claim, ...] = (
    Claim(
        paper="blog003", claim_id="ved_bottleneck",
        description=("a VED's accuracy falls with input length: the longest third of lengths is more than 10 "
                     "points less accurate than the shortest third"),
        measure="short_long_gap", direction=">", threshold=0.1,
        task_kinds=("bottleneck",), archs=("ved",), figure="figures/aitken2021/bottleneck.png",
    ),
    Claim(
        paper="blog003", claim_id="reversal_eases_bottleneck",
        description=("reading the source reversed narrows the VED's short-long gap (per seed: reversed gap minus "
                     "forward gap, below 0)"),
        measure="short_long_gap", direction="<", threshold=0.0,
        task_kinds=("bottleneck_reversed",), archs=("ved",), versus=("bottleneck", "ved"),
        figure="figures/aitken2021/bottleneck.png",
    ),
    Claim(
        paper="blog003", claim_id="attention_removes_bottleneck",
        description="with attention the gap closes: AED's short-long gap below 5 points",
        measure="short_long_gap", direction="<", threshold=0.05,
        task_kinds=("bottleneck",), archs=("aed",), figure="figures/aitken2021/bottleneck.png",
    ),
)
