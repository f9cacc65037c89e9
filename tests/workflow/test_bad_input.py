"""The bad-input table: each bad input ends before any compute with a message that names the culprit, and
leaves no partial output behind. Config mistakes are caught by `snakemake -n` before any job starts; bad files
by the `attnrepro` command a rule runs, before it computes anything."""

import ast
import io
import json
import re
import shlex
import string
import tokenize

import pytest
import yaml

from attnrepro.cli import main

from tests.helpers import DELETE, ROOT, SPEC, checkout_files, snakemake, task_data, with_change

AED = ("experiments", "aed_gru_one_to_one")
BAD_CONFIGS = [
    # (key path, bad value, text the message must contain)
    (("epochs",), 3, "epochs"),                                       # unknown top-level key
    (("train", "stpes"), 3, "stpes"),                                 # misspelt key
    (("train", "steps"), "many", "many"),                             # wrong type
    (("train", "steps"), 0, "0"),                                     # zero size
    (("train", "batch_size"), -4, "-4"),                              # negative size
    (("tasks", "one_to_one", "n_train"), 0, "0"),
    (("seeds",), [], "seeds"),                                        # empty seed list
    (("seeds",), [1, 1], "seeds"),                                    # repeated seed
    (("tasks", "one_to_one", "kind"), "copying", "copying"),          # unknown task
    (AED + ("model", "cell"), "lstm2", "lstm2"),                      # unknown cell
    (AED + ("model", "arch"), "rnn", "rnn"),                          # unknown architecture
    (AED + ("task",), "nope", "nope"),                                # experiment names a missing task
    (("tasks", "one_to_one", "min_len"), 30, "min_len"),              # lengths out of order
    (("experiments", "ao_qkv_one_to_one", "model", "max_positions"), 10, "max_positions"),  # too long for AO
    (AED + ("model", "cell"), "ff", "ff"),                            # feed-forward cell outside AO
    (AED + ("model", "attention"), "additive", "additive"),           # unknown attention
    (("figures", "aitken2021", "seed"), 99, "seed"),                  # figure of a seed never trained
    (("figures", "aitken2021", "fig3", "aed"), "ghost", "ghost"),     # figure of an unknown experiment
    (("figures", "aitken2021", "fig2", "sort"), "ved_gru_one_to_one", "VED"),  # attention panel of a VED
    (("figures", "aitken2021", "bottleneck", "aed"), "aed_gru_one_to_one", "bottleneck"),  # wrong task kind
    (("figures", "aitken2021", "fig5", "shares"), [], "shares"),      # empty list
    (("tasks", "bible", "english"), ["x"], "english"),                # unknown Bible
    (("tasks", "bible", "n_train"), 10, "n_train"),                   # synthetic key on a corpus
    (("export",), DELETE, "export"),                                  # missing block
    (("claims", "references"), {"slice": "workflow/reference/nope.csv"}, "claims.references.slice"),  # no such table
]


@pytest.mark.parametrize("path, value, needle", BAD_CONFIGS, ids=[".".join(map(str, c[0])) + f"={c[1]!r}"
                                                                 for c in BAD_CONFIGS])
def test_bad_config_stops_before_any_job(tmp_path, smoke, path, value, needle):
    cfg = with_change(smoke, path, value)
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake("-n", "--configfile", "bad.yaml", cwd=tmp_path, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert needle in out, out[-2000:]
    assert "Traceback" not in out, out[-3000:]
    assert not (tmp_path / "results").exists()


def _smoke_text(tmp_path, old, new):
    from tests.helpers import ROOT

    text = (ROOT / "config" / "smoke.yaml").read_text()
    assert text.count(old) == 1, old
    (tmp_path / "c.yaml").write_text(text.replace(old, new))
    proc = snakemake("-n", "-p", "--configfile", "c.yaml", cwd=tmp_path, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def test_a_recursive_yaml_alias_is_one_line_under_snakemake(tmp_path):
    """What the user saw was a 991-line RecursionError; now Snakemake prints the one line, naming file and key."""
    rc, out = _smoke_text(tmp_path, "  steps: 40\n", "  steps: 40\n  loop: &r [1, *r]\n")
    assert rc != 0 and "Traceback" not in out and "RecursionError" not in out, out[-3000:]
    assert len(out.strip().splitlines()) < 10, out[-3000:]
    assert "c.yaml:21: config key 'train.loop[1]' is a YAML alias (*name) of a block that contains it" in out, out
    assert not (tmp_path / "results").exists()


def test_a_yaml_1_2_float_reaches_the_job_as_the_integer_it_is(tmp_path):
    """``n_train: 6.0e3`` (a string to PyYAML, so to Snakemake) is the 6000 that docs/failures.md promises."""
    rc, out = _smoke_text(tmp_path, "n_train: 1000,", "n_train: 6.0e3,")
    assert rc == 0, out[-3000:]
    assert '"n_train": 6000,' in out and '"6.0e3"' not in out, out[-3000:]


# -- a path with a space: every shell command quotes what it is given ----------------------------------------
RULE_FILES = [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]


def shell_commands(path):
    """(line, tokens) of each ``shell:`` block of a Snakemake file: its tokens, comments and line breaks left out."""
    tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text()).readline))
    for i, tok in enumerate(tokens):
        if not (tok.type == tokenize.NAME and tok.string == "shell" and tokens[i + 1].string == ":"):
            continue
        j, body = i + 2, []
        if tokens[j].type == tokenize.NEWLINE:  # an indented block: up to its DEDENT
            while tokens[j].type != tokenize.INDENT:
                j += 1
            depth, j = 1, j + 1
            while depth:
                depth += {tokenize.INDENT: 1, tokenize.DEDENT: -1}.get(tokens[j].type, 0)
                body.append(tokens[j])
                j += 1
        else:
            while tokens[j].type != tokenize.NEWLINE:
                body.append(tokens[j])
                j += 1
        yield tok.start[0], [t for t in body if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT,
                                                               tokenize.INDENT, tokenize.DEDENT)]


