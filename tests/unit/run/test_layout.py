"""attnrepro.run.layout: which table each claim reads, decided once for the rules and the CLI."""

import json

import pandas as pd
import pytest
import yaml

from tests.helpers import ROOT, with_change

from attnrepro.run import layout
from attnrepro.cli import main
from attnrepro.errors import AttnReproError

SMOKE = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
CONFIGS = {name: yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text()) for name in ("config", "paper")}


def by_experiment(sources):
    out = {}
    for s in sources:
        out.setdefault(s.experiment, []).append(s)
    return out


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_claim_sources_route_each_kind_of_experiment(name):
    cfg = CONFIGS[name]
    sources = layout.claim_sources(cfg)
    assert sources == sorted(sources, key=lambda s: (s.experiment, s.path))
    got = by_experiment(sources)
    aer = set(layout.aer_experiments(cfg))
    left = set(layout.left_out_experiments(cfg))
    assert not left & set(got)
    for name, exp in cfg["experiments"].items():
        if name in left:
            continue
        paths = [s.path for s in got[name]]
        if exp["model"]["arch"] == "transformer":  # its evaluation (the model check), and AER where it has gold
            assert sorted(paths) == sorted([f"results/analysis/{name}/evaluation.csv"]
                                           + ([f"results/analysis/{name}/aer_summary.csv"] if name in aer else []))
        else:
            aer_table = [f"results/analysis/{name}/aer_summary.csv"] if name in aer else []
            assert sorted(paths) == sorted([f"results/analysis/{name}/summary.csv", *aer_table])
            assert {(s.arch, s.cell) for s in got[name]} == {(exp["model"]["arch"], exp["model"]["cell"])}
    # the pretrained encoder's table is named after it: MiniLM offline, the downloaded one where it is pinned
    encoder = (cfg["kobayashi2020"].get("encoder") or {}).get("name", "minilm")
    assert [s.path for s in got[f"kobayashi2020_{encoder}"]] == [layout.kobayashi_summary(cfg)]
    assert any(name.startswith("snell2021_") for name in got)
    aligned = layout.aligner_gold_sets(cfg)
    for label, (gold, experiment, out_dir) in layout.aer_gold_sets(cfg).items():  # a gold set: its experiment's kind
        sources = got[label]
        if gold in aligned:  # a set that names a corpus: the aligner's AER beside each seed's (Table 3's fast_align)
            *sources, gap = sources
            assert gap.path == f"{out_dir}/aligner_gap.csv"
        *quality, s = sources
        assert s.path == f"{out_dir}/aer_summary.csv" and s.arch == cfg["experiments"][experiment]["model"]["arch"]
        assert [q.path for q in quality] == [f"results/analysis/{experiment}/evaluation.csv"] * len(quality)


def test_left_out_experiments_give_the_claims_no_table():
    cfg = json.loads(json.dumps(CONFIGS["config"]))
    cfg["claims"]["leave_out"] = {"experiments": ["aed_gru_one_to_one", "snell2021_copy_same"]}
    kept = by_experiment(layout.claim_sources(cfg))
    every = by_experiment(layout.all_claim_sources(cfg))
    assert set(every) - set(kept) == {"aed_gru_one_to_one", "snell2021_copy_same"}
    assert all(kept[name] == every[name] for name in kept)
    assert [s.experiment for s in layout.left_out_sources(cfg)] == ["aed_gru_one_to_one", "snell2021_copy_same"]


def test_a_gold_set_reads_its_own_table_with_its_experiments_kind_and_model():
    cfg = json.loads(json.dumps(CONFIGS["config"]))
    name = next(n for n, e in cfg["experiments"].items() if e["model"]["arch"] == "transformer")
    cfg.setdefault("kobayashi2020_aer", {})["gold"] = {"toy": {"experiment": name}}
    quality, s = by_experiment(layout.claim_sources(cfg))[f"{name}@toy"]
    assert quality.path == f"results/analysis/{name}/evaluation.csv"  # its model's check
    exp = cfg["experiments"][name]
    assert s.path == f"results/analysis/{name}/gold_toy/aer_summary.csv"
    assert (s.task_kind, s.arch, s.cell) == (layout.task_spec(cfg, exp["task"])["kind"], "transformer",
                                             exp["model"].get("cell", ""))


