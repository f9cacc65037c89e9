"""Faults and bad input: the quarantine moves aside only what the workflow
wrote under the results root; every artefact a later step trusts says what it is and is checked; two runs of the
same results give the same bytes. Bounds and one-line errors: test_bad_inputs_end_in_one_line.py.

Each case asserts the one-line error naming the key or file (or the recovery), and that nothing outside the
results root changed: the tests run with ``ATTNREPRO_RESULTS_ROOT`` at ``tmp_path/results`` and a sentinel folder
``tmp_path/outside`` whose files are compared before and after (:func:`untouched`)."""

from __future__ import annotations

import copy
import hashlib
import json
import math
import time

import pandas as pd
import pytest
import torch

import attnrepro.seq2seq.train  # noqa: F401  (imported before any capsys: train() binds sys.stderr as its default log)
from attnrepro.cli import main
from attnrepro.errors import AttnReproError

from tests.helpers import RESULTS_SPEC, TASK, edge, one_line, results_data, results_train, tree_of, untouched


def _export(results, model, data_dir, experiment="aed_x", n="4"):
    return main(["export", "--model", str(model), "--experiment", experiment, "--data-dir", str(data_dir),
                 "--n-examples", n, "--out-dir", str(results / "activations" / experiment), "--device", "cpu"])


# -- 1. the quarantine moves only what the workflow wrote, under the results root -------------------------------
def test_a_folder_named_as_a_model_is_named_and_left(world, capsys):
    results, outside = world
    data = results_data(results)
    assert results_train(results, data)[0] == 0
    models = results / "models"
    before = tree_of(models)
    with untouched(outside):
        rc = main(["evaluate", "--models", str(models), "--data-dir", str(data), "--out", str(results / "e.csv"),
                   "--device", "cpu"])
    assert rc == 2
    one_line(capsys.readouterr().err, f"{models}: is a folder", "left as it is")
    assert tree_of(models) == before and not (results / "models.corrupt").exists()


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
    data = results_data(results)
    (outside / "model.pt").write_bytes(b"\0" * 64)
    shutil.copytree(data, outside / "data")
    (outside / "data" / "vocab.json").write_text("{not json")
    with untouched(outside):
        assert _export(results, outside / "model.pt", data) == 2
        one_line(capsys.readouterr().err, "model.pt: not a readable model file", "left where it is")
        assert results_train(results, outside / "data")[0] == 2
        one_line(capsys.readouterr().err, "vocab.json: not valid JSON", "left where it is")
    assert not (results / "activations").exists()


# -- 2. provenance: each artefact says what it is, and the reader checks it ---------------------------------------
def test_another_experiments_model_is_refused_and_moved_aside(world, capsys):
    results, outside = world
    data = results_data(results)
    _, theirs = results_train(results, data, name="ved_x", spec={**RESULTS_SPEC, "model": {"arch": "ved", "cell": "gru",
                                                                            "hidden": 8}})
    ours = results / "models" / "aed_x" / "s0"
    ours.mkdir(parents=True)
    (ours / "model.pt").write_bytes((theirs / "model.pt").read_bytes())  # copied into place
    with untouched(outside):
        assert _export(results, ours / "model.pt", data) == 2
    one_line(capsys.readouterr().err, "model.pt: the model of experiment 'ved_x', not of 'aed_x'", "moved aside")
    assert (ours / "model.pt.corrupt").exists() and not (ours / "model.pt").exists()
    assert results_train(results, data)[0] == 0 and _export(results, ours / "model.pt", data) == 0  # the rerun


def test_a_checkpoint_copied_in_as_the_model_is_moved_aside(world, capsys):
    results, outside = world
    data = results_data(results)
    spec = copy.deepcopy(RESULTS_SPEC)
    spec["train"]["steps"] = 6  # checkpoints at steps 2 and 4 (none at the last step); the newest stays
    rc, out = results_train(results, data, spec=spec)
    ckpt, = (results / "checkpoints" / "aed_x" / "s0").glob("ckpt_*.pt")
    (out / "model.pt").write_bytes(ckpt.read_bytes())
    with untouched(outside):
        assert _export(results, out / "model.pt", data) == 2
    one_line(capsys.readouterr().err, "model.pt: not a model written by attnrepro", "moved aside")
    assert not (out / "model.pt").exists()  # so Snakemake reruns training instead of "Nothing to be done"


def test_a_split_of_another_task_is_refused_and_moved_aside(world, capsys):
    results, outside = world
    data, other = results_data(results), results_data(results, "other")  # the same columns and vocabulary
    (data / "train.parquet").write_bytes((other / "train.parquet").read_bytes())
    with untouched(outside):
        rc, out = results_train(results, data)
    assert rc == 2 and not (out / "model.pt").exists()
    one_line(capsys.readouterr().err, "train.parquet: the split of task 'other', not of 't'", "moved aside")
    assert (data / "train.parquet.corrupt").exists()
    results_data(results)  # the data rule's rerun
    assert results_train(results, data)[0] == 0


