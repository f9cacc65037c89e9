"""The offline pretrained encoder (all-MiniLM-L6-v2), its text and frequency ranks, and the norm cache."""

import numpy as np
import pandas as pd
import pytest
import torch

from attnrepro.kobayashi2020 import news as encoder_text
from attnrepro.kobayashi2020.norms import decomposed_output, output_map_per_head, split_heads, transformed
from attnrepro.errors import AttnReproError
from attnrepro.kobayashi2020.ranks import count_ranks, rank_tokens
from attnrepro.kobayashi2020.pretrained import (layer_weights,
    load_encoder,
    norm_cache,
    run_with_cache,
    singular_value_table)


@pytest.fixture(scope="module")
def encoder():
    torch.set_num_threads(1)
    return load_encoder()


@pytest.fixture(scope="module")
def tokens(encoder):
    packed = encoder_text.pack_pairs(encoder_text.read_news(), encoder.tokenizer.tokenize, n_sequences=6, max_len=64)
    return encoder_text.sequence_table(packed, encoder.tokenizer)


def test_exact_decomposition_every_layer(encoder):
    """Σ_h Σ_j α f(x_j) + b^O equals the hooked output of each layer's attention dense map, padding included."""
    batch = encoder.tokenizer(["The cat sat on the mat, quietly.", "Stocks fell."],
                              ["It was warm.", "Investors worried about rates, again and again."],
                              return_tensors="pt", padding=True)
    assert (batch["attention_mask"] == 0).any()  # the batch has padding
    cache = run_with_cache(encoder, batch["input_ids"], batch["attention_mask"], batch["token_type_ids"])
    assert len(cache) == encoder.n_layers == 6
    for layer, c in enumerate(cache):
        w = layer_weights(encoder, layer)
        f = transformed(split_heads(c["value"], encoder.n_heads), output_map_per_head(w["w_out"], encoder.n_heads))
        assert f.shape[1] == encoder.n_heads == 12
        torch.testing.assert_close(decomposed_output(c["alpha"], f, w["b_o"]), c["attn_out"], atol=1e-5, rtol=0)
        # without b^V folded into f the sum misses Σ_j α b^V W^O = b^V W^O: the bias belongs in f
        value_no_bias = split_heads(c["value"] - w["b_v"], encoder.n_heads)
        f_wrong = transformed(value_no_bias, output_map_per_head(w["w_out"], encoder.n_heads))
        assert (decomposed_output(c["alpha"], f_wrong, w["b_o"]) - c["attn_out"]).abs().max() > 1e-3


def test_packed_sequences(tokens):
    for seq, g in tokens.groupby("seq"):
        toks = g.sort_values("pos").token.tolist()
        assert toks[0] == "[CLS]" and toks[-1] == "[SEP]" and toks.count("[SEP]") == 2 and len(toks) <= 64
        assert (g.segment.to_numpy() == (g.pos.to_numpy() > toks.index("[SEP]"))).all()
    assert set(tokens.category) == set(encoder_text.CATEGORIES)
    assert tokens.article.is_monotonic_increasing and tokens.article.nunique() == 6


def test_substitute_ranks_every_token(encoder, tokens):
    """The offline ranking (word-piece counts over packed news) ranks specials, ## pieces and single characters."""
    every = encoder_text.pack_pairs(encoder_text.read_news()[:40], encoder.tokenizer.tokenize, None, 64)
    table = count_ranks(encoder_text.sequence_table(every, encoder.tokenizer).token_id)
    ranks = pd.Series(rank_tokens(tokens.token_id, table), index=tokens.token)
    assert ranks.notna().all() and len(ranks) == len(tokens)
    assert ranks["[SEP]"].max() < ranks["[CLS]"].max() < 30  # two [SEP] per sequence, one [CLS]
    assert ranks["the"].max() <= 3 and ranks["."].max() <= 5
    pieces = ranks[ranks.index.str.startswith("##")]
    assert len(pieces) > 0 and (pieces > 0).all()


