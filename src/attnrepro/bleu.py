"""BLEU (Papineni et al. 2002) of a translation model, as Snell et al. report it beside token accuracy:
sacrebleu's corpus BLEU with its default 13a tokenisation, on detokenised text."""

from __future__ import annotations

import sacrebleu


def bleu(hypotheses: list[str], references: list[str]) -> float:
    """Corpus BLEU (0-100) of ``hypotheses`` against one reference each."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    return sacrebleu.corpus_bleu(hypotheses, [references]).score


def sentences(ids, words: list[str], eos: int, pad: int = 0) -> list[str]:
    """Rows of word ids as space-joined words: each row cut at its first ``eos``, ``pad`` dropped."""
    out = []
    for row in ids:
        kept = []
        for i in row:
            i = int(i)
            if i == eos:
                break
            if i != pad:
                kept.append(words[i])
        out.append(" ".join(kept))
    return out
