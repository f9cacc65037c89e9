"""The authors' padded token accuracy (Aitken et al. 2021, their accuracy_fun) against the project's real-position
one (:func:`attnrepro.seq2seq.evaluation.accuracies`) on hand cases."""

import torch

from attnrepro.seq2seq.evaluation import accuracies, padded_token_accuracy

# two targets of one split, width 4: "5 6 <eos>" and "5 <eos>" (<eos> = 2, padding = 0): 5 real positions of 8
TGT = torch.tensor([[[5, 6, 2, 0], [5, 2, 0, 0]]])


def test_padded_counts_pads_as_correct():
    # one wrong real word (7 for 6); the words decoded after <eos> are wrong too but sit on padded positions
    pred = torch.tensor([[[5, 7, 2, 9], [5, 2, 3, 3]]])
    token_acc, seq_acc = accuracies(pred, TGT)
    assert torch.allclose(token_acc, torch.tensor([4 / 5]))  # real positions only
    assert torch.allclose(padded_token_accuracy(pred, TGT), torch.tensor([7 / 8]))  # 3 pads counted right
    assert torch.allclose(seq_acc, torch.tensor([0.5]))  # padding never changes whether a sequence is right


def test_padded_equals_real_without_padding_and_follows_the_fill():
    full = torch.tensor([[[5, 6, 2], [6, 5, 2]]])
    pred = torch.tensor([[[5, 5, 2], [6, 5, 2]], [[5, 6, 2], [6, 5, 2]]])  # two seeds
    assert torch.allclose(padded_token_accuracy(pred, full.expand_as(pred)), accuracies(pred, full.expand_as(pred))[0])
    # with padding: padded = 1 − (1 − real) · real positions / all positions
    pred = torch.tensor([[[5, 7, 2, 9], [5, 5, 0, 0]]])
    real = accuracies(pred, TGT)[0]
    assert torch.allclose(padded_token_accuracy(pred, TGT), 1 - (1 - real) * 5 / 8)
