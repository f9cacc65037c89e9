"""Faults and bad input, round three (issue 32): the quarantine moves aside only what the workflow wrote under the
results root; every artefact a later step trusts says what it is and is checked; sizes and reads are bounded; no
bad input ends in a raw traceback; two runs of the same results give the same bytes.

Each case asserts the one-line error naming the key or file (or the recovery), and that nothing outside the
results root changed: the tests run with ``ATTNREPRO_RESULTS_ROOT`` at ``tmp_path/results`` and a sentinel folder
``tmp_path/outside`` whose files are compared before and after (:func:`untouched`)."""

from __future__ import annotations

import contextlib
import copy
import errno
import hashlib
import http.server
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time

import pandas as pd
import pytest
import torch
import yaml

import attnrepro.train  # noqa: F401  (imported before any capsys: train() binds sys.stderr as its default log)
from attnrepro import budget, validation
from attnrepro.cli import main
from attnrepro.errors import AttnReproError

from conftest import ROOT, snakemake, tool_env
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
    ref = outside / "claims_slice.csv"  # as bench/results/ in the checkout: the config's claims.references
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


# -- 3. bounds ------------------------------------------------------------------------------------------------
def test_steps_are_bounded_at_the_schema(smoke):
    cfg = copy.deepcopy(smoke)
    cfg["train"]["steps"] = 10**12
    with pytest.raises(AttnReproError, match=r"config key 'train.steps': 1000000000000 is out of range; it must be "
                                             r"at most 100000000"):
        edge(cfg)


def test_the_memory_estimate_counts_weights_gradients_and_adam(smoke, monkeypatch):
    cfg = copy.deepcopy(smoke)
    cfg["seeds_per_job"] = 2
    cfg["experiments"]["aed_gru_one_to_one"]["model"]["hidden"] = 4000  # ~3.1 GB measured; activations ~0.9 GB
    monkeypatch.setenv(budget.LIMIT_ENV, "2.5")
    with pytest.raises(AttnReproError, match=r"experiments\.aed_gru_one_to_one: needs about [3-9]\.\d GB"):
        edge(cfg)
    monkeypatch.setenv(budget.LIMIT_ENV, "20")
    edge(copy.deepcopy(cfg))


class Trickle:
    """An HTTP server that announces 10,000 bytes and sends one every ``gap`` seconds."""

    def __init__(self, gap):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Length", "10000")
                self.end_headers()
                try:
                    for _ in range(10000):
                        self.wfile.write(b"x")
                        self.wfile.flush()
                        time.sleep(gap)
                except OSError:
                    pass

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/x.tar.gz"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_a_trickling_download_times_out_over_the_transfer(world):
    from attnrepro.download import fetch

    results, outside = world
    server = Trickle(gap=0.2)  # every read returns well within the timeout
    dest = results / "downloads" / "x.tar.gz"
    started = time.monotonic()
    try:
        with untouched(outside), pytest.raises(AttnReproError, match=r"x\.tar\.gz: stalled, \d+ bytes in the last"):
            fetch(server.url, dest, None, allow_unpinned=True, timeout=1.0)
    finally:
        server.close()
    assert time.monotonic() - started < 10
    assert not list(dest.parent.iterdir())  # neither the file nor its temporary


