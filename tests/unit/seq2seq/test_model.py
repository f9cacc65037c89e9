import pytest
import torch

from attnrepro.seq2seq.model import EncoderDecoder, ModelConfig
from tests.helpers import V_SRC, V_TGT, batch

def model(arch, seeds=(0,), hidden=8, attention="dot"):
    dim = 16 if arch == "ao" else 0
    return EncoderDecoder(ModelConfig(arch, "gru", hidden, V_SRC, V_TGT, input_dim=dim, max_positions=16,
                                      attention=attention), list(seeds))


@pytest.mark.parametrize("arch", ["ved", "aed", "ao"])
def test_shapes_and_cache(arch):
    m = model(arch, seeds=(0, 1, 2))
    src, src_len, tgt_in = batch(3)
    logits, cache = m.run_with_cache(src, src_len, tgt_in)
    assert logits.shape == (3, 4, 7, V_TGT)
    assert cache["encoder.h"].shape == (3, 4, 7, 8)
    assert cache["decoder.h"].shape == (3, 4, 7, 8)
    if arch == "ved":
        assert "attention.alpha" not in cache
    else:
        assert cache["attention.alpha"].shape == (3, 4, 7, 7)
        torch.testing.assert_close(cache["attention.alpha"].sum(-1), torch.ones(3, 4, 7))
    pred = m.greedy_decode(src, src_len, 5, sos=1)
    assert pred.shape == (3, 4, 5) and pred.dtype == torch.long


@pytest.mark.parametrize("arch", ["aed", "ao"])
def test_attention_is_zero_beyond_the_input(arch):
    m = model(arch)
    src, src_len, tgt_in = batch()
    _, cache = m.run_with_cache(src, src_len, tgt_in)
    alpha = cache["attention.alpha"][0]
    for k, n in enumerate(src_len[0].tolist()):
        assert (alpha[k, :, n:] == 0).all()
        assert (alpha[k, :, :n] > 0).all()


def test_aed_scores_are_dot_products():
    m = model("aed")
    src, src_len, tgt_in = batch()
    _, cache = m.run_with_cache(src, src_len, tgt_in)
    expected = cache["decoder.h"] @ cache["encoder.h"].transpose(-1, -2)
    torch.testing.assert_close(cache["attention.scores"], expected)


def test_encoder_holds_its_state_after_eos():
    m = model("aed")
    src, src_len, tgt_in = batch()
    enc_h, final = m.encode(src, src_len)
    for k, n in enumerate(src_len[0].tolist()):
        for t in range(n, src.shape[-1]):
            assert torch.equal(enc_h[0, k, t], enc_h[0, k, n - 1])
        assert torch.equal(final[0, k], enc_h[0, k, n - 1])


def test_padding_does_not_change_real_positions():
    m = model("aed")
    src, src_len, tgt_in = batch()
    short = src[..., :7]
    wide = torch.cat([short, torch.zeros(1, 4, 5, dtype=torch.long)], -1)
    a, _ = m.run_with_cache(short, src_len, tgt_in)
    b, _ = m.run_with_cache(wide, src_len, tgt_in)
    torch.testing.assert_close(a, b)


def test_ao_has_no_recurrence():
    """Changing an earlier input word leaves later AO states untouched (VED/AED states change)."""
    src, src_len, tgt_in = batch()
    changed = src.clone()
    changed[0, 0, 0] = 2 if src[0, 0, 0] != 2 else 3
    for arch, same in (("ao", True), ("aed", False)):
        m = model(arch)
        h1 = m.encode(src, src_len)[0][0, 0, 1:]
        h2 = m.encode(changed, src_len)[0][0, 0, 1:]
        assert torch.equal(h1, h2) is same


def test_decoder_first_step_starts_from_encoder_final_state():
    """VED's decoder depends on the source only through the encoder's final state."""
    m = model("ved")
    src, src_len, tgt_in = batch()
    changed = src.clone()
    changed[0, 0, 0] = 2 if src[0, 0, 0] != 2 else 3
    l1 = m(src, src_len, tgt_in)[0, 0]
    l2 = m(changed, src_len, tgt_in)[0, 0]
    assert not torch.allclose(l1, l2)


@pytest.mark.parametrize("arch, attention", [("ved", "dot"), ("aed", "dot"), ("ao", "dot"), ("aed", "qkv"),
                                             ("ao", "qkv")])
def test_stacked_seeds_equal_separate_models(arch, attention):
    stacked = model(arch, seeds=(3, 5), attention=attention)
    src, src_len, tgt_in = batch(2)
    logits = stacked(src, src_len, tgt_in)
    for k, seed in enumerate((3, 5)):
        single = model(arch, seeds=(seed,), attention=attention)
        torch.testing.assert_close(logits[k : k + 1], single(src[k : k + 1], src_len[k : k + 1], tgt_in[k : k + 1]))


def test_different_seeds_differ():
    a, b = model("aed", seeds=(0,)), model("aed", seeds=(1,))
    assert not torch.equal(a.encoder.w_h, b.encoder.w_h)


def test_ao_rejects_too_long_sequences():
    m = model("ao")
    src, src_len, tgt_in = batch(t=7)
    long = torch.zeros(1, 4, 20, dtype=torch.long)
    with pytest.raises(ValueError, match="max_positions"):
        m.encode(long, src_len)


