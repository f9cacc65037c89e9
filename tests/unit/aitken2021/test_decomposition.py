import numpy as np
import pandas as pd
import pytest

from attnrepro.aitken2021.decomposition import (TERMS,
    alignment_shares,
    alignment_terms,
    decompose,
    delta_component,
    input_component,
    temporal_component,
    temporal_alignment,
    map_agreement,
    top_alignment_shares)


def ragged(rng, m=40, t_range=(5, 9), n_tokens=4):
    """Flattened rows of m sequences of random lengths: example, pos, token."""
    lengths = rng.integers(*t_range, size=m)
    example = np.repeat(np.arange(m), lengths)
    pos = np.concatenate([np.arange(n) for n in lengths])
    token = rng.integers(0, n_tokens, size=len(pos))
    return example, pos, token


def test_exact_identity_h_equals_mu_plus_chi_plus_delta():
    rng = np.random.default_rng(0)
    example, pos, token = ragged(rng)
    h = rng.normal(size=(len(pos), 6))
    d = decompose(h, pos, token)
    np.testing.assert_allclose(d.temporal + d.input + d.delta, h, atol=1e-12)
    np.testing.assert_allclose(d.input_delta, h - d.temporal, atol=1e-12)


def test_temporal_component_is_masked_mean():
    # two sequences of lengths 3 and 1: μ_0 averages both, μ_1 and μ_2 only the first
    h = np.array([[1.0], [2.0], [3.0], [5.0]])
    pos = np.array([0, 1, 2, 0])
    mu = temporal_component(h, pos)
    np.testing.assert_allclose(mu[:, 0], [3.0, 2.0, 3.0])


def test_input_component_averages_over_occurrences():
    h = np.array([[1.0], [4.0], [2.0], [8.0]])
    pos = np.array([0, 1, 0, 1])
    token = np.array([0, 1, 1, 0])
    mu = temporal_component(h, pos)            # [1.5, 6.0]
    chi = input_component(h, pos, token, mu)   # word 0: (1-1.5, 8-6)/2 ; word 1: (4-6, 2-1.5)/2
    np.testing.assert_allclose(chi[:, 0], [0.75, -0.75])
    np.testing.assert_allclose(delta_component(h, pos, token, mu, chi)[:, 0], [-1.25, -1.25, 1.25, 1.25])


def test_recovers_planted_components():
    """h = μ_t + χ_x + small noise: the decomposition returns the planted μ and χ (up to the shift that
    moves χ's occurrence-weighted mean into μ) and a Δ as small as the noise."""
    rng = np.random.default_rng(1)
    example, pos, token = ragged(rng, m=3000, t_range=(6, 10), n_tokens=5)
    H = 8
    mu_true = rng.normal(size=(10, H)) * 3
    chi_true = rng.normal(size=(5, H)) * 2
    noise = rng.normal(size=(len(pos), H)) * 0.01
    h = mu_true[pos] + chi_true[token] + noise
    d = decompose(h, pos, token)
    counts = np.bincount(token, minlength=5)
    chi_centred = chi_true - (counts @ chi_true) / counts.sum()
    np.testing.assert_allclose(d.chi, chi_centred, atol=0.05)
    np.testing.assert_allclose(d.mu[:9], mu_true[:9] + (counts @ chi_true) / counts.sum(), atol=0.1)
    assert np.linalg.norm(d.delta, axis=1).mean() < 0.1
    assert np.linalg.norm(d.input_delta, axis=1).mean() > 2


def test_unreached_positions_and_unseen_words_are_nan():
    h = np.ones((2, 3))
    d = decompose(h, np.array([0, 0]), np.array([0, 0]), n_pos=3, n_tokens=2)
    assert np.isnan(d.mu[1:]).all() and np.isnan(d.chi[1]).all()


def planted_alignment(temporal_weight, rng, m=200, n=8, H=16):
    """Diagonal alignment made by temporal components of strength ``temporal_weight``."""
    example = np.repeat(np.arange(m), n)
    pos = np.tile(np.arange(n), m)
    basis = np.linalg.qr(rng.normal(size=(H, H)))[0]
    mu = basis[:n] * temporal_weight          # orthogonal per position: μ_s·μ_t large only at s = t
    chi = basis[n : n + 3]                    # orthogonal to every μ
    enc_tok = rng.integers(0, 3, size=len(pos))
    dec_tok = rng.integers(0, 3, size=len(pos))
    enc_h = mu[pos] + chi[enc_tok] + rng.normal(size=(len(pos), H)) * 0.01
    dec_h = mu[pos] + rng.normal(size=(len(pos), H)) * 0.01
    return (decompose(dec_h, pos, dec_tok), example, decompose(enc_h, pos, enc_tok), example)


