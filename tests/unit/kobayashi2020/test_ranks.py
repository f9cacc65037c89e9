"""Frequency ranks as the authors' code reads them (Kobayashi et al. 2020, §4.3): every token ranked by id,
missing ids last and kept, and the sign of ρ(rank, ·) reported as measured."""

import numpy as np
import pandas as pd
import pytest

from attnrepro.errors import AttnReproError
from attnrepro.kobayashi2020 import analysis as kb
from attnrepro.kobayashi2020.ranks import count_ranks, rank_tokens, read_rank_file

# a hand-made vocabulary: [PAD] 0, [UNK] 100, [CLS] 101, [SEP] 102, "," 1010, "." 1012, "a" 1037 (a single
# character), "the" 1996, "##s" 2015 (a word piece), "photosynthesis" 9999 (not in the file)
RANK_FILE = "1 900 1996\n2 800 1012\n3 700 1010\n4 650 2015\n5 600 1037\n28 100 102\n50 50 101\n"


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "rank_count_ids.txt"
    path.write_text(RANK_FILE)
    return read_rank_file(path)


def test_every_piece_is_ranked_and_missing_ids_come_last(table):
    ids = [101, 1996, 2015, 1037, 1010, 102, 9999, 1012, 102]
    ranks = rank_tokens(ids, table)
    assert ranks.tolist() == [50, 1, 4, 5, 3, 28, 51, 2, 28]  # ## piece 4, single character 5, [SEP] 28, [CLS] 50
    assert len(ranks) == len(ids)  # nothing dropped: the missing id is ranked last (max rank + 1), not removed


def test_count_ranks_has_the_rank_file_layout():
    table = count_ranks([7, 3, 7, 5, 3, 7, 9])
    assert table.columns.tolist() == ["rank", "count", "token_id"]
    assert table.token_id.tolist() == [7, 3, 5, 9] and table["count"].tolist() == [3, 2, 1, 1]
    assert table["rank"].tolist() == [1, 2, 3, 4]  # ties broken by id: every rank distinct
    assert rank_tokens([9, 4], table).tolist() == [4, 5]


@pytest.mark.parametrize("text, message", [
    ("1 900 1996\n2 800\n", "line 2: expected 'rank count id'"),
    ("1 900 1996\n2 800 x\n", "line 2: expected 'rank count id'"),
    ("1 900 1996\n2 800 1996\n", "token id 1996 is ranked twice"),
    ("0 900 1996\n", "ranks start at 1"),
    ("\n", "has no rows"),
])
def test_bad_rank_file_names_its_line(tmp_path, text, message):
    path = tmp_path / "ranks.txt"
    path.write_text(text)
    with pytest.raises(AttnReproError, match=f"ranks.txt.*{message}"):
        read_rank_file(path)


def test_sign_of_rho_survives_into_the_fold_summary(table):
    """A hand case where frequent tokens get *more* attention: ρ(rank, α) is negative and stays negative (abs()
    used to hide it), and ρ(rank, ‖f‖) positive as planted."""
    ids = [101, 1996, 1012, 1010, 2015, 1037, 9999, 102]
    tokens = pd.DataFrame({"seq": 0, "pos": np.arange(len(ids)), "token_id": ids, "token": "t", "category": "other"})
    tokens["rank"] = rank_tokens(tokens.token_id, table)
    order = tokens["rank"].rank().to_numpy()
    heads = pd.DataFrame({"seq": 0, "layer": 1, "head": 1, "pos": tokens.pos,
                          "alpha_mean": 1.0 / order, "f_norm": order})
    rho = kb.frequency_correlation(kb.frequency_points(heads, tokens))
    assert rho["rho_rank_alpha"] == pytest.approx(-1.0) and rho["rho_rank_fnorm"] == pytest.approx(1.0)
    assert len(kb.frequency_points(heads, tokens)) == len(ids)  # the ## piece, the character, the missing id kept
