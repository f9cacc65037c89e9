"""App. A.1 of Snell et al. 2021: α^opt of the linear-output model (Eq. 32) on hand cases whose optimum is
known, A(α^opt, β) − Â where the claim must fail and where it holds, the model's Eq. 34 terms, and the config."""

import numpy as np
import pandas as pd
import pytest
import torch

from attnrepro.verdicts.claims import summarize
from attnrepro.errors import AttnReproError
from attnrepro.verdicts.intervals import NOT_REPRODUCED, REPRODUCED
from attnrepro.verdicts.papers import CLAIMS
from attnrepro.snell2021.config import alpha_opt_iterations, alpha_opt_roles, alpha_opt_runs
from attnrepro.snell2021.validation import check_alpha_opt
from attnrepro.snell2021.optimal_attention import (alpha_opt_agreement, alpha_opt_summary, eq32_loss,
                                                   model_alpha_opt, optimal_attention, project_simplex)

CLAIM = next(c for c in CLAIMS if c.claim_id == "translation_alpha_opt_agrees_with_beta")


def _verdict(alpha_opt, beta):
    """The claim's verdict over six "seeds" (five cannot decide): the same α^opt and β, Â shuffled with each."""
    excesses = [alpha_opt_agreement(alpha_opt, beta, seed=s)["A_alpha_opt_beta_excess"] for s in range(6)]
    df = pd.DataFrame({"seed": range(len(excesses)), CLAIM.measure: excesses})
    return summarize({"mt": df}, {"mt": ("translation", "lstm_attention")}, (CLAIM,)).iloc[0].verdict


def _beta(gamma, gamma_s, gold):
    """β_l = σ(γ_l + γ_s)_y (Eq. 28), [N, L]."""
    logp = torch.log_softmax(gamma + gamma_s[:, None], -1)
    return logp.gather(-1, gold[:, None, None].expand(-1, gamma.shape[1], 1))[..., 0].exp()


def test_projection_onto_the_simplex_of_the_real_positions():
    v = torch.tensor([[0.5, 0.2, 0.9, 3.0], [1.0, 1.0, 7.0, 7.0], [-4.0, 0.0, 0.0, 0.0]])
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0]]).bool()
    p = project_simplex(v, mask)
    torch.testing.assert_close(p, torch.tensor([[0.3, 0.0, 0.7, 0.0], [0.5, 0.5, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]]),
                               atol=1e-6, rtol=0)


def test_eq30_optimum_avoids_the_largest_beta_and_the_claim_fails():
    """App. A.1's own counterexample (Eq. 29-31): γ_1 = 0, γ_2 = [0, −10, 5], γ_3 = [0, 5, −10], gold word 0. β_1 = 1/3
    is the largest β, yet α^opt = (0, ½, ½): A(α^opt, β) = 0, below the shuffled baseline."""
    gamma = torch.tensor([[[0.0, 0, 0], [0, -10, 5], [0, 5, -10]]], dtype=torch.float64).expand(300, -1, -1)
    gamma_s, gold, lengths = torch.zeros(300, 3, dtype=torch.float64), torch.zeros(300, dtype=torch.long), \
        torch.full((300,), 3)
    alpha = optimal_attention(gamma, gamma_s, gold, lengths, iterations=300)
    torch.testing.assert_close(alpha[0], torch.tensor([0.0, 0.5, 0.5], dtype=torch.float64), atol=1e-6, rtol=0)
    beta = _beta(gamma, gamma_s, gold)
    assert beta[0, 0] == pytest.approx(1 / 3) and beta[0, 1] < 0.01
    row = alpha_opt_agreement(alpha.numpy(), beta.numpy(), seed=0)
    assert row["A_alpha_opt_beta"] == 0.0 and row["A_alpha_opt_beta_hat"] == pytest.approx(1 / 3, abs=0.1)
    assert _verdict(alpha.numpy(), beta.numpy()) == NOT_REPRODUCED


def test_optimum_on_the_gold_words_source_position_agrees_with_beta_and_the_claim_holds():
    """Each target token's gold word has a large logit at one source position only: the optimum is that vertex,
    where β is largest too, so A(α^opt, β) = 1 and its excess over Â ≈ 1 − 1/L."""
    rng = np.random.default_rng(0)
    n, length, vocab = 400, 20, 7
    gamma = torch.as_tensor(rng.normal(size=(n, length, vocab)))
    gold = torch.as_tensor(rng.integers(0, vocab, n))
    where = torch.as_tensor(rng.integers(0, length, n))
    gamma[torch.arange(n), where, gold] += 8.0
    gamma_s = torch.as_tensor(rng.normal(size=(n, vocab)))
    lengths = torch.full((n,), length)
    alpha = optimal_attention(gamma, gamma_s, gold, lengths, iterations=200)
    assert (alpha.argmax(-1) == where).all()
    beta = _beta(gamma, gamma_s, gold).numpy()
    row = alpha_opt_agreement(alpha.numpy(), beta, seed=1)
    assert row["A_alpha_opt_beta"] == 1.0 and row["A_alpha_opt_beta_excess"] > 0.85
    assert _verdict(alpha.numpy(), beta) == REPRODUCED


