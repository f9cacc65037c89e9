"""Faults and bad input, round three (issue 32), part one: the quarantine moves aside only what the workflow
wrote under the results root; every artefact a later step trusts says what it is and is checked; two runs of the
same results give the same bytes. Part two (bounds, one-line errors) is tests/test_fault_table_3_bounds.py.

Each case asserts the one-line error naming the key or file (or the recovery), and that nothing outside the
results root changed: the tests run with ``ATTNREPRO_RESULTS_ROOT`` at ``tmp_path/results`` and a sentinel folder
``tmp_path/outside`` whose files are compared before and after (:func:`untouched`)."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import math
import time

import pandas as pd
import pytest
import yaml

import attnrepro.seq2seq.train  # noqa: F401  (imported before any capsys: train() binds sys.stderr as its default log)
from attnrepro.cli import main
from attnrepro.errors import AttnReproError

from conftest import ROOT
from test_bad_input import TASK
from test_fault_table import edge

RESULTS_ROOT_ENV = "ATTNREPRO_RESULTS_ROOT"  # attnrepro.io.RESULTS_ROOT_ENV

SPEC = {"task": "t", "model": {"arch": "aed", "cell": "gru", "hidden": 8},
        "train": {"steps": 4, "batch_size": 4, "lr": 0.01, "lr_decay": 1.0, "betas": [0.9, 0.99], "eps": 1e-8,
                  "grad_clip": 1.0, "l2": 0.0, "checkpoint_every": 2, "eval_every": 2, "n_eval": 8}}


# -- the frame: a results root, and a folder outside it that no case may change ---------------------------------
def _tree(folder):
    return {p.relative_to(folder): (p.is_dir(), p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


@pytest.fixture
def world(tmp_path, monkeypatch):
    """(results root, outside folder); the outside folder holds a file, a table and a folder from the start."""
    results, outside = tmp_path / "results", tmp_path / "outside"
    results.mkdir()
    (outside / "folder").mkdir(parents=True)
    (outside / "notes.txt").write_text("mine\n")
    monkeypatch.setenv(RESULTS_ROOT_ENV, str(results))
    return results, outside


@contextlib.contextmanager
def untouched(outside):
    before = _tree(outside)
    yield
    assert _tree(outside) == before, "a file outside the results root changed"


def one_line(err: str, *needles: str) -> str:
    lines = [line for line in err.strip().splitlines() if "error" in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def _data(results, task="t"):
    d = results / "data" / task
    assert main(["data", "--task-json", json.dumps(TASK), "--out-dir", str(d)]) == 0
    return d


def _train(results, data_dir, spec=SPEC, name="aed_x", extra=()):
    out = results / "models" / name / "s0"
    rc = main(["train", "--spec-json", json.dumps(spec), "--seeds", "0", "--data-dir", str(data_dir),
               "--ckpt-dir", str(results / "checkpoints" / name / "s0"), "--model-out", str(out / "model.pt"),
               "--metrics-out", str(out / "metrics.csv"), "--name", name, "--device", "cpu", *extra])
    return rc, out


def _export(results, model, data_dir, experiment="aed_x", n="4"):
    return main(["export", "--model", str(model), "--experiment", experiment, "--data-dir", str(data_dir),
                 "--n-examples", n, "--out-dir", str(results / "activations" / experiment), "--device", "cpu"])


# -- 1. the quarantine moves only what the workflow wrote, under the results root -------------------------------
def test_a_folder_named_as_a_model_is_named_and_left(world, capsys):
    results, outside = world
    data = _data(results)
    assert _train(results, data)[0] == 0
    models = results / "models"
    before = _tree(models)
    with untouched(outside):
        rc = main(["evaluate", "--models", str(models), "--data-dir", str(data), "--out", str(results / "e.csv"),
                   "--device", "cpu"])
    assert rc == 2
    one_line(capsys.readouterr().err, f"{models}: is a folder", "left as it is")
    assert _tree(models) == before and not (results / "models.corrupt").exists()


def test_a_committed_reference_table_is_named_and_left(world, capsys):
    results, outside = world
    ref = outside / "claims_slice.csv"  # as workflow/reference/ in the checkout: the config's claims.references
    ref.write_text("paper,claim_id\nx,1\n")
    sources = results / "summary.csv"
    pd.DataFrame({"seed": [0, 1], "sequence_accuracy": [0.9, 0.8]}).to_csv(sources, index=False)
    src = [{"experiment": "aed_gru_one_to_one", "task_kind": "one_to_one", "arch": "aed", "cell": "gru",
            "path": str(sources)}]
    with untouched(outside):
        rc = main(["claims", "--sources-json", json.dumps(src), "--out", str(results / "claims.csv"),
                   "--markdown", str(results / "claims.md"), "--reference", f"slice={ref}"])
    assert rc == 2
    one_line(capsys.readouterr().err, f"{ref}: missing columns", "left where it is")
    assert ref.exists() and not (outside / "claims_slice.csv.corrupt").exists()


def test_an_unreadable_file_outside_the_results_root_is_not_renamed(world, capsys):
    import shutil

    results, outside = world
    data = _data(results)
    (outside / "model.pt").write_bytes(b"\0" * 64)
    shutil.copytree(data, outside / "data")
    (outside / "data" / "vocab.json").write_text("{not json")
    with untouched(outside):
        assert _export(results, outside / "model.pt", data) == 2
        one_line(capsys.readouterr().err, "model.pt: not a readable model file", "left where it is")
        assert _train(results, outside / "data")[0] == 2
        one_line(capsys.readouterr().err, "vocab.json: not valid JSON", "left where it is")
    assert not (results / "activations").exists()


# -- 2. provenance: each artefact says what it is, and the reader checks it ---------------------------------------
def test_another_experiments_model_is_refused_and_moved_aside(world, capsys):
    results, outside = world
    data = _data(results)
    _, theirs = _train(results, data, name="ved_x", spec={**SPEC, "model": {"arch": "ved", "cell": "gru",
                                                                            "hidden": 8}})
    ours = results / "models" / "aed_x" / "s0"
    ours.mkdir(parents=True)
    (ours / "model.pt").write_bytes((theirs / "model.pt").read_bytes())  # copied into place
    with untouched(outside):
        assert _export(results, ours / "model.pt", data) == 2
    one_line(capsys.readouterr().err, "model.pt: the model of experiment 'ved_x', not of 'aed_x'", "moved aside")
    assert (ours / "model.pt.corrupt").exists() and not (ours / "model.pt").exists()
    assert _train(results, data)[0] == 0 and _export(results, ours / "model.pt", data) == 0  # the rerun


def test_a_checkpoint_copied_in_as_the_model_is_moved_aside(world, capsys):
    results, outside = world
    data = _data(results)
    spec = copy.deepcopy(SPEC)
    spec["train"]["steps"] = 6  # checkpoints at steps 2 and 4 (none at the last step); the newest stays
    rc, out = _train(results, data, spec=spec)
    ckpt, = (results / "checkpoints" / "aed_x" / "s0").glob("ckpt_*.pt")
    (out / "model.pt").write_bytes(ckpt.read_bytes())
    with untouched(outside):
        assert _export(results, out / "model.pt", data) == 2
    one_line(capsys.readouterr().err, "model.pt: not a model written by attnrepro", "moved aside")
    assert not (out / "model.pt").exists()  # so Snakemake reruns training instead of "Nothing to be done"


def test_a_split_of_another_task_is_refused_and_moved_aside(world, capsys):
    results, outside = world
    data, other = _data(results), _data(results, "other")  # the same columns and vocabulary
    (data / "train.parquet").write_bytes((other / "train.parquet").read_bytes())
    with untouched(outside):
        rc, out = _train(results, data)
    assert rc == 2 and not (out / "model.pt").exists()
    one_line(capsys.readouterr().err, "train.parquet: the split of task 'other', not of 't'", "moved aside")
    assert (data / "train.parquet.corrupt").exists()
    _data(results)  # the data rule's rerun
    assert _train(results, data)[0] == 0


def test_duplicate_seeds_in_a_claims_input_are_an_error(world, capsys):
    results, outside = world
    table = results / "analysis" / "aed" / "summary.csv"
    table.parent.mkdir(parents=True)
    rows = pd.DataFrame({"seed": [0, 1], "seq_acc": [0.91, 0.95]})
    pd.concat([rows] * 3).to_csv(table, index=False)  # appended three times: n 2 -> 6
    src = [{"experiment": "aed", "task_kind": "one_to_one", "arch": "aed", "cell": "gru", "path": str(table)}]
    with untouched(outside):
        rc = main(["claims", "--sources-json", json.dumps(src), "--out", str(results / "claims.csv")])
    assert rc == 2 and not (results / "claims.csv").exists()
    one_line(capsys.readouterr().err, f"{table}: seed(s) [0, 1] appear in more than one row")


def test_nan_accuracy_in_a_snell_metrics_table_is_not_a_success(world, capsys):
    results, outside = world
    run = results / "models" / "snell2021" / "copy"
    run.mkdir(parents=True)
    rows = [{"step": s, "member": 0, "seed": 0, "train_loss": 1.0, "valid_loss": 1.0,
             "token_acc": math.nan if s == 20 else 0.3, "seq_acc": 0.0, "diverged": False} for s in (10, 20)]
    pd.DataFrame(rows).to_csv(run / "metrics.csv", index=False)
    spec = {"kind": "copy", "runs": {"run": "copy"}, "fail_below": 0.6, "good_above": 0.95}
    with untouched(outside):
        rc = main(["snell2021", "analyze", "copy", "--spec-json", json.dumps(spec), "--models-dir", str(run.parent),
                   "--out-dir", str(results / "analysis" / "snell2021" / "copy")])
    assert rc == 2 and not (results / "analysis" / "snell2021" / "copy" / "summary.csv").exists()
    one_line(capsys.readouterr().err, "metrics.csv: token_acc is not a finite number in 1 row(s)", "step 20")
    assert (run / "metrics.csv.corrupt").exists()


def test_fig3_on_one_to_one_experiments_is_a_config_error(smoke):
    cfg = copy.deepcopy(smoke)
    cfg["figures"]["aitken2021"]["fig3"] = {"aed": "aed_gru_one_to_one", "ao": "ao_qkv_one_to_one"}
    with pytest.raises(AttnReproError, match=r"figures\.aitken2021\.fig3\.aed: 'aed_gru_one_to_one' trains on a "
                                             r"'one_to_one' task, but this panel is drawn \(and titled\) for 'escan'"):
        edge(cfg)


@pytest.fixture(scope="module")
def smoke():
    return yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())


# -- 5. the same results, the same bytes ----------------------------------------------------------------------
def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_model_files_are_byte_identical_across_folders(tmp_path):
    from attnrepro.seq2seq.model import ModelConfig
    from attnrepro.seq2seq.train import build_model, save_model

    model = build_model(ModelConfig("aed", "gru", 8, 6, 7), [0, 1])
    vocab = {"src": list("abcdef"), "tgt": list("abcdefg")}
    for run in ("one", "two"):
        save_model(model, vocab, tmp_path / run / "results" / "model.pt")
    assert _digest(tmp_path / "one" / "results" / "model.pt") == _digest(tmp_path / "two" / "results" / "model.pt")


def test_figures_are_byte_identical_across_folders_and_seconds(tmp_path):
    import matplotlib.pyplot as plt

    from attnrepro.figures import save

    for run in ("one", "two"):
        fig, ax = plt.subplots()
        ax.plot([0, 1], [1, 0])
        save(fig, tmp_path / run / "f.png", tmp_path / run / "f.pdf", dpi=40)
        time.sleep(1.1)  # a creation date would differ
    for name in ("f.png", "f.pdf"):
        assert _digest(tmp_path / "one" / name) == _digest(tmp_path / "two" / name), name
