"""Snell et al. 2021 models on the shared cells and engine: attention modes, the lexical probes, the classifier as
a one-token translation, the proxy, and stacked members equal to separate runs."""

import io

import numpy as np
import pandas as pd
import pytest
import torch

from attnrepro.training.config import TrainConfig
from attnrepro.data.vocab import expand, stack
from attnrepro.training.engine import Member, fit, token_loss
from attnrepro.snell2021 import tasks
from attnrepro.snell2021.classifier import Classifier, ClassifierConfig
from attnrepro.snell2021.proxy import Proxy, ProxyConfig
from attnrepro.snell2021.seq2seq import Seq2Seq, Seq2SeqConfig
from attnrepro.seeding import generator

TRAIN = dict(steps=6, batch_size=4, lr=1e-2, lr_decay=1.0, betas=[0.9, 0.999], eps=1e-8, grad_clip=None, l2=0.0,
             checkpoint_every=3, eval_every=3, eval_at=[0], n_eval=10)


def batch(n_members, length=6, vocab=6, b=5, seed=0):
    task = tasks.CopyTask("permutation", length, vocab)
    return stack([task(torch.Generator().manual_seed(seed), b) for _ in range(n_members)])


def args(bt):
    return bt.src, bt.src_len, bt.tgt_in


def train(model, members, source, tmp_path, name="t", **overrides):
    valid = source(generator(0, "evaluation"), 10) if callable(source) else source
    return fit(model, members, source, valid, TrainConfig.from_dict({**TRAIN, **overrides}), tmp_path / name,
               name=name, spec={}, log=io.StringIO())


def test_uniform_attention_is_exactly_uniform_and_masked():
    m = Seq2Seq(Seq2SeqConfig(vocab=8, hidden=8, heads=2, attention="uniform"), [0, 1])
    bt = batch(2)
    _, cache = m.run_with_cache(*args(bt))
    alpha = cache["attention.alpha"]
    assert alpha.shape == (2, 5, 2, 7, 7) and (alpha == 1 / 7).all()
    bt.src_len[:, 0] = 4
    a = m.run_with_cache(*args(bt))[1]["attention.alpha"]
    assert (a[:, 0, ..., 4:] == 0).all() and (a[:, 0, ..., :4] == 0.25).all()


def test_learned_attention_is_not_uniform_and_sums_to_one():
    m = Seq2Seq(Seq2SeqConfig(vocab=8, hidden=8), [0])
    alpha = m.run_with_cache(*args(batch(1)))[1]["attention.alpha"]
    torch.testing.assert_close(alpha.sum(-1), torch.ones(alpha.shape[:-1]))
    assert alpha.std() > 1e-3


def test_lstm_biases_follow_torch_law():
    """The encoder is the shared LSTMCell: two biases b_x, b_h, each U(-1/√H, 1/√H), as the authors' nn.LSTM."""
    m = Seq2Seq(Seq2SeqConfig(vocab=8, hidden=64), [0])
    for b in (m.encoder.b_x, m.encoder.b_h):
        assert b.abs().max() <= 1 / 8 and b.abs().max() > 0.9 / 8
    assert not torch.equal(m.encoder.b_x, m.encoder.b_h)


def test_frozen_beta_trains_only_the_attention(tmp_path):
    copy = tasks.CopyTask("permutation", 5, 6)
    m = Seq2Seq(Seq2SeqConfig(vocab=copy.vocab, hidden=8, heads=2, attention="frozen_beta"), [0, 1])
    before = {k: v.detach().clone() for k, v in m.named_parameters()}
    train(m, [Member.plain(0, 2), Member.plain(1, 2)], copy, tmp_path)
    assert {k for k, v in m.named_parameters() if not torch.equal(v, before[k])} == {"heads.att_w"}
    key = tasks.KeywordTask(7, 5)
    c = Classifier(ClassifierConfig(vocab=5, hidden=4, attention="frozen_beta"), [0])
    before = {k: v.detach().clone() for k, v in c.named_parameters()}
    train(c, [Member.plain(0)], key, tmp_path, "c")
    assert {k for k, v in c.named_parameters() if not torch.equal(v, before[k])} == {"att_q", "att_v"}


