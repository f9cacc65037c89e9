"""BLEU (Papineni et al. 2002) of a translation model, as Snell et al. report it beside token accuracy:
sacrebleu's corpus BLEU with its default 13a tokenisation, on detokenised text.

Every model's decodes become text the same way (:func:`text`): cut at the first ``<eos>``, ``<pad>`` and
``<sos>`` dropped, words joined with spaces. A corpus maps rare words to ``<unk>`` on both sides, but an ``<unk>``
stands for some real word, never known to match the real word of the other side: it is written as a different
single token on each side (:data:`UNK_TEXT`), so it counts as a miss. As text, sacrebleu's tokeniser would split
``<unk>`` into three tokens that always match and inflate BLEU several-fold.
"""

from __future__ import annotations

from typing import Iterable

import sacrebleu

from ..data.tokens import EOS, PAD, SOS, UNK

DROPPED = (PAD, SOS)
# upper case: the corpora are lower-cased, so no real word can equal either
UNK_TEXT = {"hypothesis": "UNKHYP", "reference": "UNKREF"}


def bleu(hypotheses: list[str], references: list[str]) -> float:
    """Corpus BLEU (0-100) of ``hypotheses`` against one reference each."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    return sacrebleu.corpus_bleu(hypotheses, [references]).score


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
