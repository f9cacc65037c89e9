"""The numbers README.md and docs/ quote from a benchmark or a committed table, checked against it: each quoted
phrase is built here from the JSON or CSV it names and must appear, exactly, in the page that quotes it. A page
that is changed to another number, or a benchmark rerun without the page, fails here."""

import json

import pandas as pd
import pytest

from tests.helpers import ROOT

# Where committed results live: the benchmarks', the regression tools', the studies' and the reference tables the
# workflow reads (claims tables, the cost table). Every path below goes through committed().
RESULT_FOLDERS = ("bench/results", "tools/results", "studies/aitken2021/results", "studies/snell2021/results",
                  "studies/kobayashi2020/results", "workflow/reference")


def committed(name: str):
    """The committed result file ``name`` in whichever results folder holds it (the first, if several)."""
    for folder in RESULT_FOLDERS:
        if (ROOT / folder / name).exists():
            return ROOT / folder / name
    return ROOT / RESULT_FOLDERS[0] / name
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def bench(name: str) -> dict:
    return json.loads(committed(f"{name}.json").read_text())


def minutes(run: dict) -> str:
    return f"{run['wall_s'] / 60:.1f} min"


def gigabytes(mb: float) -> str:
    return f"{mb / 1000:.1f} GB"


VERDICTS = ("reproduced", "not reproduced", "inconclusive", "undecidable at this n", "not tested")
SUMMARY_ROWS = (  # (label, table, setup)
    ("demo, paper setup", "claims_config_by_claim", "paper setup"),
    ("demo, substitutes (MiniLM, Bible, ParlSpeech, …)", "claims_config_by_claim", "substitutes"),
    ("demo, not tested (model check failed)", "claims_config_by_claim", "not tested"),
    ("paper slice, paper setup", "claims_paper_slice_by_claim", "paper setup"),
    ("paper slice, substitutes (MiniLM)", "claims_paper_slice_by_claim", "substitutes"),
)


def by_claim(table: str) -> pd.DataFrame:
    claims = pd.read_csv(committed(f"{table}.csv"))
    return claims[claims.origin == "paper"]


def summary_table() -> str:
    """docs/claims.md's count of the papers' claims by verdict, from the committed per-claim tables."""
    lines = ["| the papers' claims (one verdict per claim) | " + " | ".join(VERDICTS) + " | claims |",
             "|---" * (len(VERDICTS) + 2) + "|"]
    for label, table, setup in SUMMARY_ROWS:
        rows = by_claim(table)
        rows = rows[rows.setup == setup]
        counts = rows.verdict.value_counts()
        assert set(counts.index) <= set(VERDICTS), counts
        lines.append(f"| {label} | " + " | ".join(str(counts.get(v, 0)) for v in VERDICTS) + f" | {len(rows)} |")
    return "\n".join(lines)


def percent(change: float) -> str:
    return f"{'−' if change < 0 else '+'}{abs(change) * 100:.1f}%"


def speed_table() -> list[tuple[str, str]]:
    """docs/speed.md's table of the latest benchmarks, row by row, from the JSON each row names."""
    held, calls = bench("training_time"), bench("training_time_op_calls")
    same_day, since = bench("training_time_same_day"), bench("training_time_since_filing")
    probes, copy, export = bench("probe_records"), bench("snell_copy"), bench("export_analysis")
    mins = lambda s: f"{s / 60:.1f}"  # noqa: E731
    raised = since["seeds_raised"]
    peer = copy["peer_like_same_run"]
    return [("docs/speed.md", phrase) for phrase in (
        f"| {mins(held['new_s'])} vs {mins(held['old_s'])} min ({percent(held['change'])}:",
        f"| {mins(calls['new_s'])} vs {mins(calls['old_s'])} min ({percent(calls['change'])}) while the "
        f"{calls['other_jobs']['n_jobs']} other jobs both ran, code unchanged, took {percent(calls['other_jobs']['change'])}",
        f"| {mins(same_day['new_s'])} vs {mins(same_day['old_s'])} min ({percent(same_day['change'])}:",
        f"all {same_day['models']['n_files']} model and metrics files byte-identical",
        f"| {mins(since['new_s'])} vs {mins(since['old_s'])} min ({percent(since['change'])}:",
        f"{mins(raised['new_s'])} min ({percent(raised['change'])})",
        f"({probes['rows']:,} rows of α and β)",
        f"per-row arrays {probes['seconds']['per_row_arrays']:.3f} s, Arrow lists "
        f"{probes['seconds']['arrow_lists']:.3f} s ({probes['speedup']}×, the same table)",
        f"| {mins(copy['estimated_seconds'])} min estimated",
        f"per seed {copy['speedup_vs_peer_like_same_run']:.2f}× a one-seed nn.LSTM model timed in the same run "
        f"({copy['seconds_per_seed']:.0f} vs {peer['per_seed_s']:.0f} s/seed); "
        f"{copy['arithmetic']['floor_seconds'] / copy['estimated_seconds']:.2f} of the matrix products' floor "
        f"({copy['arithmetic']['flops_per_step'] / 1e9:.0f} GFLOP per step at "
        f"{copy['arithmetic']['matmul_gflops']:.0f} GFLOP/s)",
        f"| {export['median_total_s']:.1f} s (write {export['write_mb_per_s']:.0f} MB/s) |",
    )]


