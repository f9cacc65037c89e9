"""The Aitken et al. 2021 analyses beyond the decomposition itself, each on planted data with a known answer."""

import numpy as np
import pandas as pd
import pytest
import torch

from attnrepro.aitken2021.accuracy import accuracy_by_length, corpus_bleu, sentences, short_long_gap
from attnrepro.aitken2021.alignment import (attention_maps,
    offset_alignment,
    predicted_offset,
    softmax_over_t,
    temporal_argmax_correlation,
    temporal_offset)
from attnrepro.aitken2021.decomposition import decompose
from attnrepro.aitken2021.readout import readout_alignment, readout_match
from attnrepro.aitken2021.variance import variance_drop, variance_drop_pooled, word_variance


def _states(rng, n_examples=40, length=6, n_words=3, hidden=8, temporal=1.0, noise=0.0):
    """Flattened states h = temporal·μ_t + χ_x + noise for random words."""
    mu = rng.normal(size=(length, hidden))
    chi = rng.normal(size=(n_words, hidden))
    ex = np.repeat(np.arange(n_examples), length)
    pos = np.tile(np.arange(length), n_examples)
    tok = rng.integers(0, n_words, size=len(pos))
    h = temporal * mu[pos] + chi[tok] + noise * rng.normal(size=(len(pos), hidden))
    return h, ex, pos, tok


def test_variance_drops_fully_when_states_are_temporal_plus_input():
    rng = np.random.default_rng(0)
    h, _, pos, tok = _states(rng)
    table = word_variance(decompose(h, pos, tok), ["A", "B", "C"])
    assert set(table.token) == {"A", "B", "C"}
    # μ̂_t also averages the word mix at t, so a little word-independent spread is left
    assert (table.ratio < 0.05).all()
    assert variance_drop(table) > 0.95


def test_variance_does_not_drop_without_a_temporal_component():
    rng = np.random.default_rng(1)
    h, _, pos, tok = _states(rng, n_examples=400, temporal=0.0, noise=1.0)
    drop = variance_drop(word_variance(decompose(h, pos, tok), ["A", "B", "C"]))
    assert abs(drop) < 0.05  # subtracting a (near-zero) mean over examples removes almost nothing


def test_variance_drop_is_the_mean_word_ratio_without_eos():
    """A hand case: 'A' keeps 10% of its variance, 'B' 30%, <eos> (read far more often) 100%. The authors' drop is
    1 − mean(0.1, 0.3) = 0.8; pooling by occurrence with <eos> included gives far less."""
    table = pd.DataFrame({"token": ["A", "B", "<eos>"], "n": [10, 10, 80], "var_h": [1.0, 1.0, 1.0],
                          "var_without_temporal": [0.1, 0.3, 1.0], "ratio": [0.1, 0.3, 1.0]})
    assert variance_drop(table) == pytest.approx(0.8)
    assert variance_drop_pooled(table) == pytest.approx(1 - (1 + 3 + 80) / 100)


def test_word_variance_leaves_out_words_whose_states_never_vary_and_survives_large_offsets():
    """A word read only where its state is fixed (the first position, a constant state) has no variance to explain:
    it is left out rather than dividing rounding by rounding. States far from the origin (offset 10⁴, float32) keep
    the other words' ratios right, where Σx² − (Σx)²/n cancels."""
    rng = np.random.default_rng(3)
    h, _, pos, tok = _states(rng, n_examples=200, noise=0.3)
    tok = np.where(pos == 0, 3, np.where(tok == 3, 0, tok))  # 'D' opens every sequence, nowhere else
    h[pos == 0] = 1.0
    h = (h + 1e4).astype(np.float32)
    table = word_variance(decompose(h, pos, tok), ["A", "B", "C", "D"])
    assert set(table.token) == {"A", "B", "C"}
    assert np.isfinite(table.ratio).all() and (table.ratio > 0).all()
    reference = word_variance(decompose((h - 1e4).astype(float), pos, tok), ["A", "B", "C", "D"])
    assert table.ratio.to_numpy() == pytest.approx(reference.ratio.to_numpy(), rel=1e-3)
    assert 0 < variance_drop(table) < 1