def unquoted(path) -> list[str]:
    """What in the shell commands of ``path`` may reach the shell unquoted: a ``{field}`` without ``:q``, a Python
    value put in by an f-string (other than ``R``, the results root), a command computed rather than written."""
    found = []
    for line, body in shell_commands(path):
        text = ""
        for tok in body:
            if tok.type != tokenize.STRING:
                found.append(f"{path.name}:{tok.start[0]}: the command is computed ({tok.string!r})")
                continue
            node = ast.parse(tok.string, mode="eval").body
            for part in node.values if isinstance(node, ast.JoinedStr) else [node]:
                if isinstance(part, ast.Constant):
                    text += part.value
                elif isinstance(part.value, ast.Name) and part.value.id == "R":
                    text += "results"
                else:
                    found.append(f"{path.name}:{tok.start[0]}: an f-string puts {ast.unparse(part.value)} in")
        for field in re.findall(r"\{([^{}]*)\}", text.replace("{{", "").replace("}}", "")):
            if not field.partition(":")[2].endswith("q"):
                found.append(f"{path.name}:{line}: {{{field}}} (write {{{field}:q}})")
    return found


def test_every_shell_command_quotes_its_paths():
    """A checkout, Python or config path with a space split into two words (`Snakefile ".../with" not found`)."""
    assert sum(len(list(shell_commands(p))) for p in RULE_FILES) >= 35
    assert [u for p in RULE_FILES for u in unquoted(p)] == []
    # R, the one value an f-string may put in, is the config's `results`, whose schema pattern admits only
    # characters that need no quoting
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    pattern = schema["properties"]["results"]["pattern"]
    admitted = [c for c in string.printable if re.fullmatch(pattern, f"a{c}b")]
    assert admitted and all(shlex.quote(f"a{c}b") == f"a{c}b" for c in admitted), admitted


def test_the_static_check_finds_an_unquoted_path(tmp_path):
    rule = tmp_path / "x.smk"
    rule.write_text('rule x:\n    output:\n        "o"\n    params:\n        p=1\n    shell:\n'
                    '        "cmd {output:q} {params.p}"\n        f" --in {R}/{{wildcards.w:q}} {SNAKEFILE}"\n'
                    '        + EXTRA\n')
    assert sorted(unquoted(rule)) == ["x.smk:6: {params.p} (write {params.p:q})",
                                      "x.smk:8: an f-string puts SNAKEFILE in",
                                      "x.smk:9: the command is computed ('+')",
                                      "x.smk:9: the command is computed ('EXTRA')"]


def test_a_checkout_path_with_a_space_stays_one_word_in_every_command(tmp_path):
    """The checkout seen through a folder whose name has a space (links to its files), its artifact planned: each
    command Snakemake would run, split as the shell splits it, keeps that folder in one word."""
    import subprocess
    import sys

    from tests.helpers import tool_env

    checkout, work = tmp_path / "with space", tmp_path / "work"
    checkout.mkdir()
    work.mkdir()
    for top in sorted({name.split("/")[0] for name in checkout_files()}):
        (checkout / top).symlink_to(ROOT / top)
    (work / "smoke.yaml").write_text((ROOT / "config" / "smoke.yaml").read_text())
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(checkout / "Snakefile"),
                           "--directory", str(work), "-n", "-p", "results/artifact.tar.gz", "--configfile",
                           "smoke.yaml", "--config", "results=results"], cwd=work, env=tool_env(),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    commands = re.findall(r"^Shell command: (.*)$", proc.stdout, flags=re.M)
    assert len(commands) > 100, proc.stdout[-3000:]
    words = [w for c in commands for w in shlex.split(c)]
    assert not [w for w in words if w.endswith(f"{tmp_path}/with")], "a path was split at its space"
    assert str(checkout / "Snakefile") in words and str(checkout) in words  # report_zip's and archive's
    assert not (work / "results").exists()


def _train(tmp_path, data_dir):
    out = tmp_path / "out"
    return main(["train", "--spec-json", json.dumps(SPEC), "--seeds", "0", "--data-dir", str(data_dir),
                 "--ckpt-dir", str(out / "ckpt"), "--model-out", str(out / "model.pt"),
                 "--metrics-out", str(out / "metrics.csv"), "--device", "cpu"]), out


