"""Snell et al. 2021 in the workflow: the config block, its checks, the dry run, and the smoke run's outputs."""

import copy

import matplotlib.image as mpimg
import pandas as pd
import pytest
import yaml

from attnrepro.run import config as cfglib
from attnrepro.errors import AttnReproError
from attnrepro.snell2021 import config as snellcfg
from attnrepro.snell2021.validation import check as snell_check
from tests.helpers import ROOT, job_counts, snakemake

FIGURES = ["fig2", "fig3", "fig3_failures", "sec6_2", "fig4", "fig6", "fig7", "table2", "table10"]


def smoke_config():
    return yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())


@pytest.mark.parametrize("path,value,message", [
    (("copy", "subset_words"), 5, "subset_words"),
    (("fail_below",), 0.99, "fail_below"),
    (("seeds",), [0, 0], "repeated seed"),
    (("multihead", "heads"), 1, "heads"),
    (("multihead", "judge_step"), 1000, "judge_step"),
    (("translation", "train"), {"eval_every": 100}, "eval_every"),
    (("table2", "proxy", "train"), {"n_eval": 3}, "n_eval"),
    (("table2", "train_sample"), -1, r"snell2021\.table2\.train_sample: -1 is not a number of training pairs"),
    (("table2", "train_sample"), 17, r"snell2021\.table2\.train_sample \(17\) exceeds the n_eval \(16\)"),
])
def test_cross_field_checks_name_the_key(path, value, message):
    with pytest.raises(AttnReproError, match=message):
        cfglib.check(smoke_with(path, value))


def smoke_with(path: tuple[str, ...], value) -> dict:
    """A copy of the smoke config whose ``snell2021`` key at ``path`` is ``value``."""
    cfg = copy.deepcopy(smoke_config())
    block = cfg["snell2021"]
    for key in path[:-1]:
        block = block[key]
    block[path[-1]] = value
    return cfg


@pytest.mark.parametrize("path,value,message", [
    (("table2", "train_sample"), -1, r"'snell2021\.table2\.train_sample': -1 is out of range; it must be at least 0"),
    (("table2", "train_sample"), 2.5, r"'snell2021\.table2\.train_sample': 2\.5 is not an integer"),
    (("translation", "bleu_curve"), "yes", r"'snell2021\.translation\.bleu_curve': 'yes' is not true or false"),
])
def test_the_schema_names_app_a4_keys(path, value, message):
    from attnrepro.run.validation import validate

    with pytest.raises(AttnReproError, match=message):
        validate(smoke_with(path, value), ROOT / "workflow" / "schemas" / "config.schema.yaml")


def test_app_a4_records_go_to_the_runs_that_table_2_reads_and_only_when_on():
    block = copy.deepcopy(smoke_config()["snell2021"])
    off = snellcfg.runs(block)
    assert not any({"train_sample", "bleu_curve"} & set(spec) for spec in off.values())   # specs as before
    block["table2"]["train_sample"] = 16
    block["translation"]["bleu_curve"] = True
    on = snellcfg.runs(block)
    changed = sorted(name for name in on if on[name] != off[name])
    assert changed == ["cls_rotten_tomatoes_learned", "cls_rotten_tomatoes_uniform", "copy_subset",
                       "copy_subset_uniform", "mt_bible_learned", "mt_bible_uniform"]
    assert on["mt_bible_learned"]["bleu_curve"] and "bleu_curve" not in on["mt_bible_uniform"]
    assert "bleu_curve" not in on["cls_rotten_tomatoes_learned"]
    analyses = snellcfg.analyses(block)
    assert analyses["mt_bible"]["bleu_curve"] and analyses["cls_rotten_tomatoes"]["train_sample"] == 16
    assert "bleu_curve" not in analyses["table2"] and analyses["table2"]["train_sample"] == 16
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())["snell2021"]
    assert paper["table2"]["train_sample"] > 0 and paper["translation"]["bleu_curve"]
    paper_runs = snellcfg.runs(paper)
    eq32 = [name for name in paper_runs if name.endswith("_eq32")]  # App. A.1's copies of the learned runs
    assert eq32 and not any({"train_sample", "bleu_curve"} & set(paper_runs[name]) for name in eq32)
    assert all(paper_runs[f"mt_{n}_learned"]["bleu_curve"] for n in paper["translation"]["sets"])