def test_lexical_probe_is_the_gold_probability_under_one_hot_attention():
    m = Seq2Seq(Seq2SeqConfig(vocab=8, hidden=8, heads=3), [4, 5])
    bt = batch(2)
    beta = m.lexical_probe(*args(bt), bt.tgt_out)
    assert beta.shape == (2, 5, 7, 7)
    for position in (0, 3, 6):
        def one_hot(dec_h, enc_h, src_len, position=position):
            a = torch.zeros(*dec_h.shape[:2], 3, dec_h.shape[2], enc_h.shape[2])
            a[..., position] = 1
            return a
        m.attention = one_hot
        with torch.no_grad():
            p = torch.softmax(m(*args(bt)), -1).gather(-1, bt.tgt_out[..., None])[..., 0]
        torch.testing.assert_close(beta[..., position], p)
    m = Seq2Seq(Seq2SeqConfig(vocab=8, hidden=8, heads=3), [4, 5])
    torch.testing.assert_close(m.lexical_probe(*args(bt), bt.tgt_out, max_elements=1),   # one example at a time
                               m.lexical_probe(*args(bt), bt.tgt_out))


def test_classifier_is_a_one_token_translation_with_binary_cross_entropy():
    c = Classifier(ClassifierConfig(vocab=5, hidden=4), [0, 1])
    key = tasks.KeywordTask(7, 5)
    bt = stack([key(torch.Generator().manual_seed(s), 6) for s in (0, 1)])
    logits, cache = c.run_with_cache(*args(bt))
    z = (cache["alpha"] * cache["gamma"]).sum(-1)                       # Eq. 8
    torch.testing.assert_close(logits[..., 0, 1], z)
    assert (logits[..., 0] == 0).all()
    y = bt.tgt_out[..., 0].float()
    bce = torch.nn.functional.binary_cross_entropy_with_logits(z, y, reduction="none").mean(1)
    torch.testing.assert_close(token_loss(logits, bt), bce)
    beta = c.lexical_probe(*args(bt), bt.tgt_out)[:, :, 0]
    torch.testing.assert_close(beta, torch.sigmoid((2 * y[..., None] - 1) * cache["gamma"]))   # Eq. 9
    u = Classifier(ClassifierConfig(vocab=5, hidden=4, attention="uniform"), [0, 1])
    assert (u.run_with_cache(*args(bt))[1]["alpha"] == 1 / 7).all()


