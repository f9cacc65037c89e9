"""The smoke config end to end with Snakemake in a temporary directory (marked slow; CI runs it)."""

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest

from tests.helpers import CORE_EXPERIMENTS, core_config, job_counts, snakemake

from attnrepro.aitken2021.panels import FIGURES as AITKEN_FIGURES

pytestmark = pytest.mark.slow

STAGES = ["data", "train", "export", "analyze", "figure_aitken2021", "claims", "all"]


def test_dry_run_lists_every_stage_in_order(smoke_run):
    _, dry = smoke_run
    counts = job_counts(dry)
    assert [s for s in STAGES if s in counts] == STAGES
    # twelve recurrent experiments and one Transformer, both seeds stacked in one job; the Transformer is evaluated
    # and read by Kobayashi's AER instead of exported
    assert counts["train"] == 13 and counts["export"] == 12 and counts["evaluate"] == 1
    assert counts["kobayashi2020_cache"] == 1 and counts["kobayashi2020_aer"] == 2  # the smoke runs every paper
    assert counts["figure_aitken2021"] == len(AITKEN_FIGURES)


@pytest.mark.parametrize("name", sorted(AITKEN_FIGURES))
def test_figures_exist_and_are_not_blank(smoke_run, name):
    work, _ = smoke_run
    png = work / "results" / "figures" / "aitken2021" / f"{name}.png"
    pdf, csv = png.with_suffix(".pdf"), png.with_suffix(".csv")
    assert png.stat().st_size > 5_000 and pdf.stat().st_size > 5_000
    assert len(pd.read_csv(csv)) > 0  # the numbers behind it
    img = mpimg.imread(png)
    assert img.shape[0] > 150 and img.shape[1] > 150
    assert img[..., :3].std() > 0.05  # something is drawn
    assert (img[..., :3].reshape(-1, 3).round(1) != 1).any(axis=1).mean() > 0.02


def test_claims_row_has_a_verdict(smoke_run):
    work, _ = smoke_run
    claims = pd.read_csv(work / "results" / "claims.csv")
    row = claims[claims.claim_id == "one_to_one_temporal_alignment"].iloc[0]
    assert row.paper == "aitken2021" and row.n == 2 and row.unit == "seed" and row.origin == "paper"
    assert 0 < row.measured_mean < 1 and row.interval == "rank" and row.range == "[0, 1]"
    assert row.ci_low <= row.measured_mean <= row.ci_high  # two seeds: the interval is the measure's range
    assert row.verdict in {"undecidable at this n", "not tested"} and isinstance(row.model_check, str)
    by_claim = pd.read_csv(work / "results" / "claims_by_claim.csv")
    assert set(by_claim.group) == set(claims.group) and by_claim.verdict.notna().all()
    assert row.quote.startswith("the alignment in (3)")


def test_every_rule_logged_and_benchmarked(smoke_run):
    work, _ = smoke_run
    logs = list((work / "results" / "logs").rglob("*.log"))
    benches = list((work / "results" / "benchmarks").rglob("*.tsv"))
    assert len(logs) >= 9 and len(benches) >= 9
    train_log = (work / "results" / "logs" / "train" / "aed_gru_one_to_one" / "s0-1.log").read_text()
    assert "aed_gru_one_to_one  step 20/40  " in train_log and "final token accuracy" in train_log  # progress and summary


def test_metrics_and_activations_are_plain_parquet(smoke_run):
    work, _ = smoke_run
    metrics = pd.read_csv(work / "results" / "models" / "aed_gru_one_to_one" / "s0-1" / "metrics.csv")
    assert set(metrics.seed) == {0, 1} and metrics.step.max() == 40
    enc = pd.read_parquet(work / "results" / "activations" / "aed_gru_one_to_one" / "s0-1" / "encoder.parquet")
    assert np.stack(enc.h.to_numpy()).shape == (len(enc), 16)


def test_rerun_has_nothing_to_do(smoke_run):
    work, _ = smoke_run
    proc = snakemake("-n", "--configfile", "smoke.yaml", cwd=work)
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_one_figure_reruns_alone(smoke_run):
    work, _ = smoke_run
    proc = snakemake("-n", "results/figures/aitken2021/fig2a.png", "--forcerun",
                     "results/figures/aitken2021/fig2a.png", "--configfile", "smoke.yaml", cwd=work)
    assert job_counts(proc.stdout) == {"figure_aitken2021": 1}


def test_report_builds(smoke_run):
    work, _ = smoke_run
    snakemake("--configfile", "smoke.yaml", "--report", "results/report.html", cwd=work, timeout=300)
    html = (work / "results" / "report.html").read_text(errors="ignore")
    for name in ("fig2a.png", "fig5a.png", "bottleneck.png", "claims.csv"):
        assert name in html, name


def test_lint_is_clean(root, tmp_path):
    """Nothing but the per-rule software environments, which the workflow does not use: one environment, built
    from the lock, runs every rule (README, "On a cluster")."""
    import re

    proc = snakemake("--lint", cwd=root, check=False)
    out = proc.stdout + proc.stderr
    lints = re.findall(r"^    \* (.+?):$", out, flags=re.M)
    assert set(lints) <= {"Specify a conda environment or container for each rule."}, out
    assert proc.returncode == 0 or lints, out


def test_one_figure_builds_from_a_clean_results(tmp_path):
    core_config(tmp_path)
    snakemake("results/figures/aitken2021/fig5a.png", "--cores", "2", "--configfile", "core.yaml", cwd=tmp_path,
              timeout=600)
    made = {p.relative_to(tmp_path / "results").as_posix() for p in (tmp_path / "results").rglob("*") if p.is_file()}
    assert {"figures/aitken2021/fig5a.png", "figures/aitken2021/fig5a.pdf", "figures/aitken2021/fig5a.csv"} <= made
    assert not any(m.startswith("figures/aitken2021/fig5b") or m == "claims.csv" for m in made)  # only what it needs
    shares = pd.read_csv(tmp_path / "results" / "figures" / "aitken2021" / "fig5a.csv")
    from attnrepro.aitken2021.decomposition import TERMS
    assert set(shares.experiment) == set(CORE_EXPERIMENTS)
    # the three parts drawn, the stack's inner edge their bars sit on ("three": μ·μ and the input terms), and every
    # term's share and map agreement
    assert set(shares.part) == {"mu_mu", "mu_input", "other", "three",
                                *(f"{p}_{t}" for p in ("term", "agree") for t in TERMS)}


def test_cores_do_not_change_the_claims(tmp_path):
    """`--cores` caps Snakemake's {threads}, not torch's: the rules take torch's threads from the config, whose
    value sets the order of every sum and so the weights. Two threads per job, run under --cores 1 and 2."""
    import yaml

    claims = {}
    for cores in ("1", "2"):
        work = tmp_path / f"cores{cores}"
        work.mkdir()
        cfg = core_config()
        cfg["threads"] = 2
        (work / "core.yaml").write_text(yaml.safe_dump(cfg))
        snakemake("results/claims.csv", "--cores", cores, "--configfile", "core.yaml", cwd=work, timeout=600)
        claims[cores] = (work / "results" / "claims.csv").read_text()
    assert claims["1"] == claims["2"]
