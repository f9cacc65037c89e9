import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import torch

from attnrepro.data import tasks
from attnrepro.aitken2021.analysis import analyze_seed
from attnrepro.aitken2021.decomposition import TERMS
from attnrepro.data.vocab import Vocab, encode
from attnrepro.seq2seq.export import export_activations, states, vectors
from attnrepro.io import write_parquet
from attnrepro.seq2seq.model import EncoderDecoder, ModelConfig


@pytest.fixture(params=["dot", "qkv"])
def exported(tiny_task, tmp_path, request):
    splits = tasks.generate(tiny_task)
    vocab = Vocab.from_words(*tasks.words(tiny_task))
    test = encode(splits["test"], vocab)
    model = EncoderDecoder(ModelConfig("aed", "gru", 8, len(vocab.src), len(vocab.tgt), attention=request.param),
                           [4, 9])
    tables = export_activations(model, test, vocab)
    for name, t in tables.items():
        write_parquet(t, tmp_path / f"{name}.parquet")
    return model, test, vocab, tmp_path


def test_tables_read_with_plain_pandas(exported):
    model, test, vocab, path = exported
    enc = pd.read_parquet(path / "encoder.parquet")
    dec = pd.read_parquet(path / "decoder.parquet")
    ro = pd.read_parquet(path / "readout.parquet")
    n_enc = int(test.src_len.sum())
    assert len(enc) == 2 * n_enc and set(enc.seed) == {4, 9}
    assert len(dec) == 2 * int(test.tgt_len.sum())
    assert len(ro) == 2 * len(vocab.tgt)
    learned = model.cfg.attention == "qkv"
    assert list(enc.columns) == ["seed", "example", "t", "token", "src_len", "h"] + (["key"] if learned else [])
    assert ("query" in dec.columns) is learned
    assert len(enc.h.iloc[0]) == 8 and len(ro.weight.iloc[0]) == 16
    # the last encoder row of each example reads <eos>; the first decoder row reads <sos>
    last = enc[enc.t == enc.src_len - 1]
    assert (last.token == "<eos>").all()
    assert (dec[dec.s == 0].token == "<sos>").all()
    # attention rows cover exactly the real source positions and sum to one
    lengths = dec.alpha.map(len).to_numpy()
    assert (lengths == test.src_len.numpy()[dec.example.to_numpy()]).all()
    np.testing.assert_allclose(dec.alpha.map(np.sum), 1.0, rtol=1e-5)


def test_exported_states_equal_the_model_cache(exported):
    model, test, vocab, path = exported
    table = pq.read_table(path / "encoder.parquet")
    meta, arrays = states(table, 9, ("example", "t"))
    h = arrays["h"]
    n = model.n_seeds
    with torch.no_grad():
        _, cache = model.run_with_cache(test.src.expand(n, *test.src.shape), test.src_len.expand(n, -1),
                                        test.tgt_in.expand(n, *test.tgt_in.shape))
    expected = cache["encoder.h"][1][meta.example.to_numpy(copy=True), meta.t.to_numpy(copy=True)].numpy()
    np.testing.assert_array_equal(h, expected)
    ro = pq.read_table(path / "readout.parquet")
    np.testing.assert_array_equal(vectors(ro, "weight")[: len(vocab.tgt)], model.readout.weight[0].detach().numpy().T)


def test_analysis_of_an_export(exported):
    model, test, vocab, path = exported
    enc, dec = pq.read_table(path / "encoder.parquet"), pq.read_table(path / "decoder.parquet")
    em, ev = states(enc, 4, ("example", "t"))
    dm, dv = states(dec, 4, ("example", "s"))
    out = analyze_seed(em, ev["h"], dm, dv["h"], list(vocab.src), list(vocab.tgt), has_attention=True,
                       enc_key=ev.get("key"), dec_query=dv.get("query"))
    assert set(out) == {"temporal", "input", "input_delta", "terms", "maps", "offsets", "word_variance",
                        "accuracy", "summary"}
    s = out["summary"].iloc[0]
    for prefix in ("share_", "share_top1_"):  # the authors' top-5 per-step shares and the top-1 pooled ones
        assert sum(s[f"{prefix}{k}"] for k in TERMS) == pytest.approx(1.0)
    # the alignment recomputed from the exported states equals the model's own scores at t*
    scores = dec.to_pandas()
    scores = scores[scores.seed == 4].sort_values(["example", "s"]).reset_index(drop=True)
    terms = out["terms"][out["terms"]["rank"] == 0].reset_index(drop=True)
    model_a = [row.scores[t] for row, t in zip(scores.itertuples(), terms.t_star)]
    np.testing.assert_allclose(terms.a, model_a, rtol=1e-4, atol=1e-5)
    assert (terms.t_star.to_numpy() == [np.argmax(r) for r in scores.scores]).all()


