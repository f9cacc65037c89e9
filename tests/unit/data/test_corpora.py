"""Preparation of each corpus format from tiny archives in its real release format, and BLEU."""

import pandas as pd
import pytest

from tests.helpers import corpora as fx
from attnrepro.seq2seq.bleu import bleu
from attnrepro.run.config import check_corpora
from attnrepro.data.corpora import FORMATS, text
from attnrepro.data.corpora.prepare import prepare
from attnrepro.data.vocab import Vocab, encode
from attnrepro.errors import AttnReproError
from attnrepro.data.tokens import map_unk


def raw_dir(tmp_path, files):
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


def corpus(fmt, files, **keys):
    return {"format": fmt, "seed": 0, "files": {n: {"url": "http://x/" + n, "sha256": None} for n in files}, **keys}


def encodable(prepared):
    vocab = Vocab.from_dict(prepared["vocab"])
    for df in prepared["splits"].values():
        encode(df, vocab)  # raises on a token outside the vocabulary


def test_multi30k_shared_pieces(tmp_path):
    files = fx.multi30k()
    c = corpus("multi30k", files, src="de", tgt="en", vocab_size=60)
    check_corpora({"tasks": {}, "corpora": {"m": c}})
    out = prepare(c, raw_dir(tmp_path, files))
    assert [len(out["splits"][s]) for s in ("train", "valid", "test")] == [60, 10, 10]
    assert out["vocab"]["src"][2:] == out["vocab"]["tgt"][3:]  # one shared vocabulary of pieces
    assert "<unk>" in out["vocab"]["src"] and "<s>" not in out["vocab"]["src"]
    assert out["spm"] and any(p.startswith("▁") for p in out["splits"]["train"].src[0])
    encodable(out)


def test_iwslt14_drops_tag_lines_and_splits_every_23rd(tmp_path):
    files = fx.iwslt14()
    c = corpus("iwslt14", files, src="de", tgt="en", vocab_size=60)
    out = prepare(c, raw_dir(tmp_path, files))
    # 46 sentences + the title and description lines (their text kept, tags removed): 48 pairs, 2 of them valid
    assert [len(out["splits"][s]) for s in ("train", "valid", "test")] == [46, 2, 15]
    pieces = {p for df in out["splits"].values() for ws in df.src for p in ws}
    assert not any("<" in p and p != "<unk>" for p in pieces) and not any("url" in p for p in pieces)
    encodable(out)


def test_news_commentary_removes_numerical_lines_and_splits_90_10(tmp_path):
    files = fx.news_commentary()
    c = corpus("news_commentary", files, pair="en-nl", src="en", tgt="nl", vocab_size=60, valid_fraction=0.1)
    raw = raw_dir(tmp_path, files)
    rows = FORMATS["news_commentary"].read(c, raw)
    assert len(rows["train"]) + len(rows["valid"]) == 96  # 100 lines less 2 numerical, 1 empty, 1 half-empty
    assert len(rows["valid"]) == 10 and rows["valid"] == rows["test"]
    assert not {p for p in rows["train"] + rows["valid"] if not text.has_letter(p[0])}
    assert not set(rows["train"]) & set(rows["valid"])
    assert FORMATS["news_commentary"].read(c, raw) == rows  # same seed, same split
    other = FORMATS["news_commentary"].read({**c, "seed": 1}, raw)
    assert other["valid"] != rows["valid"]
    reverse = FORMATS["news_commentary"].read({**c, "src": "nl", "tgt": "en"}, raw)
    assert reverse["train"][0] == rows["train"][0][::-1]


def test_numerical_lines():
    assert not text.has_letter("1990") and not text.has_letter("12.5 % - 3") and not text.has_letter("")
    assert text.has_letter("1990 war")


def test_paracrawl_length_filter_vocabulary_and_unk(tmp_path):
    files = fx.paracrawl()
    c = corpus("paracrawl", files, src="en", tgt="fr", vocab_size=10, max_len=15, n_train=30, n_valid=5, n_test=5)
    raw = raw_dir(tmp_path, files)
    rows = FORMATS["paracrawl"].read({**c, "n_train": 1000}, raw)
    lengths = [len(s) for part in rows.values() for p in part for s in p]
    assert max(lengths) <= 15
    assert ["dog"] * 15 in [p[0] for p in rows["train"]] and ["cat"] * 16 not in [p[0] for p in rows["train"]]
    out = prepare(c, raw)
    assert [len(out["splits"][s]) for s in ("train", "valid", "test")] == [30, 5, 5]
    assert len(out["vocab"]["src"]) == 2 + 1 + 10  # <pad> <eos> <unk> + the 10 most frequent words
    assert any("<unk>" in ws for ws in out["splits"]["train"].src)
    encodable(out)