def test_every_config_resolves_its_jobs():
    for name in ("config", "paper", "smoke"):
        block = yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())["snell2021"]
        snell_check(block)
        runs = snellcfg.runs(block)
        assert {"copy_same", "copy_subset", "copy_mixture", "copy_permute", "copy_subset_uniform"} <= set(runs)
        assert all(runs[f"{r}_uniform"]["model"]["attention"] == "uniform" for r in block["copy"]["uniform"])
        assert runs["copy_same"]["data"]["n_words"] == block["copy"]["length"]
        assert runs["copy_permute"]["data"]["kind"] == "permutation_function"
        assert runs["multihead_all_bad"]["data"]["n_words"] == block["copy"]["length"]
        # a comparison run starts from its own initialisation; every run's training block is complete
        assert [m[0] for m in runs["copy_subset_uniform"]["members"]] == [s + 10_000 for s in block["seeds"]]
        assert all(set(r["train"]) >= {"steps", "lr", "grad_clip", "n_eval"} for r in runs.values())
        assert all(r["divergence"] == "freeze" for n, r in runs.items() if n.startswith(("copy_", "multihead_"))
                   and not n.endswith("proxy"))
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())["snell2021"]
    assert (paper["copy"]["length"], paper["copy"]["hidden"], paper["copy"]["subset_words"]) == (40, 256, 60)
    assert len(paper["seeds"]) == 20 and paper["train"]["grad_clip"] is None   # the authors do not clip


def test_dry_run_lists_the_snell_jobs(tmp_path):
    (tmp_path / "smoke.yaml").write_text((ROOT / "config" / "smoke.yaml").read_text())
    counts = job_counts(snakemake("-n", "--configfile", "smoke.yaml", cwd=tmp_path).stdout)
    # copy: four runs + copy_same uniform + Table 2's uniform run and proxy + App. A.3's proxies on copy_same and
    # copy_mixture; keyword; classification: three attention modes + proxy; translation: two + proxy
    assert counts["snell2021_train"] == 9 + 1 + 4 + 3
    assert counts["snell2021_candidates"] == 1 and counts["snell2021_multihead"] == 3
    assert counts["snell2021_export"] == 3                       # the learned run of each Table 2 row
    assert counts["snell2021_analyze_copy"] == 5 and counts["snell2021_analyze_table2"] == 3
    assert counts["snell2021_analyze_multihead"] == counts["snell2021_analyze_keyword"] == 1
    assert counts["snell2021_analyze_counts"] == 1
    assert counts["snell2021_figure"] == len(FIGURES)  # every figure and table, Table 10 included (a classification set)


def test_paper_config_follows_the_authors_code():
    """What config/paper.yaml's Snell runs are (docs/deviations.md, Snell section)."""
    block = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())["snell2021"]
    runs = snellcfg.runs(block)
    copy = runs["copy_same"]
    assert copy["model"]["score_bias"] and copy["train"]["steps"] == 200
    assert max(copy["train"]["eval_at"]) == 191 and snellcfg.analyses(block)["copy_same"]["judge_step"] == 191
    mh = runs["multihead_one_good"]
    assert (mh["model"]["cell"], mh["model"]["shared_embedding"], mh["model"]["heads_combine"]) == ("gru", False, "mean")
    assert mh["train"]["eval_every"] == 10 and mh["train"]["n_eval"] == 400
    # the authors' last K-head reading, before the update at step 190: after 190 updates, an evaluation we make
    assert mh["multihead"]["judge_step"] == 190 == snellcfg.analyses(block)["multihead"]["judge_step"]
    assert 190 % mh["train"]["eval_every"] == 0 and mh["train"]["steps"] == 200
    assert runs["mt_iwslt14_learned"]["model"]["type"] == "translation"
    assert runs["mt_iwslt14_learned"]["train"]["steps"] == 300_000
    assert runs["cls_imdb_learned"]["model"]["embed"] == 300 and runs["cls_imdb_learned"]["data"]["bos_eos"]
    assert runs["cls_imdb_proxy"]["model"]["bias"] and runs["cls_imdb_proxy"]["train"]["lr"] == 5e-5
    assert runs["cls_sst_proxy"]["train"]["lr"] == 1.5e-4 and "proxy_train" not in runs["cls_imdb_learned"]["data"]