def test_optimum_beats_every_vertex_and_random_point_and_ignores_padding():
    rng = np.random.default_rng(3)
    n, length, vocab = 50, 6, 9
    gamma = torch.as_tensor(rng.normal(scale=3.0, size=(n, length, vocab)))
    gamma_s = torch.as_tensor(rng.normal(size=(n, vocab)))
    gold = torch.as_tensor(rng.integers(0, vocab, n))
    lengths = torch.as_tensor(rng.integers(1, length + 1, n))
    alpha = optimal_attention(gamma, gamma_s, gold, lengths, iterations=500)
    mask = torch.arange(length)[None] < lengths[:, None]
    assert (alpha[~mask] == 0).all() and torch.allclose(alpha.sum(-1), torch.ones(n, dtype=torch.float64))
    best = eq32_loss(alpha, gamma, gamma_s, gold)
    for _ in range(20):
        other = torch.as_tensor(rng.dirichlet(np.ones(length), n)) * mask
        other = other / other.sum(-1, keepdim=True)
        assert (best <= eq32_loss(other, gamma, gamma_s, gold) + 1e-6).all()
    for l in range(length):
        vertex = torch.nn.functional.one_hot(torch.minimum(torch.tensor(l), lengths - 1), length).double()
        assert (best <= eq32_loss(vertex, gamma, gamma_s, gold) + 1e-6).all()


def test_bad_input_is_named():
    g = torch.zeros(2, 3, 4)
    with pytest.raises(ValueError, match="iterations"):
        optimal_attention(g, torch.zeros(2, 4), torch.zeros(2, dtype=torch.long), torch.tensor([3, 3]), 0)
    with pytest.raises(ValueError, match="length of 0"):
        optimal_attention(g, torch.zeros(2, 4), torch.zeros(2, dtype=torch.long), torch.tensor([3, 0]))
    with pytest.raises(ValueError, match="empty"):
        alpha_opt_summary(pd.DataFrame(columns=["seed", "example", "t", "src_len", "alpha_opt", "beta"]))


def test_linear_readout_terms_are_eq34_and_its_probe_is_eq28():
    """Eq. 32's model: its logits are Σ_l α_tl γ_l + γ_s for its own α, its β is σ(γ_l + γ_s)_y, and α^opt of the
    model loses no more than its own attention."""
    from attnrepro.snell2021.translation_seq2seq import TranslationConfig, TranslationSeq2Seq

    v, h = 13, 4
    model = TranslationSeq2Seq(TranslationConfig(v, hidden=h, dropout=0.0, readout="linear"), [0, 1]).eval()
    assert not hasattr(model, "extra")
    gen = torch.Generator().manual_seed(0)
    src = torch.randint(3, v, (2, 3, 5), generator=gen)
    src_len = torch.tensor([[5, 3, 4], [5, 3, 4]])
    tgt_in, tgt_out = torch.randint(3, v, (2, 3, 4), generator=gen), torch.randint(3, v, (2, 3, 4), generator=gen)
    logits, cache = model.run_with_cache(src, src_len, tgt_in)
    gamma_l, gamma_s = model.eq32_terms(src, src_len, tgt_in)
    alpha = cache["attention.alpha"][:, :, 0]                                       # [S,B,T,L]
    torch.testing.assert_close(torch.einsum("sbtl,sblv->sbtv", alpha, gamma_l) + gamma_s, logits, rtol=1e-5,
                               atol=1e-5)
    beta = model.lexical_probe(src, src_len, tgt_in, tgt_out)
    expected = torch.log_softmax(gamma_l[:, :, None] + gamma_s[:, :, :, None], -1)
    expected = expected.gather(-1, tgt_out[..., None, None].expand(-1, -1, -1, 5, 1))[..., 0].exp()
    mask = torch.arange(5) < src_len[..., None, None]
    torch.testing.assert_close(beta[mask.expand_as(beta)], expected[mask.expand_as(beta)], rtol=1e-5, atol=1e-6)
    opt = model_alpha_opt(model, src, src_len, tgt_in, tgt_out, iterations=200, max_elements=2 * 4 * 5 * v)
    flat = lambda x: x.reshape(-1, *x.shape[3:]).double()  # noqa: E731
    g = flat(gamma_l[:, :, None].expand(-1, -1, 4, -1, -1))
    assert (eq32_loss(flat(opt), g, flat(gamma_s), tgt_out.reshape(-1))
            <= eq32_loss(flat(alpha), g, flat(gamma_s), tgt_out.reshape(-1)) + 1e-6).all()
    assert (opt[~mask.expand_as(opt)] == 0).all()
    with pytest.raises(ValueError, match="readout"):
        TranslationConfig(v, readout="tanh")


def test_config_adds_an_eq32_run_per_set_and_checks_its_sets():
    block = {"translation": {"architecture": "authors", "sets": {"multi30k": {}},
                             "alpha_opt": {"sets": ["multi30k"], "iterations": 10}}}
    learned = {"model": {"type": "translation", "hidden": 8, "attention": "learned"}, "record": ["alpha", "beta"],
               "members": [[0, 0, []]]}
    runs = alpha_opt_runs(block, {"mt_multi30k_learned": learned})
    assert runs == {"mt_multi30k_eq32": {**learned, "model": {**learned["model"], "readout": "linear"}, "record": []}}
    assert alpha_opt_roles(block, "mt_multi30k") == {"alpha_opt": "mt_multi30k_eq32"}
    assert alpha_opt_roles(block, "cls_sst") == {} and alpha_opt_iterations(block) == 10
    check_alpha_opt(block)
    with pytest.raises(AttnReproError, match=r"alpha_opt.sets: 'iwslt14' is not a set"):
        check_alpha_opt({"translation": {**block["translation"], "alpha_opt": {"sets": ["iwslt14"], "iterations": 1}}})
    with pytest.raises(AttnReproError, match="architecture: authors"):
        check_alpha_opt({"translation": {**block["translation"], "architecture": "copy"}})
