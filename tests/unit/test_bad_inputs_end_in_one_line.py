"""Faults and bad input: sizes and reads are bounded, and no bad input ends in
a raw traceback — each case one line naming the key, option or file, and nothing outside the results root changed
(the frame of test_quarantine_and_trusted_artefacts.py: the ``world`` fixture, ``helpers.untouched``)."""

from __future__ import annotations

import copy
import errno
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pandas as pd
import pytest
import torch

import attnrepro.seq2seq.train  # noqa: F401  (imported before any capsys: train() binds sys.stderr as its default log)
from attnrepro.run import budget, validation
from attnrepro.cli import main
from attnrepro.errors import AttnReproError

from tests.helpers import (RESULTS_SPEC, ROOT, edge, one_line, results_data, results_train, snakemake, tool_env,
                           untouched)


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
    from attnrepro.data.download import fetch

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


def test_a_download_whose_headers_trickle_times_out(world):
    """A server that sends its status line, then a header byte every 0.1 s: each read returns well within the
    timeout, so only a bound on the whole exchange, headers included, ends it."""
    import socket

    from attnrepro.data.download import fetch

    results, outside = world
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve():
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            try:
                conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                for _ in range(300):  # 30 s at most, so that the old code's test fails rather than hangs
                    if stop.is_set():
                        break
                    conn.sendall(b"a")
                    time.sleep(0.1)
            except OSError:
                pass

    threading.Thread(target=serve, daemon=True).start()
    dest = results / "downloads" / "x.tar.gz"
    started = time.monotonic()
    try:
        with untouched(outside), pytest.raises(AttnReproError, match=r"x\.tar\.gz: stalled, no complete response "
                                                                     r"headers within 1 s of the request"):
            fetch(f"http://127.0.0.1:{listener.getsockname()[1]}/x.tar.gz", dest, None, allow_unpinned=True,
                  timeout=1.0)
    finally:
        stop.set()
        listener.close()
    assert time.monotonic() - started < 5
    assert not dest.parent.exists() or not list(dest.parent.iterdir())


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


def test_a_recursive_yaml_alias_is_one_line_naming_the_key(tmp_path):
    """``&r [*r]``: a list that holds itself, which Snakemake's loader builds and the config walk followed until
    Python's recursion limit (a 991-line RecursionError)."""
    path = tmp_path / "loop.yaml"
    path.write_text("seeds: [0]\ntrain:\n  lr: 0.1\n  loop: &r [1, *r]\n")
    with pytest.raises(AttnReproError, match=r"loop\.yaml:4: config key 'train\.loop\[1\]' is a YAML alias \(\*name\) "
                                             r"of a block that contains it"):
        validation.validate({}, ROOT / "workflow" / "schemas" / "config.schema.yaml", files=[path])
    path.write_text("a: &a {b: 1}\nc: [*a, *a]\n")  # an alias used twice, outside its own block, is fine
    assert validation.check_duplicate_keys(path) == []


def test_yaml_1_2_floats_in_a_config_file_are_numbers(tmp_path, smoke):
    """``6.0e3``, ``4e1`` and ``2e-2`` are floats to YAML 1.2 but strings to PyYAML (and so to Snakemake, whose
    loader this test uses); a quoted "6e3" stays a string."""
    from snakemake.common.configfile import load_configfile

    text = (ROOT / "config" / "smoke.yaml").read_text()
    for old, new in [("n_train: 1000,", "n_train: 6.0e3,"), ("steps: 40\n", "steps: 4e1\n"), ("lr: 0.02\n", "lr: 2e-2\n")]:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "smoke.yaml"
    path.write_text(text)
    cfg = load_configfile(str(path))
    assert cfg["tasks"]["one_to_one"]["n_train"] == "6.0e3"  # what the workflow is handed
    validation.validate(cfg, ROOT / "workflow" / "schemas" / "config.schema.yaml", files=[path])
    values = cfg["tasks"]["one_to_one"]["n_train"], cfg["train"]["steps"], cfg["train"]["lr"]
    assert values == (6000, 40, 0.02) and [type(v) for v in values] == [int, int, float]
    path.write_text(text.replace("n_train: 6.0e3,", "n_train: '6e3',"))
    with pytest.raises(AttnReproError, match=r"config key 'tasks\.one_to_one\.n_train': '6e3' is not"):
        validation.validate(load_configfile(str(path)), ROOT / "workflow" / "schemas" / "config.schema.yaml",
                            files=[path])


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
    data = results_data(results)
    (data / "vocab.json").write_text(vocab_text)
    with untouched(outside):
        rc, out = results_train(results, data)
    assert rc == 2 and not (out / "model.pt").exists()
    line = one_line(capsys.readouterr().err, f"{data / 'vocab.json'}:", "moved aside")
    assert "train.parquet:" not in line and (data / "vocab.json.corrupt").exists()
    results_data(results)  # the data rule's rerun
    assert results_train(results, data)[0] == 0


