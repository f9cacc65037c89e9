"""Snell et al. 2021 probes and metrics against hand-computed cases."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from attnrepro.snell2021 import count_table as ct
from attnrepro.snell2021 import ibm1
from attnrepro.snell2021.agreement import agreement, agreement_rows, shuffle_rows, shuffled_baseline
from attnrepro.snell2021.contextual_agreement import xi, xi_star, xi_table
from attnrepro.snell2021.kendall import kendall_agreement, kendall_tau_rows


def test_agreement_hand_cases():
    u = np.array([[0.1, 0.9, 0.0, 0.0] + [0.0] * 16])          # top of u: position 1; L = 20 -> top 1 of v counts
    v_top = np.array([[0.0, 5.0, 1.0, 2.0] + [0.0] * 16])      # nothing above v_1
    v_second = np.array([[0.0, 2.0, 3.0, 1.0] + [0.0] * 16])   # one entry above v_1
    assert agreement(u, v_top) == 1.0 and agreement(u, v_second) == 0.0
    # L = 21: ceil(1.05) = 2, so second place is still within the top "5%"
    u21, v21 = np.pad(u, ((0, 0), (0, 1))), np.pad(v_second, ((0, 0), (0, 1)))
    assert agreement(u21, v21) == 1.0
    # padding beyond the length is ignored (a huge padded v would otherwise beat v_1)
    v_pad = v_top.copy()
    v_pad[0, 10:] = 99.0
    assert agreement_rows(u, v_pad, lengths=np.array([10]))[0] == 1.0
    assert agreement_rows(u, v_pad)[0] == 0.0


@pytest.mark.parametrize("length,expected", [(40, 2 / 40), (20, 1 / 20), (41, 3 / 41)])
def test_shuffled_baseline_is_the_rounded_five_percent(length, expected):
    rng = np.random.default_rng(0)
    u, v = rng.random((20000, length)), rng.random((20000, length))
    assert agreement(u, v) == pytest.approx(expected, abs=0.006)
    assert shuffled_baseline(u, u, seed=1) == pytest.approx(expected, abs=0.006)
    assert agreement(u, u) == 1.0


def test_shuffle_keeps_padding_and_values():
    v = np.array([[1.0, 2.0, 3.0, 0.0, 0.0]])
    s = shuffle_rows(v, np.array([3]), seed=0)
    assert sorted(s[0, :3]) == [1.0, 2.0, 3.0] and (s[0, 3:] == 0).all()


def test_kendall_tau_matches_scipy_with_ties_and_padding():
    rng = np.random.default_rng(0)
    u = rng.integers(0, 4, (30, 9)).astype(float)   # ties on purpose
    v = rng.random((30, 9))
    lengths = rng.integers(3, 10, 30)
    ours = kendall_tau_rows(u, v, lengths)
    ref = np.array([stats.kendalltau(u[i, :n], v[i, :n]).statistic for i, n in enumerate(lengths)])
    np.testing.assert_allclose(ours, ref, equal_nan=True)
    assert kendall_agreement(u, u) == pytest.approx(1.0)


def test_xi_is_the_performance_at_the_first_step_that_agrees_more():
    curve = pd.DataFrame({"step": [0, 10, 20, 30], "agreement": [0.05, 0.3, 0.6, 0.5],
                          "performance": [0.1, 0.4, 0.8, 0.9]})
    assert xi(0.25, curve) == 0.4 and xi(0.55, curve) == 0.8
    assert math.isnan(xi(0.7, curve)) and xi_star(curve) == 0.9
    t = xi_table({"a": 0.25}, curve)
    assert list(t.name) == ["a", "xi_star"] and list(t.xi) == [0.4, 0.9]


def test_count_table_hand_case():
    # pair 1: x = [0, 1], y = [1]      -> C[0,1] += 1/2, C[1,1] += 1/2
    # pair 2: x = [1, 1, 2], y = [0, 2] -> C[1,0] += 2/3, C[1,2] += 2/3, C[2,0] += 1/3, C[2,2] += 1/3
    c = ct.count_table([[0, 1], [1, 1, 2]], [[1], [0, 2]], 3, 3)
    expected = np.array([[0, .5, 0], [2 / 3, .5, 2 / 3], [1 / 3, 0, 1 / 3]])
    np.testing.assert_allclose(c, expected)
    src, tgt = np.array([[0, 1, 2], [2, 2, 1]]), np.array([[1, 0], [2, 2]])
    np.testing.assert_allclose(ct.count_table_dense(src, tgt, 3, 3), ct.count_table(src, tgt, 3, 3))


def test_count_table_of_permutations_is_flat():
    rng = np.random.default_rng(0)
    src = np.stack([rng.permutation(6) for _ in range(50)])
    c = ct.count_table_dense(src, src, 6, 6)
    np.testing.assert_allclose(c, np.full((6, 6), 50 / 6))


def test_ibm1_one_iteration_is_eq17_and_em_finds_the_known_alignment():
    # the textbook toy: la maison / the house, la fleur / the flower, maison bleue / blue house
    src_words, tgt_words = ["la", "maison", "fleur", "bleue"], ["the", "house", "flower", "blue"]
    pairs = [(["la", "maison"], ["the", "house"]), (["la", "fleur"], ["the", "flower"]),
             (["maison", "bleue"], ["house", "blue"])]
    src = [[src_words.index(w) for w in s] for s, _ in pairs]
    tgt = [[tgt_words.index(w) for w in t] for _, t in pairs]
    c = ct.count_table(src, tgt, 4, 4)
    np.testing.assert_allclose(ibm1.em(src, tgt, 4, 4, iterations=1), ibm1.translation_table(c))
    trans = ibm1.em(src, tgt, 4, 4, iterations=30)
    assert list(trans.argmax(1)) == [0, 1, 2, 3]          # la->the, maison->house, fleur->flower, bleue->blue
    assert trans[1, 1] > 0.9
    a = ibm1.alpha_ibm(trans, src[2], tgt[2])             # maison bleue / house blue
    np.testing.assert_allclose(a.sum(1), 1.0)
    assert list(a.argmax(1)) == [0, 1]
    np.testing.assert_allclose(ibm1.beta_ibm(trans, src[2], tgt[2]), trans[np.ix_(src[2], tgt[2])].T)


def test_ibm1_cannot_learn_from_permutations_of_one_set():
    rng = np.random.default_rng(1)
    src = [rng.permutation(5) for _ in range(40)]
    trans = ibm1.em(src, src, 5, 5, iterations=5)
    np.testing.assert_allclose(trans, 0.2)


def _curve(alpha_ref, alpha_b, perf_b):
    from attnrepro.snell2021.agreement_table import second_run_curve

    return second_run_curve(alpha_ref, alpha_b, perf_b, np.arange(len(perf_b)) * 10)


def test_table2_row_on_identical_probes():
    from attnrepro.snell2021.agreement_table import table2_row

    rng = np.random.default_rng(0)
    a = rng.random((200, 40))
    ckpts = np.stack([rng.random((200, 40)), a, a])               # the best checkpoint (index 1) is a
    perf = np.array([0.1, 0.9, 0.8])
    alpha_b = np.stack([rng.random((200, 40)), rng.random((200, 40)), a])
    perf_b = np.array([0.2, 0.5, 0.7])
    row = table2_row(ckpts, perf, ckpts, ckpts, a, a, alpha_b, perf_b, _curve(a, alpha_b, perf_b), seed=7)
    for col in ("A_alpha_beta_uf", "A_beta_uf_beta_px", "A_delta_beta_uf", "A_alpha_beta", "tau_alpha_beta_uf"):
        assert row[col] == pytest.approx(1.0)
    assert row["A_hat"] == pytest.approx(0.05, abs=0.04)
    # nothing agrees more than 1.0: ξ := ξ*, marked, the seed kept (the paper's "*")
    assert row["xi_alpha_beta"] == 0.7 and row["xi_alpha_beta_starred"]
    assert row["xi_star"] == 0.7
    assert row["A_alpha_beta_uf_excess"] == pytest.approx(1.0 - row["A_hat"])
    assert row["A_alpha_beta_uf_excess_null"] == pytest.approx(1.0 - row["A_alpha_beta_uf_null"])
    assert row["tau_alpha_beta_uf_excess"] == pytest.approx(1.0 - row["tau_hat"])
    # β^uf agrees fully from the second checkpoint to the last: no peak inside training
    assert row["A_alpha_beta_uf_peak_inside"] == pytest.approx(0.0)


def test_table2_row_peak_inside_and_xi_progress():
    from attnrepro.snell2021.agreement_table import table2_row, xi_progress

    rng = np.random.default_rng(1)
    a = rng.random((200, 40))
    noise = lambda: rng.random((200, 40))  # noqa: E731
    alpha = np.stack([noise(), a, a])
    beta_uf = np.stack([noise(), 0.8 * a + 0.2 * noise(), noise()])  # agrees (partly) only mid-training, App. A.7
    alpha_b = np.stack([noise(), noise(), a])                    # the second run agrees only at its end
    perf_b = np.array([0.5, 0.8, 0.9])
    row = table2_row(alpha, np.array([0.1, 0.9, 0.8]), alpha, beta_uf, a, a, alpha_b, perf_b,
                     _curve(a, alpha_b, perf_b), seed=3)
    assert 0.3 < row["A_alpha_beta_uf"] < 1 and row["A_alpha_beta_uf_peak_inside"] > 0.2
    # ξ(α, β^uf) is reached only at the last checkpoint: the whole learning curve
    assert row["xi_alpha_beta_uf"] == 0.9 and row["xi_alpha_beta_uf_progress"] == pytest.approx(1.0)
    assert not row["xi_alpha_beta_uf_starred"]
    assert xi_progress(0.6, 0.5, 0.9) == pytest.approx(0.25)
    assert math.isnan(xi_progress(0.6, 0.5, 0.5))               # a run that does not learn has no scale


def test_alpha_of_run_a_against_beta_of_run_b():
    """Authors' utils.py: A(α, β) pairs run A's α with run B's β, and Â shuffles α_B; hand case: B's β matches
    A's α at one checkpoint, A's own β never — the same-run pairing would give 0, the authors' 1."""
    from attnrepro.snell2021.agreement_table import table2_table

    rng = np.random.default_rng(4)
    n, length = 60, 20
    a0 = rng.random((n, length))
    wrong = np.roll(a0, 5, axis=1)                                # top position moved: never agrees with a0
    alpha = np.stack([np.stack([a0, a0]), np.stack([a0, a0])])    # both runs attend as a0
    beta = np.stack([np.stack([wrong, wrong]), np.stack([wrong, a0])])   # run 1's β agrees at its 2nd checkpoint
    perf = np.array([[0.5, 0.9], [0.5, 0.9]])
    rows, curves = table2_table([0, 1], np.array([0, 10]), perf, alpha, beta, beta, a0, np.stack([a0, a0]),
                                None)
    assert rows.loc[0, "A_alpha_beta"] == 1.0 and rows.loc[1, "A_alpha_beta"] == 0.0
    assert rows.loc[0, "second_run_seed"] == 1


