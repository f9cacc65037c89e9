"""tools/claims_by_cell.py: a claim of "the networks" holds when it holds on every cell the paper trained. Hand
claims tables of three cells (one GRU table and one LSTM + UGRNN table: a config may hold any cells),
built by the claims step's own summarize."""

import numpy as np
import pandas as pd
import pytest

from tests.helpers import import_script

from attnrepro.aitken2021.claims import CLAIMS
from attnrepro.errors import AttnReproError
from attnrepro.verdicts.claims import summarize
from attnrepro.verdicts.intervals import NOT_REPRODUCED, REPRODUCED

tool = import_script("tools/claims_by_cell.py")
CLAIM = next(c for c in CLAIMS if c.claim_id == "one_to_one_full_attention_diagonal")  # AED and AO rows, "all"
SEEDS = list(range(8))


def table(values: dict[str, float]) -> pd.DataFrame:
    """A claims table of CLAIM on the one-to-one experiments named ``{arch}_{cell}_one_to_one``, eight seeds
    scattered tightly around each value."""
    jitter = np.linspace(-1e-3, 1e-3, len(SEEDS))
    summaries = {n: pd.DataFrame({"seed": SEEDS, CLAIM.measure: np.clip(v + jitter, 0, 1)}) for n, v in values.items()}
    experiments = {n: ("one_to_one", n.split("_")[0], n.split("_")[1]) for n in values}
    return summarize(summaries, experiments, (CLAIM,))


def cells(t: pd.DataFrame) -> dict[str, str]:
    return {n: n.split("_")[1] for n in t.experiment}


def test_a_claim_holds_of_the_networks_only_on_every_cell():
    gru = table({"aed_gru_one_to_one": 0.95, "ao_gru_one_to_one": 0.95})
    others = table({"aed_lstm_one_to_one": 0.5, "ao_lstm_one_to_one": 0.95,
                    "aed_ugrnn_one_to_one": 0.95, "ao_ugrnn_one_to_one": 0.95})
    out = tool.by_cell(tool.with_cells([(cells(gru), gru), (cells(others), others)]))
    row = out.set_index("group").loc[CLAIM.claim_id]
    assert (row.verdict_gru, row.verdict_lstm, row.verdict_ugrnn) == (REPRODUCED, NOT_REPRODUCED, REPRODUCED)
    assert row.verdict == NOT_REPRODUCED and row.reproduced_on == "gru, ugrnn"
    # on every cell: reproduced
    fixed = table({"aed_lstm_one_to_one": 0.95, "ao_lstm_one_to_one": 0.95,
                   "aed_ugrnn_one_to_one": 0.95, "ao_ugrnn_one_to_one": 0.95})
    row = tool.by_cell(tool.with_cells([(cells(gru), gru), (cells(fixed), fixed)])).iloc[0]
    assert row.verdict == REPRODUCED and row.reproduced_on == "lstm, gru, ugrnn"


def test_rows_without_a_cell_are_left_out_and_a_model_counts_once():
    gru = table({"aed_gru_one_to_one": 0.95, "ao_gru_one_to_one": 0.95})
    only_aed = {"aed_gru_one_to_one": "gru"}
    rows = tool.with_cells([(only_aed, gru)])
    assert list(rows.experiment) == ["aed_gru_one_to_one"]
    with pytest.raises(AttnReproError, match="aed_gru_one_to_one"):
        tool.with_cells([(only_aed, gru), (only_aed, gru)])


def test_the_shipped_configs_map_every_slice_model_to_its_cell():
    import yaml

    from tests.helpers import ROOT

    for config, _ in tool.TABLES:
        mapping = tool.experiment_cells(yaml.safe_load((ROOT / config).read_text()))
        assert mapping and set(mapping.values()) <= {"gru", "lstm", "ugrnn"}
