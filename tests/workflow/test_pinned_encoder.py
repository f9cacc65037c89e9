"""The paper's own encoder through the pinned-download route, on a tiny random BERT: its files in the Hugging Face
layout (config.json, model.safetensors, tokenizer_config.json, vocab.txt) and a rank file served from a local
mirror (downloads.local_dir), fetched by `attnrepro download` with their SHA-256 checked, then the norm analysis
(data -> cache -> summary) run on them exactly as the paper config's rules run bert-base-uncased."""

import json

import pandas as pd
import pytest
import torch

from attnrepro.cli import main
from attnrepro.data.download import sha256_of

# specials at their bert-base-uncased places relative to each other; words of the news text, pieces and characters
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ",", ".", "'", "a", "s", "the", "of", "and", "to", "in",
         "said", "for", "on", "that", "is", "was", "it", "with", "he", "as", "at", "by", "##s", "##ed", "##ing",
         "##e", "##d", "##n", "##t", "##r", "##l", "t", "e", "o", "n", "i", "r", "l", "d", "h", "c", "m", "p"]
# rank count id: "the" 1st, "." 2nd, "," 3rd, "##s" (a piece) 4th, "a" (a character) 5th, [SEP] 28th, [CLS] 50th;
# every other id is missing from the file and must come last (51), kept
RANK_FILE = "1 900 10\n2 800 6\n3 700 5\n4 650 27\n5 600 8\n28 100 3\n50 50 2\n"


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    """The offline mirror a login node would have filled: <local_dir>/<name>/<file>."""
    from transformers import BertConfig, BertModel

    root = tmp_path_factory.mktemp("mirror")
    bert = root / "tiny_bert"
    bert.mkdir()
    (bert / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    (bert / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True, "model_max_length": 512}))
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64)
    BertModel(config).save_pretrained(bert)
    (root / "ranks").mkdir()
    (root / "ranks" / "rank_count_ids.txt").write_text(RANK_FILE)
    return root


def pinned(mirror, name):
    """The config's pinned set for the mirror's folder ``name``: URLs never reached (the mirror is used)."""
    return {"name": name, "files": {p.name: {"url": f"https://example.invalid/{name}/{p.name}", "sha256": sha256_of(p)}
                                    for p in sorted((mirror / name).iterdir())}}


def download(spec, mirror, downloads):
    for file, source in spec["files"].items():
        assert main(["download", "--url", source["url"], "--sha256", source["sha256"],
                     "--out", str(downloads / spec["name"] / file), "--local-dir", str(mirror),
                     "--local-name", f"{spec['name']}/{file}"]) == 0


def test_tiny_bert_from_the_mirror_through_the_norm_analysis(mirror, tmp_path, capsys):
    encoder, ranks = pinned(mirror, "tiny_bert"), pinned(mirror, "ranks")
    assert set(encoder["files"]) >= {"config.json", "model.safetensors", "tokenizer_config.json", "vocab.txt"}
    downloads = tmp_path / "downloads"
    download(encoder, mirror, downloads)
    download(ranks, mirror, downloads)
    assert "sha256 verified" in capsys.readouterr().err
    common = ["--encoder-json", json.dumps(encoder), "--downloads-dir", str(downloads)]
    tokens_path = tmp_path / "tokens.parquet"
    assert main(["kobayashi2020", "data", "--n-sequences", "6", "--max-len", "48", "--ranks-json", json.dumps(ranks),
                 *common, "--out", str(tokens_path)]) == 0
    tokens = pd.read_parquet(tokens_path)
    rank = tokens.groupby("token")["rank"].first()
    assert rank["[SEP]"] == 28 and rank["[CLS]"] == 50 and rank["the"] == 1 and rank["."] == 2
    assert rank["[UNK]"] == 51 and tokens["rank"].notna().all()  # missing from the file: ranked last, kept
    cache = tmp_path / "cache"
    assert main(["kobayashi2020", "cache", "--tokens", str(tokens_path), "--batch-size", "4", "--pair-fraction", "0.2",
                 "--seed", "0", *common, "--out-dir", str(cache), "--threads", "1"]) == 0
    error = pd.read_parquet(cache / "error.parquet")
    assert len(error) == 2 and (error.max_abs_error < 1e-5).all()  # Eq. 3 holds on the downloaded model's 2 layers
    assert set(pd.read_parquet(cache / "heads.parquet")["head"]) == {1, 2}
    summary = tmp_path / "summary.csv"
    assert main(["kobayashi2020", "summary", "--tokens", str(tokens_path), "--cache-dir", str(cache), "--folds", "3",
                 "--out", str(summary)]) == 0
    s = pd.read_csv(summary)
    assert len(s) == 3 and s[["rho_rank_fnorm", "rho_rank_alpha", "cv_fnorm_mean"]].notna().all().all()


