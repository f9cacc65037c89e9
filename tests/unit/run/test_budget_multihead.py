"""Fig. 6's jobs ask for the memory their block's shape needs (Snell et al. 2021, §5.2): one estimate
(attnrepro.run.budget.multihead_bytes) that the config check and the cluster requests of snell2021_candidates and
snell2021_multihead both read, calibrated on config/paper.yaml's two measured jobs
(bench/results/snell_multihead_cost.json) and scaled by members, heads, length, width, batch and held-out set."""

import copy
import json
import re

import pytest
import yaml

from attnrepro.run import budget
from attnrepro.run.cluster import MARGIN, memory_mb, read_resources
from attnrepro.errors import AttnReproError
from attnrepro.snell2021 import config as snellcfg
from tests.helpers import ROOT, snakemake

COST = json.loads((ROOT / "bench" / "results" / "snell_multihead_cost.json").read_text())
PAPER = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())["snell2021"]
RESOURCES = read_resources(ROOT / "workflow" / "resources.yaml")
FLOORS = {"candidates": RESOURCES["snell2021_candidates"]["mem_mb"],
          "khead": RESOURCES["snell2021_multihead"]["mem_mb"]}
REACHED_MIB = 18e9 / 2**20  # the full 96-member round, stopped within its first steps at 18 GB (docs/deviations.md)


def shaped(job: str) -> dict:
    m = budget.MULTIHEAD_MEASURED[job]
    return {"members": m["members"], "heads": m["heads"], **budget.MULTIHEAD_SHAPE}


def test_the_calibration_is_the_measured_jobs():
    """budget's constants are the benchmark's two jobs of config/paper.yaml: their peaks, members and shape."""
    for job in ("candidates", "khead"):
        measured = COST["measured"][job]
        assert budget.MULTIHEAD_MEASURED[job]["peak_mib"] == pytest.approx(measured["max_rss_mb"], abs=0.01)
        assert budget.MULTIHEAD_MEASURED[job]["members"] == measured["members"]
        assert measured["n_eval"] == budget.MULTIHEAD_SHAPE["n_eval"]
    assert COST["config"] == "config/paper.yaml"
    shapes = budget.multihead_shapes(PAPER)
    # the K-head job measured is the paper's; the round was 8 of its 32 candidates, every trial
    assert shapes["khead"] == shaped("khead")
    assert shapes["candidates"] == {**shaped("candidates"), "members": 96}
    assert budget.MULTIHEAD_MEASURED["candidates"]["members"] == 8 * PAPER["multihead"]["trials"]


def test_the_estimate_is_within_six_percent_and_never_below_a_measurement():
    for job, most in (("candidates", 0.06), ("khead", 0.0)):
        need = budget.multihead_scale() * budget.copy_heads_count(**shaped(job)) / 2**20
        measured = budget.MULTIHEAD_MEASURED[job]["peak_mib"]
        assert measured <= need <= (1 + most) * measured + 1e-6, (job, need, measured)


def test_the_paper_rounds_ask_for_half_again_their_measured_peaks():
    """The 96-member round: above the 18 GB it reached and the 24-member peak × 4; the K-head job: its peak."""
    need = budget.multihead_bytes(PAPER)
    round_mib = need["candidates"] / 2**20
    assert round_mib >= COST["prediction"]["peak_rss_mb_round_at_most"] >= REACHED_MIB
    for job, peak_mib in (("candidates", COST["prediction"]["peak_rss_mb_round_at_most"]),
                          ("khead", COST["measured"]["khead"]["max_rss_mb"])):
        asked = memory_mb(need[job], FLOORS[job])
        assert asked >= MARGIN * peak_mib > FLOORS[job], (job, asked)
    assert (memory_mb(need["candidates"], FLOORS["candidates"]), memory_mb(need["khead"], FLOORS["khead"])) == \
        (41984, 19456)


@pytest.mark.parametrize("name", ["config", "smoke"])
def test_the_default_and_smoke_configs_stay_at_the_floor(name):
    """Their jobs keep resources.yaml's entry, so the Slurm test cluster's ≈ 19 GB nodes still take them."""
    block = yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())["snell2021"]
    for job, need in budget.multihead_bytes(block).items():
        assert memory_mb(need, FLOORS[job]) == FLOORS[job] == 12288, (name, job, need)


def test_the_estimate_grows_with_members_heads_and_held_out_set():
    base = shaped("khead")
    count = budget.copy_heads_count(**base)
    assert budget.copy_heads_count(**{**base, "members": 40}) == pytest.approx(2 * count)
    assert budget.copy_heads_count(**{**base, "heads": 16}) > 1.5 * count
    assert budget.copy_heads_count(**{**base, "n_eval": 800}) > 1.8 * count  # the evaluation is its larger phase


def test_the_shapes_follow_the_jobs_specs():
    """members = candidates_per_round × trials (a round) and n_combos (a K-head job); the model as the runs build it."""
    block = copy.deepcopy(PAPER)
    block["multihead"].update(candidates_per_round=10, trials=2, n_combos=5, heads=4)
    shapes = budget.multihead_shapes(block)
    assert (shapes["candidates"]["members"], shapes["khead"]["members"], shapes["khead"]["heads"]) == (20, 5, 4)
    spec = snellcfg.runs(block)["multihead_all_bad"]
    assert (spec["model"]["cell"], spec["model"]["heads"]) == ("gru", 4)


@pytest.mark.parametrize("limit,change,key", [
    ("25", {}, "snell2021.multihead.candidates_per_round"),
    ("10", {"candidates_per_round": 9}, "snell2021.multihead.n_combos"),
])
def test_the_config_check_refuses_a_job_over_the_limit(monkeypatch, limit, change, key):
    monkeypatch.setenv(budget.LIMIT_ENV, limit)
    block = copy.deepcopy(PAPER)
    block["multihead"].update(change)
    with pytest.raises(AttnReproError, match=re.escape(key) + r": needs about .* GB of memory"):
        budget.check({"snell2021": block}, {})


def test_the_paper_configs_jobs_ask_for_the_estimate(tmp_path):
    """A dry run of config/paper.yaml up to a K-head model: both rules ask for 1.5 × their estimate."""
    target = "results/models/snell2021/multihead_random/model.pt"
    proc = snakemake("-n", target, "--configfile", str(ROOT / "config" / "paper.yaml"), cwd=tmp_path)
    need = budget.multihead_bytes(PAPER)
    for rule, job in (("snell2021_candidates", "candidates"), ("snell2021_multihead", "khead")):
        block = proc.stdout[proc.stdout.index(f"rule {rule}:"):]
        resources = re.search(r"resources: (.*)", block).group(1)
        assert f"mem_mb={memory_mb(need[job], FLOORS[job])}," in resources, (rule, resources)
