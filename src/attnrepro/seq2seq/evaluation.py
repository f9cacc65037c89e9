"""Held-out evaluation of a trained encoder-decoder: greedy decodes scored by token and sequence accuracy (as in
training, over every real target position, ``<eos>`` included) and by corpus BLEU.

BLEU compares the decodes with the split's own targets as text (:func:`attnrepro.seq2seq.bleu.text`: an ``<unk>`` is a
miss). Token accuracy keeps the training's definition, where predicting ``<unk>`` is right.
Decodes run as many steps as the split's longest target has positions, whatever the batch, so a decode never
depends on which examples share its batch.
"""

from __future__ import annotations

import pandas as pd
import torch

from ..data.vocab import Encoded


def accuracies(pred: torch.Tensor, tgt_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Token and sequence accuracy [S] of decodes ``pred`` against ``tgt_out`` (both [S, B, L], 0 = padding)."""
    real = tgt_out != 0
    correct = (pred == tgt_out) & real
    token_acc = correct.flatten(1).sum(1).float() / real.flatten(1).sum(1)
    seq_acc = (correct | ~real).all(-1).float().mean(-1)
    return token_acc, seq_acc


def padded_token_accuracy(pred: torch.Tensor, tgt_out: torch.Tensor) -> torch.Tensor:
    """Aitken et al.'s token ("word") accuracy [S] of decodes ``pred`` against ``tgt_out`` (both [S, B, L],
    0 = padding): every one of the B·L positions counts, and a padded one is always correct. Their
    ``accuracy_fun`` zeroes logits and labels beyond each target's end (``<eos>`` kept) and compares the argmaxes,
    which agree on zero vectors; L there is the data set's longest target + 1, as ``tgt_out``'s width here.
    :func:`accuracies` counts real positions only; the two differ wherever a split's targets differ in length
    (docs/deviations.md, Aitken "accuracy"): padded = 1 − (1 − real) · real positions / (B·L)."""
    correct = (pred == tgt_out) | (tgt_out == 0)
    return correct.flatten(1).float().mean(1)


@torch.no_grad()
def greedy_predictions(model, data: Encoded, sos: int, device="cpu", chunk: int = 256) -> torch.Tensor:
    """Greedy decodes [S, M, L] of every example of ``data`` by each stacked seed; L = ``data.tgt_out``'s width."""
    model.eval()
    n, steps = model.n_seeds, data.tgt_out.shape[-1]
    parts = []
    for start in range(0, len(data), chunk):
        part = data.subset(slice(start, start + chunk))
        t = int(part.src_len.max())
        src = part.src[:, :t].unsqueeze(0).expand(n, -1, -1).to(device)
        src_len = part.src_len.unsqueeze(0).expand(n, -1).to(device)
        parts.append(model.greedy_decode(src, src_len, steps, sos).cpu())
    return torch.cat(parts, dim=1)


def scores(pred: torch.Tensor, tgt_out: torch.Tensor, words, seeds: list[int]) -> pd.DataFrame:
    """Per seed: n (examples), token_acc, seq_acc, bleu (corpus BLEU, 0-100) and bleu_source_gain
    (:func:`attnrepro.seq2seq.bleu.source_gain`) of decodes ``pred`` [S, M, L] against ``tgt_out`` [M, L]; ``words``
    is the target vocabulary."""
    from .bleu import bleu, sentences, source_gain  # sacrebleu: training (a user of :func:`accuracies`) needs none

    target = tgt_out.unsqueeze(0).expand_as(pred)
    token_acc, seq_acc = accuracies(pred, target)
    references = sentences(tgt_out.numpy(), words, "reference")
    rows = []
    for s, seed in enumerate(seeds):
        hypotheses = sentences(pred[s].numpy(), words, "hypothesis")
        rows.append({"seed": seed, "n": len(references), "token_acc": float(token_acc[s]),
                     "seq_acc": float(seq_acc[s]), "bleu": bleu(hypotheses, references),
                     "bleu_source_gain": source_gain(hypotheses, references)})
    return pd.DataFrame(rows, columns=["seed", "n", "token_acc", "seq_acc", "bleu", "bleu_source_gain"])


def evaluate_split(model, data: Encoded, tgt_words, sos: int, device="cpu") -> pd.DataFrame:
    """:func:`scores` of ``model``'s greedy decodes of ``data``."""
    return scores(greedy_predictions(model, data, sos, device), data.tgt_out, tgt_words, model.seeds)

