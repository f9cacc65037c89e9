import pytest

from attnrepro.data import tasks
from attnrepro.data.vocab import Vocab, encode


def make(kind, **kw):
    task = dict(kind=kind, n_words=3, min_len=15, max_len=20, n_train=300, n_valid=50, n_test=50, seed=7)
    task.update(kw)
    return task


@pytest.mark.parametrize("kind", ["one_to_one", "reversed", "sort"])
def test_lengths_and_equal_output_length(kind):
    splits = tasks.generate(make(kind, **({"n_words": 26} if kind == "sort" else {})))
    assert set(splits) == {"train", "valid", "test"}
    assert [len(splits[s]) for s in ("train", "valid", "test")] == [300, 50, 50]
    for df in splits.values():
        lengths = df.src.map(len)
        assert lengths.min() >= 15 and lengths.max() <= 20
        assert (df.src.map(len) == df.tgt.map(len)).all()  # T = S
    # every length in range occurs (uniform over 15..20 with 300 draws)
    assert set(splits["train"].src.map(len)) == set(range(15, 21))


def test_one_to_one_is_a_fixed_dictionary():
    df = tasks.generate(make("one_to_one"))["train"]
    mapping = {}
    for src, tgt in zip(df.src, df.tgt):
        for x, y in zip(src, tgt):
            assert mapping.setdefault(x, y) == y
    assert mapping == {"A": "1", "B": "2", "C": "3"}


def test_reversed_is_one_to_one_backwards():
    fwd = tasks.generate(make("one_to_one"))["train"]
    rev = tasks.generate(make("reversed"))["train"]
    # same seed and same draws: the reversed targets are the forward ones read backwards
    assert list(fwd.src[0]) == list(rev.src[0])
    assert list(rev.tgt[0]) == list(fwd.tgt[0])[::-1]


def test_sort_sorts_distinct_letters():
    df = tasks.generate(make("sort", n_words=26))["train"]
    for src, tgt in zip(df.src, df.tgt):
        assert list(tgt) == sorted(src) and len(set(src)) == len(src)   # the paper's example: no repeats
    assert len(set(w for s in df.src for w in s)) == 26
    rep = tasks.generate(make("sort", n_words=8, distinct=False))["train"]
    assert any(len(set(s)) < len(s) for s in rep.src) and all(list(t) == sorted(s) for s, t in zip(rep.src, rep.tgt))
    with pytest.raises(ValueError, match="distinct letters need n_words"):
        tasks.generate(make("sort", n_words=8))


def test_seed_determines_data():
    a = tasks.generate(make("one_to_one"))["train"]
    b = tasks.generate(make("one_to_one"))["train"]
    c = tasks.generate(make("one_to_one", seed=8))["train"]
    assert a.src.map(tuple).tolist() == b.src.map(tuple).tolist()
    assert a.src.map(tuple).tolist() != c.src.map(tuple).tolist()


def test_split_sizes_are_independent():
    small = tasks.generate(make("one_to_one", n_train=10))
    large = tasks.generate(make("one_to_one", n_train=500))
    assert small["test"].src.map(tuple).tolist() == large["test"].src.map(tuple).tolist()


def test_encode_pads_and_marks_lengths():
    task = make("one_to_one", min_len=2, max_len=4)
    df = tasks.generate(task)["train"].head(20)
    vocab = Vocab.from_words(*tasks.words(task))
    enc = encode(df, vocab)
    eos_s, sos, eos_t = vocab.src.index("<eos>"), vocab.tgt.index("<sos>"), vocab.tgt.index("<eos>")
    for i, (src, tgt) in enumerate(zip(df.src, df.tgt)):
        n = len(src)
        assert enc.src_len[i] == n + 1 and enc.tgt_len[i] == len(tgt) + 1
        assert enc.src[i, n] == eos_s and (enc.src[i, n + 1 :] == 0).all()
        assert enc.tgt_in[i, 0] == sos and enc.tgt_out[i, len(tgt)] == eos_t
        assert (enc.tgt_in[i, 1 : len(tgt) + 1] == enc.tgt_out[i, : len(tgt)]).all()  # teacher forcing shift


def test_encode_rejects_unknown_word():
    import pandas as pd

    vocab = Vocab.from_words(["A"], ["1"])
    with pytest.raises(ValueError, match="'Z'"):
        encode(pd.DataFrame({"src": [["A", "Z"]], "tgt": [["1", "1"]]}), vocab)


def test_escan_task_through_the_registry():
    task = dict(kind="escan", min_len=15, max_len=20, n_train=40, n_valid=5, n_test=5, seed=2)
    splits = tasks.generate(task)
    src_words, tgt_words = tasks.words(task)
    assert "<.>" in src_words and "I_TURN_LEFT" in tgt_words and "I_LOOK" not in tgt_words
    enc = encode(splits["train"], Vocab.from_words(src_words, tgt_words))  # every word is in the vocabulary
    assert enc.src_len.min() >= 16 and enc.src_len.max() <= 21