def paper_cost_jobs() -> list[tuple[str, str]]:
    """The paper config's predicted jobs docs/speed.md names beside its table (the table: test_paper_cost.py)."""
    cost = bench("paper_cost")
    job = {row["job"]: row for row in cost["rows"]}
    bible, parlspeech = job["transformer_bible"], job["cls_parlspeech_learned"]
    assert cost["largest_job_by_rule"]["train"]["s"] == bible["s"]
    return [("docs/speed.md", f"The longest `train` job is `transformer_bible` ({bible['s'] / 3600:.1f} h on "
                              f"{cost['threads']} CPU threads, {gigabytes(bible['max_rss_mb'])})"),
            ("docs/speed.md", f"`cls_parlspeech_learned`, {parlspeech['s'] / 3600:.1f} h")]


def a3_spreads() -> list[tuple[str, str]]:
    """App. A.3's proxies' spread over positions at initialisation, by width, over both distributions' seeds."""
    rows = bench("snell_a3_init_spread")["rows"]

    def span(dim: int) -> str:
        start = [v for r in rows if r["dim"] == dim for v in r["beta_px_relative_spread_init"]]
        return f"{min(start):.2f}–{max(start):.2f}"

    return [("docs/claims.md", f"({span(64)} at the demo's width 64, {span(1024)} at 1024)"),
            ("docs/deviations.md", f"the start's spread is {span(64)} at 64, {span(256)} at 256, {span(1024)} at 1024")]


def slice_cost_quotes() -> list[tuple[str, str]]:
    """The predicted costs of the slice at 8 seeds and of its cells and options configs (bench/slice_cost.py), and
    the UGRNN config's measured wall time beside its prediction."""
    cost, measured = bench("slice_cost")["configs"], bench("workflow_paper_slice")
    ugrnn = bench("workflow_paper_slice_ugrnn")
    m = {key: f"{row['wall_s'] / 60:.1f}" for key, row in cost.items()}
    fits = "within" if cost["paper_slice@8"]["fits_3_h"] else "beyond"
    return [
        ("docs/claims.md", f"calibrated on the slice's own train jobs and its measured {minutes(measured)}): the slice "
                           f"at 8 seeds **{m['paper_slice@8']} min**, {fits} one run of 3 hours; the LSTM config "
                           f"{m['paper_slice_lstm@6']} min at 6 seeds ({m['paper_slice_lstm@8']} at 8), the UGRNN "
                           f"config {m['paper_slice_ugrnn@6']} min ({m['paper_slice_ugrnn@8']} at 8); the options "
                           f"config {m['paper_slice_options@6']} min at 6 seeds ({m['paper_slice_options@8']} at 8)"),
        ("config/README.md", f"UGRNN run on 2026-12-02 in {minutes(ugrnn)} on {ugrnn['cores']} cores "
                             "(`bench/results/workflow_paper_slice_ugrnn.json`; "
                             f"predicted {m['paper_slice_ugrnn@6']}); "
                             f"LSTM not run, predicted {m['paper_slice_lstm@6']} min"),
        ("config/README.md", f"predicted {m['paper_slice_options@6']} min (`bench/results/slice_cost.json`)"),
    ]