def test_max_over_checkpoints_null():
    """A hand case: with one all-ties checkpoint (every v_j equal, nothing strictly above) the maximum over
    checkpoints against shuffled partners is 1, while one shuffle of a single checkpoint sits near chance."""
    from attnrepro.snell2021.agreement import max_over_checkpoints_null, shuffled_baseline

    rng = np.random.default_rng(5)
    u = rng.random((400, 40))
    noise = rng.random((400, 40))
    assert max_over_checkpoints_null(u, np.stack([noise, np.ones((400, 40))])) == 1.0
    one = shuffled_baseline(u, noise, seed=0)
    several = max_over_checkpoints_null(u, np.stack([rng.random((400, 40)) for _ in range(20)]), seed=0)
    assert one == pytest.approx(0.05, abs=0.03) and several >= one
    assert max_over_checkpoints_null(u, noise[None], seed=0) == shuffled_baseline(u, noise, seed=[0, 0])


def test_xi_marked_and_averaged_curve():
    from attnrepro.snell2021.contextual_agreement import averaged_curve, xi_marked

    c1 = pd.DataFrame({"step": [0, 10, 20], "agreement": [0.1, 0.3, 0.5], "performance": [0.2, 0.6, 0.8]})
    c2 = pd.DataFrame({"step": [0, 10, 20], "agreement": [0.3, 0.5, 0.9], "performance": [0.4, 0.8, 1.0]})
    mean = averaged_curve([c1, c2])
    np.testing.assert_allclose(mean.agreement, [0.2, 0.4, 0.7])
    np.testing.assert_allclose(mean.performance, [0.3, 0.7, 0.9])
    assert xi_marked(0.35, mean) == (pytest.approx(0.7), False)   # first above 0.35: step 10
    assert xi_marked(0.8, mean) == (pytest.approx(0.9), True)     # none above: ξ := ξ*, starred


