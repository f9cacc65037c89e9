"""Snell et al. 2021 models: the hand-written LSTM, attention modes, the lexical probe, stacked == separate."""

import pandas as pd
import pytest
import torch

from attnrepro.snell import tasks
from attnrepro.snell.classifier import Classifier, ClassifierConfig
from attnrepro.snell.lstm import lstm
from attnrepro.snell.seq2seq import Seq2Seq, Seq2SeqConfig, per_seed_loss
from attnrepro.snell.train import Member, train_copy, train_keyword


def test_lstm_matches_torch_lstm_values_and_gradients():
    torch.manual_seed(0)
    ref = torch.nn.LSTM(3, 5, batch_first=True)
    x = torch.randn(4, 6, 3)
    h0, c0 = torch.randn(1, 4, 5), torch.randn(1, 4, 5)
    out, (h_n, c_n) = ref(x, (h0, c0))
    (out.sum() + h_n.pow(2).sum() + c_n.sum()).backward()

    w_x = ref.weight_ih_l0.detach().T[None].clone().requires_grad_()
    w_h = ref.weight_hh_l0.detach().T[None].clone().requires_grad_()
    b = (ref.bias_ih_l0 + ref.bias_hh_l0).detach()[None, None].clone().requires_grad_()
    gx = (x[None] @ w_x[:, None]) + b[:, None]
    hs, h, c = lstm(gx, h0.clone(), c0.clone(), w_h)
    (hs.sum() + h.pow(2).sum() + c.sum()).backward()
    torch.testing.assert_close(hs[0], out)
    torch.testing.assert_close(h, h_n)
    torch.testing.assert_close(w_h.grad[0], ref.weight_hh_l0.grad.T)
    torch.testing.assert_close(w_x.grad[0], ref.weight_ih_l0.grad.T)


def test_lstm_gradcheck_with_mask():
    g = torch.Generator().manual_seed(1)
    args = [torch.randn(*s, generator=g, dtype=torch.float64, requires_grad=True)
            for s in ((2, 3, 4, 8), (2, 3, 2), (2, 3, 2), (2, 2, 8))]
    mask = (torch.rand(2, 3, 4, generator=g) > 0.3).double()
    assert torch.autograd.gradcheck(lambda *a: lstm(*a, mask), args)
    # a masked-out step holds the state
    hs, _, _ = lstm(*[a.detach() for a in args], mask)
    held = mask[:, :, 1] == 0
    torch.testing.assert_close(hs[:, :, 1][held], hs[:, :, 0][held])


