"""studies/snell2021/snell_paper_claims.py: the paper-scale copy block's committed tables from a run directory."""

from tests.helpers import import_script


def test_merged_failure_curves_replace_the_runs_a_new_directory_holds():
    import pandas as pd

    snell_paper_claims = import_script("studies/snell2021/snell_paper_claims.py")

    old = pd.DataFrame({"run": ["copy_same"] * 2 + ["copy_subset"] * 2, "step": [1, 191] * 2,
                        "n_seeds": 20, "n_below": [20, 0, 20, 0]})
    new = pd.DataFrame({"run": ["copy_same", "copy_same_uniform"], "step": [191, 191], "n_seeds": 20,
                        "n_below": [3, 20]})
    got = snell_paper_claims.merged(old, new)
    assert got.run.tolist() == ["copy_subset", "copy_subset", "copy_same", "copy_same_uniform"]
    assert got[got.run == "copy_same"].n_below.tolist() == [3]