def _break(kind):
    def apply(d):
        if kind == "missing":
            (d / "train.parquet").unlink()
        elif kind == "empty file":
            (d / "train.parquet").write_bytes(b"")
        elif kind == "corrupt parquet":
            data = (d / "train.parquet").read_bytes()
            (d / "train.parquet").write_bytes(data[: len(data) // 2])
        elif kind == "empty split":
            import pandas as pd

            pd.DataFrame({"src": pd.Series([], dtype=object), "tgt": pd.Series([], dtype=object)}).to_parquet(
                d / "train.parquet")
        elif kind == "unknown word":  # the split its rule wrote (its stamp), but for a word
            import pyarrow as pa
            import pyarrow.parquet as pq

            from attnrepro.provenance import parquet_stamp, with_stamp

            table = pa.table({"src": [["A", "Q"]], "tgt": [["1", "1"]]})
            pq.write_table(with_stamp(table, parquet_stamp(d / "train.parquet")), d / "train.parquet")
        elif kind == "corrupt vocabulary":
            (d / "vocab.json").write_text("{not json")
        elif kind == "missing vocabulary":
            (d / "vocab.json").unlink()
    return apply


BAD_FILES = [
    ("missing", "train.parquet: file not found"),
    ("empty file", "train.parquet: not a readable Parquet file"),
    ("corrupt parquet", "train.parquet: not a readable Parquet file"),
    ("empty split", "train.parquet: the split is empty"),
    ("unknown word", "train.parquet: word 'Q'"),
    ("corrupt vocabulary", "vocab.json: not valid JSON"),
    ("missing vocabulary", "vocab.json: file not found"),
]


@pytest.mark.parametrize("kind, message", BAD_FILES, ids=[k for k, _ in BAD_FILES])
def test_bad_data_file_stops_training_before_it_starts(tmp_path, capsys, kind, message):
    data_dir = task_data(tmp_path)
    _break(kind)(data_dir)
    rc, out = _train(tmp_path, data_dir)
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err and "Traceback" not in err, err
    assert not (out / "model.pt").exists() and not (out / "metrics.csv").exists()
    assert not (out / "ckpt").exists() or not any((out / "ckpt").iterdir())


def test_corrupt_input_is_moved_aside_so_the_rerun_rebuilds_it(tmp_path, capsys):
    data_dir = task_data(tmp_path)
    _break("corrupt parquet")(data_dir)
    assert _train(tmp_path, data_dir)[0] == 2
    assert not (data_dir / "train.parquet").exists()            # Snakemake now sees it missing ...
    assert (data_dir / "train.parquet.corrupt").exists()        # ... and nothing is lost


def test_parquet_without_a_needed_column_is_moved_aside(tmp_path, capsys):
    import pandas as pd

    data_dir = task_data(tmp_path)
    pd.DataFrame({"source": [["A"]], "tgt": [["1"]]}).to_parquet(data_dir / "train.parquet")
    rc, _ = _train(tmp_path, data_dir)
    assert rc == 2 and "train.parquet: missing columns ['src']" in capsys.readouterr().err
    # a workflow output without the columns its rule writes is not that rule's: the rerun rebuilds it
    assert not (data_dir / "train.parquet").exists() and (data_dir / "train.parquet.corrupt").exists()


def test_ao_sequences_longer_than_its_positions_stop_training(tmp_path, capsys):
    data_dir = task_data(tmp_path)
    spec = {**SPEC, "model": {"arch": "ao", "cell": "gru", "hidden": 8, "input_dim": 16, "max_positions": 5}}
    out = tmp_path / "out"
    rc = main(["train", "--spec-json", json.dumps(spec), "--seeds", "0", "--data-dir", str(data_dir),
               "--ckpt-dir", str(out / "ckpt"), "--model-out", str(out / "model.pt"),
               "--metrics-out", str(out / "metrics.csv"), "--device", "cpu"])
    assert rc == 2 and "max_positions (5) is shorter than the longest sequence" in capsys.readouterr().err
    assert not out.exists()


def test_impossible_escan_window_is_an_error_not_a_hang(tmp_path, capsys):
    task = dict(kind="escan", words=["turn", "left"], separator="<.>", min_len=4, max_len=4, n_train=5,
                n_valid=1, n_test=1, seed=0)
    rc = main(["data", "--task-json", json.dumps(task), "--out-dir", str(tmp_path / "escan")])
    assert rc == 2 and "task escan: eSCAN: fewer than 1% of draws" in capsys.readouterr().err
    assert not (tmp_path / "escan").exists()


def test_corrupt_model_stops_export(tmp_path, capsys):
    data_dir = task_data(tmp_path)
    model = tmp_path / "model.pt"
    model.write_bytes(b"\x00" * 64)
    rc = main(["export", "--model", str(model), "--data-dir", str(data_dir), "--n-examples", "4",
               "--out-dir", str(tmp_path / "act"), "--device", "cpu"])
    assert rc == 2 and "model.pt: not a readable model file" in capsys.readouterr().err
    assert not (tmp_path / "act").exists()
