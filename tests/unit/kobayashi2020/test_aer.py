"""Alignment error rate and alignment extraction (Kobayashi et al. 2020, §5) on hand-made alignments."""

import numpy as np
import pytest
import torch

from attnrepro.kobayashi2020.aer import (aer,
    extract,
    format_pharaoh,
    hard_alignment,
    parse_pharaoh_line,
    read_pharaoh,
    soft_alignments)
from attnrepro.errors import AttnReproError


def test_identical_alignment_has_zero_aer():
    gold = [{(0, 0), (1, 2), (2, 1)}, {(0, 1), (1, 0)}]
    assert aer(gold, gold, gold) == 0.0


def test_worked_example():
    # S = {0-0, 1-1}, P = S ∪ {1-2}, A = {0-0, 1-2, 2-2}:
    # |A∩S| = 1, |A∩P| = 2, |A| = 3, |S| = 2  ->  AER = 1 - (1 + 2) / (3 + 2) = 0.4
    sure = {(0, 0), (1, 1)}
    possible = sure | {(1, 2)}
    predicted = {(0, 0), (1, 2), (2, 2)}
    assert aer([predicted], [sure], [possible]) == pytest.approx(0.4)


def test_corpus_level_sums_before_dividing():
    # sentence 1 perfect (2 links), sentence 2 all wrong (1 link): 1 - (2 + 2) / (3 + 3) = 1/3, not the mean 0.5
    s1, s2 = {(0, 0), (1, 1)}, {(0, 0)}
    assert aer([s1, {(0, 1)}], [s1, s2], [s1, s2]) == pytest.approx(1 / 3)


def test_possible_links_do_not_count_against_recall():
    # predicting only the sure links is perfect even though possible links are left out
    sure, possible = {(0, 0)}, {(0, 0), (0, 1), (1, 1)}
    assert aer([sure], [sure], [possible]) == 0.0
    # a link outside P is an error
    assert aer([sure | {(2, 2)}], [sure], [possible]) == pytest.approx(1 - 2 / 3)


def test_pharaoh_formats(tmp_path):
    sure, possible = parse_pharaoh_line("0-0 1-2p 2p1 3-3P 4-4S")
    assert sure == {(0, 0), (4, 4)}
    assert possible == {(0, 0), (1, 2), (2, 1), (3, 3), (4, 4)}
    assert parse_pharaoh_line("1-1 2p3", one_based=True) == ({(0, 0)}, {(0, 0), (1, 2)})
    f = tmp_path / "gold.txt"
    f.write_text("0-0 1-1\n\n0-1p 1-0\n")
    gold = read_pharaoh(f)
    assert len(gold) == 3 and gold[1] == (set(), set()) and gold[2][0] == {(1, 0)}
    assert parse_pharaoh_line(format_pharaoh({(2, 1), (0, 0)}))[0] == {(0, 0), (2, 1)}


def test_bad_pharaoh_line_names_file_and_line(tmp_path):
    f = tmp_path / "gold.txt"
    f.write_text("0-0\n0-x\n")
    with pytest.raises(AttnReproError, match=r"gold.txt:2"):
        read_pharaoh(f)
    with pytest.raises(AttnReproError, match="not found"):
        read_pharaoh(tmp_path / "missing.txt")


def test_hard_alignment_argmax_per_target_within_lengths():
    soft = np.array([[0.1, 0.7, 0.2, 9.0],
                     [0.5, 0.3, 0.2, 9.0],
                     [0.0, 0.1, 0.9, 9.0],
                     [9.0, 9.0, 9.0, 9.0]])  # last source column and last target row are beyond the lengths
    assert hard_alignment(soft, src_len=3, tgt_len=3) == {(1, 0), (0, 1), (2, 2)}
    assert extract(soft[None], np.array([3]), np.array([3])) == [{(1, 0), (0, 1), (2, 2)}]


def test_norm_alignment_can_differ_from_weight_alignment():
    """§5's point in miniature: a source word with large α but tiny f(x) (a no-op sink) wins by weight and
    loses by norm."""
    alpha = torch.tensor([[[[0.6, 0.4]]]])            # [B=1, H=1, Q=1, K=2]: the sink (source 0) gets more α
    f = torch.tensor([[[[0.01, 0.0], [1.0, 1.0]]]])   # [B, H, K=2, d=2]: but its f(x) is almost zero
    soft = soft_alignments(alpha, f)
    assert extract(soft["weight"].numpy(), [2], [1]) == [{(0, 0)}]
    assert extract(soft["norm"].numpy(), [2], [1]) == [{(1, 0)}]
    torch.testing.assert_close(soft["norm"][0, 0], torch.tensor([0.006, 0.4 * 2 ** 0.5]))


def test_best_and_mean_gains_by_hand():
    import pandas as pd

    from attnrepro.kobayashi2020.aer import best_and_mean

    per_layer = pd.DataFrame({"layer": [1, 1, 2, 2, 3, 3], "method": ["weight", "norm"] * 3,
                              "aer": [0.8, 0.3, 0.5, 0.4, 0.6, 0.5]})
    out = best_and_mean(per_layer)
    assert out["aer_best_gain"] == pytest.approx(0.5 - 0.3)
    assert out["aer_mean_gain"] == pytest.approx((0.8 + 0.5 + 0.6) / 3 - (0.3 + 0.4 + 0.5) / 3)
    # the lowest layer gains 0.5, the two above it 0.1 each
    assert out["aer_lowest_layer_extra_gain"] == pytest.approx(0.5 - 0.1)
    assert "aer_lowest_layer_extra_gain" not in best_and_mean(per_layer[per_layer.layer == 1])
