"""The scale ladder: derived experiments per point, the stacked table, and the `ladder` target at smoke scale."""

import pandas as pd
import pytest
import yaml

from attnrepro.verdicts import ladder
from attnrepro.errors import AttnReproError

from tests.helpers import core_config, job_counts, snakemake


def _config():
    cfg = core_config()
    cfg["ladder"] = {"experiments": ["aed_gru_one_to_one"], "hidden": [8, 16, 24], "steps": [20, 40, 60]}
    return cfg


def test_each_point_moves_one_axis_and_the_base_is_not_copied():
    cfg = _config()  # the base: hidden 16, 40 steps
    derived = ladder.experiments(cfg)
    assert sorted(derived) == ["aed_gru_one_to_one__h24", "aed_gru_one_to_one__h8",
                               "aed_gru_one_to_one__s20", "aed_gru_one_to_one__s60"]
    assert derived["aed_gru_one_to_one__h8"]["model"]["hidden"] == 8
    assert "steps" not in derived["aed_gru_one_to_one__h8"].get("train", {})
    short = derived["aed_gru_one_to_one__s20"]
    assert short["model"]["hidden"] == 16 and short["train"]["steps"] == 20 and short["train"]["eval_every"] == 20
    assert ladder.point_experiments(cfg, "h16") == ["aed_gru_one_to_one"]
    cfg["ladder"]["claims"] = ["no_such_claim"]
    with pytest.raises(AttnReproError, match="ladder.claims: unknown"):
        ladder.experiments(cfg)


def test_the_table_puts_the_base_on_both_axes():
    row = dict(paper="aitken2021", claim_id="c", measure="m", rule="r", reference_value=None, ci_low=0.0,
               ci_high=1.0, n=2, verdict="inconclusive")
    claims = {"base": pd.DataFrame([{**row, "experiment": "e", "measured_mean": 0.5}]),
              "h8": pd.DataFrame([{**row, "experiment": "e__h8", "measured_mean": 0.2}]),
              "s20": pd.DataFrame([{**row, "experiment": "e__s20", "measured_mean": 0.1}])}
    points = {"base": {"axis": "base", "value": None}, "h8": {"axis": "hidden", "value": 8},
              "s20": {"axis": "steps", "value": 20}}
    table = ladder.ladder_table(claims, points, {"e": {"hidden": 16, "steps": 40}})
    assert table[["axis", "hidden", "steps", "measured_mean"]].values.tolist() == [
        ["hidden", 8, 40, 0.2], ["hidden", 16, 40, 0.5], ["steps", 16, 20, 0.1], ["steps", 16, 40, 0.5]]
    assert ladder.ladder_table(claims, points, {"e": {"hidden": 16, "steps": 40}}, only=["other"]).empty


@pytest.mark.slow
def test_the_ladder_target_builds_at_smoke_scale_and_all_does_not_ask_for_it(tmp_path):
    (tmp_path / "lad.yaml").write_text(yaml.safe_dump(_config()))
    assert "ladder" not in job_counts(snakemake("-n", "--configfile", "lad.yaml", cwd=tmp_path).stdout)
    counts = job_counts(snakemake("ladder", "-n", "--configfile", "lad.yaml", cwd=tmp_path).stdout)
    assert counts["train"] == 5 and counts["ladder_claims"] == 7 and counts["ladder"] == 1
    snakemake("ladder", "--cores", "2", "--configfile", "lad.yaml", cwd=tmp_path)
    table = pd.read_csv(tmp_path / "results" / "ladder" / "ladder.csv")
    assert set(table.hidden) == {8, 16, 24} and set(table.steps) == {20, 40, 60}
    assert (table.groupby(["claim_id", "axis"]).size() == 3).all()  # three points on each axis, every claim
    assert (tmp_path / "results" / "figures" / "ladder" / "ladder.png").stat().st_size > 10_000
