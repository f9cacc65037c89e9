"""The EN→FR Bible task on a small SQLite file of the real table layout (made here, not the corpus)."""

import sqlite3

import pytest

from attnrepro.data import tasks
from attnrepro.data.tasks.bible import bible
from attnrepro.data.tokens import UNK, bible_words


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "bible.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE bible (id INTEGER, bbName TEXT, bNumber INTEGER, cNumber INTEGER, vNumber INTEGER, "
                "vText TEXT)")
    verses = {
        (1, 1, 1): ("In the beginning God created the heavens.", "Au commencement, Dieu créa les cieux."),
        (1, 1, 2): ("God saw the light.", "Dieu vit la lumière."),
        (1, 1, 3): ("God`s light was good, and the light was very long indeed today.",
                    "La lumière de Dieu était bonne."),
        (2, 1, 1): ("The light of God.", "La lumière de l'Éternel."),
        (3, 1, 1): ("God saw the heavens.", "Dieu vit les cieux."),
    }
    rows = []
    for (b, c, v), (en, fr) in verses.items():
        rows += [("4", b, c, v, en), ("l", b, c, v, fr)]
    con.executemany("INSERT INTO bible VALUES (NULL, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    return path


def test_tokenize_keeps_french_elision_and_splits_english_possessive():
    assert bible_words("l'Éternel, dit-il.", "fr") == ["l'", "éternel", ",", "dit", "-", "il", "."]
    assert bible_words("God`s light", "en") == ["god", "'s", "light"]


def test_splits_by_book_with_length_limit_and_unk(db):
    splits, (src, tgt) = bible(["4"], ["l"], 10, valid_books=[2], test_books=[3], vocab_size=100, min_count=2,
                               seed=0, db=db)
    assert set(splits["train"].book) == {1} and set(splits["valid"].book) == {2} and set(splits["test"].book) == {3}
    assert len(splits["train"]) == 2  # verse 1:1:3 is longer than 10 tokens on the English side
    assert "god" in src and "beginning" not in src  # seen once in training: <unk>
    assert splits["train"].src.map(lambda s: UNK in s).any()
    assert splits["valid"].tgt.iloc[0] == [UNK] * 5 + ["."]  # only "." was seen twice in French training


def test_every_word_of_every_split_is_in_the_vocabulary(db):
    task = {"kind": "bible", "english": ["4"], "french": ["l"], "max_len": 10, "valid_books": [2],
            "test_books": [3], "vocab_size": 3, "min_count": 1, "seed": 0}
    splits, _ = bible(["4"], ["l"], 10, [2], [3], 3, 1, 0, db=db)
    src_words, tgt_words = tasks.words(task, splits)
    assert len(src_words) == 4  # three kept words and <unk>
    for df in splits.values():
        assert all(w in src_words for s in df.src for w in s)
        assert all(w in tgt_words for s in df.tgt for w in s)


def test_bad_books_and_empty_splits_are_named(db):
    with pytest.raises(ValueError, match="both"):
        bible(["4"], ["l"], 10, [2], [2], 10, 1, 0, db=db)
    with pytest.raises(ValueError, match="test split"):
        bible(["4"], ["l"], 10, [2], [40], 10, 1, 0, db=db)
    with pytest.raises(ValueError, match="English"):
        bible(["x"], ["l"], 10, [2], [3], 10, 1, 0, db=db)


def test_escan_dictionary_and_reversed_source():
    d = tasks.dictionary({"kind": "escan", "words": ["run", "left", "and", "twice"], "separator": "<.>",
                          "min_len": 1, "max_len": 5})
    assert d == {"I_RUN": "run", "I_TURN_LEFT": "left", "<.>": "<.>"}
    cfg = {"kind": "bottleneck", "n_words": 3, "min_len": 4, "max_len": 6, "n_train": 5, "n_valid": 1, "n_test": 1,
           "seed": 0}
    fwd = tasks.generate(cfg)["train"]
    rev = tasks.generate({**cfg, "kind": "bottleneck_reversed"})["train"]
    assert (fwd.tgt == rev.tgt).all() and all(list(a) == list(b)[::-1] for a, b in zip(fwd.src, rev.src))
