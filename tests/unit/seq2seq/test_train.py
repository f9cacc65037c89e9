import io
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import torch

from attnrepro.data import tasks
from attnrepro.training.config import TrainConfig
from attnrepro.data.vocab import Vocab, encode
from attnrepro.seq2seq.model import ModelConfig
from attnrepro.seq2seq.train import load_model, save_model, train

from tests.helpers import Interrupt, assert_same_weights, kill_after_a_checkpoint, stop_at, tool_env

TRAIN = dict(steps=12, batch_size=8, lr=0.02, lr_decay=0.99, betas=[0.9, 0.99], eps=1e-8, grad_clip=1.0,
             l2=1e-5, checkpoint_every=4, eval_every=4, n_eval=16)


@pytest.fixture
def data(tiny_task):
    splits = tasks.generate(tiny_task)
    vocab = Vocab.from_words(*tasks.words(tiny_task))
    return vocab, encode(splits["train"], vocab), encode(splits["valid"], vocab)


def run(data, ckpt, seeds=(0, 1), arch="aed", on_step=None, **overrides):
    vocab, tr, va = data
    mc = ModelConfig(arch, "gru", 8, len(vocab.src), len(vocab.tgt), input_dim=16 if arch == "ao" else 0)
    tc = TrainConfig.from_dict({**TRAIN, **overrides})
    return train(mc, tc, list(seeds), tr, va, ckpt, sos=vocab.tgt.index("<sos>"), log=io.StringIO(),
                 on_step=on_step)


@pytest.mark.parametrize("arch", ["ved", "aed", "ao"])
def test_interrupted_run_resumes_bitwise(data, tmp_path, arch):
    full, full_metrics = run(data, tmp_path / "a", arch=arch)
    with pytest.raises(Interrupt):
        run(data, tmp_path / "b", arch=arch, on_step=stop_at(10))  # last checkpoint: step 8
    assert [p.name for p in (tmp_path / "b").glob("ckpt_*.pt")] == ["ckpt_00000008.pt"]
    resumed, resumed_metrics = run(data, tmp_path / "b", arch=arch)
    assert_same_weights(full, resumed)
    pd.testing.assert_frame_equal(full_metrics, resumed_metrics)


def test_metrics_have_every_seed_and_evaluation(data, tmp_path):
    _, metrics = run(data, tmp_path)
    assert list(metrics.columns) == ["step", "seed", "train_loss", "valid_loss", "token_acc", "seq_acc"]
    assert sorted(metrics.step.unique()) == [4, 8, 12]
    assert (metrics.groupby("step").seed.apply(sorted) == pd.Series([[0, 1]] * 3, index=[4, 8, 12])).all()
    assert metrics.token_acc.between(0, 1).all() and metrics.seq_acc.between(0, 1).all()


def test_stacked_training_equals_separate_runs(data, tmp_path):
    stacked, stacked_metrics = run(data, tmp_path / "s", seeds=(0, 1))
    for k, seed in enumerate((0, 1)):
        single, single_metrics = run(data, tmp_path / f"{seed}", seeds=(seed,))
        for name, p in single.state_dict().items():
            torch.testing.assert_close(stacked.state_dict()[name][k : k + 1], p, rtol=1e-4, atol=1e-5)
        sm = stacked_metrics[stacked_metrics.seed == seed].reset_index(drop=True)
        pd.testing.assert_frame_equal(sm, single_metrics, rtol=1e-4, atol=1e-5)


def test_unreadable_checkpoint_is_reported_and_skipped(data, tmp_path):
    with pytest.raises(Interrupt):
        run(data, tmp_path, on_step=stop_at(9))
    ckpt = tmp_path / "ckpt_00000008.pt"
    ckpt.write_bytes(ckpt.read_bytes()[:100])  # truncated
    vocab, tr, va = data
    log = io.StringIO()
    mc = ModelConfig("aed", "gru", 8, len(vocab.src), len(vocab.tgt))
    model, _ = train(mc, TrainConfig.from_dict(TRAIN), [0, 1], tr, va, tmp_path, sos=1, log=log)
    assert "ckpt_00000008.pt is unreadable" in log.getvalue()
    assert (tmp_path / "ckpt_00000008.pt.corrupt").exists()  # moved aside, not deleted
    full, _ = run(data, tmp_path / "fresh")
    assert_same_weights(full, model)


def test_checkpoint_of_another_configuration_is_not_resumed(data, tmp_path):
    with pytest.raises(Interrupt):
        run(data, tmp_path, on_step=stop_at(9))
    changed, _ = run(data, tmp_path, lr=0.05)
    fresh, _ = run(data, tmp_path / "fresh", lr=0.05)
    assert_same_weights(changed, fresh)
    assert (tmp_path / "ckpt_00000008.pt.stale").exists()