def test_fig6_marks_the_multihead_judge_step_as_fig3_failures_marks_the_copy_one():
    """Fig. 6 draws a dotted line where the heads are labelled and the K-head models judged (multihead.judge_step:
    190 in config/paper.yaml), none where the config reads the last evaluation (config/smoke.yaml)."""
    import matplotlib.pyplot as plt

    from attnrepro.snell2021.panels import FIGURES

    combos = ("all_bad", "one_good", "random")
    curves = pd.DataFrame([{"combo": c, "member": 0, "step": s, "token_acc": a, "diverged": False}
                           for c in combos for s, a in ((0, 0.1), (200, 0.97))])
    tables = {"curves.parquet": curves, "candidates.parquet": pd.DataFrame({"label": ["good", "bad"]}),
              **{f"summary_{c}.csv": pd.DataFrame({"combo": [c], "success": [1.0]}) for c in combos}}
    for cfg, want in ((yaml.safe_load((ROOT / "config" / "paper.yaml").read_text()), [190]), (smoke_config(), [])):
        spec = snellcfg.figure_spec(cfg["snell2021"])
        fig, _ = FIGURES["fig6"].draw(lambda analysis, file: tables[file], spec)
        vertical = [line.get_xdata()[0] for line in fig.axes[0].lines if len(set(line.get_xdata())) == 1]
        assert spec["multihead_judge_step"] == (want[0] if want else None) and vertical == want
        plt.close(fig)


def test_translation_sets_must_be_prepared_data():
    cfg = copy.deepcopy(smoke_config())
    cfg["snell2021"]["translation"]["sets"]["nowhere"] = {"test_seed": 0}
    with pytest.raises(AttnReproError, match="'nowhere' is neither a task nor a corpus"):
        cfglib.check(cfg)


def test_without_the_block_there_are_no_snell_jobs(tmp_path):
    cfg = smoke_config()
    del cfg["snell2021"]
    (tmp_path / "nosnell.yaml").write_text(yaml.safe_dump(cfg))
    counts = job_counts(snakemake("-n", "--configfile", "nosnell.yaml", cwd=tmp_path).stdout)
    assert not any(rule.startswith("snell2021") for rule in counts)


@pytest.mark.slow
def test_smoke_run_draws_every_snell_figure(smoke_run):
    work, _ = smoke_run
    for name in FIGURES:
        png = work / "results" / "figures" / "snell2021" / f"{name}.png"
        assert png.with_suffix(".pdf").stat().st_size > 3_000
        img = mpimg.imread(png)
        assert img[..., :3].std() > 0.05


