"""Claims of the background post (paper 003): the fixed-size context of an encoder-decoder without attention is a
bottleneck for long inputs; reading the source reversed (Sutskever et al. 2014) eases it; attention removes it.

The post argues from principle and measures nothing: its sentences are its claims (``origin="paper"``), tested on
the project's own tasks since the post names no setup (``tested_on`` "paper"), measured by ``short_long_gap``: token accuracy on the shortest third of input lengths
minus on the longest third (:func:`attnrepro.aitken2021.accuracy.short_long_gap`), on the ``bottleneck`` tasks; and
by ``early_late_gap`` (accuracy on early minus late output words) for the trade-off of reversal, and its two
sides ``early_acc`` / ``late_acc``; and by ``steps_to_acc`` (:func:`attnrepro.training.learning_curve.steps_to_threshold`:
training steps until validation token accuracy reaches :data:`attnrepro.aitken2021.analysis.LEARNED`) for how
fast attention learns.
"""

import math

from ..verdicts.claims import Claim

_FIG = "figures/aitken2021/bottleneck.png"
_SECTION = "'The context vector bottleneck'"
_PATHS = "'Benefits of attention: shorter path lengths'"

CLAIMS: tuple[Claim, ...] = (
    Claim(
        paper="blog003", claim_id="ved_bottleneck", section=_SECTION,
        quote="Through this example one can see how performance may degrade in sequence-to-sequence models for "
              "longer input sequences",
        reading="a VED's token accuracy on the longest third of input lengths is more than 10 points below that "
                "on the shortest third",
        measure="short_long_gap", kind="continuous", bounds=(-1.0, 1.0), model_checked=False, direction=">", threshold=0.1,
        task_kinds=("bottleneck",), archs=("ved",), figure=_FIG),
    Claim(
        paper="blog003", claim_id="reversal_eases_bottleneck", section="'Benefits of attention: shorter path lengths'",
        quote="If we instead reverse the order of the input sequence, the information from the first time-step in "
              "the input has a shorter path length",
        reading="the trade-off the post describes (early output words closer to their source, easier; later ones "
                "farther, harder): per seed, the VED's accuracy on the first third of output words minus on the "
                "last third, with the source reversed minus forwards, above 0 (the earlier reading, the short-long "
                "input-length gap, beside it)",
        measure="early_late_gap", kind="continuous", bounds=(-2.0, 2.0), model_checked=False, direction=">",
        threshold=0.0, original="short_long_gap", group="reversal_trade_off",
        task_kinds=("bottleneck_reversed",), archs=("ved",), versus=("bottleneck", "ved"), figure=_FIG),
    Claim(
        paper="blog003", claim_id="attention_removes_bottleneck", section="'Benefits of attention: shorter path lengths'",
        quote="The attention mechanism helps alleviate this bottleneck by allowing the decoder to search across the "
              "entire input sequence",
        reading="an AED's short-long gap below 5 points",
        measure="short_long_gap", kind="continuous", bounds=(-1.0, 1.0), model_checked=False, direction="<", threshold=0.05,
        task_kinds=("bottleneck",), archs=("aed",), figure=_FIG),
    *(Claim(
        paper="blog003", claim_id=f"reversal_{side}_words_{verb}", section=_PATHS,
        quote="The trick of reversing the input sequence is effectively making it easier to pass information from "
              "the earlier parts of the input sequence while making it harder to pass information from the later "
              "parts of the input sequence",
        reading=f"per seed, the VED's token accuracy on the {side} third of each example's output words with the "
                f"source reversed minus forwards, {'above' if direction == '>' else 'below'} 0 (a trade-off: both "
                f"rows, not only a larger early-late gap)",
        measure=f"{side}_acc", kind="continuous", bounds=(-1.0, 1.0), model_checked=False, direction=direction,
        threshold=0.0, group="reversal_trade_off",
        task_kinds=("bottleneck_reversed",), archs=("ved",), versus=("bottleneck", "ved"), figure=_FIG)
      for side, verb, direction in (("early", "easier", ">"), ("late", "harder", "<"))),
    Claim(
        paper="blog003", claim_id="attention_learns_faster", section=_PATHS,
        quote="Because the attention mechanism introduces shorter path lengths at every time step in the input "
              "sequence, ... the entire sequence is now easier to optimize as a result of shorter path lengths",
        reading="per seed, the training steps until the AED's validation token accuracy first reaches 0.6 minus "
                "the VED's (a run that never does counted one evaluation past its last), below 0",
        measure="steps_to_acc", kind="continuous", bounds=(-math.inf, math.inf), model_checked=False, direction="<",
        threshold=0.0, task_kinds=("bottleneck",), archs=("aed",), versus=("bottleneck", "ved"), figure=_FIG),
)