def batch(n_seeds, length=6, vocab=6, b=5, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return tasks.stack([tasks.copy_batch("permutation", b, length, vocab, gen) for _ in range(n_seeds)])


def test_uniform_attention_is_exactly_uniform_and_masked():
    m = Seq2Seq(Seq2SeqConfig(vocab=8, hidden=8, heads=2, attention="uniform"), [0, 1])
    src, tgt_in, _ = batch(2)
    _, cache = m.run_with_cache(src, tgt_in)
    alpha = cache["attention.alpha"]
    assert alpha.shape == (2, 5, 2, 7, 7)
    assert (alpha == 1 / 7).all()
    mask = torch.ones(2, 5, 7)
    mask[:, 0, 4:] = 0
    _, cache = m.run_with_cache(src, tgt_in, mask)
    a = cache["attention.alpha"]
    assert (a[:, 0, ..., 4:] == 0).all() and (a[:, 0, ..., :4] == 0.25).all()


def test_learned_attention_is_not_uniform_and_sums_to_one():
    m = Seq2Seq(Seq2SeqConfig(vocab=8, hidden=8), [0])
    src, tgt_in, _ = batch(1)
    alpha = m.run_with_cache(src, tgt_in)[1]["attention.alpha"]
    torch.testing.assert_close(alpha.sum(-1), torch.ones(alpha.shape[:-1]))
    assert alpha.std() > 1e-3


def test_frozen_beta_trains_only_the_attention():
    m = Seq2Seq(Seq2SeqConfig(vocab=8, hidden=8, heads=2, attention="frozen_beta"), [0, 1])
    before = {k: v.detach().clone() for k, v in m.named_parameters()}
    opt = torch.optim.Adam(m.trainable_parameters(), lr=1e-2)
    for step in range(3):
        src, tgt_in, tgt_out = batch(2, seed=step)
        loss = per_seed_loss(m(src, tgt_in), tgt_out).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    changed = {k for k, v in m.named_parameters() if not torch.equal(v, before[k])}
    assert changed == {"att_w"}

    c = Classifier(ClassifierConfig(vocab=5, hidden=4, attention="frozen_beta"), [0])
    before = {k: v.detach().clone() for k, v in c.named_parameters()}
    opt = torch.optim.Adam(c.trainable_parameters(), lr=1e-2)
    x, y, _ = tasks.stack([tasks.keyword_batch(6, 7, 5, torch.Generator().manual_seed(0))])
    torch.nn.functional.binary_cross_entropy_with_logits(c(x), y).backward()
    opt.step()
    assert {k for k, v in c.named_parameters() if not torch.equal(v, before[k])} == {"att_q", "att_v"}


def test_lexical_probe_is_the_gold_probability_under_one_hot_attention():
    m = Seq2Seq(Seq2SeqConfig(vocab=8, hidden=8, heads=3), [4, 5])
    src, tgt_in, tgt_out = batch(2)
    beta = m.lexical_probe(src, tgt_in, tgt_out)
    assert beta.shape == (2, 5, 7, 7)
    for l in (0, 3, 6):
        def one_hot(dec_h, enc_h, mask, l=l):
            a = torch.zeros(*dec_h.shape[:2], 3, dec_h.shape[2], enc_h.shape[2])
            a[..., l] = 1
            return a
        m.attention = one_hot
        with torch.no_grad():
            p = torch.softmax(m(src, tgt_in), -1).gather(-1, tgt_out[..., None])[..., 0]
        torch.testing.assert_close(beta[..., l], p)


def test_stacked_runs_equal_separate_runs():
    task = dict(kind="permutation", length=5, n_words=7)
    cfg = Seq2SeqConfig(vocab=tasks.copy_vocab("permutation", 5, 7), hidden=8, heads=2)
    members = [Member.plain(s, heads=2) for s in (3, 1, 4)]
    kw = dict(steps=6, eval_every=3, n_eval=10, batch_size=4)
    together = train_copy(task, cfg, members, **kw)
    apart = pd.concat([train_copy(task, cfg, [m], **kw) for m in members])
    cols = ["step", "seed", "token_acc", "valid_loss"]
    a = together[cols].sort_values(["seed", "step"]).reset_index(drop=True)
    b = apart[cols].sort_values(["seed", "step"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, rtol=1e-5, atol=1e-6)
    assert a.valid_loss.nunique() > 3  # the members differ from each other


def test_stacked_keyword_runs_equal_separate_runs():
    task = dict(length=6, n_words=5)
    cfg = ClassifierConfig(vocab=5, hidden=4, attention="uniform")
    kw = dict(steps=4, eval_every=2, n_eval=20, batch_size=4)
    together = train_keyword(task, cfg, [0, 1], **kw)
    apart = pd.concat([train_keyword(task, cfg, [s], **kw) for s in (0, 1)])
    pd.testing.assert_frame_equal(together.sort_values(["seed", "step"]).reset_index(drop=True),
                                  apart.sort_values(["seed", "step"]).reset_index(drop=True), rtol=1e-5, atol=1e-6)


def test_classifier_logit_is_the_attention_weighted_gamma():
    c = Classifier(ClassifierConfig(vocab=5, hidden=4), [0, 1])
    x, _, _ = tasks.stack([tasks.keyword_batch(3, 7, 5, torch.Generator().manual_seed(s)) for s in (0, 1)])
    logit, cache = c.run_with_cache(x)
    torch.testing.assert_close(logit, (cache["alpha"] * cache["gamma"]).sum(-1))
    u = Classifier(ClassifierConfig(vocab=5, hidden=4, attention="uniform"), [0, 1])
    assert (u.run_with_cache(x)[1]["alpha"] == 1 / 7).all()


@pytest.mark.parametrize("kind", tasks.COPY_KINDS)
def test_copy_distributions(kind):
    gen = torch.Generator().manual_seed(0)
    perm = tasks.fixed_permutation(8, 1)
    src, tgt_in, tgt_out = tasks.copy_batch(kind, 50, 8, 8, gen, perm)
    x = src[:, :-1]
    vocab = 16 if kind == "mixture" else 8
    assert (src[:, -1] == vocab).all() and (tgt_in[:, 0] == vocab + 1).all() and (tgt_out[:, -1] == vocab).all()
    assert all(len(set(r.tolist())) == 8 for r in x)  # permutations, no repeats
    if kind == "mixture":
        low = x.max(1).values < 8
        assert ((x.min(1).values >= 8) | low).all() and 10 < low.sum() < 40
    expected = x[:, perm] if kind == "permutation_function" else x
    assert torch.equal(tgt_out[:, :-1], expected) and torch.equal(tgt_in[:, 1:], expected)


def test_keyword_distribution():
    x, y, pos = tasks.keyword_batch(400, 10, 6, torch.Generator().manual_seed(0))
    assert 150 < y.sum() < 250
    assert ((x == 0).sum(1) == y.long()).all()  # the keyword exactly once in positives, never in negatives
    assert (x[torch.arange(400)[y.bool()], pos[y.bool()]] == 0).all()


def test_stacked_text_classifier_equals_separate_runs_and_saliency():
    import numpy as np

    from attnrepro.snell.classifier import saliency
    from attnrepro.snell.text import Encoded
    from attnrepro.snell.train import eval_schedule, train_text_classifier

    rng = np.random.default_rng(0)
    length = rng.integers(2, 9, 60)
    x = np.where(np.arange(8)[None] < length[:, None], rng.integers(2, 12, (60, 8)), 0)
    data = Encoded(x, length, (x == 3).any(1).astype(np.float32))
    cfg = ClassifierConfig(vocab=12, hidden=4, attention="learned")
    kw = dict(steps=12, batch_size=5)
    together = train_text_classifier(data, data, cfg, [0, 1], **kw)
    apart = pd.concat([train_text_classifier(data, data, cfg, [s], **kw) for s in (0, 1)])
    pd.testing.assert_frame_equal(together.sort_values(["seed", "step"]).reset_index(drop=True),
                                  apart.sort_values(["seed", "step"]).reset_index(drop=True), rtol=1e-5, atol=1e-6)
    assert sorted(together.step.unique()) == eval_schedule(12) == [0, 10, 12]

    model = Classifier(cfg, [0, 1])
    xt = torch.as_tensor(x[:4, :6]).expand(2, 4, 6)
    mask = (torch.arange(6)[None] < torch.as_tensor(length[:4])[:, None]).expand(2, 4, 6)
    d = saliency(model, xt, torch.ones(2, 4), mask)
    assert d.shape == (2, 4, 6) and (d >= 0).all()
    assert (d[mask.logical_not()] == 0).all()   # padding has no influence


def test_greedy_decode_is_teacher_forced_on_its_own_output():
    from attnrepro.snell.seq2seq import greedy_decode

    torch.manual_seed(0)
    model = Seq2Seq(Seq2SeqConfig(9, 6), [0, 1])
    src = torch.randint(3, 9, (2, 4, 5))
    src_mask = torch.arange(5) < torch.tensor([[5, 3, 2, 4]] * 2)[..., None]
    out = greedy_decode(model, src, src_mask, sos=2, n_steps=6)
    tgt_in = torch.cat([torch.full((2, 4, 1), 2), out[..., :-1]], -1)
    with torch.no_grad():
        assert torch.equal(model(src, tgt_in, src_mask).argmax(-1), out)


def test_masked_loss_is_the_mean_over_real_tokens():
    torch.manual_seed(0)
    logits, target = torch.randn(2, 3, 4, 5), torch.randint(0, 5, (2, 3, 4))
    mask = torch.rand(2, 3, 4) < 0.6
    mask[..., 0] = True
    nll = torch.nn.functional.cross_entropy(logits.permute(0, 3, 1, 2), target, reduction="none")
    expected = torch.stack([nll[s][mask[s]].mean() for s in range(2)])
    torch.testing.assert_close(per_seed_loss(logits, target, mask), expected)
    torch.testing.assert_close(per_seed_loss(logits, target, torch.ones_like(mask)), per_seed_loss(logits, target))