@pytest.mark.slow
def test_smoke_run_summaries_and_claims(smoke_run):
    work, _ = smoke_run
    res = work / "results" / "analysis" / "snell2021"
    s = pd.read_csv(res / "copy_same" / "summary.csv")
    assert sorted(s.seed) == [0, 1] and {"final_acc", "failed", "steps_to_good", "diverged"} <= set(s.columns)
    failures = pd.read_csv(work / "results" / "figures" / "snell2021" / "fig3_failures.csv")
    assert list(failures.columns) == ["run", "step", "n_seeds", "n_below"] and "copy_same" in set(failures.run)
    assert (failures.n_below <= failures.n_seeds).all() and (failures.n_seeds <= 2).all()
    curves = pd.read_parquet(res / "copy_same_uniform" / "curves.parquet")
    assert curves.step.max() == 6 and set(curves.seed) == {10_000, 10_001}
    probes = pd.read_parquet(work / "results" / "models" / "snell2021" / "copy_subset" / "probes.parquet")
    assert sorted(probes.step.unique()) == [0, 3, 6] and {"alpha", "beta"} <= set(probes.columns)
    assert (probes.alpha.map(len) == probes.src_len).all()
    for combo in ("all_bad", "one_good", "random"):
        m = pd.read_csv(res / "multihead" / f"summary_{combo}.csv")
        assert len(m) == 2 and {"success", "diverged", "n_good_heads"} <= set(m.columns)
    heads = pd.read_parquet(work / "results" / "models" / "snell2021" / "multihead_random" / "heads.parquet")
    last = heads[heads.step == heads.step.max()]
    assert last.groupby("member").head_seed.nunique().tolist() == [2, 2]      # distinct heads in every model
    assert last.groupby("member").head_seed.apply(frozenset).nunique() == 2   # and a set of its own
    counts = pd.read_csv(res / "counts" / "summary.csv")
    assert (counts.diag_excess_same_C.abs() < 1e-12).all() and (counts.diag_excess_subset_C > 0).all()
    claims = pd.read_csv(work / "results" / "claims.csv")
    snell = claims[claims.paper == "snell2021"]
    assert {"copy_same_some_seeds_fail", "multihead_one_good_head_suffices"} <= set(snell.claim_id)
    table2 = pd.read_csv(work / "results" / "figures" / "snell2021" / "table2.csv")
    assert len(table2) == 3 and table2.A_alpha_beta_uf.between(0, 100).all()   # copy + rotten tomatoes + Bible
    mt = table2[table2.task == "Bible verses EN→FR (translation)"].iloc[0]
    a_cols = ["A_alpha_beta_uf", "A_beta_uf_beta_px", "A_delta_beta_uf", "A_alpha_beta", "A_hat"]
    assert all(0 <= mt[c] <= 100 for c in a_cols + ["xi_star", "token_acc", "bleu"])
    # ξ(u, v) is undefined (NaN) when no checkpoint of the second run agrees more than u and v: at 6 steps, often
    assert all(pd.isna(mt[c]) or 0 <= mt[c] <= 100 for c in ("xi_alpha_beta_uf", "xi_alpha_beta"))
    assert mt.reference == "Multi30k" and mt.ref_A_alpha_beta_uf == 31.02 and mt.ref_bleu == 37.89
    assert pd.isna(table2.set_index("task").loc["rotten tomatoes (sentiment)", "bleu"])
    fig2 = pd.read_csv(work / "results" / "figures" / "snell2021" / "fig2.csv")
    assert set(fig2.task) == set(table2.task)
    assert {"step", "agreement", "performance", "tau0_alpha_beta_uf", "xi_alpha_beta"} <= set(fig2.columns)
    assert fig2.groupby(["task", "seed"]).step.count().min() >= 2    # steps 0, 3, 6 (classification: 0, 10)
    assert fig2.agreement.between(0, 100).all() and fig2.performance.between(0, 100).all()
    assert "translation_alpha_agrees_with_beta_uf" in set(snell.claim_id)
    table10 = pd.read_csv(work / "results" / "figures" / "snell2021" / "table10.csv")
    assert list(table10.task) == ["rotten tomatoes (sentiment)"] and table10.A_alpha_alpha_fr.between(0, 100).all()
    row = snell[snell.claim_id == "copy_same_some_seeds_fail"].iloc[0]
    assert row.n == 2 and row.experiment == "snell2021_copy_same"          # one replicate per copy run
    log = (work / "results" / "logs" / "snell2021" / "train" / "copy_same.log").read_text()
    assert "copy_same  step 3/6  " in log and "\r" not in log                 # one progress line per evaluation

