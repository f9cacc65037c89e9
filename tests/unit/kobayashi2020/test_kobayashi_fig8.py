"""Kobayashi et al. 2020, Fig. 8: the example soft alignments the AER jobs keep, and the figure drawn from them,
on hand-made tables (no model, no training)."""

import json

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from attnrepro.cli import main
from attnrepro.errors import AttnReproError
from attnrepro.kobayashi2020.figures import fig8
from attnrepro.kobayashi2020.soft_examples import COLUMNS, soft_alignment_table


def test_soft_alignment_table_hand_case():
    # two layers, two sentences padded to Q = 3 target steps and K = 3 source keys (the last is <eos> or padding)
    w = np.arange(2 * 3 * 3, dtype=float).reshape(2, 3, 3)
    layers = [{"weight": w, "norm": w + 100}, {"weight": -w, "norm": w + 200}]
    src, tgt = [["a", "."], ["c"]], [["x", "y"], ["z"]]
    sure, possible = [{(0, 0)}, {(0, 0)}], [{(0, 0), (1, 1)}, {(0, 0)}]
    t = soft_alignment_table(layers, src, tgt, sure, possible, seed=7, n_sentences=5)  # more than the set has
    assert list(t.columns) == COLUMNS
    assert len(t) == 2 * (2 * 2 + 1 * 1)  # layers × word cells; the <eos> key and step are never kept
    s0 = t[(t.sentence == 0) & (t.layer == 1)].set_index(["target", "source"])
    assert s0.loc[(1, 0), "weight"] == w[0, 1, 0] and s0.loc[(1, 0), "norm"] == w[0, 1, 0] + 100
    assert s0.loc[(1, 1), ["target_word", "source_word"]].tolist() == ["y", "."]
    assert s0.gold.to_dict() == {(0, 0): "sure", (0, 1): "none", (1, 0): "none", (1, 1): "possible"}
    s1 = t[(t.sentence == 1) & (t.layer == 2)].iloc[0]
    assert (s1.weight, s1.norm, s1.gold, s1.seed) == (-w[1, 0, 0], w[1, 0, 0] + 200, "sure", 7)
    assert set(soft_alignment_table(layers, src, tgt, sure, possible, 0, n_sentences=1).sentence) == {0}
    with pytest.raises(ValueError, match="n_sentences"):
        soft_alignment_table(layers, src, tgt, sure, possible, 0, n_sentences=0)


def _table(experiment, n_layers, sentences):
    """A soft table by hand: every sentence 'the cat .' -> 'die Katze .' (or without periods); in every layer
    the period key takes the largest weight from every target word but, off its own target word, the smallest
    norm, and the norms pick the diagonal."""
    rows = []
    for b, words in enumerate(sentences):
        for layer in range(1, n_layers + 1):
            for i, tw in enumerate(words):
                for j, sw in enumerate(words):
                    weight = 0.6 if sw == "." else 0.2
                    norm = 1.0 if i == j else (0.05 if sw == "." else 0.3)
                    rows.append({"seed": 0, "sentence": b, "layer": layer, "target": i, "source": j,
                                 "target_word": tw.upper(), "source_word": sw, "weight": weight, "norm": norm,
                                 "gold": "sure" if i == j else "none"})
    return pd.DataFrame(rows).assign(experiment=experiment)


def test_fig8_draws_layer_2_of_the_first_pair_with_a_period():
    soft = pd.concat([_table("transformer", 3, [["a", "b", "c"], ["the", "cat", "."]]),
                      _table("aed", 1, [["a", "b"], ["c", "d"]])], ignore_index=True)
    fig, data = fig8(soft)
    assert len(fig.axes) >= 6  # two rows of weights | norms | gold
    tr, aed = data[data.experiment == "transformer"], data[data.experiment == "aed"]
    assert set(tr.layer) == {2} and set(tr.sentence) == {1} and set(tr.n_layers) == {3}
    assert set(aed.layer) == {1} and set(aed.sentence) == {0}  # one layer, no period: its only layer, first pair
    # Fig. 8's point on the hand case: weights extract the period for every target word, norms the diagonal
    assert tr[tr.extracted_weight].source_word.tolist() == ["."] * 3
    assert (tr[tr.extracted_norm].source == tr[tr.extracted_norm].target).all()
    assert tr[tr.extracted_norm].gold.eq("sure").all() and tr.period.sum() == 3
    assert aed.extracted_weight.sum() == 2 and aed.extracted_norm.sum() == 2  # one link per target word


