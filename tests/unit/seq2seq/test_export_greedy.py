"""The greedy pass of the activation export (docs/activations.md; Aitken et al.'s notebook analyses free-running
greedy decodes, χ^D keyed by the previous predicted word)."""

import numpy as np
import pandas as pd
import pytest

from attnrepro.data import tasks
from attnrepro.data.vocab import Vocab, encode
from attnrepro.errors import AttnReproError
from attnrepro.seq2seq.export import PASSES, export_activations


@pytest.fixture(scope="module")
def untrained():
    """An untrained AED (dot attention): its greedy decode errs on most steps, so the two passes differ."""
    spec = dict(kind="one_to_one", n_words=3, min_len=4, max_len=7, n_train=200, n_valid=16, n_test=16, seed=3)
    vocab = Vocab.from_words(*tasks.words(spec))
    test = encode(tasks.generate(spec)["test"], vocab)
    from attnrepro.seq2seq.model import EncoderDecoder, ModelConfig

    model = EncoderDecoder(ModelConfig("aed", "gru", 8, len(vocab.src), len(vocab.tgt)), [4, 9])
    greedy = {k: t.to_pandas() for k, t in export_activations(model, test, vocab, pass_="greedy").items()}
    forced = {k: t.to_pandas() for k, t in export_activations(model, test, vocab).items()}
    return model, test, vocab, greedy, forced


def test_greedy_inputs_are_the_models_own_previous_predictions(untrained):
    _, test, _, greedy, _ = untrained
    dec = greedy["decoder"].sort_values(["seed", "example", "s"])
    for (_, _), rows in dec.groupby(["seed", "example"]):
        assert rows.token.iloc[0] == "<sos>"
        assert (rows.token.to_numpy()[1:] == rows.predicted.to_numpy()[:-1]).all()
    previous_target = dec.groupby(["seed", "example"]).target.shift(1)
    errs = dec.s > 0
    # the untrained model errs: its inputs then differ from the previous target words
    assert (dec.token[errs] != previous_target[errs]).mean() > 0.3


def test_greedy_rows_stop_at_the_target_length(untrained):
    _, test, _, greedy, forced = untrained
    dec = greedy["decoder"]
    assert len(dec) == 2 * int(test.tgt_len.sum()) == len(forced["decoder"])
    assert (dec.groupby(["seed", "example"]).s.max() + 1 == dec.groupby(["seed", "example"]).tgt_len.first()).all()
    # target, predicted and hypothesis are the pass-independent columns
    cols = ["seed", "example", "s", "target", "predicted", "tgt_len", "hypothesis"]
    pd.testing.assert_frame_equal(dec[cols], forced["decoder"][cols])
    pd.testing.assert_frame_equal(greedy["encoder"].drop(columns="h"), forced["encoder"].drop(columns="h"))
    np.testing.assert_array_equal(np.stack(greedy["encoder"].h), np.stack(forced["encoder"].h))


def test_greedy_states_read_out_their_own_predictions(untrained):
    """The exported h_s^D and α_s are the free-running decode's: W[h_s^D; c_s] + b, with c_s = Σ_t α_st h_t^E,
    has its arg-max at the exported prediction on every step (the forced pass's do not)."""
    model, _, vocab, greedy, forced = untrained

    def readout_argmax(tables):
        enc, dec, ro = tables["encoder"], tables["decoder"], tables["readout"]
        hits = []
        for seed, rows in dec.groupby("seed"):
            e = enc[enc.seed == seed]
            w = np.stack(ro[ro.seed == seed].weight)
            b = ro[ro.seed == seed].bias.to_numpy()
            for _, r in rows.iterrows():
                h_enc = np.stack(e[e.example == r.example].sort_values("t").h)
                c = np.asarray(r.alpha) @ h_enc
                logits = w @ np.concatenate([r.h, c]) + b
                hits.append(vocab.tgt[int(logits.argmax())] == r.predicted)
        return np.mean(hits)

    assert readout_argmax(greedy) == 1.0
    assert readout_argmax(forced) < 1.0


def test_default_pass_is_teacher_forced(untrained):
    _, test, vocab, _, forced = untrained
    dec = forced["decoder"]
    words = np.array(vocab.tgt, dtype=object)
    np.testing.assert_array_equal(dec.token, words[test.tgt_in.numpy()[dec.example, dec.s]])


def test_a_bad_pass_is_refused_by_name(untrained):
    model, test, vocab, _, _ = untrained
    with pytest.raises(AttnReproError, match="export pass 'free'"):
        export_activations(model, test, vocab, pass_="free")
    from attnrepro.cli.core import add_parsers  # the CLI offers the same passes
    import argparse

    parser = argparse.ArgumentParser()
    add_parsers(parser.add_subparsers())
    action = next(a for a in parser._subparsers._group_actions[0].choices["export"]._actions
                  if a.dest == "pass_")
    assert tuple(action.choices) == PASSES and action.default == PASSES[0]


def test_the_config_key_offers_the_passes_defaults_to_teacher_forced_and_names_a_bad_value(root):
    import yaml

    from attnrepro.run.validation import validate

    schema = root / "workflow" / "schemas" / "config.schema.yaml"
    key = yaml.safe_load(schema.read_text())["properties"]["export"]["properties"]["pass"]
    assert tuple(key["enum"]) == PASSES and key["default"] == "teacher_forced"
    cfg = yaml.safe_load((root / "config" / "smoke.yaml").read_text())
    validate(cfg, schema)
    cfg["export"]["pass"] = "free_running"
    with pytest.raises(AttnReproError, match="export.*pass|free_running"):
        validate(cfg, schema)