def test_changed_weights_are_refused_before_loading(mirror, tmp_path, capsys):
    """A file changed after its download fails its pinned digest when the data step reads it again: moved aside,
    named, and nothing written; a mirror holding other bytes than the pinned ones is refused by the download."""
    encoder = pinned(mirror, "tiny_bert")
    downloads = tmp_path / "downloads"
    download(encoder, mirror, downloads)
    weights = downloads / "tiny_bert" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-8])
    out = tmp_path / "tokens.parquet"
    assert main(["kobayashi2020", "data", "--n-sequences", "2", "--max-len", "48", "--encoder-json",
                 json.dumps(encoder), "--downloads-dir", str(downloads), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "model.safetensors" in err and "is not the pinned" in err and not out.exists()
    assert (downloads / "tiny_bert" / "model.safetensors.corrupt").exists()

    wrong = dict(encoder["files"]["config.json"], sha256="0" * 64)
    assert main(["download", "--url", wrong["url"], "--sha256", wrong["sha256"], "--out",
                 str(tmp_path / "again" / "config.json"), "--local-dir", str(mirror),
                 "--local-name", "tiny_bert/config.json"]) == 2
    assert "sha256 mismatch for config.json" in capsys.readouterr().err
    assert not (tmp_path / "again" / "config.json").exists()


@pytest.mark.slow
def test_rules_download_the_pinned_encoder_from_the_mirror(mirror, tmp_path):
    """The workflow's own route: kobayashi2020.encoder and .ranks in the config, downloads.local_dir the mirror;
    the download rule fetches and verifies each file, the encoder's tables are named after it."""
    import yaml

    from tests.helpers import ROOT, job_counts, snakemake

    cfg = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    cfg.pop("snell2021", None)
    cfg["downloads"] = {"local_dir": str(mirror), "allow_unpinned": False}
    cfg["kobayashi2020"] = {"n_sequences": 6, "max_len": 48, "batch_size": 3, "pair_fraction": 0.2, "seed": 0,
                            "folds": 3, "max_points": 1000, "dpi": 60, "first_article": 5,
                            "encoder_shape": {"layers": 2, "heads": 2, "hidden": 16},
                            "encoder": pinned(mirror, "tiny_bert"), "ranks": pinned(mirror, "ranks")}
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    summary = "results/analysis/kobayashi2020_tiny_bert/summary.csv"
    proc = snakemake("--cores", "1", summary, "--configfile", "tiny.yaml", cwd=tmp_path, timeout=600)
    assert job_counts(proc.stdout + proc.stderr)["download"] == 5  # 4 files of the model, 1 rank file
    assert len(pd.read_csv(tmp_path / summary)) == 3
    tokens = pd.read_parquet(tmp_path / "results" / "data" / "kobayashi2020_tiny_bert" / "tokens.parquet")
    assert tokens.article.min() >= 5 and tokens.groupby("token")["rank"].first()["[SEP]"] == 28
    log = (tmp_path / "results" / "logs" / "download" / "tiny_bert" / "model.safetensors.log").read_text()
    assert "sha256 verified" in log and str(mirror) in log