def test_fig8_names_a_missing_column():
    soft = _table("transformer", 2, [["the", "cat", "."]]).drop(columns="norm")
    with pytest.raises(AttnReproError, match=r"soft alignment table: missing columns \['norm'\]"):
        fig8(soft)
    with pytest.raises(AttnReproError, match="no rows"):
        fig8(_table("transformer", 2, [["a"]]).iloc[:0])


def test_soft_figure_command(tmp_path, capsys):
    path = tmp_path / "soft_alignments.parquet"
    _table("x", 2, [["the", "cat", "."]]).drop(columns=["experiment", "gold"]).to_parquet(path)
    out = ["--png", str(tmp_path / "f.png"), "--pdf", str(tmp_path / "f.pdf"), "--csv", str(tmp_path / "f.csv")]
    args = ["figure", "kobayashi2020", "fig8", "--inputs-json", json.dumps({"tables": {"x": str(path)}}), *out]
    assert main(args) == 2 and "missing columns ['gold']" in capsys.readouterr().err
    _table("x", 2, [["the", "cat", "."]]).drop(columns="experiment").to_parquet(path)
    assert main(args) == 0
    assert set(pd.read_csv(tmp_path / "f.csv").layer) == {2} and (tmp_path / "f.png").stat().st_size > 1000


def test_aer_job_on_a_synthetic_task_keeps_its_words_and_fig8_draws_them(tmp_path):
    """The `aer` job (the default config's synthetic gold) writes the table beside aer.csv, from an untrained
    model (no training: only the plumbing is checked), and `figure kobayashi2020 fig8` draws it (no period: the
    first pair)."""
    import torch

    from attnrepro.data import tasks
    from attnrepro.data.vocab import Vocab, write_task
    from attnrepro.seq2seq.model import ModelConfig
    from attnrepro.seq2seq.train import build_model, save_model

    torch.manual_seed(0)
    task = dict(kind="one_to_one", n_words=3, min_len=4, max_len=6, n_train=8, n_valid=4, n_test=8, seed=1)
    splits = tasks.generate(task)
    vocab = Vocab.from_words(*tasks.words(task))
    write_task(splits, vocab.to_dict(), tmp_path / "data")
    mc = ModelConfig("transformer", "ff", 16, len(vocab.src), len(vocab.tgt), max_positions=16, layers=3, heads=2)
    save_model(build_model(mc, [4, 5]), vocab.to_dict(), tmp_path / "model.pt")
    assert main(["kobayashi2020", "aer", "--models", str(tmp_path / "model.pt"), "--data-dir", str(tmp_path / "data"),
                 "--task-json", json.dumps(task), "--n-examples", "8", "--n-soft", "2",
                 "--out-dir", str(tmp_path / "aer")]) == 0
    soft = pd.read_parquet(tmp_path / "aer" / "soft_alignments.parquet")
    test = pd.read_parquet(tmp_path / "data" / "test.parquet")
    assert set(soft.sentence) == {0, 1} and set(soft.layer) == {1, 2, 3} and set(soft.seed) == {4}
    first = soft[(soft.sentence == 0) & (soft.layer == 1) & (soft.target == 0)]
    assert first.source_word.tolist() == list(test.src[0])
    assert set(soft[soft.gold == "sure"].eval("source - target")) == {0}  # one-to-one's diagonal
    out = [f"--png={tmp_path / 'f.png'}", f"--pdf={tmp_path / 'f.pdf'}", f"--csv={tmp_path / 'f.csv'}"]
    assert main(["figure", "kobayashi2020", "fig8", "--inputs-json",
                 json.dumps({"tables": {"toy": str(tmp_path / "aer" / "soft_alignments.parquet")}}), *out]) == 0
    drawn = pd.read_csv(tmp_path / "f.csv")
    assert set(drawn.layer) == {2} and set(drawn.sentence) == {0} and not drawn.period.any()
