"""The paper config's predicted cost: the README's table and the cluster resources come from the
committed measurement (workflow/reference/paper_cost.json), and the prediction is the arithmetic it says it is."""

import json

import pytest
import yaml

from tests.helpers import ROOT, import_script

from attnrepro.run.cluster import read_resources
from attnrepro.errors import AttnReproError

paper_cost = import_script("bench/paper_cost.py")

COST = json.loads((ROOT / "workflow" / "reference" / "paper_cost.json").read_text())
RESOURCES = read_resources(ROOT / "workflow" / "resources.yaml")
DEFAULTS = yaml.safe_load((ROOT / "slurm" / "config.yaml").read_text())["default-resources"]
PAPER = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())


def test_readme_cost_table_is_the_committed_measurement():
    readme = (ROOT / "docs" / "speed.md").read_text()  # the cost narrative (the README links it)
    for line in paper_cost.summary_lines(COST):
        assert line in readme, f"docs/speed.md lacks (or has another number in) the line {line!r}"


def test_cost_table_covers_the_paper_config():
    cfg = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    trained = {r["job"] for r in COST["rows"] if r["rule"] == "train"}
    assert trained == set(cfg["experiments"])
    measured = [r for r in COST["rows"] if r["rule"] == "train" and r["s"] is not None]
    assert len(measured) >= 40  # every shape but those whose corpus needs a download
    assert all(r["s"] > 0 and r["max_rss_mb"] > 0 for r in measured)
    assert {r["rule"] for r in COST["rows"]} >= {"train", "snell2021_train", "export", "analysis",
                                                 "kobayashi2020/cache"}


@pytest.mark.parametrize("rule", sorted(COST["largest_job_by_rule"]))
def test_cluster_resources_cover_the_measured_jobs(rule):
    """Memory ≥ 1.5 × the largest job's peak; runtime over the first two attempts (1× + 2×) ≥ its predicted time
    on 2 CPU threads (workflow/resources.yaml's own rule)."""
    largest = COST["largest_job_by_rule"][rule]
    need = RESOURCES.get(paper_cost.RESOURCE_RULE.get(rule, ""))
    resource_rule = paper_cost.RESOURCE_RULE.get(rule, "")
    mem_mb = paper_cost.requested_mb(resource_rule, PAPER, need["mem_mb"]) if need else DEFAULTS["mem_mb"]
    runtime = need["runtime"] if need else 60  # the profile's default
    assert mem_mb >= 1.5 * largest["max_rss_mb"], f"{rule}: {mem_mb} MB for a {largest['max_rss_mb']:.0f} MB job"
    assert 3 * runtime * 60 >= largest["s"], f"{rule}: {runtime} min per attempt for a {largest['s']:.0f} s job"


def test_resources_are_at_least_what_the_measurement_needs():
    for rule, need in paper_cost.needed_resources(COST).items():
        assert rule in RESOURCES, f"workflow/resources.yaml lacks the measured rule {rule}"
        mem_mb = paper_cost.requested_mb(rule, PAPER, RESOURCES[rule]["mem_mb"])
        assert mem_mb >= need["mem_mb"] and RESOURCES[rule]["runtime"] >= need["runtime"], rule


def test_config_sized_rules_ask_for_the_estimate_on_the_paper_config_and_the_floor_on_the_demo():
    """Fig. 6's rules: config/paper.yaml's round and K-head job ask for more than resources.yaml's floor (their
    measured peaks, 18 GB and 12.7 GB, exceed it); the demo's stay at the floor."""
    demo = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    for rule in paper_cost.SIZED_BY_CONFIG:
        floor = RESOURCES[rule]["mem_mb"]
        assert paper_cost.requested_mb(rule, PAPER, floor) > floor
        assert paper_cost.requested_mb(rule, demo, floor) == floor
    assert paper_cost.requested_mb("train", PAPER, 1234) == 1234


def test_needed_resources_round_up_memory_and_split_time_over_two_attempts():
    cost = {"largest_job_by_rule": {"train": {"s": 3 * 60 * 31, "max_rss_mb": 1000.0},
                                    "figures": {"s": 1.0, "max_rss_mb": 1.0}}}
    assert paper_cost.needed_resources(cost) == {"train": {"mem_mb": 2048, "runtime": 60}}


def test_profile_runtime_default_is_sixty_minutes_on_every_attempt():
    """A retry never asks for more time: long runs continue in segments instead."""
    assert str(DEFAULTS["runtime"]).replace(" ", "") == "60"


def test_cost_rows_multiply_steps_by_the_measured_step_and_scale_by_seeds():
    exp = {"task": "t", "model": {"arch": "aed", "cell": "gru", "hidden": 8}, "train": {"steps": 100}}
    cfg = {"seeds": [0, 1, 2, 3], "tasks": {"t": {"kind": "one_to_one"}}, "train": {}, "experiments": {"e": exp}}
    slice_cfg = {"seeds": [0, 1], "tasks": cfg["tasks"], "train": {}, "experiments": {"e": {**exp, "train": {"steps": 10}}}}
    key = paper_cost.shape(cfg, "e")
    steps = {"threads": 2, "shapes": {key: {"s_per_step": 0.5, "max_rss_mb": 100.0}}}
    jobs = {"jobs": [{"job": "train/e/s0-1", "s": 6.0, "max_rss_mb": 90.0},  # 10 steps × 0.5 s × overhead 1.2
                     {"job": "export/e/s0-1", "s": 3.0, "max_rss_mb": 50.0},
                     {"job": "kobayashi2020/cache", "s": 7.0, "max_rss_mb": 900.0}]}
    rows, factor = paper_cost.cost_rows(cfg, slice_cfg, steps, jobs)
    by = {(r["rule"], r["job"]): r for r in rows}
    assert factor == pytest.approx(1.2)
    assert by[("train", "e")]["s"] == pytest.approx(100 * 0.5 * 1.2)
    assert by[("export", "each")]["s"] == pytest.approx(3.0 * 2)  # twice the seeds
    assert by[("kobayashi2020/cache", "each")]["max_rss_mb"] == 900.0


def test_resources_file_errors_name_the_key(tmp_path):
    path = tmp_path / "resources.yaml"
    path.write_text("train: {mem_mb: 4000, runtime: -1}\n")
    with pytest.raises(AttnReproError, match=r"resources.yaml: train.runtime: expected a positive integer"):
        read_resources(path)
    path.write_text("train: {mem_mb: 4000}\n")
    with pytest.raises(AttnReproError, match="train: expected exactly the keys mem_mb and runtime"):
        read_resources(path)
