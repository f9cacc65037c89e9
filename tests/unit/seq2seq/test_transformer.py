"""The stacked Transformer encoder-decoder (Kobayashi et al. 2020 §5), gold alignments of the synthetic tasks,
and AER per layer on a trained model."""

import json

import numpy as np
import pandas as pd
import pytest
import torch

from attnrepro.data import tasks
from attnrepro.kobayashi2020.norms import decomposed_output
from attnrepro.training.config import TrainConfig
from attnrepro.run.config import check
from attnrepro.data.vocab import Vocab, encode, write_task
from attnrepro.errors import AttnReproError
from attnrepro.seq2seq.model import ModelConfig
from attnrepro.kobayashi2020.task_gold import gold
from attnrepro.seq2seq.train import build_model, load_model, save_model, train
from attnrepro.kobayashi2020.alignment_readout import source_target_alignments
from attnrepro.seq2seq.transformer import Transformer


def cfg(**kw):
    base = dict(arch="transformer", cell="ff", hidden=16, src_vocab=6, tgt_vocab=7, max_positions=32, layers=2,
                heads=4)
    return ModelConfig(**{**base, **kw})


def batch(n_seeds, seed=0, b=3, t=9, s=8):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(2, 6, (n_seeds, b, t), generator=g)
    src_len = torch.randint(3, t + 1, (n_seeds, b), generator=g)
    tgt_in = torch.randint(1, 7, (n_seeds, b, s), generator=g)
    return src, src_len, tgt_in


def test_stacked_seeds_equal_separate_models():
    stacked = build_model(cfg(), [3, 7, 11])
    assert isinstance(stacked, Transformer)
    src, src_len, tgt_in = batch(3)
    out = stacked(src, src_len, tgt_in)
    for i, seed in enumerate([3, 7, 11]):
        alone = build_model(cfg(), [seed])
        torch.testing.assert_close(alone(src[i:i + 1], src_len[i:i + 1], tgt_in[i:i + 1]), out[i:i + 1],
                                   atol=1e-5, rtol=1e-5)
    # gradients stay within their seed
    out[1].sum().backward()
    assert stacked.readout.weight.grad[0].abs().max() == 0 and stacked.readout.weight.grad[1].abs().max() > 0


def test_causal_and_padding_masks():
    model = build_model(cfg(), [0])
    src, src_len, tgt_in = batch(1)
    logits = model(src, src_len, tgt_in)
    # a later target word cannot change earlier outputs
    changed = tgt_in.clone()
    changed[..., -1] = (changed[..., -1] % 6) + 1
    torch.testing.assert_close(model(src, src_len, changed)[..., :-1, :], logits[..., :-1, :])
    # nor can source words beyond the source length
    padded = src.clone()
    beyond = torch.arange(src.shape[-1]) >= src_len[..., None]
    padded[beyond] = 5 - padded[beyond] + 2
    torch.testing.assert_close(model(padded, src_len, tgt_in), logits)


def test_cross_attention_decomposition_is_exact():
    model = build_model(cfg(), [0, 1])
    src, src_len, tgt_in = batch(2)
    with torch.no_grad():
        _, cache = model.run_with_cache(src, src_len, tgt_in)
        for layer, (w_o, b_o) in enumerate(model.output_maps()):
            alpha = cache[f"decoder.{layer}.cross.alpha"]
            assert alpha.shape == (2, 3, 4, 8, 9)
            f = torch.einsum("sbhkv,shvd->sbhkd", cache[f"decoder.{layer}.cross.value"], w_o)
            y = decomposed_output(alpha, f, b_o[:, None, None, :])
            torch.testing.assert_close(y, cache[f"decoder.{layer}.cross.out"], atol=1e-5, rtol=0)


def test_greedy_decode_matches_teacher_forcing_on_its_own_output():
    model = build_model(cfg(), [0, 1])
    src, src_len, _ = batch(2)
    pred = model.greedy_decode(src, src_len, 5, sos=1)
    tgt_in = torch.cat([torch.ones_like(pred[..., :1]), pred[..., :-1]], -1)
    assert torch.equal(model(src, src_len, tgt_in).argmax(-1), pred)