def test_readout_alignment_recovers_a_planted_dictionary():
    chi = np.eye(4)
    weights = np.eye(4)[[2, 0, 1, 3]]  # readout of y_i points at x_perm[i]
    table = readout_alignment(chi, ["a", "b", "c", "d"], weights, ["1", "2", "3", "4"])
    assert len(table) == 16
    assert table.set_index(["target", "source"]).loc[("1", "c"), "dot"] == 1.0
    assert readout_match(table, {"1": "c", "2": "a", "3": "b", "4": "d"}) == 1.0
    assert readout_match(table, {"1": "a", "2": "a", "3": "b", "4": "b"}) == 0.5


def test_accuracy_by_length_and_the_short_long_gap():
    rows = []
    for ex, (length, right) in enumerate([(3, 3), (3, 3), (6, 6), (9, 3), (9, 6)]):
        for s in range(length):
            rows.append({"example": ex, "target": "1", "predicted": "1" if s < right else "2"})
    dec = pd.DataFrame(rows)
    src_len = pd.Series({0: 3, 1: 3, 2: 6, 3: 9, 4: 9})
    table = accuracy_by_length(dec, src_len)
    assert table.length.tolist() == [3, 6, 9] and table.n.tolist() == [2, 1, 2]
    assert table.token_acc.tolist() == pytest.approx([1.0, 1.0, 0.5])
    assert table.seq_acc.tolist() == [1.0, 1.0, 0.0]
    assert short_long_gap(table) == pytest.approx(0.5)


def decodes(pairs):
    """Decoder rows of examples given as (target words, whole decode), as the export writes them: one row per target
    position, its ``predicted`` word the decode's at that step (``<pad>`` past the decode's end), and the whole
    decode, cut after its first ``<eos>``, as every row's ``hypothesis``."""
    rows = []
    for ex, (target, predicted) in enumerate(pairs):
        cut = predicted[: predicted.index("<eos>") + 1] if "<eos>" in predicted else predicted
        steps = predicted + ["<pad>"] * (len(target) - len(predicted))
        rows += [{"example": ex, "s": s, "target": t, "predicted": steps[s], "hypothesis": " ".join(cut)}
                 for s, t in reversed(list(enumerate(target)))]  # rows out of order on purpose
    return pd.DataFrame(rows)


def test_sentences_cut_the_decode_at_eos_and_drop_padding():
    dec = decodes([("le chat noir <eos>".split(), "le chat <eos> noir noir".split()),
                   ("il dort <eos>".split(), "il dort bien".split())])
    assert sentences(dec) == (["le chat", "il dort bien"], ["le chat noir", "il dort"])


def test_an_unknown_word_is_never_a_bleu_match():
    words = "the quick brown fox jumps over the lazy dog again".split()
    unk = words[:3] + ["<unk>"] + words[4:]
    hyps, refs = sentences(decodes([(unk + ["<eos>"], unk + ["<eos>"])]))
    assert hyps[0] != refs[0]
    assert corpus_bleu(decodes([(unk + ["<eos>"], unk + ["<eos>"])])) < 100.0


def test_corpus_bleu_of_greedy_decodes():
    words = "the quick brown fox jumps over the lazy dog again".split()
    right = [(words + ["<eos>"], words + ["<eos>", "dog"])]
    assert corpus_bleu(decodes(right)) == pytest.approx(100.0)
    wrong = [(words + ["<eos>"], ["cat"] * 10 + ["<eos>"])]
    assert corpus_bleu(decodes(wrong)) == pytest.approx(0.0)
    half = [(words + ["<eos>"], words[:5] + ["cat"] * 5 + ["<eos>"])]
    assert 0.0 < corpus_bleu(decodes(half)) < 100.0


