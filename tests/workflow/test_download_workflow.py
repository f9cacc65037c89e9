"""The download and prepare rules through Snakemake, against a local HTTP server, then the offline mirror."""

import shutil

import pandas as pd
import pytest
import yaml

from tests.helpers import corpora as fx
from tests.helpers import ROOT, job_counts, snakemake


def write_config(work, server_url, files, local_dir=None):
    cfg = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    m30k, imdb = fx.multi30k(), fx.imdb()
    cfg["downloads"] = {"local_dir": local_dir, "allow_unpinned": False}
    cfg["corpora"] = {
        "multi30k": {"format": "multi30k", "src": "de", "tgt": "en", "vocab_size": 60, "seed": 0,
                     "files": {n: {"url": f"{server_url}/m30k/{n}", "sha256": fx.sha256(d)} for n, d in m30k.items()}},
        "imdb": {"format": "imdb", "classes": [["neg"], ["pos"]], "max_valid": 10, "max_test": 10, "seed": 0,
                 "files": {n: {"url": f"{server_url}/{n}", "sha256": fx.sha256(d)} for n, d in imdb.items()}},
    }
    files.update({f"m30k/{n}": d for n, d in m30k.items()}, **imdb)
    (work / "corpora.yaml").write_text(yaml.safe_dump(cfg))
    return "corpora.yaml"


@pytest.mark.slow
def test_download_and_prepare_rules(tmp_path):
    files = {}
    with fx.Server(files) as server:
        config = write_config(tmp_path, server.url, files)
        snakemake("--cores", "1", "corpora", "--configfile", config, cwd=tmp_path, timeout=300)
        assert set(server.hits.values()) == {1} and len(server.hits) == 7
    train = pd.read_parquet(tmp_path / "results" / "data" / "imdb" / "train.parquet")
    assert len(train) == 40 and set(train.label) == {0, 1}
    assert (tmp_path / "results" / "data" / "multi30k" / "spm.model").stat().st_size > 1000
    assert "sha256 verified" in (tmp_path / "results" / "logs" / "download" / "imdb" / "aclImdb_v1.tar.gz.log").read_text()

    # offline: the server is gone; the same rules take the files from a mirror of results/downloads
    mirror = tmp_path / "mirror"
    shutil.move(tmp_path / "results" / "downloads", mirror)
    shutil.rmtree(tmp_path / "results" / "data")
    config = write_config(tmp_path, "http://127.0.0.1:9", {}, local_dir=str(mirror))
    proc = snakemake("--cores", "1", "corpora", "--configfile", config, cwd=tmp_path, timeout=300)
    assert job_counts(proc.stdout + proc.stderr)["download"] == 7
    assert (tmp_path / "results" / "data" / "imdb" / "vocab.json").exists()


def test_paper_config_plans_every_corpus(tmp_path):
    """One download per pinned file and one prepare job per corpus, of its family's rule (read from the config and
    the formats, so a corpus added to paper.yaml is counted without editing this test)."""
    from collections import Counter

    from attnrepro.data.corpora import family

    corpora = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())["corpora"]
    proc = snakemake("-n", "corpora", "--configfile", str(ROOT / "config" / "paper.yaml"), cwd=tmp_path)
    counts = job_counts(proc.stdout)
    assert counts["download"] == sum(len(c["files"]) for c in corpora.values()) >= 17
    prepared = Counter(f"prepare_{family(c)}" for c in corpora.values())
    assert {rule: counts.get(rule, 0) for rule in prepared} == dict(prepared) and sum(prepared.values()) >= 12
    assert not (tmp_path / "results").exists()  # a dry run fetches nothing


@pytest.mark.slow
def test_default_and_smoke_configs_download_nothing(tmp_path):
    for name in ("config.yaml", "smoke.yaml"):
        proc = snakemake("-n", "--configfile", str(ROOT / "config" / name), cwd=tmp_path)
        assert "download" not in job_counts(proc.stdout) and "prepare_" not in proc.stdout