def test_sigterm_during_a_download_leaves_no_temporary_file(world):
    results, outside = world
    server = Trickle(gap=0.05)
    dest = results / "downloads" / "x.tar.gz"
    try:
        proc = subprocess.Popen([sys.executable, "-m", "attnrepro.cli", "download", "--url", server.url, "--sha256",
                                 "null", "--out", str(dest), "--allow-unpinned"], env=tool_env(),
                                stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while not (dest.parent.exists() and list(dest.parent.iterdir())) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        server.close()
    assert proc.returncode == 128 + signal.SIGTERM, proc.stderr.read()
    assert not list(dest.parent.iterdir()), list(dest.parent.iterdir())


def test_a_yaml_alias_bomb_is_refused_fast(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n")
    assert len(bomb.read_bytes()) < 2000
    started = time.process_time()
    with pytest.raises(AttnReproError, match=r"bomb\.yaml: the config expands to more than 200,000 values through "
                                             r"YAML aliases"):
        validation.validate({}, ROOT / "workflow" / "schemas" / "config.schema.yaml", files=[bomb])
    assert time.process_time() - started < 5


# -- 4. one line naming the key or file -----------------------------------------------------------------------
def test_whole_numbers_written_as_floats_are_ints(smoke):
    cfg = copy.deepcopy(smoke)
    cfg["train"]["steps"] = 40.0
    cfg["tasks"]["one_to_one"]["n_train"] = 6.0e3
    cfg["seeds"] = [0.0, 1.0]
    cfg["experiments"]["aed_gru_one_to_one"]["model"]["hidden"] = 16.0
    edge(cfg)
    values = [cfg["train"]["steps"], cfg["tasks"]["one_to_one"]["n_train"], *cfg["seeds"],
              cfg["experiments"]["aed_gru_one_to_one"]["model"]["hidden"]]
    assert values == [40, 6000, 0, 1, 16] and all(type(v) is int for v in values)
    cfg = copy.deepcopy(smoke)
    cfg["train"]["steps"] = 40.5
    with pytest.raises(AttnReproError, match=r"config key 'train.steps': 40.5 is not an integer"):
        edge(cfg)


def test_config_overrides_of_nested_keys_reach_the_jobs(tmp_path):
    import shutil

    shutil.copy(ROOT / "config" / "smoke.yaml", tmp_path / "smoke.yaml")
    proc = snakemake("-n", "-p", "--configfile", "smoke.yaml", "--config", "train={lr: 0.002, steps: 40.0}",
                     "seeds=[0.0, 1.0]", cwd=tmp_path, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-2000:]
    assert '"lr": 0.002' in out and '"steps": 40}' in out and "--seeds 0 1 " in out, out[-3000:]
    assert not (tmp_path / "results").exists()


def _vocab_case(world, capsys, vocab_text):
    results, outside = world
    data = _data(results)
    (data / "vocab.json").write_text(vocab_text)
    with untouched(outside):
        rc, out = _train(results, data)
    assert rc == 2 and not (out / "model.pt").exists()
    line = one_line(capsys.readouterr().err, f"{data / 'vocab.json'}:", "moved aside")
    assert "train.parquet:" not in line and (data / "vocab.json.corrupt").exists()
    _data(results)  # the data rule's rerun
    assert _train(results, data)[0] == 0


def test_an_empty_vocabulary_is_blamed_on_vocab_json(world, capsys):
    _vocab_case(world, capsys, "{}")


def test_a_vocabulary_missing_a_word_is_blamed_on_vocab_json(world, capsys):
    vocab = json.loads((_data(world[0]) / "vocab.json").read_text())
    vocab["src"] = vocab["src"][:-1]
    _vocab_case(world, capsys, json.dumps(vocab))


def test_a_checkpoint_that_does_not_fit_is_moved_aside_and_training_starts_afresh(world):
    results, outside = world
    data = _data(results)
    spec = copy.deepcopy(SPEC)
    spec["train"]["steps"] = 6
    rc, out = _train(results, data, spec=spec)
    ckpt, = (results / "checkpoints" / "aed_x" / "s0").glob("ckpt_*.pt")
    state = torch.load(ckpt, weights_only=False)
    state["model"] = {k: v[..., :1] for k, v in state["model"].items()}  # same fingerprint, other contents
    torch.save(state, ckpt)
    (out / "model.pt").unlink()
    with untouched(outside):
        rc, out = _train(results, data, spec=spec)
    assert rc == 0 and (out / "model.pt").exists()
    assert ckpt.with_name(ckpt.name + ".corrupt").exists()


def test_a_checkpoint_of_another_format_is_stale(world, monkeypatch):
    import attnrepro.engine as engine

    results, outside = world
    data = _data(results)
    spec = copy.deepcopy(SPEC)
    spec["train"]["steps"] = 6
    _train(results, data, spec=spec)
    ckpt, = (results / "checkpoints" / "aed_x" / "s0").glob("ckpt_*.pt")
    monkeypatch.setattr(engine, "CHECKPOINT_FORMAT", engine.CHECKPOINT_FORMAT + 1)  # the next version's code
    assert _train(results, data, spec=spec)[0] == 0
    assert ckpt.with_name(ckpt.name + ".stale").exists()


@pytest.mark.parametrize("code, words", [(errno.EROFS, r"is not writable \(read-only filesystem\)"),
                                         (errno.EACCES, r"is not writable \(permission denied\)"),
                                         (errno.EFBIG, "the file-size limit of this process was reached")])
def test_unwritable_folders_and_size_limits_are_named(world, monkeypatch, code, words):
    from attnrepro.io import write_csv

    results, outside = world

    def failing(self, path, *a, **k):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(pd.DataFrame, "to_csv", failing)
    with untouched(outside), pytest.raises(AttnReproError, match=words):
        write_csv(pd.DataFrame({"seed": [0]}), results / "t.csv")
    assert not list(results.iterdir())


def test_a_real_file_size_limit_is_named(world):
    results, _ = world
    code = ("import resource; resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096)); import pandas as pd; "
            "from attnrepro.cli import main; from attnrepro.io import write_csv; "
            f"write_csv(pd.DataFrame({{'x': range(100000)}}), {str(results / 'big.csv')!r})")
    proc = subprocess.run([sys.executable, "-c", code], env=tool_env(), capture_output=True, text=True)
    assert proc.returncode != 0 and "big.csv: the file-size limit of this process was reached (ulimit -f)" in \
        proc.stderr, proc.stderr[-2000:]
    assert not list(results.iterdir())


@pytest.mark.parametrize("argv, option", [
    (["train", "--spec-json", "{bad", "--seeds", "0", "--data-dir", "d", "--ckpt-dir", "c", "--model-out", "m",
      "--metrics-out", "x"], "--spec-json"),
    (["data", "--task-json", "[1,", "--out-dir", "o"], "--task-json"),
    (["claims", "--sources-json", "nope", "--out", "c.csv"], "--sources-json"),
    (["snell2021", "analyze", "copy", "--spec-json", "{'kind': 'copy'}", "--out-dir", "o"], "--spec-json"),
])
def test_malformed_json_options_are_one_line(world, capsys, argv, option):
    assert main(argv) == 2
    one_line(capsys.readouterr().err, f"{option}: not valid JSON")


@pytest.mark.parametrize("argv, words", [
    (["export", "--model", "m", "--data-dir", "d", "--n-examples", "0", "--out-dir", "o"], "--n-examples: 0 must"),
    (["train", "--spec-json", "{}", "--seeds", "0", "--data-dir", "d", "--ckpt-dir", "c", "--model-out", "m",
      "--metrics-out", "x", "--threads", "-1"], "--threads: -1 must be at least 1"),
    (["kobayashi2020", "data", "--n-sequences", "-3", "--max-len", "8", "--out", "o"], "--n-sequences: -3 must"),
])
def test_counts_below_one_are_refused_by_the_command_line(capsys, argv, words):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    one_line(capsys.readouterr().err, words)


def test_a_mirror_entry_that_is_a_folder_is_named(world, capsys):
    results, outside = world
    (outside / "folder" / "x.tar.gz").mkdir()
    with untouched(outside):
        rc = main(["download", "--url", "http://example.invalid/x.tar.gz", "--sha256", "0" * 64, "--out",
                   str(results / "downloads" / "x.tar.gz"), "--local-dir", str(outside / "folder")])
    assert rc == 2
    one_line(capsys.readouterr().err, "x.tar.gz: a folder in the offline mirror")


# -- 5. the same results, the same bytes ----------------------------------------------------------------------
def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_model_files_are_byte_identical_across_folders(tmp_path):
    from attnrepro.model import ModelConfig
    from attnrepro.train import build_model, save_model

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