def test_rotten_tomatoes_loads_and_encodes():
    from attnrepro.snell2021 import classification_sets as text
    from attnrepro.data.tokens import classification_words

    df = text.load("rotten_tomatoes")
    assert len(df) == 7403 + 5405 and df.label.mean() == pytest.approx(7403 / 12808)
    train, test, vocab = text.prepare(df.head(600), n_test=100, max_len=12, min_count=3, seed=0)
    assert len(test) == 100 and len(train) == 500 and test.src.shape[1] <= 12
    assert vocab[:2] == ["<pad>", "<unk>"] and (train.src_len >= 1).all()
    assert (train.src[np.arange(len(train)), train.src_len - 1] > 0).all()   # the last real word is not padding
    assert (train.tgt_len == 1).all() and set(train.tgt_out[:, 0].tolist()) == {0, 1}   # the label is the target
    assert classification_words("It's GREAT, isn't it?") == ["it's", "great", ",", "isn't", "it", "?"]


def test_first_step_above_is_tau0_of_fig2():
    from attnrepro.snell2021.contextual_agreement import first_step_above

    curve = pd.DataFrame({"step": [20, 0, 10], "agreement": [0.6, 0.05, 0.3], "performance": [0.8, 0.1, 0.4]})
    assert first_step_above(0.25, curve) == 10 and first_step_above(0.3, curve) == 20   # strictly more
    assert math.isnan(first_step_above(0.6, curve))