# -- 2b. a command that asks for the wrong file is the error; the good file it names stays ---------------------
def test_a_mistyped_experiment_leaves_the_good_model(world, capsys):
    results, outside = world
    data = results_data(results)
    _, out = results_train(results, data)
    before = tree_of(results / "models")
    with untouched(outside):
        assert _export(results, out / "model.pt", data, experiment="aed_xx") == 2
    one_line(capsys.readouterr().err, "--experiment: experiment 'aed_xx' was asked for",
             "is the model of experiment 'aed_x'", "left as it is")
    assert tree_of(results / "models") == before  # not moved aside: the command, not the file, is wrong
    assert _export(results, out / "model.pt", data) == 0


def test_another_task_in_the_spec_leaves_the_good_split(world, capsys):
    results, outside = world
    data = results_data(results)
    before = tree_of(data)
    with untouched(outside):
        rc, out = results_train(results, data, spec={**RESULTS_SPEC, "task": "other"})
    assert rc == 2 and not (out / "model.pt").exists()
    one_line(capsys.readouterr().err, "--spec-json: task 'other' was asked for",
             "train.parquet is the split of task 't'", "left as it is")
    assert tree_of(data) == before
    assert results_train(results, data)[0] == 0


def test_a_models_data_dir_of_another_task_leaves_the_good_split(world, capsys):
    results, outside = world
    data, other = results_data(results), results_data(results, "other")
    _, out = results_train(results, data)
    before = tree_of(other)
    with untouched(outside):
        assert _export(results, out / "model.pt", other) == 2
    one_line(capsys.readouterr().err, "--data-dir: task 't' was asked for", "is the split of task 'other'")
    assert tree_of(other) == before


def _snell_run(results):
    run = results / "models" / "snell2021" / "copy"
    run.mkdir(parents=True)
    torch.save({"spec": {"model": {"type": "seq2seq"}}, "state_dict": {}}, run / "model.pt")
    return run / "model.pt"


@pytest.mark.parametrize("named", ["metrics.csv", "checkpoint", "train.parquet", "snell run"])
def test_a_good_file_named_as_a_model_is_left(world, capsys, named):
    results, outside = world
    data = results_data(results)
    _, out = results_train(results, data, spec={**RESULTS_SPEC, "train": {**RESULTS_SPEC["train"], "steps": 6}})
    wrong = {"metrics.csv": lambda: out / "metrics.csv", "train.parquet": lambda: data / "train.parquet",
             "checkpoint": lambda: next((results / "checkpoints" / "aed_x" / "s0").glob("ckpt_*.pt")),
             "snell run": lambda: _snell_run(results)}[named]()
    before = tree_of(results)
    with untouched(outside):
        rc = main(["evaluate", "--models", str(wrong), "--data-dir", str(data), "--out", str(results / "e.csv"),
                   "--device", "cpu"])
    assert rc == 2
    one_line(capsys.readouterr().err, f"--models {wrong}: not a", "not at a model's place", "left where it is")
    assert tree_of(results) == before  # nothing renamed, nothing written


def test_a_seq2seq_model_named_as_a_snell_run_is_left(world, capsys):
    results, outside = world
    data = results_data(results)
    _, out = results_train(results, data)
    before = tree_of(results)
    with untouched(outside):
        rc = main(["snell2021", "export", "--model", str(out / "model.pt"), "--out-dir",
                   str(results / "analysis" / "snell2021" / "x"), "--device", "cpu"])
    assert rc == 2
    one_line(capsys.readouterr().err, f"--model {out / 'model.pt'}: not the model of a Snell et al. run",
             "left where it is")
    assert tree_of(results) == before


def test_a_split_of_another_vocabulary_is_moved_aside_not_the_good_vocabulary(world, capsys):
    results, outside = world
    data, other = results_data(results), results / "data" / "other"
    assert main(["data", "--task-json", json.dumps({**TASK, "n_words": 6}), "--out-dir", str(other)]) == 0
    (data / "train.parquet").write_bytes((other / "train.parquet").read_bytes())  # words t's vocabulary lacks
    vocab = (data / "vocab.json").read_bytes()
    with untouched(outside):
        assert results_train(results, data)[0] == 2
    one_line(capsys.readouterr().err, "train.parquet: the split of task 'other', not of 't'", "moved aside")
    assert (data / "train.parquet.corrupt").exists() and (data / "vocab.json").read_bytes() == vocab


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
