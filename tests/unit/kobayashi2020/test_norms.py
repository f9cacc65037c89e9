"""Eq. 3–4 of Kobayashi et al. 2020: the decomposition is exact on every attention module we read."""

import numpy as np
import pandas as pd
import pytest
import torch

from attnrepro.kobayashi2020.norms import (affine_singular_values,
    category_sums,
    category_table,
    decomposed_output,
    output_map_per_head,
    split_heads,
    transformed,
    value_map_per_head,
    vector_norms)
from attnrepro.seq2seq.model import EncoderDecoder, ModelConfig


@pytest.mark.parametrize("arch", ["aed", "ao"])
def test_exact_on_our_qkv_attention(arch):
    """Σ_j α_sj f(x_j) with f = v (QKVAttention has no output map) equals the hooked context, seed by seed."""
    cfg = ModelConfig(arch=arch, cell="gru", hidden=12, src_vocab=5, tgt_vocab=6, input_dim=8 if arch == "ao" else 0,
                      max_positions=16, attention="qkv")
    model = EncoderDecoder(cfg, seeds=[0, 1, 2])
    gen = torch.Generator().manual_seed(0)
    src = torch.randint(0, 5, (3, 4, 9), generator=gen)
    src_len = torch.randint(3, 10, (3, 4), generator=gen)
    tgt_in = torch.randint(0, 6, (3, 4, 7), generator=gen)
    with torch.no_grad():
        _, cache = model.run_with_cache(src, src_len, tgt_in)
    alpha = cache["attention.alpha"][..., None, :, :]          # one head: [S,B,1,S',T]
    f = transformed(cache["attention.value"][..., None, :, :])
    y = decomposed_output(alpha, f)
    torch.testing.assert_close(y, cache["attention.context"], atol=1e-5, rtol=0)
    # masked positions beyond src_len contribute nothing
    n = vector_norms(alpha, f)
    beyond = torch.arange(9)[None, None, :] >= src_len[..., None]
    assert n["weighted_norm"][..., 0, :, :].masked_select(beyond[:, :, None, :]).abs().max() == 0


def test_exact_on_torch_multihead_attention():
    """A generic multi-head module (torch's own): per-head splits of W^V, b^V and W^O rebuild its output."""
    torch.manual_seed(0)
    d, h = 16, 4
    mha = torch.nn.MultiheadAttention(d, h, batch_first=True)
    with torch.no_grad():
        mha.in_proj_bias.normal_()
        mha.out_proj.bias.normal_()
    q, x = torch.randn(2, 5, d), torch.randn(2, 7, d)
    with torch.no_grad():
        out, alpha = mha(q, x, x, need_weights=True, average_attn_weights=False)  # alpha [B,H,Q,K]
        w_v, b_v = mha.in_proj_weight[2 * d:].T, mha.in_proj_bias[2 * d:]
        value = split_heads(x @ w_v + b_v, h)
        f = transformed(value, output_map_per_head(mha.out_proj.weight, h))
        y = decomposed_output(alpha, f, mha.out_proj.bias)
        torch.testing.assert_close(y, out, atol=1e-5, rtol=0)
        # value_map_per_head gives the same f as splitting the value vectors
        wv_h, bv_h = value_map_per_head(w_v, b_v, h)
        f2 = transformed(torch.einsum("bkd,hdv->bhkv", x, wv_h) + bv_h[None, :, None, :],
                         output_map_per_head(mha.out_proj.weight, h))
        torch.testing.assert_close(f2, f)


def test_norms_match_explicit_vectors():
    gen = torch.Generator().manual_seed(1)
    alpha = torch.softmax(torch.randn(2, 3, 4, 5, generator=gen), -1)
    f = torch.randn(2, 3, 5, 6, generator=gen)
    n = vector_norms(alpha, f)
    explicit = alpha[..., None] * f[:, :, None, :, :]                  # α_ij f(x_j): [B,H,Q,K,d]
    torch.testing.assert_close(n["f_norm"], f.norm(dim=-1))
    torch.testing.assert_close(n["weighted_norm"], explicit.norm(dim=-1))
    torch.testing.assert_close(n["summed_norm"], explicit.sum(1).norm(dim=-1))
    # the head-summed norm is at most the sum of the per-head norms (triangle inequality), and differs from it
    assert (n["summed_norm"] <= n["weighted_norm"].sum(1) + 1e-6).all()
    assert not torch.allclose(n["summed_norm"], n["weighted_norm"].sum(1))


def test_affine_singular_values_bound_the_map():
    """f̃([x,1]) = [f(x), 1] (Appendix B), and its singular values bound its gain."""
    gen = torch.Generator().manual_seed(2)
    h, d, dv = 3, 8, 2
    w_v, b_v, w_o = torch.randn(h, d, dv, generator=gen), torch.randn(h, dv, generator=gen), torch.randn(h, dv, d, generator=gen)
    sv = affine_singular_values(w_v, b_v, w_o)
    assert sv.shape == (h, dv + 1)
    assert (sv[:, :-1] >= sv[:, 1:]).all() and (sv > 0).all()
    x = torch.randn(50, d, generator=gen)
    for k in range(h):
        f = (x @ w_v[k] + b_v[k]) @ w_o[k]
        gain = torch.cat([f, torch.ones(50, 1)], 1).norm(dim=1) / torch.cat([x, torch.ones(50, 1)], 1).norm(dim=1)
        assert (gain <= sv[k, 0] + 1e-5).all()


def test_category_sums_by_hand():
    alpha_mean = np.array([0.5, 0.1, 0.3, 0.1])
    f_norm = np.array([0.2, 1.0, 2.0, 4.0])
    cat = np.array(["[CLS]", "other", "other", "[SEP]"])
    df = category_sums(alpha_mean, f_norm, cat, ("[CLS]", "[SEP]", "punct", "other")).set_index("category")
    assert df.loc["other", "alpha"] == pytest.approx(0.4)
    assert df.loc["other", "weighted_norm"] == pytest.approx(0.1 * 1.0 + 0.3 * 2.0)
    assert df.loc["other", "f_norm"] == pytest.approx(1.5)
    assert df.loc["punct", "alpha"] == 0 and np.isnan(df.loc["punct", "f_norm"])
    assert df.alpha.sum() == pytest.approx(1.0)


def test_category_table_matches_per_sequence_sums():
    """The vectorised table is the sequence average of category_sums, with absent categories counted as 0."""
    rng = np.random.default_rng(3)
    cats = ("[CLS]", "[SEP]", "punct", "other")
    rows, expected = [], []
    for seq in range(3):
        n = 6
        labels = np.array(["[CLS]", "other", "other", "[SEP]", "other", "punct" if seq else "other"])
        a = rng.dirichlet(np.ones(n))
        fn = rng.uniform(0.5, 3, n)
        rows.append(pd.DataFrame({"seq": seq, "layer": 1, "head": 1, "pos": range(n), "alpha_mean": a,
                                  "f_norm": fn, "category": labels}))
        expected.append(category_sums(a, fn, labels, cats))
    got = category_table(pd.concat(rows), cats).set_index("category")
    exp = pd.concat(expected).groupby("category").mean()
    for c in cats:
        assert got.loc[c, "alpha"] == pytest.approx(exp.loc[c, "alpha"])
        assert got.loc[c, "weighted_norm"] == pytest.approx(exp.loc[c, "weighted_norm"])
    assert got.loc["punct", "alpha"] == pytest.approx(exp.loc["punct", "alpha"])  # seq 0 has none: counted as 0
    assert got.alpha.sum() == pytest.approx(1.0)