def test_claim_sources_leave_out_excluded_and_absent_blocks():
    name = next(iter(CONFIGS["config"]["experiments"]))
    cfg = {k: v for k, v in CONFIGS["config"].items() if k not in ("kobayashi2020", "snell2021")}
    got = by_experiment(layout.claim_sources(cfg, exclude={name}))
    assert name not in got and "kobayashi2020_minilm" not in got
    assert not any(n.startswith("snell2021_") for n in got)


def test_claims_cli_reads_the_sources_json(tmp_path, capsys):
    table = tmp_path / "summary.csv"
    table.write_text("seed,token_acc\n0,0.9\n1,0.8\n")
    source = {"experiment": "e", "task_kind": "one_to_one", "arch": "aed", "cell": "gru", "path": str(table)}
    out = tmp_path / "claims.csv"
    assert main(["claims", "--sources-json", json.dumps([source]), "--out", str(out)]) == 0 and out.exists()
    bad = {**source, "arch": "ao"}
    assert main(["claims", "--sources-json", json.dumps([source, bad]), "--out", str(out)]) == 2
    assert "experiment e given as ('one_to_one', 'aed', 'gru', '') and as ('one_to_one', 'ao', 'gru', '')" in \
        capsys.readouterr().err


@pytest.mark.parametrize("text, message", [
    ("{", "not JSON"),
    ('[{"experiment": "e"}]', "expected a list of objects with keys"),
    ('{"e": 1}', "expected a list of objects"),
])
def test_claim_sources_json_errors_are_one_line(text, message):
    with pytest.raises(AttnReproError, match=message):
        layout.ClaimSource.from_json(text)


def test_claims_cli_names_what_the_config_leaves_out_and_why(tmp_path):
    table = tmp_path / "summary.csv"
    table.write_text("seed,token_acc,share_mu_mu\n" + "".join(f"{i},1.0,0.9\n" for i in range(8)))
    aed = {"experiment": "aed", "task_kind": "one_to_one", "arch": "aed", "cell": "gru", "path": str(table),
           "attention": "dot"}
    ved = {**aed, "experiment": "ved", "arch": "ved", "attention": ""}
    out, md = tmp_path / "claims.csv", tmp_path / "claims.md"
    args = ["claims", "--sources-json", json.dumps([aed]), "--out", str(out), "--markdown", str(md)]
    assert main(args) == 0
    assert "one_to_one_temporal_alignment" in set(pd.read_csv(out).claim_id)
    left = json.dumps({"sources": [ved], "claims": ["one_to_one_temporal_alignment"]})
    assert main(args + ["--left-out-json", left]) == 0
    assert "one_to_one_temporal_alignment" not in set(pd.read_csv(out).claim_id)
    lines = md.read_text().splitlines()
    row = next(line for line in lines if "| one_to_one_temporal_alignment |" in line)
    assert "left out by this config (claims.leave_out.claims)" in row
    # a claim only a VED would measure: its experiment trains here for the figures only
    ved_only = [line for line in lines if "ved train here for their figures only" in line]
    assert ved_only and all("no experiment of its task" not in line for line in ved_only)
    assert main(args + ["--left-out-json", json.dumps({"claims": ["no_such_claim"]})]) == 2


def test_leave_out_names_experiments_the_claims_read_and_registered_claims():
    ok = {"experiments": ["aed_gru_one_to_one", "snell2021_copy_same"], "claims": ["copy_subset_no_seed_fails"]}
    layout.check_left_out(with_change(SMOKE, ("claims", "leave_out"), ok))
    for name in CONFIGS:  # the shipped configs' lists
        layout.check_left_out(CONFIGS[name])
    with pytest.raises(AttnReproError, match=r"claims\.leave_out\.experiments: 'aed_gru_one_to_oen' is no experiment"):
        layout.check_left_out(with_change(SMOKE, ("claims", "leave_out"), {"experiments": ["aed_gru_one_to_oen"]}))
    with pytest.raises(AttnReproError, match=r"claims\.leave_out\.claims: 'copy_subset_no_seed_fail' is no "
                                             r"registered claim"):
        layout.check_left_out(with_change(SMOKE, ("claims", "leave_out"), {"claims": ["copy_subset_no_seed_fail"]}))