def test_min_count_unk():
    train = [["a", "b", "c"], ["a", "b"], ["a", "d"]]
    vocab = text.min_count_vocab(train, 3)
    assert vocab == ["a"]  # seen 3 times; b (2), c, d (1) are not
    assert map_unk([["a", "b", "z"]], vocab) == [["a", "<unk>", "<unk>"]]


def test_bottom_k_is_a_seeded_uniform_subset():
    items = list(range(1000))
    a = text.bottom_k(iter(items), 100, seed=3, chunk=64)
    assert a == text.bottom_k(items, 100, seed=3) and len(set(a)) == 100
    assert a != text.bottom_k(items, 100, seed=4)
    assert sorted(text.bottom_k(items[:10], 100, seed=3)) == items[:10]


@pytest.mark.parametrize("fmt,files,classes,labels", [
    ("imdb", fx.imdb(), [["neg"], ["pos"]], ["neg", "pos"]),
    ("newsgroups", fx.newsgroups(), [["rec.sport.baseball"], ["rec.sport.hockey"]],
     ["rec.sport.baseball", "rec.sport.hockey"]),
    ("sst", fx.sst(), [[0, 1], [3, 4]], ["0+1", "3+4"]),
    ("zhang_csv", fx.zhang_csv(), [[1, 2], [4, 5]], ["1+2", "4+5"]),
    ("zhang_csv", fx.zhang_csv("ag_news_csv", 4, 2), [[1], [3]], ["1", "3"]),
])
def test_classification_labels(tmp_path, fmt, files, classes, labels):
    c = corpus(fmt, files, classes=classes, max_valid=7, max_test=6, min_count=3)
    check_corpora({"tasks": {}, "corpora": {"c": c}})
    raw = raw_dir(tmp_path, files)
    out = prepare(c, raw)
    assert out["vocab"]["labels"] == labels and out["vocab"]["words"][:2] == ["<pad>", "<unk>"]
    assert len(out["splits"]["valid"]) == 7 and len(out["splits"]["test"]) == 6
    # every kept example's class is in a group, and the label is that group's index
    raw_rows = FORMATS[fmt].read(c, raw)
    groups = {str(x): i for i, g in enumerate(classes) for x in g}
    expected = sorted(groups[str(cls)] for _, cls in raw_rows["train"] if str(cls) in groups)
    assert sorted(out["splits"]["train"].label) == expected
    vocab = set(out["vocab"]["words"])
    assert all(set(ws) <= vocab for df in out["splits"].values() for ws in df.text)
    again = prepare(c, raw)
    pd.testing.assert_frame_equal(again["splits"]["valid"], out["splits"]["valid"])


def test_text_cleaning(tmp_path):
    rows = FORMATS["imdb"].read({}, raw_dir(tmp_path, fx.imdb()))
    first = next(rows["train"])[0]
    assert "<br" not in first
    posts = FORMATS["newsgroups"].read({}, raw_dir(tmp_path, fx.newsgroups()))
    assert "Newsgroups:" not in next(posts["train"])[0]
    row = next(FORMATS["zhang_csv"].read({"files": fx.zhang_csv()}, raw_dir(tmp_path, fx.zhang_csv()))["train"])
    assert "\\n" not in row[0] and '"quoted"' in row[0]


def test_max_words_filter(tmp_path):
    files = fx.zhang_csv("amazon_review_polarity_csv", 2)
    c = corpus("zhang_csv", files, classes=[[1], [2]], max_words=12, max_valid=3, max_test=3)
    out = prepare(c, raw_dir(tmp_path, files))
    assert max(len(ws) for df in out["splits"].values() for ws in df.text) <= 12


def test_config_checks(tmp_path):
    c = corpus("multi30k", fx.multi30k(), src="de", tgt="en", vocab_size=60)
    with pytest.raises(AttnReproError, match="corpora.m.files: format 'multi30k' reads"):
        check_corpora({"tasks": {}, "corpora": {"m": {**c, "files": {"train.de.gz": {}}}}})
    with pytest.raises(AttnReproError, match="needs the key"):
        check_corpora({"tasks": {}, "corpora": {"m": {k: v for k, v in c.items() if k != "vocab_size"}}})
    with pytest.raises(AttnReproError, match="a task has the same name"):
        check_corpora({"tasks": {"m": {}}, "corpora": {"m": c}})


def test_bleu():
    refs = ["the cat sat on the mat", "a dog runs in the park"]
    assert bleu(refs, refs) == pytest.approx(100.0)
    assert bleu(["dog the", "mat on"], refs) < 10
    partial = bleu(["the cat sat on a mat", "a dog runs in the park"], refs)
    assert 40 < partial < 100
    with pytest.raises(ValueError):
        bleu(["x"], refs)