def test_alignment_terms_sum_to_the_alignment_and_pick_the_argmax():
    rng = np.random.default_rng(2)
    dec, dex, enc, eex = planted_alignment(3.0, rng)
    terms = alignment_terms(dec, dex, enc, eex)
    assert list(terms.columns[-9:]) == list(TERMS)
    np.testing.assert_allclose(terms[list(TERMS)].sum(axis=1), terms.a, rtol=1e-9, atol=1e-9)
    top = terms[terms["rank"] == 0]
    assert (top.t_star == top.s).mean() > 0.99  # diagonal attention


def test_temporal_term_dominates_planted_temporal_alignment():
    rng = np.random.default_rng(3)
    shares = top_alignment_shares(alignment_terms(*planted_alignment(3.0, rng)))
    assert shares.sum() == pytest.approx(1.0)
    assert shares["mu_mu"] > 0.9


def test_shares_follow_the_dominant_term():
    """A hand-made case: rows where only χ^D·Δh^E is non-zero give that term a share of one."""
    terms = pd.DataFrame({k: [0.0, 0.0] for k in TERMS})
    terms["chi_delta"] = [2.0, -3.0]
    terms["mu_mu"] = [2.0, 0.0]
    shares = top_alignment_shares(terms)
    assert shares["chi_delta"] == pytest.approx((0.5 + 1.0) / 2)
    assert shares["mu_mu"] == pytest.approx(0.25)


def test_authors_shares_take_top_five_per_step_then_steps_equally():
    """A hand-made alignment where the authors' top-5 per-step share and the top-1 pooled share differ.

    Step 0 is reached by three examples whose top alignment is all μ·μ; example 0's second alignment there is all
    Δh·χ. Step 1 is reached by example 0 only, all χ·Δh. Top-1 pooled over the four (example, step) rows:
    μ·μ = 3/4. The authors: step 0 = mean(1, 1, 1, 0) = 3/4 over its alignments, step 1 = 0, so μ·μ = 3/8."""
    rows = [(0, 0, 0, "mu_mu"), (1, 0, 0, "mu_mu"), (2, 0, 0, "mu_mu"), (0, 0, 1, "delta_chi"),
            (0, 1, 0, "chi_delta")]
    terms = pd.DataFrame([{"example": e, "s": s, "rank": r, **{k: 0.0 for k in TERMS}, term: -2.0}
                          for e, s, r, term in rows])
    top1, authors = top_alignment_shares(terms), alignment_shares(terms)
    assert top1["mu_mu"] == pytest.approx(0.75) and top1["chi_delta"] == pytest.approx(0.25)
    assert authors["mu_mu"] == pytest.approx(3 / 8)
    assert authors["delta_chi"] == pytest.approx(1 / 8) and authors["chi_delta"] == pytest.approx(0.5)
    assert authors.sum() == pytest.approx(1.0)


def test_alignment_terms_rank_the_top_five_alignments():
    """One decoder step over six encoder steps with scores 0..5 (μ^D·μ^E only): ranks 0..4 are t = 5..1."""
    H = 6
    enc_h = np.eye(H) * np.arange(H)[:, None]
    enc = decompose(enc_h, np.arange(H), np.arange(H))
    dec = decompose(np.ones((1, H)), np.array([0]), np.array([0]))
    terms = alignment_terms(dec, np.array([0]), enc, np.zeros(H, int))
    assert terms["rank"].tolist() == [0, 1, 2, 3, 4] and terms.t_star.tolist() == [5, 4, 3, 2, 1]
    np.testing.assert_allclose(terms.a, [5, 4, 3, 2, 1])
    short = alignment_terms(dec, np.array([0]), decompose(enc_h[:2], np.arange(2), np.arange(2)), np.zeros(2, int))
    assert short["rank"].tolist() == [0, 1]  # fewer alignments where the input is shorter than five


def test_map_agreement_of_the_term_that_makes_the_attention():
    """On a planted temporal alignment μ^D·μ^E alone peaks where the full attention does."""
    rng = np.random.default_rng(6)
    agree = map_agreement(*planted_alignment(3.0, rng))
    assert agree["mu_mu"] > 0.99 and agree["chi_chi"] < 0.5


def test_alignment_respects_the_encoder_mask():
    """An encoder position beyond an example's length is never the top alignment, however large."""
    rng = np.random.default_rng(4)
    example = np.array([0, 0, 1, 1, 1])
    pos = np.array([0, 1, 0, 1, 2])
    enc = decompose(rng.normal(size=(5, 4)), pos, np.zeros(5, int))
    dec = decompose(rng.normal(size=(4, 4)), np.array([0, 1, 0, 1]), np.zeros(4, int))
    terms = alignment_terms(dec, np.array([0, 0, 1, 1]), enc, example)
    assert terms[terms.example == 0].t_star.max() <= 1


def test_temporal_alignment_rows_are_distributions():
    rng = np.random.default_rng(5)
    a = temporal_alignment(rng.normal(size=(6, 4)), rng.normal(size=(7, 4)))
    np.testing.assert_allclose(a.sum(1), 1.0)
