"""bench/probe_records.py: a Snell run's probe records in both forms give the same table, and the JSON
says what each form cost."""

import json
import subprocess
import sys

from tests.helpers import ROOT


def test_both_forms_of_the_records_give_one_table_and_are_timed(tmp_path):
    out = tmp_path / "records.json"
    subprocess.run([sys.executable, str(ROOT / "bench" / "probe_records.py"), "--members", "2", "--examples", "3",
                    "--length", "4", "--rounds", "1", "--out", str(out)], check=True, capture_output=True)
    r = json.loads(out.read_text())
    assert r["same_table"] and r["rows"] == 2 * 3 * 4
    assert set(r["seconds"]) == {"per_row_arrays", "arrow_lists"} and all(v > 0 for v in r["seconds"].values())