def test_temporal_argmax_correlation_tells_diagonal_from_antidiagonal():
    enc = np.eye(10)
    assert temporal_argmax_correlation(np.eye(10), enc, 10) == pytest.approx(1.0)
    assert temporal_argmax_correlation(np.eye(10)[::-1], enc, 10) == pytest.approx(-1.0)


def test_predicted_offset_from_lengths():
    same = predicted_offset(np.full(5, 10), np.full(5, 10), 10)
    assert np.allclose(same.offset, 0)
    double = predicted_offset(np.full(5, 20), np.full(5, 10), 10)
    assert np.allclose(double.offset, double.s)  # input twice as long: step s reads near 2s


def test_temporal_offset_profile():
    enc = np.eye(8)
    prof = temporal_offset(np.eye(8), enc, max_offset=2)
    assert prof[prof.offset == 0]["dot"].eq(1).all() and prof[prof.offset != 0]["dot"].eq(0).all()


@pytest.fixture
def pair():
    rng = np.random.default_rng(3)
    h_e, ex_e, pos_e, tok_e = _states(rng, n_examples=5, length=6, noise=0.3)
    h_d, ex_d, pos_d, tok_d = _states(rng, n_examples=5, length=5, noise=0.3)
    return (decompose(h_d, pos_d, tok_d), ex_d, h_d), (decompose(h_e, pos_e, tok_e), ex_e, h_e)


def test_attention_maps_are_the_real_alignments_and_their_parts(pair):
    (D, ex_d, h_d), (E, ex_e, h_e) = pair
    maps = attention_maps(D, ex_d, E, ex_e, [1, 3])
    one = maps[maps.example == 3]
    full = h_d[ex_d == 3] @ h_e[ex_e == 3].T
    assert np.allclose(one.pivot(index="s", columns="t", values="full").to_numpy(), full)
    mu_mu = D.mu[:5] @ E.mu[:6].T
    assert np.allclose(one.pivot(index="s", columns="t", values="mu_mu").to_numpy(), mu_mu)
    w = softmax_over_t(one, "full")
    assert w.shape == (5, 6) and np.allclose(w.sum(1), 1)


def test_offset_alignment_matches_brute_force(pair):
    (D, ex_d, h_d), (E, ex_e, h_e) = pair
    table = offset_alignment(D, ex_d, E, ex_e, E.token, max_offset=2)
    # brute force: word 1 at the attended step t, offset +1
    vals, parts = [], []
    for i in range(len(h_d)):
        t = D.pos[i] + 1
        j = np.flatnonzero((ex_e == ex_d[i]) & (E.pos == t))
        if len(j) and E.token[j[0]] == 1:
            vals.append(h_d[i] @ h_e[j[0]])
            parts.append(D.mu[D.pos[i]] @ E.input_delta[j[0]])
    row = table[(table.by == "t") & (table.word == 1) & (table.offset == 1)].iloc[0]
    assert row.n == len(vals)
    assert row.a == pytest.approx(np.mean(vals)) and row.mu_input == pytest.approx(np.mean(parts))
    assert np.allclose(table.a, table.mu_mu + table.mu_input + table.rest)


def test_token_projection_equals_the_one_hot_product():
    from attnrepro.nn.cells import make_cell
    from attnrepro.nn.stacked import init_stacked

    torch.manual_seed(0)
    cell = make_cell("gru", 2, 7, 4)
    init_stacked(cell, [0, 1])  # parameters are allocated uninitialised
    tokens = torch.randint(0, 7, (2, 3, 5))
    pe = torch.randn(2, 5, 7)
    x = torch.nn.functional.one_hot(tokens, 7).float() + pe[:, None]
    assert torch.allclose(cell.token_projection(tokens, pe), cell.input_projection(x), atol=1e-6)
    assert torch.equal(cell.token_projection(tokens),
                       cell.input_projection(torch.nn.functional.one_hot(tokens, 7).float()))


