"""BLEU (Papineni et al. 2002) of a translation model, as Snell et al. report it beside token accuracy:
sacrebleu's corpus BLEU with its default 13a tokenisation, on detokenised text.

Every model's decodes become text the same way (:func:`text`): cut at the first ``<eos>``, ``<pad>`` and
``<sos>`` dropped, words joined with spaces. A corpus maps rare words to ``<unk>`` on both sides, but an ``<unk>``
stands for some real word, never known to match the real word of the other side: it is written as a different
single token on each side (:data:`UNK_TEXT`), so it counts as a miss. As text, sacrebleu's tokeniser would split
``<unk>`` into three tokens that always match and inflate BLEU several-fold.

:func:`source_gain` is the part of a model's BLEU that its source earns: the BLEU its outputs keep when each is scored
against another sentence's reference is what a decoder with the same outputs, blind to its source, would score.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
import sacrebleu

from ..data.tokens import EOS, PAD, SOS, UNK

DROPPED = (PAD, SOS)
# upper case: the corpora are lower-cased, so no real word can equal either
UNK_TEXT = {"hypothesis": "UNKHYP", "reference": "UNKREF"}


def bleu(hypotheses: list[str], references: list[str]) -> float:
    """Corpus BLEU (0-100) of ``hypotheses`` against one reference each."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    # force: the text is space-joined words by design (see above), so sacrebleu's "forgot to detokenize?" warning,
    # printed once per call, is noise in every job's log; it changes no score
    return sacrebleu.corpus_bleu(hypotheses, [references], force=True).score


# 19 rescorings: the matched BLEU above all of them is a one-sided permutation test at p = 1/20
SHUFFLES = 19


def source_gain(hypotheses: list[str], references: list[str], seed: int = 0, shuffles: int = SHUFFLES) -> float:
    """BLEU the source earns: :func:`bleu` of ``hypotheses`` against their own references minus the largest of
    ``shuffles`` BLEUs against the references dealt round a random cycle (a derangement: no output meets its own
    reference). Outputs that ignore their sources score as well dealt as matched, so a gain above 0 says the matched
    BLEU beats each of the ``shuffles`` dealings (a permutation test at p = 1/(shuffles + 1)); a corpus that holds one
    sentence in several translations makes it conservative (a dealing may meet a sibling). NaN for one sentence."""
    n = len(references)
    if n < 2:
        return float("nan")  # one sentence has no other to be dealt: unmeasured
    matched = bleu(hypotheses, references)
    rng = np.random.default_rng(seed)
    dealt = []
    for _ in range(shuffles):
        order = rng.permutation(n)
        partner = np.empty(n, dtype=int)
        partner[order] = np.roll(order, -1)  # one n-cycle: every sentence meets the next one's reference
        dealt.append(bleu(hypotheses, [references[j] for j in partner]))
    return matched - max(dealt)


def text(words: Iterable[str], side: str) -> str:
    """One decode (``side`` = "hypothesis") or target (``side`` = "reference") as the text BLEU reads."""
    out = []
    for w in words:
        if w == EOS:
            break
        if w not in DROPPED:
            out.append(UNK_TEXT[side] if w == UNK else w)
    return " ".join(out)


def sentences(ids, words: list[str], side: str) -> list[str]:
    """Rows of word ids (into ``words``) as :func:`text`."""
    return [text((words[int(i)] for i in row), side) for row in ids]