def test_save_and_load_round_trip(tmp_path):
    model = build_model(cfg(), [0, 1])
    save_model(model, {"src": [], "tgt": []}, tmp_path / "m.pt")
    loaded, _ = load_model(tmp_path / "m.pt")
    assert isinstance(loaded, Transformer) and loaded.cfg.layers == 2
    src, src_len, tgt_in = batch(2)
    torch.testing.assert_close(loaded(src, src_len, tgt_in), model(src, src_len, tgt_in))


def test_gold_one_to_one_reversed_sort():
    assert gold({"kind": "one_to_one"}, list("ABC"), list("213")) == ({(0, 0), (1, 1), (2, 2)},) * 2
    assert gold({"kind": "reversed"}, list("ABC"), list("312"))[0] == {(2, 0), (1, 1), (0, 2)}
    sure, possible = gold({"kind": "sort"}, list("BAB"), list("ABB"))
    assert sure == {(1, 0), (0, 1), (2, 2)}
    assert possible == sure | {(2, 1), (0, 2)}


def test_gold_escan():
    src = "jump left and walk twice <.> run".split()
    tgt = "I_TURN_LEFT I_JUMP I_WALK I_WALK <.> I_RUN".split()
    sure, possible = gold({"kind": "escan"}, src, tgt)
    assert sure == {(1, 0), (0, 1), (3, 2), (3, 3), (5, 4), (6, 5)}
    assert (4, 2) in possible and (4, 3) in possible and (2, 0) in possible  # 'twice' and 'and' as possible
    assert (4, 1) not in possible
    with pytest.raises(ValueError, match="not the interpretation"):
        gold({"kind": "escan"}, src, tgt[:-1])
    with pytest.raises(ValueError, match="no word-level gold"):
        gold({"kind": "escan"}, "turn left".split(), ["I_TURN_LEFT"])


def test_gold_escan_on_generated_data():
    task = dict(kind="escan", words=["run", "walk", "jump", "left", "and", "twice"], separator="<.>", min_len=15,
                max_len=20, n_train=1, n_valid=1, n_test=200, seed=4)
    test = tasks.generate(task)["test"]
    for s, t in zip(test.src, test.tgt):
        sure, possible = gold(task, list(s), list(t))
        assert sorted(j for _, j in sure) == list(range(len(t)))  # every action has exactly one sure source
        assert sure <= possible


def _config(model):
    return {"tasks": {"t": {"kind": "one_to_one", "min_len": 3, "max_len": 5}}, "seeds": [0],
            "experiments": {"e": {"task": "t", "model": model}},
            "train": {"eval_every": 1, "steps": 2}}


@pytest.mark.parametrize("model, message", [
    ({"arch": "transformer", "cell": "gru", "hidden": 16}, "feed-forward sublayers"),
    ({"arch": "transformer", "cell": "ff", "hidden": 16, "heads": 3}, "not a multiple of heads"),
    ({"arch": "transformer", "cell": "ff", "hidden": 16, "attention": "qkv"}, "do not apply to a transformer"),
    ({"arch": "aed", "cell": "gru", "hidden": 16, "layers": 2}, "apply to arch 'transformer' only"),
    ({"arch": "transformer", "cell": "ff", "hidden": 16, "max_positions": 4}, "max_positions"),
])
def test_config_errors(model, message):
    with pytest.raises(AttnReproError, match=message):
        check(_config(model))