def test_projected_relative_delta_is_small_only_when_states_sit_on_their_input_components():
    from attnrepro.aitken2021.decomposition import projected_relative_delta

    rng = np.random.default_rng(2)
    h, _, pos, tok = _states(rng, n_examples=200, n_words=4, hidden=16, noise=0.02)
    small = projected_relative_delta(decompose(h, pos, tok))
    h, _, pos, tok = _states(rng, n_examples=200, n_words=4, hidden=16, noise=3.0)
    large = projected_relative_delta(decompose(h, pos, tok))
    assert small < 0.1 and large > 0.5  # μ̂_t also averages the word mix at t: not exactly 0


def test_temporal_input_delta_cosine_tells_orthogonal_from_aligned():
    from attnrepro.aitken2021.decomposition import temporal_input_delta_cosine

    rng = np.random.default_rng(3)
    length, hidden = 6, 12
    mu = np.zeros((length, hidden))
    mu[np.arange(length), np.arange(length)] = 1.0           # temporal components in dims 0-5
    chi = np.zeros((3, hidden))
    chi[np.arange(3), 6 + np.arange(3)] = 1.0               # input components in dims 6-8: orthogonal
    ex = np.repeat(np.arange(50), length)
    pos = np.tile(np.arange(length), 50)
    tok = rng.integers(0, 3, size=len(pos))
    orth = decompose(mu[pos] + chi[tok], pos, tok)
    assert temporal_input_delta_cosine(orth, orth) < 0.05
    # input components that lean on the temporal direction of their own step
    h = mu[pos] + chi[tok] + 0.8 * mu[pos] * (tok == 0)[:, None]
    lean = decompose(h, pos, tok)
    assert temporal_input_delta_cosine(lean, lean) > 0.2


def test_temporal_peaks_follow_a_planted_offset():
    from attnrepro.aitken2021.alignment import peak_measures, temporal_peaks

    n = 12
    dec_mu = np.eye(n)
    enc_mu = np.roll(np.eye(n), 1, axis=0)         # enc step t+1 looks like dec step t: peak at offset +1
    predicted = pd.DataFrame({"s": np.arange(n - 1), "offset": 1.0})
    peaks = temporal_peaks(dec_mu, enc_mu, predicted)
    assert (peaks.observed == 1).all()
    m = peak_measures(peaks)
    assert m["offset_prediction_gain"] == pytest.approx(1.0) and m["offset_peak_late"] == pytest.approx(1.0)
    wrong = peak_measures(temporal_peaks(dec_mu, enc_mu, predicted.assign(offset=-1.0)))
    assert wrong["offset_prediction_gain"] < 0


def test_word_offset_measures_read_fig6_c_and_d():
    from attnrepro.aitken2021.alignment import word_offset_measures

    offs = np.arange(-5, 6)
    table = pd.concat([
        pd.DataFrame({"by": "t", "word": "and", "offset": offs, "mu_input": -1.0}),
        pd.DataFrame({"by": "t", "word": "left", "offset": offs, "mu_input": 0.3 * offs}),
        pd.DataFrame({"by": "s", "word": "and", "offset": offs, "mu_input": 5.0}),  # the other grouping
    ])
    m = word_offset_measures(table)
    assert m == {"mu_input0_and": -1.0, "left_offset_rho": pytest.approx(1.0)}  # no 'twice' in this task


def test_word_accuracy_counts_an_insertion_once():
    from attnrepro.aitken2021.accuracy import edit_distance, word_accuracy

    assert edit_distance("a b c".split(), "a c".split()) == 1
    assert edit_distance([], "a b".split()) == 2
    # the decode repeats word 2 and so shifts the rest: positional accuracy 2/6, one error in 5 target words
    dec = decodes([("1 2 3 4 5 <eos>".split(), "1 2 2 3 4 5 <eos>".split())])
    assert word_accuracy(dec) == pytest.approx(1 - 1 / 5)