def test_an_empty_vocabulary_is_blamed_on_vocab_json(world, capsys):
    _vocab_case(world, capsys, "{}")


def test_a_vocabulary_missing_a_word_is_blamed_on_vocab_json(world, capsys):
    vocab = json.loads((results_data(world[0]) / "vocab.json").read_text())
    vocab["src"] = vocab["src"][:-1]
    _vocab_case(world, capsys, json.dumps(vocab))


def test_a_checkpoint_that_does_not_fit_is_moved_aside_and_training_starts_afresh(world):
    results, outside = world
    data = results_data(results)
    spec = copy.deepcopy(RESULTS_SPEC)
    spec["train"]["steps"] = 6
    rc, out = results_train(results, data, spec=spec)
    ckpt, = (results / "checkpoints" / "aed_x" / "s0").glob("ckpt_*.pt")
    state = torch.load(ckpt, weights_only=False)
    state["model"] = {k: v[..., :1] for k, v in state["model"].items()}  # same fingerprint, other contents
    torch.save(state, ckpt)
    (out / "model.pt").unlink()
    with untouched(outside):
        rc, out = results_train(results, data, spec=spec)
    assert rc == 0 and (out / "model.pt").exists()
    assert ckpt.with_name(ckpt.name + ".corrupt").exists()


def test_a_checkpoint_of_another_format_is_stale(world, monkeypatch):
    import attnrepro.training.engine as engine

    results, outside = world
    data = results_data(results)
    spec = copy.deepcopy(RESULTS_SPEC)
    spec["train"]["steps"] = 6
    results_train(results, data, spec=spec)
    ckpt, = (results / "checkpoints" / "aed_x" / "s0").glob("ckpt_*.pt")
    monkeypatch.setattr(engine, "CHECKPOINT_FORMAT", engine.CHECKPOINT_FORMAT + 1)  # the next version's code
    assert results_train(results, data, spec=spec)[0] == 0
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


def _json_options():
    """(command, option, argv with '{}' as the option, the keys the option declares) for every ``--*-json`` option
    of every subcommand; the other arguments are placeholders (a count is 1), which no command reaches: the
    option's check comes first."""
    import argparse

    from attnrepro.cli import build_parser

    found = []

    def walk(parser, words):
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        for action in subs:
            for name, child in action.choices.items():
                walk(child, [*words, name])
        if subs:
            return
        for option in (a for a in parser._actions if any(o.endswith("-json") for o in a.option_strings)):
            argv = list(words)
            for a in parser._actions:
                if not a.option_strings and a.dest != "help":
                    argv.append(next(iter(a.choices)) if a.choices else "x")
                elif a is option:
                    argv += [a.option_strings[0], "{}"]
                elif a.required:
                    argv += [a.option_strings[0], "1" if a.type is not None else "x"]
            found.append((" ".join(words), option.option_strings[0], argv,
                          (parser.get_default("json_keys") or {}).get(option.dest)))

    walk(build_parser(), [])
    return {(command, option): (argv, keys) for command, option, argv, keys in found}


JSON_OPTIONS = _json_options()
FIRST_KEY = {  # the key '{}' lacks first, for each option that must be an object with keys
    ("data", "--task-json"): "kind", ("train", "--spec-json"): "task", ("ladder", "--spec-json"): "points",
    ("prepare", "--corpus-json"): "format", ("prepare-gold", "--corpus-json"): "format",
    ("aitken2021 analyze", "--task-json"): "kind", ("kobayashi2020 data", "--ranks-json"): "name",
    ("kobayashi2020 data", "--encoder-json"): "name", ("kobayashi2020 cache", "--encoder-json"): "name",
    ("kobayashi2020 aer", "--task-json"): "kind", ("snell2021 train", "--spec-json"): "train",
    ("snell2021 analyze", "--spec-json"): "kind",
}