def test_second_run_curve_and_target_token_rows():
    from attnrepro.snell2021.agreement_table import reference_alpha, second_run_curve, target_token_rows

    # 2 pairs, T = 3, L = 2: pair 0 has 2 target tokens and source length 2, pair 1 one token and length 1
    probe = np.arange(2 * 3 * 2).reshape(2, 3, 2).astype(float)
    mask = np.array([[True, True, False], [True, False, False]])
    rows, lengths = target_token_rows(probe, mask, np.array([2, 1]))
    np.testing.assert_array_equal(rows, [[0, 1], [2, 3], [6, 7]])
    np.testing.assert_array_equal(lengths, [2, 2, 1])
    stacked, _ = target_token_rows(np.stack([probe, -probe]), mask, np.array([2, 1]))   # a leading seed axis
    assert stacked.shape == (2, 3, 2) and (stacked[1] == -rows).all()
    alpha = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])                     # 2 checkpoints, 1 row, L = 2
    assert (reference_alpha(alpha, np.array([0.2, 0.9])) == alpha[1]).all()
    # row 0 of u peaks at 0; the second run's checkpoints peak at 1 then 0: A = 0 then 1 (top 5% of 2 = 1 place)
    curve = second_run_curve(np.array([[0.9, 0.1]]), np.array([[[0.2, 0.8]], [[0.7, 0.3]]]), [0.3, 0.6], [0, 5])
    assert list(curve.step) == [0, 5] and list(curve.agreement) == [0.0, 1.0] and list(curve.performance) == [0.3, 0.6]