@pytest.mark.parametrize("arch", ["aed", "ao"])
def test_qkv_attention_is_scaled_dot_product_of_learned_projections(arch):
    m = model(arch, attention="qkv")
    src, src_len, tgt_in = batch()
    _, cache = m.run_with_cache(src, src_len, tgt_in)
    att = m.attention
    affine = lambda x, w, b: x @ w[0] + b[0]
    q = affine(cache["decoder.h"][0], att.w_q, att.b_q) / 8 ** 0.5
    k = affine(cache["encoder.h"][0], att.w_k, att.b_k)
    v = affine(cache["encoder.h"][0], att.w_v, att.b_v)
    torch.testing.assert_close(cache["attention.scores"][0], q @ k.transpose(-1, -2))
    alpha = cache["attention.alpha"][0]
    for b, n in enumerate(src_len[0].tolist()):
        assert (alpha[b, :, n:] == 0).all()
    torch.testing.assert_close(cache["attention.context"][0], alpha @ v)
    assert m.readout.weight.shape[1] == (16 if arch == "aed" else 8)


def test_ved_rejects_an_attention_choice():
    with pytest.raises(ValueError, match="ved has no attention"):
        model("ved", attention="qkv")


def test_ao_positional_code_scale_and_width():
    # the code's own norm is √(width/2); pe_norm sets it; a wide vocabulary spreads a code of at most 512 dims
    natural = EncoderDecoder(ModelConfig("ao", "gru", 8, 10, 10, input_dim=32, max_positions=6), [0])
    assert natural.pe_src[0].norm(dim=-1) == pytest.approx(torch.full((6,), 4.0), rel=1e-5)
    unit = EncoderDecoder(ModelConfig("ao", "gru", 8, 10, 10, input_dim=32, max_positions=6, pe_norm=1.0), [0])
    assert unit.pe_src[0].norm(dim=-1) == pytest.approx(torch.ones(6), rel=1e-5)
    # same direction, other length: the map is the seed's, only the scale differs
    cos = torch.nn.functional.cosine_similarity(natural.pe_src, unit.pe_src, dim=-1)
    assert cos == pytest.approx(torch.ones(1, 6), rel=1e-5)
    wide = EncoderDecoder(ModelConfig("ao", "gru", 4, 3000, 3000, max_positions=4, pe_norm=1.0), [0])
    assert wide.pe_src.shape == (1, 4, 3000)
    gram = wide.pe_src[0] @ wide.pe_src[0].T  # the spread keeps the code's geometry
    from attnrepro.seq2seq.model import PE_WIDTH, sinusoidal_encoding
    pe = sinusoidal_encoding(4, PE_WIDTH) / (PE_WIDTH / 2) ** 0.5
    assert gram == pytest.approx(pe @ pe.T, abs=1e-5)


@pytest.mark.parametrize("width, time_scale, at1, at5", [(50, 20.0, 0.911, 0.200), (100, 100.0, 0.943, 0.478),
                                                         (64, 10000.0, 0.966, 0.734)])
def test_ao_positional_code_similarity_at_the_authors_time_scales(width, time_scale, at1, at5):
    """Cosine of the codes of positions 1 and 5 steps apart (mean over pairs): the authors' time scales 20 (one-to-one,
    width 50) and 100 (eSCAN, width 100) against Vaswani et al.'s 10,000; the rotation keeps them, and with
    pe_shared the decoder's code is the encoder's."""
    m = EncoderDecoder(ModelConfig("ao", "gru", 8, 5, 7, input_dim=width, max_positions=30, time_scale=time_scale,
                                   pe_shared=True), [3])
    pe = m.pe_src[0].double()
    assert pe.norm(dim=-1) == pytest.approx(torch.full((30,), (width / 2) ** 0.5, dtype=torch.float64), rel=1e-5)
    cos = lambda d: torch.nn.functional.cosine_similarity(pe[:-d], pe[d:], dim=-1)  # noqa: E731
    assert cos(1).mean().item() == pytest.approx(at1, abs=0.01)
    assert cos(5).mean().item() == pytest.approx(at5, abs=0.01)
    torch.testing.assert_close(m.pe_tgt, m.pe_src)
    apart = EncoderDecoder(ModelConfig("ao", "gru", 8, 5, 7, input_dim=width, max_positions=30), [3])
    assert not torch.allclose(apart.pe_tgt, apart.pe_src)
    with pytest.raises(ValueError, match="pe_shared needs one input width"):
        EncoderDecoder(ModelConfig("ao", "gru", 8, 5, 7, max_positions=30, pe_shared=True), [3])


@pytest.mark.parametrize("shape", [(3, 5), (3, 4, 5), (3, 2, 4, 5)])
def test_stacked_affine_is_each_members_own_product(shape):
    """stacked.affine, the one stacked linear map of every model: member s's rows times member s's weights."""
    from attnrepro.nn.stacked import affine

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(*shape, generator=gen)
    w, b = torch.randn(3, 5, 7, generator=gen), torch.randn(3, 1, 7, generator=gen)
    out, no_bias = affine(x, w, b), affine(x, w)
    assert out.shape == (*shape[:-1], 7)
    for s in range(3):
        torch.testing.assert_close(no_bias[s], x[s] @ w[s])
        torch.testing.assert_close(out[s], x[s] @ w[s] + b[s, 0])