@pytest.mark.slow
def test_an_experiment_trains_on_a_downloaded_translation_corpus(tmp_path):
    """paper.yaml's ParaCrawl experiments: `task:` names a prepared corpus; train, export and analyze read it like
    a task, and the summary reports BLEU beside token accuracy."""
    files = fx.paracrawl()
    cfg = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    cfg["corpora"] = {"pc": {"format": "paracrawl", "src": "en", "tgt": "fr", "vocab_size": 50, "max_len": 15,
                             "n_train": 20, "n_valid": 8, "n_test": 8, "seed": 0,
                             "files": {n: {"url": "http://127.0.0.1:9/" + n, "sha256": fx.sha256(d)}
                                       for n, d in files.items()}}}
    cfg["downloads"] = {"local_dir": str(tmp_path / "mirror"), "allow_unpinned": False}
    for name, data in files.items():
        (tmp_path / "mirror" / "pc").mkdir(parents=True, exist_ok=True)
        (tmp_path / "mirror" / "pc" / name).write_bytes(data)
    cfg["experiments"]["ao_gru_pc"] = {"task": "pc", "model": {"arch": "ao", "cell": "gru", "hidden": 8,
                                                                "max_positions": 32}}
    (tmp_path / "pc.yaml").write_text(yaml.safe_dump(cfg))
    snakemake("--cores", "1", "results/analysis/ao_gru_pc/summary.csv", "--configfile", "pc.yaml", cwd=tmp_path,
              timeout=300)
    summary = pd.read_csv(tmp_path / "results" / "analysis" / "ao_gru_pc" / "summary.csv")
    assert len(summary) == len(cfg["seeds"])
    assert summary.token_acc.between(0, 1).all() and summary.bleu.between(0, 100).all()
    assert not (tmp_path / "results" / "data" / "ao_gru_pc").exists()  # no task of its own: the corpus's files

    # a classification corpus cannot be an encoder-decoder's task: stopped before any job, naming the key
    cfg["corpora"]["imdb"] = {"format": "imdb", "classes": [["neg"], ["pos"]], "seed": 0,
                              "files": {n: {"url": "http://127.0.0.1:9/" + n, "sha256": fx.sha256(d)}
                                        for n, d in fx.imdb().items()}}
    cfg["experiments"]["ao_gru_pc"]["task"] = "imdb"
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake("-n", "--configfile", "bad.yaml", cwd=tmp_path, check=False)
    assert proc.returncode != 0
    assert "experiments.ao_gru_pc.task: corpus 'imdb' is a classification set" in proc.stdout + proc.stderr


@pytest.mark.slow
def test_snell_classification_reads_a_downloaded_corpus(tmp_path):
    """paper.yaml's Snell sets IMDB, AG News, ...: a classification set may name a prepared corpus; its own splits
    and vocabulary feed Table 2 / Table 10."""
    files = fx.imdb()
    for name, data in files.items():
        (tmp_path / "mirror" / "imdb").mkdir(parents=True, exist_ok=True)
        (tmp_path / "mirror" / "imdb" / name).write_bytes(data)
    cfg = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    cfg["downloads"] = {"local_dir": str(tmp_path / "mirror"), "allow_unpinned": False}
    cfg["corpora"] = {"imdb": {"format": "imdb", "classes": [["neg"], ["pos"]], "min_count": 1, "max_valid": 10,
                               "max_test": 10, "seed": 0,
                               "files": {n: {"url": "http://127.0.0.1:9/" + n, "sha256": fx.sha256(d)}
                                         for n, d in files.items()}}}
    cfg["snell2021"]["classification"]["sets"] = {"imdb": {"max_len": 12}}
    (tmp_path / "imdb.yaml").write_text(yaml.safe_dump(cfg))
    snakemake("--cores", "1", "results/analysis/snell2021/cls_imdb/summary.csv", "--configfile", "imdb.yaml",
              cwd=tmp_path, timeout=300)
    summary = pd.read_csv(tmp_path / "results" / "analysis" / "snell2021" / "cls_imdb" / "summary.csv")
    assert sorted(summary.seed) == cfg["snell2021"]["classification"]["seeds"]
    agreement = [c for c in summary.columns if c.startswith("A_")]
    assert agreement and summary[agreement].notna().all().all()
    log = (tmp_path / "results" / "logs" / "snell2021" / "train" / "cls_imdb_learned.log").read_text()
    n_train = len(pd.read_parquet(tmp_path / "results" / "data" / "imdb" / "train.parquet"))
    assert f"cls_imdb_learned: {n_train} training examples, 10 held out" in log


def test_snell_classification_set_must_be_offline_or_a_binary_corpus():
    from attnrepro.run.config import check
    from attnrepro.errors import AttnReproError

    cfg = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    cfg["snell2021"]["classification"]["sets"] = {"imdb": {"max_len": 12}}
    with pytest.raises(AttnReproError, match=r"snell2021.classification.sets: 'imdb' is neither an offline set"):
        check(cfg)
    cfg["corpora"] = {"imdb": {"format": "zhang_csv", "classes": [["1"], ["2"], ["3"]], "seed": 0,
                               "files": {n: {"url": "http://x/" + n, "sha256": None}
                                         for n in fx.zhang_csv()}}}
    with pytest.raises(AttnReproError, match=r"corpus 'imdb' has 3 classes; the classifier is binary"):
        check(cfg)