def test_bleu_sentences_cut_at_eos_and_drop_padding():
    from attnrepro.seq2seq.bleu import bleu, sentences

    words = ["<pad>", "<eos>", "<sos>", "le", "chat", "dort", "<unk>"]
    assert sentences([[3, 4, 5, 1, 4], [0, 3, 0, 4, 0], [1, 3]], words, "hypothesis") == ["le chat dort", "le chat", ""]
    # an <unk> is written differently on each side: never a match
    assert sentences([[3, 6]], words, "hypothesis") != sentences([[3, 6]], words, "reference")
    assert bleu(["le chat dort ici"], ["le chat dort ici"]) == pytest.approx(100.0)


def test_joint_vocab_shares_words_spelt_alike():
    from attnrepro.snell2021.parallel import joint_vocab, remap
    from attnrepro.data.vocab import Encoded
    import torch

    src = ["<pad>", "<eos>", "the", "cat", "<unk>"]
    tgt = ["<pad>", "<sos>", "<eos>", "chat", "le", "<unk>"]
    words, s_map, t_map = joint_vocab(src, tgt)
    assert words == ["<pad>", "<eos>", "the", "cat", "<unk>", "<sos>", "chat", "le"]
    assert list(s_map) == [0, 1, 2, 3, 4] and list(t_map) == [0, 5, 1, 6, 7, 4]
    enc = Encoded(src=torch.tensor([[2, 3, 1, 0]]), src_len=torch.tensor([3]), tgt_in=torch.tensor([[1, 4, 3]]),
                  tgt_out=torch.tensor([[4, 3, 2]]), tgt_len=torch.tensor([3]))
    out = remap(enc, s_map, t_map)
    assert out.src.tolist() == [[2, 3, 1, 0]] and out.tgt_in.tolist() == [[5, 7, 6]] and out.tgt_out.tolist() == [[7, 6, 1]]
    with pytest.raises(ValueError, match="<pad>"):
        joint_vocab(["<eos>"], tgt)


def test_table2_frame_translation_columns_and_paper_reference():
    from attnrepro.snell2021.figures import fig2_frame, table2_frame

    cols = ["A_alpha_beta_uf", "A_beta_uf_beta_px", "A_delta_beta_uf", "A_alpha_beta", "A_hat", "xi_alpha_beta_uf",
            "xi_alpha_beta", "xi_star", "tau_alpha_beta_uf", "tau_beta_uf_beta_px", "tau_delta_beta_uf", "tau_hat"]
    copy = pd.DataFrame({c: [0.2, 0.4] for c in cols} | {"seed": [0, 1]})
    mt = copy.assign(token_acc=[0.3, 0.5], bleu=[10.0, 20.0])
    frame = table2_frame({"copy": copy, "mt": mt}, {"mt": "Multi30k"})
    c, m = frame.iloc[0], frame.iloc[1]
    assert c.A_alpha_beta_uf == pytest.approx(30) and math.isnan(c.bleu) and c.reference == ""
    assert m.token_acc == pytest.approx(40) and m.bleu == pytest.approx(15)     # BLEU is already 0-100
    assert m.ref_A_alpha_beta_uf == 31.02 and m.ref_bleu == 37.89 and m.ref_token_acc == m.ref_xi_star == 66.29
    assert math.isnan(c.ref_A_hat)
    # Fig. 2: τ₀ and ξ of each seed against its own levels A(α, β_uf), A(α, β)
    curve = pd.DataFrame({"step": [0, 10, 20], "agreement": [0.1, 0.3, 0.5], "performance": [0.0, 0.5, 0.9]})
    xi_curves = pd.concat([curve.assign(seed=0, second_run_seed=1), curve.assign(seed=1, second_run_seed=0)])
    summary = pd.DataFrame({"seed": [0, 1], "A_alpha_beta_uf": [0.2, 0.6], "A_alpha_beta": [0.4, 0.05]})
    f = fig2_frame({"mt": xi_curves}, {"mt": summary})
    first = f.groupby("seed").first()
    assert list(first.tau0_alpha_beta_uf.fillna(-1)) == [10, -1] and first.xi_alpha_beta_uf[0] == pytest.approx(50)
    assert list(first.tau0_alpha_beta) == [20, 0] and list(first.xi_alpha_beta) == pytest.approx([90, 0])
    assert len(f) == 6 and f.agreement.max() == pytest.approx(50) and f.A_alpha_beta_uf.iloc[0] == pytest.approx(20)


