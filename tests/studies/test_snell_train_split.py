"""studies/snell2021/snell_train_split.py (deviations.md, Snell row 21: App. A.4's Table 7 at the demo's scale): the block it
trains and the claims step's readings of its row, on hand cases."""

import copy

import pandas as pd
import pytest
import yaml

from attnrepro.errors import AttnReproError

from tests.helpers import ROOT, import_script


def demo_block() -> dict:
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["snell2021"]


def test_with_train_sample_records_on_the_rows_learned_and_uniform_runs_only():
    """200 pairs (above the demo's copy runs' n_eval of 100, which the config check bounds for every row, but within
    the classification runs' 500): the learned and uniform runs of cls_rotten_tomatoes record them, the proxy not;
    the block is not changed; beyond the runs' n_eval, or 0, is refused naming n_eval."""
    b = import_script("studies/snell2021/snell_train_split.py")
    block = demo_block()
    before = copy.deepcopy(block)
    specs, roles = b.with_train_sample(block, 200, "cls_rotten_tomatoes")
    assert block == before
    assert specs[roles["learned"]]["train_sample"] == 200 and specs[roles["uniform"]]["train_sample"] == 200
    assert "train_sample" not in specs[roles["proxy"]]
    assert specs[roles["learned"]]["train"]["n_eval"] == 500
    for n in (501, 0):
        with pytest.raises(AttnReproError, match=r"n_eval \(500\)"):
            b.with_train_sample(block, n, "cls_rotten_tomatoes")


def test_train_split_readings_are_the_claims_steps_verdicts():
    """Six seeds: Table 7's column all above 0 is reproduced, its matched-null variant straddling 0 is not decided
    (rank interval [-0.3, 0.3] at n = 6); a model below the classification gate (token_acc 0.5 < 0.6) is not
    tested. The reference is Table 7's SST 0.2182 − 0.0848."""
    b = import_script("studies/snell2021/snell_train_split.py")
    rows = pd.DataFrame({"seed": range(6), "token_acc": [0.7] * 6,
                         "A_alpha_beta_uf_train_excess": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
                         "A_alpha_beta_uf_train_excess_null": [-0.3, -0.2, -0.1, 0.1, 0.2, 0.3],
                         "A_alpha_beta_uf_excess": [0.1] * 6, "A_alpha_beta_uf_excess_null": [-0.1] * 6})
    got = {r["claim_id"]: r for r in b.train_split_readings(rows, "snell2021_cls_rotten_tomatoes")}
    train = got["classification_train_split_alpha_agrees_with_beta_uf"]
    assert train["verdict"] == "reproduced" and train["measured_mean"] == pytest.approx(0.35)
    assert (train["ci_low"], train["ci_high"]) == (0.1, 0.6) and train["n"] == 6
    assert train["reference_value"] == pytest.approx(0.2182 - 0.0848)
    null = got["classification_train_split_alpha_agrees_with_beta_uf|excess_null"]
    assert null["measure"] == "A_alpha_beta_uf_train_excess_null" and null["verdict"] == "inconclusive"
    assert got["classification_alpha_agrees_with_beta_uf"]["verdict"] == "not reproduced"
    assert got["classification_alpha_agrees_with_beta_uf|excess"]["verdict"] == "reproduced"
    weak = b.train_split_readings(rows.assign(token_acc=0.5), "snell2021_cls_rotten_tomatoes")
    assert {r["verdict"] for r in weak} == {"not tested"}