def slice_ugrnn_quotes() -> list[tuple[str, str]]:
    """docs/claims.md: the eSCAN medians of the slice's recipe on UGRNN (claims_paper_slice_ugrnn.csv)."""
    rows = by_claim("claims_paper_slice_ugrnn").set_index(["claim_id", "experiment"]).measured_mean
    med = {key: f"{value:.2f}" for key, value in rows.items()}
    aed, ao = "aed_ugrnn_escan", "ao_ugrnn_escan"
    share, three = "escan_mu_mu_share", "escan_three_term_share"
    return [("docs/claims.md", f"μ·μ {med[share, aed]}, {med[share, ao]}, three-term {med[three, aed]}, "
                               f"{med[three, ao]}, AED variance drop {med['escan_variance_drop_aed', aed]}, "
                               "all below the paper as on GRU")]


def slice_options_quotes() -> list[tuple[str, str]]:
    """docs/deviations.md M12: each arm's seeds off the temporal diagonal, and the initialisation's readings."""
    arms = bench("slice_options_arms")["arms"]
    off = {name: f"{len(a['off_diagonal_seeds'])} of {len(a['seeds'])}" for name, a in arms.items()}
    seeds = ", ".join(map(str, arms["aed_gru_escan"]["off_diagonal_seeds"]))
    rho = arms["aed_gru_escan_default_all"]["temporal_argmax_rho"]
    assert len(set(rho)) == 1  # every seed of the all-off arm reads one ρ: the page quotes it once
    a = "aed_gru_escan_default_"
    return [("docs/deviations.md",
             f"all on {off['aed_gru_escan']} (seeds {seeds}); first input back to `<sos>` {off[a + 'first_input']}; "
             f"PyTorch's initialisation {off[a + 'init']}; encoder start at zeros {off[a + 'initial_state']}; "
             f"a read-out bias {off[a + 'readout_bias']}; the real-token loss {off[a + 'loss']}; "
             f"all off {off[a + 'all']} (ρ {rho[0]} on every seed"),
            ("docs/deviations.md", f"{arms[a + 'init']['median']['variance_drop']:.2f} / "
                                   f"{arms[a + 'all']['median']['variance_drop']:.2f} with PyTorch's")]


def quotes() -> list[tuple[str, str]]:
    """(page, phrase): every benchmark or table number a page quotes, as the page writes it."""
    default, smoke, paper_slice = bench("workflow_config"), bench("workflow_smoke"), bench("workflow_paper_slice")
    identical = bench("byte_identical_smoke")
    first = bench("first_look")  # the README's first command on a fresh clone
    by_suffix = identical["compared_by_suffix"]
    slice_rows = by_claim("claims_paper_slice_by_claim")
    decided = slice_rows[(slice_rows.setup == "paper setup")
                         & slice_rows.verdict.isin(["reproduced", "not reproduced"])]
    # at 6 replicates the rank interval's depth is 1: a decision needs all six on its side (swing 1)
    slice_table = pd.read_csv(committed("claims_paper_slice.csv"))
    basis = slice_table[slice_table.group.isin(decided.group)]
    assert (basis.n == 6).all() and (basis.interval == "rank").all()
    default_run = (f"{default['n_jobs']} jobs then) took {minutes(default)} on {default['cores']} cores "
                   f"(largest job {gigabytes(default['peak_job_rss_mb'])})")
    return [
        ("README.md", default_run),
        ("README.md", f"{smoke['wall_s']} s on {smoke['cores']} cores"),
        ("README.md", f"took {minutes(first)} on {first['cores']} cores: {first['install_s']} s to install, "
                      f"{first['smoke_s']} s to run (`bench/results/first_look.json`"),
        ("config/README.md", f"{smoke['wall_s']} s (`bench/results/workflow_smoke.json`)"),
        ("config/README.md", f"{minutes(default)} (`bench/results/workflow_config.json`)"),
        ("config/README.md", f"{minutes(paper_slice)} (`bench/results/workflow_paper_slice.json`)"),
        ("docs/speed.md", f"({default['n_jobs']} jobs; `workflow_config.json`) | {minutes(default)}, largest job "
                          f"{gigabytes(default['peak_job_rss_mb'])}"),
        ("docs/speed.md", f"| smoke workflow, `--cores {smoke['cores']}` (`workflow_smoke.json`) | "
                          f"{minutes(smoke)} |"),
        *speed_table(),
        *paper_cost_jobs(),
        *a3_spreads(),
        *slice_cost_quotes(),
        *slice_options_quotes(),
        *slice_ugrnn_quotes(),
        ("docs/claims.md", f"**{minutes(paper_slice)} on {paper_slice['cores']} cores**"),
        ("docs/claims.md", f"({paper_slice['n_jobs']} jobs; largest job {gigabytes(paper_slice['peak_job_rss_mb'])}, "
                           f"`{paper_slice['peak_job']}`"),
        ("docs/claims.md", summary_table()),
        ("docs/claims.md", f"all {len(decided)} of the slice's decided paper-setup claims rest on rows of 6 seeds"),
        ("docs/failures.md", f"{identical['identical']} of {identical['compared']} files identical — "
                             f"{by_suffix['.parquet']} Parquet, {by_suffix['.csv']} CSV, {by_suffix['.pdf']} PDF, "
                             f"{by_suffix['.png']} PNG, {by_suffix['.pt']} `.pt`"),
    ]