def test_curve_summary_hand_case_with_a_censored_and_a_diverged_run():
    from attnrepro.snell2021.run_tables import curve_summary

    steps = [0, 20, 40]
    metrics = pd.DataFrame({"step": steps * 3, "member": [0] * 3 + [1] * 3 + [2] * 3, "seed": [7] * 3 + [8] * 3 + [9] * 3,
                            "token_acc": [0.1, 0.96, 0.99, 0.1, 0.5, 0.55, 0.1, np.nan, np.nan],
                            "diverged": [False] * 7 + [True] * 2})
    s = curve_summary(metrics, fail_below=0.6, good_above=0.95).set_index("seed")
    assert s.loc[7, ["failed", "reached_good", "steps_to_good", "steps_to_good_censored"]].tolist() == [0, 1, 20, 20]
    assert s.loc[8, "failed"] == 1 and s.loc[8, "reached_good"] == 0 and math.isnan(s.loc[8, "steps_to_good"])
    assert s.loc[8, "steps_to_good_censored"] == 60                 # one evaluation past the last step
    assert s.loc[9, "diverged"] == 1 and s.loc[9, ["failed", "reached_good", "final_acc"]].isna().all()
    assert s.loc[7, "mean_acc"] == pytest.approx((0.1 + 0.96 + 0.99) / 3)


def test_keyword_orders_need_the_approximate_equalities_of_eq24_and_eq25():
    from attnrepro.snell2021.run_tables import keyword_summary

    def curve(early, late):
        rows = [{"step": s, "seed": 0, "acc": 0.5, **dict(zip(("gamma_key", "gamma_next", "gamma_mean", "gamma_last"), g))}
                for s, g in zip((0, 10, 20), ((0.25,) * 4, early, late))]
        return pd.DataFrame(rows)

    # Eq. 24: key > next > mean ≈ last; Eq. 25: last > next > mean ≈ key
    ok = keyword_summary(curve((0.5, 0.3, 0.2, 0.21), (0.2, 0.3, 0.21, 0.5))).iloc[0]
    assert ok.hyp2_early == 1 and ok.obs3_final == 1 and ok.obs3_step == 1
    # the orders hold, but γ̄ is far from γ_L (early) and from γ_l* (late): not the paper's equations
    far = keyword_summary(curve((0.5, 0.3, 0.2, 0.02), (0.05, 0.3, 0.2, 0.5))).iloc[0]
    assert far.hyp2_early == 0 and far.obs3_final == 0 and np.isnan(far.obs3_step)


