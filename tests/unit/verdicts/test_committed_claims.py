"""The committed claims tables (``workflow/reference/claims_config.*`` and ``claims_paper_slice.*``): what holds of
any claims table (no decided row on a failed model, intervals inside their range), and, for a table written by
today's code, its columns, its verdict rules and its per-claim table. A table its config's run has not rewritten
since the verdict rules changed (:data:`EARLIER`) says so in workflow/reference/README.md."""

import math
import re

import pandas as pd
import pytest

from attnrepro.verdicts import claims, combine
from attnrepro.verdicts.intervals import DECIDED, NEITHER, UNDECIDABLE

from tests.helpers import ROOT

RESULTS = ROOT / "workflow" / "reference"
TABLES = ("claims_config", "claims_paper_slice")
# written by the verdict rules before the per-seed gate and the one-sided tests (the slice's next run, about 2 h on
# 2 cores, rewrites it)
EARLIER = ("claims_paper_slice",)


@pytest.fixture(params=TABLES)
def table(request) -> tuple[str, pd.DataFrame]:
    return request.param, pd.read_csv(RESULTS / f"{request.param}.csv")


@pytest.fixture(params=[t for t in TABLES if t not in EARLIER])
def todays(request) -> tuple[str, pd.DataFrame]:
    return request.param, pd.read_csv(RESULTS / f"{request.param}.csv")


def test_a_table_of_the_earlier_rules_is_named_so_and_has_their_columns():
    readme = (RESULTS / "README.md").read_text()
    for name in EARLIER:
        assert re.search(rf"`{name}\.csv`[^\n]*\n?[^\n]*earlier verdict rules", readme), name
        assert "fragile" in pd.read_csv(RESULTS / f"{name}.csv").columns, name


def test_tables_have_todays_columns(todays):
    name, df = todays
    assert list(df.columns) == claims.COLUMNS, name


def test_no_decided_row_rests_on_a_failed_model_check(table):
    name, df = table
    decided = df[df.verdict.isin(DECIDED)]
    bad = decided[decided.model_check.fillna("").str.startswith("failed")]
    assert bad.empty, f"{name}: {bad[['claim_id', 'experiment', 'model_check']].to_dict('records')}"


def test_every_minilm_row_names_its_substitute(table):
    name, df = table
    minilm = df[df.experiment.str.contains("minilm")]
    assert not minilm.empty, name
    assert minilm.tested_on.str.contains("MiniLM").all(), name
    assert minilm.size_vs_paper.isna().all(), name  # no comparison with BERT-base's number


def test_paper_numbers_are_compared_only_on_the_papers_setup(table):
    """Or where the claim is an equivalence margin around the paper's number."""
    name, df = table
    compared = df[df.size_vs_paper.notna()]
    assert ((compared.tested_on == claims.PAPER_SETUP) | (compared.threshold_from == "margin")).all(), name


def test_undecidable_rows_are_those_no_outcome_at_their_n_decides(todays):
    name, df = todays
    assert ((df.verdict == UNDECIDABLE) == (df.can_decide == NEITHER)).all(), name
    decided = df[df.verdict.isin(DECIDED)]
    p = decided.p_reproduced.where(decided.verdict == "reproduced", decided.p_not_reproduced)
    assert (p <= 0.025).all(), name  # each decided row is its one-sided test's rejection


def test_no_interval_leaves_its_measures_range(table):
    name, df = table
    for r in df[df.kind == "continuous"].itertuples():
        low, high = (float(x) for x in re.fullmatch(r"\[(.+), (.+)\]", r.range).groups())
        if not math.isnan(r.ci_low):
            assert low <= r.ci_low <= r.ci_high <= high, (name, r.claim_id, r.experiment)


def test_per_claim_table_is_the_rows_combined(todays):
    name, df = todays
    committed = pd.read_csv(RESULTS / f"{name}_by_claim.csv")
    fresh = combine.by_claim(df)
    assert list(committed.columns) == combine.BY_CLAIM_COLUMNS
    merged = committed.merge(fresh, on=["paper", "group"], suffixes=("", "_fresh"), validate="one_to_one")
    assert len(merged) == len(fresh) == len(committed), name
    assert (merged.verdict == merged.verdict_fresh).all(), name


def test_verdict_diff_covers_both_tables():
    text = (RESULTS.parents[1] / "tools" / "results" / "claims_diff.md").read_text()
    for name in TABLES:
        assert f"{name}.csv" in text