def test_stacked_members_equal_separate_runs(tmp_path):
    copy = tasks.CopyTask("permutation", 5, 7)
    cfg = Seq2SeqConfig(vocab=copy.vocab, hidden=8, heads=2)
    members = [Member.plain(s, heads=2) for s in (3, 1, 4)]
    make = lambda ms: Seq2Seq(cfg, [m.seed for m in ms], [list(m.head_seeds) for m in ms])  # noqa: E731
    together = train(make(members), members, copy, tmp_path, "all").metrics
    apart = pd.concat([train(make([m]), [m], copy, tmp_path, f"one{m.seed}").metrics for m in members])
    cols = ["step", "seed", "token_acc", "valid_loss"]
    a = together[cols].sort_values(["seed", "step"]).reset_index(drop=True)
    b = apart[cols].sort_values(["seed", "step"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, rtol=1e-5, atol=1e-6)
    assert a.valid_loss.nunique() > 3  # the members differ from each other


def test_stacked_classifier_on_a_stored_set_equals_separate_runs_and_saliency(tmp_path):
    from attnrepro.snell2021.classification_sets import _encode

    rng = np.random.default_rng(0)
    words = [[f"w{i}" for i in rng.integers(2, 12, n)] for n in rng.integers(2, 9, 60)]
    data = _encode(words, {f"w{i}": i for i in range(12)}, np.array([int("w3" in w) for w in words]))
    cfg = ClassifierConfig(vocab=12, hidden=4)
    together = train(Classifier(cfg, [0, 1]), [Member.plain(0), Member.plain(1)], data, tmp_path, "all",
                     steps=12, eval_every=250, eval_at=[0, 10]).metrics
    assert sorted(together.step.unique()) == [0, 10, 12]
    apart = pd.concat([train(Classifier(cfg, [s]), [Member.plain(s)], data, tmp_path, f"o{s}", steps=12,
                             eval_every=250, eval_at=[0, 10]).metrics for s in (0, 1)])
    cols = ["step", "seed", "token_acc", "valid_loss"]
    pd.testing.assert_frame_equal(together[cols].sort_values(["seed", "step"]).reset_index(drop=True),
                                  apart[cols].sort_values(["seed", "step"]).reset_index(drop=True), rtol=1e-5, atol=1e-6)
    model = Classifier(cfg, [0, 1])
    bt = expand(data.subset(slice(0, 4)), 2)
    d = model.saliency(*args(bt), bt.tgt_out)[:, :, 0]
    assert d.shape == bt.src.shape
    assert (d[~bt.src_mask()] == 0).all() and (d[bt.src_mask()] != 0).all()   # padding has no influence
    # gradient × input: Σ_l Δ_l is the first-order change of log p(y) when every embedding grows by a factor 1 + ε
    eps = 1e-3
    logp = lambda e: torch.log_softmax(model.run_with_cache(bt.src, bt.src_len, embedded=e)[0], -1).gather(  # noqa
        -1, bt.tgt_out[..., None]).squeeze(-1).sum(-1)
    with torch.no_grad():
        e = model.embed(bt.src)
        change = (logp(e * (1 + eps)) - logp(e * (1 - eps))) / (2 * eps)
    torch.testing.assert_close(change, d.sum(-1), rtol=1e-3, atol=1e-4)


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


def test_keyword_distribution_and_position():
    data = tasks.KeywordTask(10, 6)(torch.Generator().manual_seed(0), 400)
    y = data.tgt_out[:, 0]
    assert 150 < y.sum() < 250 and (data.src_len == 10).all() and (data.tgt_len == 1).all()
    assert ((data.src == 0).sum(1) == y).all()  # the keyword exactly once in positives, never in negatives
    pos = tasks.keyword_position(data.src)
    assert ((pos >= 0) == y.bool()).all() and (data.src[y.bool(), pos[y.bool()]] == 0).all()


def test_greedy_decode_is_teacher_forced_on_its_own_output():
    torch.manual_seed(0)
    model = Seq2Seq(Seq2SeqConfig(9, 6), [0, 1])
    src = torch.randint(3, 9, (2, 4, 5))
    src_len = torch.tensor([[5, 3, 2, 4]] * 2)
    out = model.greedy_decode(src, src_len, 6, sos=2)
    tgt_in = torch.cat([torch.full((2, 4, 1), 2), out[..., :-1]], -1)
    with torch.no_grad():
        assert torch.equal(model(src, src_len, tgt_in).argmax(-1), out)


def test_given_embeddings_give_the_projected_tables_logits():
    """Saliency feeds the source's embeddings (rows projected one by one); training looks rows up in the projected
    table (fewer rows, 9, than the batch's 4·5 tokens): the same model either way, up to rounding."""
    torch.manual_seed(0)
    model = Seq2Seq(Seq2SeqConfig(9, 6), [0, 1]).double()
    src, tgt_in = torch.randint(3, 9, (2, 4, 5)), torch.randint(3, 9, (2, 4, 5))
    src_len = torch.tensor([[5, 3, 2, 4]] * 2)
    with torch.no_grad():
        torch.testing.assert_close(model(src, src_len, tgt_in),
                                   model.run_with_cache(src, src_len, tgt_in, embedded=model.embed(src))[0])


def test_token_loss_is_the_mean_over_real_tokens():
    torch.manual_seed(0)
    logits, target = torch.randn(2, 3, 4, 5), torch.randint(0, 5, (2, 3, 4))
    lengths = torch.randint(1, 5, (2, 3))
    bt = stack([tasks.CopyTask("permutation", 3, 5)(torch.Generator().manual_seed(0), 3)] * 2)
    bt.tgt_out, bt.tgt_len = target, lengths
    mask = bt.tgt_mask()
    nll = torch.nn.functional.cross_entropy(logits.permute(0, 3, 1, 2), target, reduction="none")
    torch.testing.assert_close(token_loss(logits, bt), torch.stack([nll[s][mask[s]].mean() for s in range(2)]))


def test_proxy_learns_identity_from_subsets_but_not_from_permutations_of_one_set(tmp_path):
    def excess(theta):
        off = ~np.eye(len(theta), dtype=bool)
        return theta.diagonal().mean() - theta[off].mean()

    for kind, v, check in (("permutation", 12, lambda e: e > 0.2), ("permutation", 6, lambda e: abs(e) < 0.05)):
        copy = tasks.CopyTask(kind, 4 if v == 12 else 6, v)
        proxy = Proxy(ProxyConfig(copy.vocab, copy.vocab, 16), [0])
        train(proxy, [Member.plain(0)], copy, tmp_path, f"p{v}", steps=300, batch_size=32, lr=1e-2, eval_every=300)
        theta = proxy.theta()[0, :v, :v].numpy()
        assert check(excess(theta)), excess(theta)
    bt = batch(1, length=6, vocab=6)
    beta = proxy.lexical_probe(*args(bt), bt.tgt_out)                      # Eq. 6
    th = proxy.theta()[0]
    assert beta.shape == (1, 5, 7, 7) and beta[0, 1, 2, 4] == th[bt.src[0, 1, 4], bt.tgt_out[0, 1, 2]]


def test_score_bias_is_the_authors_attn_lin():
    """(W s + b)·h_l with W, b of an nn.Linear(H, H) (the authors' attn_lin) on a hand case."""
    model = Seq2Seq(Seq2SeqConfig(vocab=5, hidden=3, heads=1, score_bias=True), [0])
    lin = torch.nn.Linear(3, 3)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, 0.0, 2.0], [0.0, -1.0, 0.0], [0.5, 0.5, 0.5]]))
        lin.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
        model.heads.att_w[0, 0] = lin.weight.T       # ours: q = s W_ours + b, W_ours = W_authorsᵀ
        model.heads.att_b[0, 0, 0] = lin.bias
    s = torch.tensor([[1.0, 2.0, -1.0]])                         # one decoder state
    h = torch.tensor([[0.5, 0.0, 1.0], [-1.0, 1.0, 0.0], [2.0, 0.0, 0.0]])  # three encoder states
    alpha = model.attention(s[None, None], h[None, None], torch.tensor([[3]]))[0, 0, 0, 0]
    with torch.no_grad():
        expected = torch.softmax(h @ lin(s[0]), -1)
    torch.testing.assert_close(alpha, expected)
    no_bias = Seq2Seq(Seq2SeqConfig(vocab=5, hidden=3, heads=1), [0])
    assert not hasattr(no_bias.heads, "att_b")
    # the bias is drawn after the other parameters: everything else is as without it
    for name, p in no_bias.named_parameters():
        torch.testing.assert_close(p, dict(Seq2Seq(Seq2SeqConfig(5, 3, 1, score_bias=True), [0])
                                           .named_parameters())[name])


