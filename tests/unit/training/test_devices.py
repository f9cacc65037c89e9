"""Every model trains without creating a tensor on a device it did not take from its inputs.

On a CPU-only machine a ``torch.zeros(n)`` inside a forward pass works by accident; on a GPU node it is a CPU
tensor meeting CUDA ones. :class:`NoImplicitDevice` catches it on any machine: while a training step runs, a
factory call (``torch.zeros``, ``arange``, ``full``, ``tensor``, ...) made from ``attnrepro`` code without a
``device=`` argument is recorded with its file and line. The tests run on the CPU always and on CUDA where there
is one, with the model and data on that device.
"""

from __future__ import annotations

import copy
import io
import sys

import pytest
import torch
import yaml
from torch.overrides import TorchFunctionMode

from attnrepro.data import tasks
from attnrepro.training.config import TrainConfig
from attnrepro.data.vocab import Vocab, encode
from attnrepro.seq2seq.model import ModelConfig
from attnrepro.snell2021 import config as snellcfg
from attnrepro.snell2021 import runs
from attnrepro.seq2seq.train import train
from tests.helpers import ROOT, Interrupt, assert_same_weights, stop_at

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
FACTORIES = {torch.zeros, torch.ones, torch.empty, torch.full, torch.arange, torch.rand, torch.randn, torch.randint,
             torch.randperm, torch.tensor, torch.as_tensor, torch.eye, torch.linspace, torch.logspace,
             torch.empty_strided, torch.scalar_tensor}


class NoImplicitDevice(TorchFunctionMode):
    """Records factory calls without ``device=`` made directly from ``attnrepro`` code."""

    def __init__(self):
        super().__init__()
        self.calls: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in FACTORIES and kwargs.get("device") is None:
            caller = sys._getframe(1)
            if caller.f_globals.get("__name__", "").startswith("attnrepro"):
                self.calls.append(f"{caller.f_code.co_filename}:{caller.f_lineno} {func.__name__}")
        return func(*args, **kwargs)


def test_the_check_catches_a_factory_call_without_device():
    mode = NoImplicitDevice()
    code = compile("torch.zeros(3); torch.zeros(3, device=x.device); x.new_zeros(2)", "attnrepro_fake.py", "exec")
    with mode:
        exec(code, {"__name__": "attnrepro.fake", "torch": torch, "x": torch.ones(1)})
    assert len(mode.calls) == 1 and "zeros" in mode.calls[0]


@pytest.fixture(scope="module")
def data():
    task = dict(kind="one_to_one", n_words=3, min_len=3, max_len=5, n_train=16, n_valid=4, n_test=4, seed=0)
    vocab = Vocab.from_words(*tasks.words(task))
    splits = tasks.generate(task)
    return vocab, encode(splits["train"], vocab), encode(splits["valid"], vocab)


AITKEN = ([("ved", c, "dot") for c in ("gru", "lstm", "ugrnn")]
          + [("aed", c, a) for c in ("gru", "lstm", "ugrnn") for a in ("dot", "qkv")]
          + [("ao", c, a) for c in ("gru", "lstm", "ugrnn", "ff") for a in ("dot", "qkv")]
          + [("transformer", "gru", "dot")])