def test_every_json_option_declares_the_keys_its_command_reads():
    assert set(FIRST_KEY) <= set(JSON_OPTIONS)
    declared = {k: v[1] for k, v in JSON_OPTIONS.items()}
    assert declared.pop(("claims", "--sources-json")) is None  # a list of objects: ClaimSource.from_json checks it
    assert {k: keys[0] for k, keys in declared.items() if keys} == FIRST_KEY
    assert {k for k, keys in declared.items() if keys == ()} == {("figure", "--inputs-json"),
                                                                ("archive", "--config-json"),
                                                                ("claims", "--left-out-json")}  # any object


@pytest.mark.parametrize("command, option", FIRST_KEY, ids=[" ".join(k) for k in FIRST_KEY])
def test_an_empty_json_object_names_the_option_and_its_missing_key(world, capsys, command, option):
    """``'{}'`` ended in an 11-14-line KeyError of the first key the command read; ``'[]'`` in a TypeError."""
    results, outside = world
    argv = JSON_OPTIONS[command, option][0]
    with untouched(outside):
        assert main(argv) == 2
        one_line(capsys.readouterr().err, f"{option}: missing key", repr(FIRST_KEY[command, option]))
        at = argv.index(option) + 1
        assert main([*argv[:at], "[]", *argv[at + 1:]]) == 2
        one_line(capsys.readouterr().err, f"{option}: expected a JSON object")
    assert not list(results.iterdir())


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


# -- 4b. accepted silently no more: a name of the ladder's, a memory limit that is none, a seed given twice ---------
def test_an_experiment_named_as_a_ladder_point_is_a_config_error(smoke):
    cfg = copy.deepcopy(smoke)
    cfg["ladder"] = {"experiments": ["aed_gru_one_to_one"], "hidden": [4, 16], "steps": [10, 20]}
    cfg["experiments"]["aed_gru_one_to_one__h4"] = {"task": "one_to_one",  # would train as AED/GRU/4
                                                    "model": {"arch": "ved", "cell": "lstm", "hidden": 4}}
    with pytest.raises(AttnReproError, match=r"experiments\.aed_gru_one_to_one__h4: the name of the scale ladder's "
                                             r"point h4 of 'aed_gru_one_to_one' \(ladder\.hidden: 4\)"):
        edge(cfg)
    del cfg["experiments"]["aed_gru_one_to_one__h4"]
    edge(cfg)  # the ladder alone is a valid config


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf"])
def test_a_memory_limit_that_is_no_size_is_refused(smoke, monkeypatch, value):
    monkeypatch.setenv(budget.LIMIT_ENV, value)
    with pytest.raises(AttnReproError, match=rf"^ATTNREPRO_MEMORY_GB='{value}' is not a memory size: give a number "
                                             r"of gigabytes above 0"):
        edge(copy.deepcopy(smoke))


def test_a_memory_limit_of_nan_stops_the_training_job(world, capsys, monkeypatch):
    results, outside = world
    data = results_data(results)
    monkeypatch.setenv(budget.LIMIT_ENV, "nan")
    with untouched(outside):
        rc, out = results_train(results, data)
    assert rc == 2 and not out.exists()
    one_line(capsys.readouterr().err, "ATTNREPRO_MEMORY_GB='nan' is not a memory size")


def test_a_seed_given_twice_is_refused_by_the_command_line(world, capsys):
    results, _ = world
    with pytest.raises(SystemExit) as stop:
        main(["train", "--spec-json", json.dumps(RESULTS_SPEC), "--seeds", "3", "3", "--data-dir", "d", "--ckpt-dir",
              "c", "--model-out", str(results / "m.pt"), "--metrics-out", str(results / "x.csv")])
    assert stop.value.code == 2 and not list(results.iterdir())
    one_line(capsys.readouterr().err, "--seeds: seed(s) [3] given more than once in [3, 3]")