def test_heads_mean_versus_sum():
    """Eq. 21 as printed sums the heads' projected contexts Σ_k (P_k c_k + b_k); the authors' multihead.py averages
    them: a hand case with K = 2, H = 2."""
    cfgs = {c: Seq2SeqConfig(vocab=4, hidden=2, heads=2, heads_combine=c) for c in ("sum", "mean")}
    models = {c: Seq2Seq(cfg, [0]) for c, cfg in cfgs.items()}
    contexts = torch.tensor([[1.0, 2.0], [3.0, -1.0]])            # c_1, c_2
    p = torch.tensor([[[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 0.0]]])
    b = torch.tensor([[[0.5, 0.5]], [[0.0, 1.0]]])
    for m in models.values():
        with torch.no_grad():
            m.heads.proj_w[0] = p
            m.heads.proj_b[0] = b
    x = contexts[None, None, :, None]                             # [S=1, B=1, K=2, T=1, H=2]
    # P_1 c_1 + b_1 = [1.5, 2.5], P_2 c_2 + b_2 = [6.0, 1.0]
    torch.testing.assert_close(models["sum"].combine(x)[0, 0, 0], torch.tensor([7.5, 3.5]))
    torch.testing.assert_close(models["mean"].combine(x)[0, 0, 0], torch.tensor([3.75, 1.75]))
    with pytest.raises(ValueError, match="heads_combine"):
        Seq2SeqConfig(vocab=4, hidden=2, heads_combine="max")


def test_proxy_bias_trains_but_is_not_read():
    """The authors' embedding_beta.py: an output bias in training, β^px = softmax(E W) read without it."""
    plain = Proxy(ProxyConfig(6, 4, 3), [0])
    biased = Proxy(ProxyConfig(6, 4, 3, bias=True), [0])
    torch.testing.assert_close(plain.theta(), biased.theta())      # e, w drawn as without the bias
    with torch.no_grad():
        biased.b[0, 0] = torch.tensor([5.0, 0.0, 0.0, 0.0])
    src, src_len, tgt_in = torch.tensor([[[1, 2]]]), torch.tensor([[2]]), torch.zeros(1, 1, 1, dtype=torch.long)
    torch.testing.assert_close(biased(src, src_len, tgt_in) - plain(src, src_len, tgt_in),
                               torch.tensor([5.0, 0.0, 0.0, 0.0]).expand(1, 1, 1, 4))
    torch.testing.assert_close(plain.theta(), biased.theta())      # the probe ignores b