def test_a_decode_running_past_its_target_counts_every_extra_word():
    """Example 0's decode never emits <eos> in time: 5 right words, then 3 more before its <eos>. Its exported
    rows stop at the target's length (6: the five words and the <eos> position), so they show one extra word; the
    whole decode has three. Example 1 is right. The old reading (the rows' ``predicted``) gave 1 − 1/8; the whole
    decodes give 1 − 3/8. BLEU likewise reads the whole decode."""
    from attnrepro.aitken2021.accuracy import edit_distance, word_accuracy
    from attnrepro.seq2seq.bleu import bleu, text

    words = "the quick brown fox jumps over the lazy dog again".split()
    dec = decodes([("1 2 3 4 5 <eos>".split(), "1 2 3 4 5 5 5 5 <eos>".split()),
                   ("1 2 3 <eos>".split(), "1 2 3 <eos>".split())])
    old = [text(ex.sort_values("s").predicted, "hypothesis") for _, ex in dec.groupby("example")]
    assert old == ["1 2 3 4 5 5", "1 2 3"]
    assert sum(edit_distance(h.split(), r.split()) for h, r in zip(old, ["1 2 3 4 5", "1 2 3"])) == 1
    assert word_accuracy(dec) == pytest.approx(1 - 3 / 8)  # the rows alone: 1 − 1/8
    assert sentences(dec)[0] == ["1 2 3 4 5 5 5 5", "1 2 3"]

    long = decodes([(words + ["<eos>"], words + ["dog"] * 6)])  # runs out of steps without an <eos>
    rows = text(long.sort_values("s").predicted, "hypothesis")
    assert rows == " ".join(words + ["dog"])
    assert corpus_bleu(long) == pytest.approx(bleu([" ".join(words + ["dog"] * 6)], [" ".join(words)]))
    assert corpus_bleu(long) < bleu([rows], [" ".join(words)])


def test_sentences_need_the_whole_decode():
    from attnrepro.errors import AttnReproError

    dec = decodes([("a <eos>".split(), "a <eos>".split())])
    with pytest.raises(AttnReproError, match="'hypothesis'"):
        sentences(dec.drop(columns="hypothesis"))
    with pytest.raises(AttnReproError, match="disagree"):
        sentences(pd.concat([dec, dec.assign(s=5, hypothesis="b <eos>")]))


def test_word_temporal_dots_weigh_encoder_steps_equally():
    """'twice' (code 1) read at t = 2 by two examples (μ_2^D·(χ + Δh) = −1, −3) and at t = 3 by one (+4); at t = 5,
    beyond min(T, S) − f_off = 4, by another (+100, left out). Per step then steps equally: (−2 + 4) / 2 = 1;
    pooled over the three occurrences it would be 0."""
    from attnrepro.aitken2021.alignment import hide_measures, word_temporal_dots
    from attnrepro.aitken2021.decomposition import Decomposition

    pos = np.array([2, 2, 3, 5, 7])
    token = np.array([1, 1, 1, 1, 0])
    delta = np.array([[-1.0, 0], [-3, 0], [4, 0], [100, 0], [0, 0]])
    enc = Decomposition(mu=np.zeros((8, 2)), chi=np.zeros((2, 2)), delta=delta, pos=pos, token=token)
    dec_mu = np.tile([1.0, 0.0], (8, 1))
    curve = word_temporal_dots(dec_mu, enc)
    assert sorted(curve.k.unique()) == list(range(-2, 5))
    twice = curve[(curve.word == 1) & (curve.k == 0)].iloc[0]
    assert twice["dot"] == pytest.approx(1.0) and twice["n_steps"] == 2
    assert hide_measures(curve, ["run", "twice"]) == {"hide_twice": pytest.approx(1.0)}
    only_t2 = word_temporal_dots(dec_mu, enc, rows=np.array([True, True, False, False, False]))
    assert hide_measures(only_t2, ["run", "twice"], "_equal") == {"hide_twice_equal": pytest.approx(-2.0)}