STEP = dict(steps=2, batch_size=4, lr=0.01, lr_decay=1.0, betas=[0.9, 0.99], eps=1e-8, grad_clip=1.0, l2=1e-5,
            checkpoint_every=1, eval_every=1, n_eval=4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("arch, cell, attention", AITKEN)
def test_aitken_and_transformer_training_take_the_device_from_their_inputs(data, tmp_path, device, arch, cell,
                                                                           attention):
    vocab, tr, va = data
    cfg = ModelConfig(arch, cell, 8, len(vocab.src), len(vocab.tgt), input_dim=16 if arch == "ao" else 0,
                      attention=attention, layers=1, heads=2)
    mode = NoImplicitDevice()
    with mode:  # two steps: the second resumes nothing but runs Adam on existing state, and a checkpoint
        model, metrics = train(cfg, TrainConfig.from_dict(STEP), [0, 1], tr, va, tmp_path, sos=vocab.tgt.index("<sos>"),
                               device=device, log=io.StringIO())
    assert not mode.calls, "tensors created without a device:\n" + "\n".join(sorted(set(mode.calls)))
    assert all(p.device.type == device for p in model.parameters()) and len(metrics) == 4


SNELL = ["copy_same", "copy_same_uniform", "copy_subset_proxy", "keyword", "cls_rotten_tomatoes_learned",
         "cls_rotten_tomatoes_frozen_beta"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("run", SNELL)
def test_snell_training_takes_the_device_from_its_inputs(tmp_path, device, run):
    """Seq2seq (learned, uniform), proxy, keyword toy and classifier (learned, frozen β) runs of the smoke config,
    two steps through the engine with an evaluation (and the probes it records) after each."""
    spec = copy.deepcopy(snellcfg.runs(yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["snell2021"])[run])
    spec["train"].update(steps=2, eval_every=1, checkpoint_every=1)
    mode = NoImplicitDevice()
    with mode:
        result, _ = runs.train(spec, tmp_path, name=run, log=io.StringIO(), device=device)
    assert not mode.calls, "tensors created without a device:\n" + "\n".join(sorted(set(mode.calls)))
    assert all(p.device.type == device for p in result.model.parameters()) and result.metrics.step.max() == 2


@pytest.fixture(scope="module")
def parallel_dir(tmp_path_factory):
    """A prepared parallel set in the layout the download rules write (a synthetic task stands in for a corpus)."""
    import json

    from attnrepro.cli import main

    out = tmp_path_factory.mktemp("parallel")
    task = dict(kind="one_to_one", n_words=3, min_len=3, max_len=5, n_train=32, n_valid=4, n_test=8, seed=0)
    assert main(["data", "--task-json", json.dumps(task), "--out-dir", str(out)]) == 0
    return out


def paper_spec(run: str, **model) -> dict:
    """A run of config/paper.yaml's snell2021 block at toy size: two steps, an evaluation after each."""
    spec = copy.deepcopy(snellcfg.runs(yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())["snell2021"])[run])
    spec["train"].update(steps=2, eval_every=1, checkpoint_every=1, n_eval=4, batch_size=4, eval_at=[])
    spec["model"].update(model)
    return spec


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("run", ["mt_bible_learned", "mt_bible_proxy", "multihead_candidates", "multihead_random"])
def test_snell_translation_and_multihead_runs_take_the_device_from_their_inputs(tmp_path, parallel_dir, device, run):
    """The paper config's other Snell entry points: the authors' translation model (2 layers, dropout 0.5, BLEU at
    every evaluation, best checkpoint, training-pair probes), its proxy, Fig. 6's candidate rounds and a K-head run."""
    from attnrepro.snell2021 import multihead

    spec = paper_spec(run, **({"dim": 8} if run.endswith("proxy") else {"hidden": 8}))
    if "data_dir" in spec["data"]:
        spec["data"]["data_dir"] = str(parallel_dir)
        spec["train_sample"] = min(spec.get("train_sample", 0), 8) or spec.pop("train_sample", None)
    mode = NoImplicitDevice()
    with mode:
        if run == "multihead_candidates":
            # one round whose heads all count as bad (two steps teach nothing): the rule, not the training, is tested
            spec["multihead"].update(candidates_per_round=2, trials=1, max_rounds=1, n_good=0, n_bad=1,
                                     good_above=2.0, bad_below=1.01)
            metrics, _ = multihead.candidates(spec, tmp_path, name=run, log=io.StringIO(), device=device)
            model_devices = {device}
        else:
            if run == "multihead_random":
                spec = {**spec, "members": multihead.khead_members(0, [[1, 2, 3, 4, 5, 6, 7, 8]])}
            result, _ = runs.train(spec, tmp_path, name=run, log=io.StringIO(), device=device)
            metrics, model_devices = result.metrics, {p.device.type for p in result.model.parameters()}
    assert not mode.calls, "tensors created without a device:\n" + "\n".join(sorted(set(mode.calls)))
    assert model_devices == {device} and metrics.step.max() == 2


@pytest.mark.parametrize("device", DEVICES)
def test_snell_command_line_trains_and_exports_on_the_device_it_is_given(tmp_path, device, monkeypatch):
    """The rules' path: `attnrepro snell2021 train RUN --device D`, then `export --device D`."""
    import json

    from attnrepro.cli import main

    spec = copy.deepcopy(snellcfg.runs(yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["snell2021"])
                         ["copy_same"])
    spec["train"].update(steps=2, eval_every=1, checkpoint_every=1)
    out, seen, real_fit = tmp_path / "run", [], runs.fit

    def spy(model, *args, **kwargs):
        seen.append(str(kwargs["device"]))
        return real_fit(model, *args, **kwargs)

    monkeypatch.setattr(runs, "fit", spy)
    assert main(["snell2021", "train", "copy_same", "--spec-json", json.dumps(spec), "--ckpt-dir",
                 str(tmp_path / "ckpt"), "--out-dir", str(out), "--device", device, "--threads", "1"]) == 0
    assert seen == [device]
    assert main(["snell2021", "export", "--model", str(out / "model.pt"), "--out-dir", str(tmp_path / "act"),
                 "--device", device, "--threads", "1"]) == 0
    assert (tmp_path / "act" / "saliency.parquet").is_file() and (tmp_path / "act" / "decodes.parquet").is_file()


RESUME = dict(STEP, steps=6, checkpoint_every=2, eval_every=2)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("arch, cell", [("aed", "gru"), ("aed", "lstm"), ("ao", "ugrnn"), ("ved", "lstm")])
def test_an_interrupted_run_resumes_to_the_uninterrupted_weights_on_the_device(data, tmp_path, device, arch, cell):
    """Stopped after step 5 (last checkpoint: 4) and resumed on the same device: the weights and metrics of a run
    that never stopped, bit for bit (the batches are drawn on the CPU from checkpointed generators; nothing the
    step computes on the device draws randomness)."""
    vocab, tr, va = data
    cfg = ModelConfig(arch, cell, 8, len(vocab.src), len(vocab.tgt), input_dim=16 if arch == "ao" else 0)
    go = lambda ckpt, **kw: train(cfg, TrainConfig.from_dict(RESUME), [0, 1], tr, va, ckpt,  # noqa: E731
                                  sos=vocab.tgt.index("<sos>"), device=device, log=io.StringIO(), **kw)
    full, full_metrics = go(tmp_path / "a")
    with pytest.raises(Interrupt):
        go(tmp_path / "b", on_step=stop_at(5))
    resumed, resumed_metrics = go(tmp_path / "b")
    assert_same_weights(full, resumed)
    assert full_metrics.equals(resumed_metrics)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("run", ["copy_same", "copy_same_uniform"])
def test_an_interrupted_snell_run_resumes_to_the_uninterrupted_weights_on_the_device(tmp_path, device, run):
    spec = copy.deepcopy(snellcfg.runs(yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["snell2021"])[run])
    spec["train"].update(steps=6, eval_every=2, checkpoint_every=2)
    go = lambda ckpt, **kw: runs.train(spec, ckpt, name=run, log=io.StringIO(), device=device, **kw)  # noqa: E731
    full, _ = go(tmp_path / "a")
    with pytest.raises(Interrupt):
        go(tmp_path / "b", on_step=stop_at(5))
    resumed, _ = go(tmp_path / "b")
    assert_same_weights(full.model, resumed.model)
    assert full.metrics.equals(resumed.metrics)


@pytest.mark.parametrize("device", [d for d in DEVICES if d != "cpu"])
@pytest.mark.parametrize("arch", ["aed", "ao"])
def test_an_export_on_the_device_equals_the_cpu_export_of_the_same_weights(data, device, arch):
    """The activation tables the analyses read, made on the GPU, against the CPU's from the same weights: equal
    to float32 rounding (different kernels sum in another order)."""
    import numpy as np

    from attnrepro.seq2seq.export import export_activations
    from attnrepro.seq2seq.model import EncoderDecoder

    vocab, _, va = data
    cfg = ModelConfig(arch, "gru", 8, len(vocab.src), len(vocab.tgt), input_dim=16 if arch == "ao" else 0,
                      attention="qkv")
    model = EncoderDecoder(cfg, [3, 7])
    on_cpu = export_activations(model, va, vocab)
    on_device = export_activations(copy.deepcopy(model).to(device), va, vocab, device=device)
    for name, table in on_cpu.items():
        other = on_device[name]
        assert table.column_names == other.column_names, name
        for column in table.column_names:
            a, b = table[column].to_pylist(), other[column].to_pylist()
            if isinstance(a[0], (list, float)):
                np.testing.assert_allclose(np.concatenate([np.ravel(x) for x in a]),
                                           np.concatenate([np.ravel(x) for x in b]), rtol=1e-4, atol=1e-5,
                                           err_msg=f"{name}.{column}")
            else:
                assert a == b, f"{name}.{column}"