def test_classification_inputs_with_bos_eos():
    from attnrepro.snell2021.classification_sets import prepare

    df = pd.DataFrame({"text": ["good film", "bad film", "good good", "bad bad", "film"] * 4, "label": [1, 0] * 10})
    train, test, vocab = prepare(df, n_test=4, max_len=5, min_count=1, seed=0, bos_eos=True)
    assert vocab[:2] == ["<pad>", "<unk>"] and vocab[-2:] == ["<sos>", "<eos>"]
    rows = np.arange(len(train))
    assert (train.src[:, 0] == vocab.index("<sos>")).all()
    assert (train.src[rows, train.src_len - 1] == vocab.index("<eos>")).all()
    plain = prepare(df, n_test=4, max_len=5, min_count=1, seed=0)[0]
    assert (train.src_len == plain.src_len + 2).all()


def test_translation_model_is_the_authors():
    """App. A.8: 6,132,544 non-embedding parameters at H = 256 and 8,000 pieces; the encoder is a 2-layer
    bidirectional LSTM whose states equal torch's nn.LSTM with the same weights, and the decoder starts from the
    direction-averaged final (h, c) of each layer."""
    from attnrepro.snell2021.translation_seq2seq import TranslationConfig, TranslationSeq2Seq

    assert TranslationSeq2Seq(TranslationConfig(8000), [0]).non_embedding_parameters() == 6_132_544
    h, v = 4, 11
    model = TranslationSeq2Seq(TranslationConfig(v, hidden=h, dropout=0.0), [3]).eval()
    ref = torch.nn.LSTM(h, h, num_layers=2, bidirectional=True)
    with torch.no_grad():
        for k in range(2):
            for cell, suffix in ((model.enc_fwd[k], ""), (model.enc_bwd[k], "_reverse")):
                getattr(ref, f"weight_ih_l{k}{suffix}").copy_(cell.w_x[0].T)
                getattr(ref, f"weight_hh_l{k}{suffix}").copy_(cell.w_h[0].T)
                getattr(ref, f"bias_ih_l{k}{suffix}").copy_(cell.b_x[0, 0])
                getattr(ref, f"bias_hh_l{k}{suffix}").copy_(cell.b_h[0, 0])
    src = torch.tensor([[[3, 5, 7, 2, 9]]])
    enc_h, initial = model.encode(src, torch.tensor([[5]]))
    out, (h_n, c_n) = ref(model.embedding[0, src[0, 0]][:, None])
    torch.testing.assert_close(enc_h[0, 0], out[:, 0], rtol=1e-5, atol=1e-6)
    for k in range(2):
        torch.testing.assert_close(initial[k][0, 0], torch.cat([h_n[2 * k:2 * k + 2, 0].mean(0),
                                                                c_n[2 * k:2 * k + 2, 0].mean(0)]), rtol=1e-5, atol=1e-6)


def test_multihead_architecture_of_the_authors():
    """GRU encoder and decoder and a target embedding of its own (multihead.py): the decoder reads the target
    through it, so changing it changes the logits, and the model trains through the engine's interface."""
    cfg = Seq2SeqConfig(vocab=7, hidden=5, heads=2, cell="gru", shared_embedding=False, score_bias=True,
                        heads_combine="mean")
    model = Seq2Seq(cfg, [0])
    assert type(model.encoder).__name__ == "GRUCell" and model.tgt_embedding.shape == model.embedding.shape
    src, src_len = torch.tensor([[[1, 2, 3, 5]]]), torch.tensor([[4]])
    tgt_in = torch.tensor([[[6, 1, 2, 3]]])
    before = model(src, src_len, tgt_in)
    with torch.no_grad():
        model.tgt_embedding.add_(1.0)
    assert not torch.allclose(before, model(src, src_len, tgt_in))
    assert model.lexical_probe(src, src_len, tgt_in, tgt_in).shape == (1, 1, 4, 4)


def test_health_tweets_are_two_accounts_without_their_links():
    """The offline topic set: @bbchealth (1) against @cnnhealth (0), links removed (each account's URL shortener
    would name it), every text once."""
    from attnrepro.snell2021.classification_sets import load

    df = load("healthtweets")
    assert len(df) == 7922 and set(df.label) == {0, 1} and abs(df.label.mean() - 0.4946) < 1e-3
    assert not df.text.str.contains("http|pic.twitter", regex=True).any() and df.text.is_unique
    assert (df.text.str.len() > 0).all()