def test_cli_export_writes_one_row_group_per_seed(tiny_task, tmp_path):
    import json

    from attnrepro.cli import main
    from attnrepro.seq2seq.train import save_model

    data = tmp_path / "data"
    assert main(["data", "--task-json", json.dumps(tiny_task), "--out-dir", str(data)]) == 0
    vocab = Vocab.from_words(*tasks.words(tiny_task))
    model = EncoderDecoder(ModelConfig("aed", "gru", 8, len(vocab.src), len(vocab.tgt)), [0, 1, 2])
    save_model(model, vocab.to_dict(), tmp_path / "model.pt")
    assert main(["export", "--model", str(tmp_path / "model.pt"), "--data-dir", str(data), "--n-examples", "16",
                 "--out-dir", str(tmp_path / "act"), "--device", "cpu"]) == 0
    for name in ("encoder", "decoder", "readout"):
        meta = pq.ParquetFile(tmp_path / "act" / f"{name}.parquet").metadata
        assert meta.num_row_groups == 3
        seeds = {tuple(pq.ParquetFile(tmp_path / "act" / f"{name}.parquet").read_row_group(i).column("seed")
                       .unique().to_pylist()) for i in range(3)}
        assert seeds == {(0,), (1,), (2,)}


def test_hypothesis_is_the_whole_greedy_decode(exported):
    """Each example's ``hypothesis`` is what :func:`attnrepro.seq2seq.evaluation.greedy_predictions` decodes (the path of
    ``attnrepro evaluate``), cut after its first <eos>, even where the decode runs past the target's length and
    so past the example's rows; the rows' ``predicted`` words are its first steps."""
    from attnrepro.aitken2021.accuracy import sentences
    from attnrepro.seq2seq.bleu import sentences as id_sentences
    from attnrepro.seq2seq.evaluation import greedy_predictions

    model, test, vocab, path = exported
    dec = pd.read_parquet(path / "decoder.parquet")
    pred = greedy_predictions(model, test, vocab.tgt.index("<sos>"))
    for k, seed in enumerate(model.seeds):
        rows = dec[dec.seed == seed].sort_values(["example", "s"])
        assert (rows.groupby("example").hypothesis.nunique() == 1).all()
        whole = [h.split() for h in rows.groupby("example").hypothesis.first()]
        assert all(w[-1] == "<eos>" or len(w) == test.tgt_out.shape[1] for w in whole)
        for (_, ex), w in zip(rows.groupby("example"), whole):
            n = min(len(w), len(ex))
            assert ex.predicted.tolist()[:n] == w[:n]
        assert sentences(rows)[0] == id_sentences(pred[k].numpy(), list(vocab.tgt), "hypothesis")
    # an untrained model decodes past some targets' ends: the case the column is for
    assert any(len(h.split()) > n for h, n in zip(dec.hypothesis, dec.tgt_len))


def test_hypotheses_need_words_without_white_space():
    from attnrepro.errors import AttnReproError
    from attnrepro.seq2seq.export import hypotheses

    words = np.array(["<pad>", "<sos>", "<eos>", "a", "b"], dtype=object)
    assert hypotheses(np.array([[3, 4, 2, 3], [4, 4, 4, 4]]), words).tolist() == ["a b <eos>", "b b b b"]
    with pytest.raises(AttnReproError, match="white space"):
        hypotheses(np.array([[3]]), np.array(["<pad>", "<sos>", "<eos>", "a b"], dtype=object))
