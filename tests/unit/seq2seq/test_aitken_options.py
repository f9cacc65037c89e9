"""The options that follow Aitken et al.'s code (docs/deviations.md, Aitken rows; attnrepro.seq2seq.model.OPTIONS), each on a
hand case, with the defaults leaving the model as it was and a bad value stopped naming its key."""

import json
import math

import pandas as pd
import pytest
import torch
import yaml

from attnrepro.training.config import TrainConfig
from attnrepro.run.config import check
from attnrepro.training.engine import token_loss
from attnrepro.errors import AttnReproError
from attnrepro.seq2seq.model import EncoderDecoder, ModelConfig
from attnrepro.nn.stacked import affine
from attnrepro.run.validation import validate

from tests.helpers import SPEC, V_SRC, V_TGT, batch, task_data, with_change

AED = ("experiments", "aed_gru_one_to_one", "model")


def model(arch="aed", seeds=(0,), hidden=8, **options):
    dim = 16 if arch == "ao" else 0
    return EncoderDecoder(ModelConfig(arch, "gru", hidden, V_SRC, V_TGT, input_dim=dim, max_positions=16,
                                      **options), list(seeds))


def test_defaults_are_the_model_as_it_was():
    plain = model(seeds=(0, 1))
    explicit = model(seeds=(0, 1), initial_state="zeros", init="pytorch", readout_bias=True, first_input="sos")
    assert plain.state_dict().keys() == explicit.state_dict().keys()
    for k, v in plain.state_dict().items():
        assert torch.equal(v, explicit.state_dict()[k]), k
    # the saved model config (train.save_model) carries no option at its default
    assert not {"initial_state", "init", "readout_bias", "first_input"} & set(plain.cfg.to_dict())
    assert "loss" not in TrainConfig.from_dict(SPEC["train"]).to_dict()  # the checkpoints' fingerprint as before


def test_readout_without_bias_has_no_bias_and_the_other_draws_unchanged():
    plain, nobias = model("aed"), model("aed", readout_bias=False)
    assert nobias.readout.bias is None and "readout.bias" not in dict(nobias.named_parameters())
    for k, v in nobias.state_dict().items():
        assert torch.equal(v, plain.state_dict()[k]), k
    src, src_len, tgt_in = batch()
    logits, cache = nobias.run_with_cache(src, src_len, tgt_in)
    readin = torch.cat([cache["decoder.h"], cache["attention.context"]], -1)
    torch.testing.assert_close(logits, readin @ nobias.readout.weight[0])


@pytest.mark.parametrize("arch", ["ved", "aed", "ao"])
def test_uniform_first_input_is_one_over_v_in_every_word_dimension(arch):
    m = model(arch, seeds=(0, 1), first_input="uniform")
    src, src_len, tgt_in = batch(2)
    logits, cache = m.run_with_cache(src, src_len, tgt_in)
    width = m.tgt_dim
    x = torch.zeros(2, 4, 1, width)
    x[..., :V_TGT] = 1.0 / V_TGT  # the authors' SOS; AO's extra input dimensions stay 0
    gx = m.decoder.input_projection(x)
    if arch == "ao":
        gx = gx + affine(m.pe_tgt[:, :1], m.decoder.w_x)[:, None]
        state = m.decoder.initial_state(2, 4)
    else:
        state = m.encode(src, src_len)[1]
    first = m.decoder.output(m.decoder.step(gx[:, :, 0], state))
    torch.testing.assert_close(cache["decoder.h"][:, :, 0], first)
    # the first input no longer depends on tgt_in's first token; the later steps are as with <sos>
    other = tgt_in.clone()
    other[:, :, 0] = 3
    torch.testing.assert_close(m(src, src_len, other), logits)
    assert not torch.allclose(model(arch, seeds=(0, 1))(src, src_len, tgt_in)[:, :, 0], logits[:, :, 0])
    # greedy decoding starts from the same vector: its first word is the teacher-forced pass's arg-max
    assert torch.equal(m.greedy_decode(src, src_len, 1, sos=1)[:, :, 0], logits[:, :, 0].argmax(-1))


def test_aitken_init_statistics():
    h, v = 64, 40
    m = EncoderDecoder(ModelConfig("aed", "gru", h, v, v, init="aitken"), [0])
    for cell in (m.encoder, m.decoder):
        for w in (cell.w_x.detach(), cell.w_h.detach()):  # N(0, 1/H): the authors' renn cells, input weights included
            assert abs(float(w.mean())) < 0.01 and float(w.std()) == pytest.approx(1 / math.sqrt(h), rel=0.05)
        assert not cell.b_x.any() and not cell.b_h.any()
    glorot = math.sqrt(2 / (2 * h + v))  # read-out of [h; c]: fan-in 2H, fan-out |V|
    assert float(m.readout.weight.detach().std()) == pytest.approx(glorot, rel=0.05)
    assert not m.readout.bias.any()
    default = EncoderDecoder(ModelConfig("aed", "gru", h, v, v), [0])
    assert float(default.encoder.w_h.detach().abs().max()) <= 1 / math.sqrt(h)  # U(±1/√H), as before


