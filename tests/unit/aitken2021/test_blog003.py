"""The background post's (paper 003) trade-off of reversal and faster learning with attention: the measures on hand
cases where each claim holds and where it fails, run through the claims table."""

import numpy as np
import pandas as pd
import pytest

from attnrepro.aitken2021.accuracy import early_late_accuracy, early_late_gap
from attnrepro.aitken2021.blog003 import CLAIMS
from attnrepro.verdicts.claims import summarize
from attnrepro.verdicts.intervals import NOT_REPRODUCED, REPRODUCED
from attnrepro.training.learning_curve import seed_steps_to_threshold, steps_to_threshold

SEEDS = list(range(8))
BY_ID = {c.claim_id: c for c in CLAIMS}


def verdict(claim_id: str, value: float, partner: float) -> str:
    """The verdict of a versus claim when every seed measures ``value`` and its partner ``partner`` (jittered)."""
    claim = BY_ID[claim_id]
    jitter = 0.005 * np.sin(np.arange(len(SEEDS)))
    summaries = {"x": pd.DataFrame({"seed": SEEDS, claim.measure: value + jitter}),
                 "y": pd.DataFrame({"seed": SEEDS, claim.measure: partner - jitter})}
    experiments = {"x": (claim.task_kinds[0], claim.archs[0], "gru"), "y": (*claim.versus, "gru")}
    return summarize(summaries, experiments, (claim,)).set_index("experiment").loc["x", "verdict"]


def _decodes(right_by_position: list[bool], n_examples: int = 4) -> pd.DataFrame:
    """Decoder rows of ``n_examples`` alike examples whose word at position s is right or wrong as given."""
    rows = [(ex, s, "a", "a" if ok else "b") for ex in range(n_examples) for s, ok in enumerate(right_by_position)]
    return pd.DataFrame(rows, columns=["example", "s", "target", "predicted"])


def test_early_and_late_accuracy_are_the_two_sides_of_the_gap():
    reversed_ = _decodes([True, True, True, True, False, False])
    got = early_late_accuracy(reversed_)
    assert got == {"early_acc": 1.0, "late_acc": 0.0}
    assert early_late_gap(reversed_) == got["early_acc"] - got["late_acc"]


def test_reversal_trade_off_needs_both_sides():
    acc = lambda right: early_late_accuracy(_decodes(right))  # noqa: E731
    forwards, traded = acc([True, False, True, True, True, True]), acc([True, True, True, True, True, False])
    assert verdict("reversal_early_words_easier", traded["early_acc"], forwards["early_acc"]) == REPRODUCED
    assert verdict("reversal_late_words_harder", traded["late_acc"], forwards["late_acc"]) == REPRODUCED
    # a larger early-late gap without a trade-off: the late words got easier too
    forwards, better = acc([True, False, True, True, False, True]), acc([True] * 6)
    assert verdict("reversal_early_words_easier", better["early_acc"], forwards["early_acc"]) == REPRODUCED
    assert verdict("reversal_late_words_harder", better["late_acc"], forwards["late_acc"]) == NOT_REPRODUCED
    # early words harder reversed
    forwards, worse = acc([True, True, True, True, True, False]), acc([False, True, True, True, True, True])
    assert verdict("reversal_early_words_easier", worse["early_acc"], forwards["early_acc"]) == NOT_REPRODUCED


def test_steps_to_threshold_first_evaluation_and_censoring():
    steps = [0, 100, 200, 300]
    assert steps_to_threshold(steps, [0.2, 0.5, 0.7, 0.9], 0.6) == (200.0, 200.0)
    first, censored = steps_to_threshold(steps, [0.2, 0.3, 0.4, 0.5], 0.6)
    assert np.isnan(first) and censored == 400.0
    metrics = pd.DataFrame({"seed": [1] * 4 + [2] * 4, "step": steps * 2,
                            "token_acc": [0.2, 0.5, 0.7, 0.9, 0.7, 0.8, 0.9, 0.9]})
    got = seed_steps_to_threshold(metrics.iloc[::-1], 0.6)  # any row order
    assert got.set_index("seed").steps_to_acc.to_dict() == {1: 200.0, 2: 0.0}


def test_attention_learns_faster_reads_the_paired_difference_in_steps():
    steps = np.arange(0, 1100, 100)
    fast = steps_to_threshold(steps, np.minimum(1.0, 0.3 + steps / 500), 0.6)[1]
    slow = steps_to_threshold(steps, np.minimum(1.0, 0.3 + steps / 2000), 0.6)[1]
    never = steps_to_threshold(steps, np.full(len(steps), 0.4), 0.6)[1]
    assert fast == 200 and slow == 600 and never == 1100
    assert verdict("attention_learns_faster", fast, slow) == REPRODUCED
    assert verdict("attention_learns_faster", slow, fast) == NOT_REPRODUCED
    assert verdict("attention_learns_faster", fast, never) == REPRODUCED


@pytest.mark.parametrize("claim_id", ["reversal_early_words_easier", "reversal_late_words_harder",
                                      "attention_learns_faster"])
def test_post_claims_quote_the_post(claim_id):
    claim = BY_ID[claim_id]
    assert claim.paper == "blog003" and claim.versus and claim.quote