def test_first_article_skips_the_articles_before_it(encoder):
    texts = encoder_text.read_news()[:30]
    later = encoder_text.pack_pairs(texts, encoder.tokenizer.tokenize, 3, 64, first_article=10)
    alone = encoder_text.pack_pairs(texts[10:], encoder.tokenizer.tokenize, 3, 64)
    assert [a for a, _, _ in later] == [a + 10 for a, _, _ in alone]  # articles keep their corpus index
    assert [p1 for _, p1, _ in later] == [p1 for _, p1, _ in alone]


def test_demo_and_paper_sequences_are_disjoint(encoder, root):
    """The demo's sequences come from articles before the first one the paper configs draw from."""
    import yaml

    demo = yaml.safe_load((root / "config" / "config.yaml").read_text())["kobayashi2020"]
    packed = encoder_text.pack_pairs(encoder_text.read_news(), encoder.tokenizer.tokenize, demo["n_sequences"],
                                     demo["max_len"], demo.get("first_article", 0))
    assert len(packed) == demo["n_sequences"]
    slice_ = yaml.safe_load((root / "config" / "paper_slice.yaml").read_text())["kobayashi2020"]
    paper = yaml.safe_load((root / "config" / "paper.yaml").read_text())["kobayashi2020"]
    assert packed[-1][0] < slice_["first_article"] == paper["first_article"]
    later = encoder_text.pack_pairs(encoder_text.read_news(), encoder.tokenizer.tokenize, slice_["n_sequences"],
                                    slice_["max_len"], slice_["first_article"])
    assert len(later) == slice_["n_sequences"]  # the paper's 992 fit in the articles after the demo's


def test_sentences():
    text = 'He said "no." Then Mr. Smith left the U.S. Army. 3 people came! Yes? ok.'
    assert encoder_text.sentences(text) == ['He said "no."', "Then Mr. Smith left the U.S. Army.", "3 people came!",
                                       "Yes? ok."]


def test_missing_package_names_it():
    with pytest.raises(AttnReproError, match="no-such-wheel"):
        encoder_text.package_file("no-such-wheel", "x")


def test_bad_news_archive(tmp_path):
    bad = tmp_path / "news.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(AttnReproError, match="news.zip"):
        encoder_text.read_news(bad)


def test_norm_cache(encoder, tokens):
    cache = norm_cache(encoder, tokens, batch_size=4, pair_fraction=0.05, seed=0)
    assert (cache["error"].max_abs_error < 1e-5).all()
    heads = cache["heads"]
    n_tok = len(tokens)
    assert len(heads) == n_tok * 6 * 12 and len(cache["layers"]) == n_tok * 6
    # ᾱ_j summed over the keys of a sequence is 1 for every head (α rows sum to 1 over real keys)
    sums = heads.groupby(["seq", "layer", "head"]).alpha_mean.sum()
    np.testing.assert_allclose(sums, 1.0, atol=1e-5)
    pairs = cache["pairs"]
    expected = (tokens.groupby("seq").size() ** 2).sum() * 72 * 0.05
    assert abs(len(pairs) - expected) < 5 * np.sqrt(expected)
    # a sampled pair's ‖f‖ is the cached ‖f(x_j)‖ of its key
    merged = pairs.merge(heads, on=["seq", "layer", "head", "pos"], suffixes=("", "_h"))
    assert len(merged) == len(pairs)
    np.testing.assert_allclose(merged.f_norm, merged.f_norm_h, rtol=1e-6)
    # other batch boundaries (other padding) give the same per-token values
    again = norm_cache(encoder, tokens, batch_size=3, pair_fraction=0.05, seed=0)["heads"]
    key = ["seq", "layer", "head", "pos"]
    pd.testing.assert_frame_equal(heads.sort_values(key).reset_index(drop=True),
                                  again.sort_values(key).reset_index(drop=True), atol=1e-5, rtol=1e-4)


def test_singular_values(encoder):
    sv = singular_value_table(encoder)
    assert len(sv) == 6 * 12 * 33
    assert (sv.groupby(["layer", "head"]).singular_value.apply(lambda s: s.is_monotonic_decreasing)).all()