@pytest.mark.parametrize("page, phrase", quotes(), ids=lambda x: x[:60])
def test_page_quotes_the_benchmark(page, phrase):
    text = " ".join((ROOT / page).read_text().split())
    assert " ".join(phrase.split()) in text, f"{page} lacks (or has another number in) {phrase!r}"


# results a page names as what a prepared command will write, not yet run: bench/gpu.py collect, after a GPU run
NOT_YET_MEASURED = {"gpu.json"}
PAGES = [README, ROOT / "config" / "README.md", *sorted(DOCS.glob("*.md")),
         *sorted((ROOT / "src" / "attnrepro").glob("*/README.md"))]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_lead_to_files(page):
    """Every relative link of a page (a merged or moved page leaves dead ones) names a file of the repository."""
    import re

    dead = [target for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text())
            if "://" not in target and not (page.parent / target).exists()]
    assert not dead, dead


def test_every_benchmark_the_docs_name_exists():
    """A result file a page names (under bench/results/, tools/results/, studies/<paper>/results/ or
    workflow/reference/) is committed there (a renamed or moved result is a dead reference)."""
    import re

    missing = []
    for page in PAGES:
        pattern = r"(" + "|".join(map(re.escape, RESULT_FOLDERS)) + r")/([\w.\-{},*]+)"
        for folder, name in re.findall(pattern, page.read_text()):
            name = name.rstrip(".,")
            if any(c in name for c in "{*") or name in NOT_YET_MEASURED:
                continue
            if not (ROOT / folder / name).exists():
                missing.append(f"{page.relative_to(ROOT)}: {folder}/{name}")
    assert not missing, missing


def wing_names(wing: str) -> tuple[set[str], set[str]]:
    """The claim ids and figure names a wing registers (the background post's claims live in Aitken's wing)."""
    import importlib

    from attnrepro.verdicts.papers import CLAIMS

    papers = {"aitken2021": {"aitken2021", "blog003"}}.get(wing, {wing})
    panels = importlib.import_module(f"attnrepro.{wing}.panels")
    figures = set()
    for registry in ("PANELS", "FIGURES", "NMT_FIGURES", "SOFT_FIGURES"):
        figures |= set(getattr(panels, registry, {}))
    return {c.claim_id for c in CLAIMS if c.paper in papers}, figures


@pytest.mark.parametrize("wing", ["aitken2021", "kobayashi2020", "snell2021"])
def test_wing_readme_names_every_claim_and_figure(wing):
    """A wing's README lists each claim and figure its registries hold, by name (a new one is documented there)."""
    text = (ROOT / "src" / "attnrepro" / wing / "README.md").read_text()
    claims, figures = wing_names(wing)
    missing = sorted(n for n in claims | figures if f"`{n}`" not in text)
    assert not missing, missing