def test_member_bleu_scores_each_member_against_the_padded_references():
    from attnrepro.snell2021.agreement_table import member_bleu
    from attnrepro.data.tokens import EOS, PAD, SOS

    words = [PAD, SOS, EOS, "the", "cat", "sat", "on", "mat", "dog"]
    refs = pd.DataFrame({"example": [1, 0], "tgt": [np.array([3, 8, 5, 6, 3, 7, 2]), np.array([3, 4, 5, 6, 3, 7, 2])]})
    right = [np.array([3, 4, 5, 6, 3, 7, 2]), np.array([3, 8, 5, 6, 3, 7, 2])]
    wrong = [np.array([8, 8, 8, 8, 2]), np.array([4, 4, 4, 4, 2])]
    decodes = pd.DataFrame({"member": [1, 1, 0, 0], "example": [0, 1, 0, 1], "predicted": wrong + right})
    assert member_bleu(refs, decodes, words) == [pytest.approx(100.0), pytest.approx(0.0)]


def test_failure_curve_and_judging_at_the_authors_last_evaluation():
    """Hand case: 3 seeds evaluated after 1, 191 and 200 updates; seed 1 climbs past 0.6 only after 191, seed 2
    diverges. Judged at 191 (the authors' last evaluation) seed 1 fails; at 200 it does not."""
    from attnrepro.snell2021.run_tables import curve_summary, failure_curve

    rows = []
    for member, accs in enumerate([(0.1, 0.9, 0.95), (0.1, 0.5, 0.7), (0.1, np.nan, np.nan)]):
        for step, acc in zip((1, 191, 200), accs):
            rows.append({"step": step, "member": member, "seed": 10 + member, "token_acc": acc,
                         "diverged": member == 2 and step > 1})
    metrics = pd.DataFrame(rows)
    curve = failure_curve(metrics, 0.6, "copy_same")
    assert list(curve.columns) == ["run", "step", "n_seeds", "n_below"]
    assert curve.step.tolist() == [1, 191, 200] and (curve.n_seeds == 2).all()   # the diverged seed left out
    assert curve.n_below.tolist() == [2, 1, 0] and (curve.run == "copy_same").all()
    judged = curve_summary(metrics, 0.6, 0.95, judge_step=191).set_index("seed")
    last = curve_summary(metrics, 0.6, 0.95).set_index("seed")
    assert judged.loc[11, "failed"] == 1.0 and last.loc[11, "failed"] == 0.0
    assert judged.loc[10, "final_acc"] == 0.9 and judged.loc[12, "diverged"] == 1.0


def test_keyword_statistics_converge_where_they_stop_moving():
    from attnrepro.snell2021.run_tables import converged_step, keyword_summary

    steps = [0, 100, 200, 300, 400, 500, 600]
    last = [0.0, 1.0, 2.0, 3.0, 3.05, 3.08, 3.1]            # moves until 300, then within 5% of 3.0
    rows = [{"step": s, "seed": 0, "acc": 0.9, "gamma_key": 0.2, "gamma_next": 0.3 + 0.5 * (s > 0),
             "gamma_mean": 0.21, "gamma_last": g} for s, g in zip(steps, last)]
    curve = pd.DataFrame(rows)
    assert converged_step(curve) == 300
    assert np.isnan(converged_step(curve, window=4))        # only 3 evaluations after it: not shown yet
    s = keyword_summary(curve).iloc[0]
    assert s.converged_step == 300 and s.obs3_converged == 1
    # a slow drift, 1% per 50 steps to step 1,500: any 3 later evaluations stay within 5%, but not a quarter of
    # the run
    steps = list(range(0, 1550, 50))
    drift = pd.DataFrame([{"step": t, "seed": 0, "acc": 0.9, "gamma_key": 0.2, "gamma_next": 0.8,
                           "gamma_mean": 0.21, "gamma_last": 3.0 * 1.01 ** (t / 50)} for t in steps])
    assert converged_step(drift, span=0.0) == 1300 and np.isnan(converged_step(drift))