def test_learned_initial_state_is_a_parameter_with_a_gradient():
    torch.manual_seed(0)
    m, plain = model("aed", seeds=(0, 1), initial_state="learned"), model("aed", seeds=(0, 1))
    assert m.encoder_state.shape == (2, 1, 8) and not m.encoder_state.any()
    src, src_len, tgt_in = batch(2)
    torch.testing.assert_close(m(src, src_len, tgt_in), plain(src, src_len, tgt_in))  # zeros at the start
    loss = m(src, src_len, tgt_in).pow(2).sum()
    loss.backward()
    grad = m.encoder_state.grad
    assert grad.shape == m.encoder_state.shape and grad.abs().sum() > 0
    # the hand-written recurrence's ∂state against a central difference, member 1, unit 3
    eps = 1e-3
    with torch.no_grad():
        values = []
        for sign in (1, -1):
            m.encoder_state[1, 0, 3] += sign * eps
            values.append(float(m(src, src_len, tgt_in).pow(2).sum()))
            m.encoder_state[1, 0, 3] -= sign * eps
    assert float(grad[1, 0, 3]) == pytest.approx((values[0] - values[1]) / (2 * eps), rel=2e-2, abs=1e-3)
    # members stay independent: member 0's loss does not reach member 1's state
    m.zero_grad()
    m(src, src_len, tgt_in)[0].pow(2).sum().backward()
    assert not m.encoder_state.grad[1].any()


def test_padded_loss_is_the_mean_over_batch_times_padded_length():
    from attnrepro.data.vocab import Encoded

    logits = torch.tensor([[[[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 3.0]],
                            [[0.0, 0.0, 1.0], [1.0, 1.0, 1.0], [5.0, 0.0, 0.0]]]])  # [S=1, B=2, T=3, V=3]
    tgt_out = torch.tensor([[[0, 1, 2], [2, 0, 0]]])
    tgt_len = torch.tensor([[3, 1]])
    b = Encoded(src=tgt_out, src_len=tgt_len, tgt_in=tgt_out, tgt_out=tgt_out, tgt_len=tgt_len)
    nll = -torch.log_softmax(logits, -1).gather(-1, tgt_out[..., None])[..., 0]
    real = nll[0, 0].sum() + nll[0, 1, 0]  # four real tokens; the second sequence's two pads left out of the sum
    torch.testing.assert_close(token_loss(logits, b, padded=True), (real / 6)[None])  # B × T = 6
    torch.testing.assert_close(token_loss(logits, b), (real / 4)[None])


def test_bad_option_values_name_their_key(smoke, root):
    schema = root / "workflow" / "schemas" / "config.schema.yaml"
    for key, value in (("init", "glorot"), ("first_input", "eos"), ("initial_state", "random"),
                       ("readout_bias", "no")):
        needle = rf"'experiments\.aed_gru_one_to_one\.model\.{key}': .* is not (one of|true or false)"
        with pytest.raises(AttnReproError, match=needle):
            validate(with_change(smoke, (*AED, key), value), schema)
    with pytest.raises(AttnReproError, match=r"'train\.loss': 'sum' is not one of 'real', 'padded'"):
        validate(with_change(smoke, ("train", "loss"), "sum"), schema)
    good = with_change(smoke, (*AED, "initial_state"), "learned")
    validate(good, schema)
    check(good)
    with pytest.raises(AttnReproError, match=r"experiments\.aed_gru_one_to_one\.model\.initial_state: .*'ao'"):
        check(with_change(smoke, AED, {"arch": "ao", "cell": "gru", "hidden": 8, "input_dim": 16,
                                       "initial_state": "learned"}))
    with pytest.raises(AttnReproError, match=r"experiments\.aed_gru_one_to_one\.model\.readout_bias: .*transformer"):
        check(with_change(smoke, AED, {"arch": "transformer", "cell": "ff", "hidden": 8, "readout_bias": False}))
    # the same values given straight to the code (a --spec-json) stop it naming the key
    with pytest.raises(ValueError, match=r"model\.init: 'glorot'"):
        model(init="glorot")
    with pytest.raises(ValueError, match=r"model\.readout_bias: 0"):
        model(readout_bias=0)
    with pytest.raises(AttnReproError, match=r"train\.loss: 'sum'"):
        TrainConfig.from_dict({**SPEC["train"], "loss": "sum"})


def test_every_option_trains_saves_and_loads(tmp_path):
    from attnrepro.cli import main
    from attnrepro.seq2seq.train import load_model

    spec = {**SPEC, "model": {**SPEC["model"], "initial_state": "learned", "init": "aitken", "readout_bias": False,
                              "first_input": "uniform"}, "train": {**SPEC["train"], "loss": "padded"}}
    data, out = task_data(tmp_path), tmp_path / "out"
    assert main(["train", "--spec-json", json.dumps(spec), "--seeds", "0", "--data-dir", str(data),
                 "--ckpt-dir", str(out / "ckpt"), "--model-out", str(out / "model.pt"),
                 "--metrics-out", str(out / "metrics.csv"), "--device", "cpu"]) == 0
    m = load_model(out / "model.pt")[0]
    assert m.cfg.first_input == "uniform" and m.readout.bias is None and m.encoder_state.abs().sum() > 0
    # the export writes the bias-less read-out with bias 0 (the analysis reads that column)
    assert main(["export", "--model", str(out / "model.pt"), "--data-dir", str(data), "--n-examples", "4",
                 "--out-dir", str(out / "act"), "--device", "cpu"]) == 0
    ro = pd.read_parquet(out / "act" / "readout.parquet")
    assert len(ro) == m.cfg.tgt_vocab and (ro.bias == 0).all()


def test_schema_offers_what_the_code_implements(root):
    from attnrepro.seq2seq.model import OPTIONS

    schema = yaml.safe_load((root / "workflow" / "schemas" / "config.schema.yaml").read_text())["$defs"]
    for key, (default, allowed) in OPTIONS.items():
        prop = schema["model"]["properties"][key]
        assert (prop["enum"] == list(allowed)) if "enum" in prop else prop["type"] == "boolean"
    assert schema["train"]["properties"]["loss"]["enum"] == list(TrainConfig.LOSSES)
