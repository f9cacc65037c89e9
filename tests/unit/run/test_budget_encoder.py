"""The Kobayashi cache job's memory follows the configured encoder's shape: one estimate
(attnrepro.run.budget.encoder_cache_bytes) that the config check and the cluster request both read, calibrated on the
one measured job (MiniLM, workflow/reference/paper_cost.json) and scaled by layers × heads × sequences × tokens."""

import json
import re

import pytest
import yaml

from attnrepro.run import budget
from attnrepro.run.cluster import MARGIN, memory_mb, read_resources
from attnrepro.errors import AttnReproError
from tests.helpers import ROOT, snakemake

COST = json.loads((ROOT / "workflow" / "reference" / "paper_cost.json").read_text())
SLICE = yaml.safe_load((ROOT / "config" / "paper_slice.yaml").read_text())["kobayashi2020"]
PAPER = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())["kobayashi2020"]
FLOOR = read_resources(ROOT / "workflow" / "resources.yaml")["kobayashi2020_cache"]["mem_mb"]
MEASURED_MIB = COST["largest_job_by_rule"]["kobayashi2020/cache"]["max_rss_mb"]


def test_the_calibration_is_the_measured_job():
    """budget's constants are the paper slice's measured cache job: its config (MiniLM, no encoder) and its peak."""
    m = budget.CACHE_MEASURED
    assert "encoder" not in SLICE and m["peak_mib"] == pytest.approx(MEASURED_MIB)
    assert (m["n_sequences"], m["max_len"], m["batch_size"]) == (SLICE["n_sequences"], SLICE["max_len"],
                                                                 SLICE["batch_size"])
    assert (m["layers"], m["heads"]) == (budget.MINILM["layers"], budget.MINILM["heads"])


def test_minilm_keeps_its_measured_figure_and_request():
    need = budget.encoder_cache_bytes(SLICE)
    assert need / 2**20 == pytest.approx(MEASURED_MIB, rel=0.01)  # 7.4 GB, the measurement itself
    assert MARGIN * need / 2**20 <= FLOOR  # within resources.yaml's 12 GB: the request stays what it was
    assert memory_mb(need, FLOOR) == FLOOR == 12288


def test_bert_base_needs_twice_minilm():
    """bert-base-uncased (12 layers × 12 heads) against MiniLM (6 × 12) on the same 992 sequences of 128 tokens."""
    assert budget.encoder_shape(PAPER) == {"layers": 12, "heads": 12, "hidden": 768}
    assert {k: PAPER[k] for k in ("n_sequences", "max_len", "batch_size")} == \
        {k: SLICE[k] for k in ("n_sequences", "max_len", "batch_size")}
    bert, minilm = budget.encoder_cache_bytes(PAPER), budget.encoder_cache_bytes(SLICE)
    assert bert / minilm == pytest.approx(2.0, rel=0.05)
    assert bert / 2**20 >= 1.9 * MEASURED_MIB
    assert memory_mb(bert, FLOOR) == 1024 * -(-MARGIN * bert // 2**30) > FLOOR  # 22 GiB: 1.5 × 14.5 GiB


def test_the_estimate_scales_with_sequences_tokens_layers_and_heads():
    base = dict(n_sequences=992, max_len=128, batch_size=32, layers=6, heads=12)
    tables, batch = budget.encoder_cache_parts(**base)
    for key in ("n_sequences", "layers", "heads"):
        doubled = budget.encoder_cache_parts(**{**base, key: 2 * base[key]})
        assert doubled[0] == pytest.approx(2 * tables)
    assert budget.encoder_cache_parts(**{**base, "max_len": 256})[0] == pytest.approx(2 * tables)
    assert budget.encoder_cache_parts(**{**base, "max_len": 256})[1] == pytest.approx(4 * batch)  # 256² maps


def test_a_downloaded_encoder_needs_its_shape_stated():
    block = {k: v for k, v in PAPER.items() if k != "encoder_shape"}
    with pytest.raises(AttnReproError, match=r"kobayashi2020.encoder_shape: required with kobayashi2020.encoder"):
        budget.encoder_cache_bytes(block)


def test_the_cache_command_rejects_a_shape_its_encoder_does_not_have():
    from attnrepro.kobayashi2020.cli import _check_shape
    from attnrepro.kobayashi2020.pretrained import load_encoder

    encoder = load_encoder()  # MiniLM from its wheel
    _check_shape(encoder, json.dumps(budget.MINILM))
    with pytest.raises(AttnReproError, match=r"encoder_shape: .*'layers': 12.* config.json has .*'layers': 6"):
        _check_shape(encoder, json.dumps({"layers": 12, "heads": 12, "hidden": 768}))


def test_the_paper_configs_cache_job_asks_for_the_bert_estimate(tmp_path):
    """A dry run of config/paper.yaml up to the cache: its job asks for 1.5 × the BERT-base estimate."""
    target = "results/activations/kobayashi2020_bert_base_uncased/heads.parquet"
    proc = snakemake("-n", target, "--configfile", str(ROOT / "config" / "paper.yaml"), cwd=tmp_path)
    block = proc.stdout[proc.stdout.index("rule kobayashi2020_cache:"):]
    resources = re.search(r"resources: (.*)", block).group(1)
    assert f"mem_mb={memory_mb(budget.encoder_cache_bytes(PAPER), FLOOR)}," in resources, resources
    assert "mem_mb=22528," in resources, resources