def test_trained_transformer_aligns_one_to_one(tmp_path):
    """A few hundred steps on one-to-one: the model learns the task and some layer's alignments are nearly exact;
    AER per layer comes out for both methods and the CLI writes the tables."""
    from attnrepro.kobayashi2020.aer import aer_by_layer, best_and_mean
    from attnrepro.cli import main

    torch.set_num_threads(1)
    task = dict(kind="one_to_one", n_words=3, min_len=5, max_len=8, n_train=2000, n_valid=64, n_test=64, seed=1)
    splits = tasks.generate(task)
    vocab = Vocab.from_words(*tasks.words(task))
    tr, va = encode(splits["train"], vocab), encode(splits["valid"], vocab)
    mc = ModelConfig("transformer", "ff", 16, len(vocab.src), len(vocab.tgt), max_positions=16, layers=2, heads=2)
    tc = TrainConfig(steps=150, batch_size=32, lr=0.005, lr_decay=1.0, betas=(0.9, 0.98), eps=1e-8, grad_clip=1.0,
                     l2=0.0, checkpoint_every=1000, eval_every=150, n_eval=64)
    model, metrics = train(mc, tc, [0, 1], tr, va, tmp_path / "ck", sos=vocab.tgt.index("<sos>"))
    assert metrics.token_acc.min() > 0.9
    soft, error = source_target_alignments(model, va.src, va.src_len, va.tgt_in)
    assert error < 1e-4
    links = [gold(task, list(s), list(t)) for s, t in zip(splits["valid"].src, splits["valid"].tgt)]
    per_layer = aer_by_layer(soft[0], (va.src_len - 1).numpy(), (va.tgt_len - 1).numpy(),
                             [s for s, _ in links], [p for _, p in links])
    assert len(per_layer) == 4 and per_layer.aer.between(0, 1).all()
    assert per_layer.aer.min() < 0.2
    assert set(best_and_mean(per_layer)) >= {"aer_weight_best", "aer_norm_best", "aer_best_gain"}
    # the CLI end to end on saved files
    data = tmp_path / "data"
    write_task(splits, vocab.to_dict(), data)
    save_model(model, vocab.to_dict(), tmp_path / "model.pt")
    assert main(["kobayashi2020", "aer", "--models", str(tmp_path / "model.pt"), "--data-dir", str(data),
                 "--task-json", json.dumps(task), "--n-examples", "64", "--out-dir", str(tmp_path / "aer")]) == 0
    summary = pd.read_csv(tmp_path / "aer" / "aer_summary.csv")
    assert summary.seed.tolist() == [0, 1] and np.isfinite(summary.aer_best_gain).all()
    out = tmp_path / "fig"
    for name in ("fig7", "table3"):
        assert main(["figure", "kobayashi2020", name, "--inputs-json",
                     json.dumps({"tables": {"toy": str(tmp_path / "aer" / "aer.csv")}}),
                     "--png", str(out / f"{name}.png"), "--pdf", str(out / f"{name}.pdf"),
                     "--csv", str(out / f"{name}.csv")]) == 0
    assert (out / "fig7.png").stat().st_size > 5000


@pytest.mark.parametrize("arch, attention", [("aed", "dot"), ("aed", "qkv"), ("ao", "qkv")])
def test_recurrent_models_give_one_alignment_layer(arch, attention):
    """AED/AO: one head, f(x) = v(x), the context rebuilt exactly; the norm reading weighs α by ‖v‖."""
    mc = ModelConfig(arch, "gru", 12, 6, 7, input_dim=12 if arch == "ao" else 0, max_positions=32,
                     attention=attention)
    model = build_model(mc, [0, 1])
    src, src_len, tgt_in = (x[0] for x in batch(1))
    soft, error = source_target_alignments(model, src, src_len, tgt_in)
    assert error < 1e-5 and len(soft) == 2 and len(soft[0]) == 1
    with torch.no_grad():
        _, cache = model.run_with_cache(*(x.unsqueeze(0).expand(2, *x.shape) for x in (src, src_len, tgt_in)))
    np.testing.assert_allclose(soft[1][0]["weight"], cache["attention.alpha"][1].numpy(), rtol=1e-6)
    v_norm = cache["attention.value"][1].norm(dim=-1)
    np.testing.assert_allclose(soft[1][0]["norm"], (cache["attention.alpha"][1] * v_norm[:, None, :]).numpy(),
                               rtol=1e-5, atol=1e-7)


def test_aer_experiment_list_is_checked():
    cfg = _config({"arch": "ved", "cell": "gru", "hidden": 8})
    cfg["kobayashi2020_aer"] = {"experiments": ["nope"]}
    with pytest.raises(AttnReproError, match="unknown experiment 'nope'"):
        check(cfg)
    cfg["kobayashi2020_aer"] = {"experiments": ["e"]}
    with pytest.raises(AttnReproError, match="no attention to read"):
        check(cfg)
