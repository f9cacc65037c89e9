"""The options study's reader (studies/aitken2021/slice_options_arms.py, docs/deviations.md M12) on a hand-made run
directory: per-seed columns in seed order, medians, the seeds off the temporal diagonal, and the arms not yet run."""

import json
import sys

import pandas as pd
import pytest
import yaml

from tests.helpers import import_script

soa = import_script("studies/aitken2021/slice_options_arms.py")


def _summary(rhos):
    n = len(rhos)
    cols = {c: [0.5] * n for c in soa.COLUMNS}
    cols["temporal_argmax_rho"] = rhos
    return pd.DataFrame({"seed": list(range(n))[::-1], **cols})  # seeds written in reverse: the reader sorts


def test_arm_reads_seeds_in_order_and_counts_the_off_diagonal_ones():
    out = soa.arm(_summary([0.97, 0.48, 0.8, 0.79]))  # seed 3 reads 0.97 ... seed 0 reads 0.79
    assert out["seeds"] == [0, 1, 2, 3]
    assert out["temporal_argmax_rho"] == [0.79, 0.8, 0.48, 0.97]
    assert out["median"]["temporal_argmax_rho"] == pytest.approx(0.795)
    assert out["off_diagonal_seeds"] == [0, 2]  # 0.8 itself is on the diagonal (the claim asks ρ > 0.8 of the median)


def test_arm_names_a_missing_column():
    with pytest.raises(ValueError, match="readout_match"):
        soa.arm(_summary([0.9]).drop(columns="readout_match"))


def test_arms_reads_the_trained_arms_and_lists_the_rest(tmp_path):
    config = tmp_path / "options.yaml"
    config.write_text(yaml.safe_dump({"results": "res", "experiments": {"on": {}, "off": {}, "later": {}}},
                                     sort_keys=False))
    for name, rhos in (("on", [0.48, 0.97]), ("off", [0.99, 0.98])):
        (tmp_path / "run" / "res" / "analysis" / name).mkdir(parents=True)
        _summary(rhos).to_csv(tmp_path / "run" / "res" / "analysis" / name / "summary.csv", index=False)
    found, missing = soa.arms(tmp_path / "run", config)
    assert list(found) == ["on", "off"] and missing == ["later"]
    assert found["on"]["off_diagonal_seeds"] == [1] and found["off"]["off_diagonal_seeds"] == []


def test_a_later_run_adds_its_arms_to_the_committed_ones(tmp_path, monkeypatch):
    out = tmp_path / "arms.json"
    out.write_text(json.dumps({"arms": {"aed_gru_escan": {"seeds": [0, 1, 2], "off_diagonal_seeds": [1, 2],
                                                      "cpu": "earlier"}}}))
    analysis = tmp_path / "run" / "results_paper_slice_options" / "analysis" / "aed_gru_escan_default_init"
    analysis.mkdir(parents=True)
    _summary([0.99, 0.98]).to_csv(analysis / "summary.csv", index=False)
    monkeypatch.setattr(sys, "argv", ["slice_options_arms.py", "--run", str(tmp_path / "run"), "--out", str(out)])
    soa.main()
    got = json.loads(out.read_text())
    assert list(got["arms"]) == ["aed_gru_escan", "aed_gru_escan_default_init"]  # the config's order
    assert got["arms"]["aed_gru_escan"]["cpu"] == "earlier"  # kept as committed
    assert got["arms"]["aed_gru_escan_default_init"]["off_diagonal_seeds"] == []
    assert len(got["missing"]) == 5 and "aed_gru_escan_default_all" in got["missing"]
    assert got["fisher_p_against_all_on"]["aed_gru_escan_default_init"] == pytest.approx(0.4, abs=1e-4)  # 0/2 v 2/3


def test_each_arm_is_compared_with_the_all_on_arm_by_its_off_diagonal_seeds():
    found = {"aed_gru_escan": soa.arm(_summary([0.4, 0.4, 0.4, 0.4, 0.97, 0.98])),
             "aed_gru_escan_default_init": soa.arm(_summary([0.99] * 6)),
             "aed_gru_escan_default_loss": soa.arm(_summary([0.4, 0.4, 0.4, 0.4, 0.97, 0.98]))}
    assert found["aed_gru_escan"]["off_diagonal_share"][0] == pytest.approx(4 / 6, abs=1e-4)
    low, high = found["aed_gru_escan_default_init"]["off_diagonal_share"][1:]
    assert low == 0 and high == pytest.approx(0.4593, abs=1e-4)  # Clopper-Pearson 0 of 6
    p = soa.against_all_on(found)
    assert p["aed_gru_escan_default_loss"] == 1.0
    assert p["aed_gru_escan_default_init"] == pytest.approx(0.0606, abs=1e-4)  # 0/6 against 4/6: not below 0.05
    assert soa.against_all_on({"aed_gru_escan_default_init": found["aed_gru_escan_default_init"]}) == {}