def test_changing_the_validation_set_is_another_configuration(data, tmp_path):
    with pytest.raises(Interrupt):
        run(data, tmp_path, on_step=stop_at(9))
    _, metrics = run(data, tmp_path, n_eval=8)
    fresh_model, fresh_metrics = run(data, tmp_path / "fresh", n_eval=8)
    pd.testing.assert_frame_equal(metrics, fresh_metrics)  # no rows scored on the old validation subset


def test_checkpoint_interval_does_not_invalidate_checkpoints(data, tmp_path):
    with pytest.raises(Interrupt):
        run(data, tmp_path, on_step=stop_at(9))
    log = io.StringIO()
    vocab, tr, va = data
    mc = ModelConfig("aed", "gru", 8, len(vocab.src), len(vocab.tgt))
    resumed, _ = train(mc, TrainConfig.from_dict({**TRAIN, "checkpoint_every": 3}), [0, 1], tr, va, tmp_path,
                       sos=1, log=log)
    assert "resuming from step 8" in log.getvalue()
    full, _ = run(data, tmp_path / "full")
    assert_same_weights(full, resumed)


def test_model_file_roundtrip(data, tmp_path):
    model, _ = run(data, tmp_path / "c")
    save_model(model, data[0].to_dict(), tmp_path / "m.pt")
    loaded, vocab = load_model(tmp_path / "m.pt")
    assert_same_weights(model, loaded)
    assert vocab == data[0].to_dict()


def test_corrupt_model_file_names_the_file(tmp_path):
    from attnrepro.errors import AttnReproError

    bad = tmp_path / "model.pt"
    bad.write_bytes(b"not a model")
    with pytest.raises(AttnReproError, match=str(bad)):
        load_model(bad)


def _write_data(tmp_path, task):
    from attnrepro.cli import main

    assert main(["data", "--task-json", json.dumps(task), "--out-dir", str(tmp_path / "data")]) == 0
    return tmp_path / "data"


def _train_cmd(tmp_path, data_dir, name, steps):
    spec = {"task": "data", "model": {"arch": "aed", "cell": "gru", "hidden": 16},
            "train": {**TRAIN, "steps": steps, "checkpoint_every": 10, "eval_every": 50, "batch_size": 32}}
    return [sys.executable, "-m", "attnrepro.cli", "train", "--spec-json", json.dumps(spec), "--seeds", "0", "1",
            "--data-dir", str(data_dir), "--ckpt-dir", str(tmp_path / name / "ckpt"),
            "--model-out", str(tmp_path / name / "model.pt"), "--metrics-out", str(tmp_path / name / "m.csv"),
            "--device", "cpu", "--threads", "1"]


def test_sigkilled_training_job_resumes_to_identical_weights(tmp_path, tiny_task):
    """The real failure: the training process is SIGKILLed mid-run, then the same command is rerun."""
    data_dir = _write_data(tmp_path, tiny_task)
    steps = 200
    subprocess.run(_train_cmd(tmp_path, data_dir, "full", steps), check=True, env=tool_env(), capture_output=True)

    step_killed = kill_after_a_checkpoint(_train_cmd(tmp_path, data_dir, "killed", steps), tmp_path / "killed" / "ckpt")
    assert not (tmp_path / "killed" / "model.pt").exists()
    assert 0 < step_killed < steps

    rerun = subprocess.run(_train_cmd(tmp_path, data_dir, "killed", steps), env=tool_env(), capture_output=True,
                           text=True, check=True)
    assert f"resuming from step {step_killed}" in rerun.stderr
    a, _ = load_model(tmp_path / "full" / "model.pt")
    b, _ = load_model(tmp_path / "killed" / "model.pt")
    assert_same_weights(a, b)
    assert Path(tmp_path / "full" / "m.csv").read_text() == Path(tmp_path / "killed" / "m.csv").read_text()


def test_same_config_and_seed_give_identical_metrics_and_activations(data, tmp_path):
    from attnrepro.seq2seq.export import export_activations

    vocab, _, va = data
    runs = [run(data, tmp_path / name, seeds=(3,)) for name in ("first", "second")]
    pd.testing.assert_frame_equal(runs[0][1], runs[1][1])
    tables = [export_activations(model, va, vocab) for model, _ in runs]
    for name in ("encoder", "decoder", "readout"):
        assert tables[0][name].equals(tables[1][name]), name
