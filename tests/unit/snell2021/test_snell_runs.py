"""Snell et al. 2021 runs through the engine: resume after SIGKILL, diverged members, Fig. 6's head draws, and the
DAG that reruns analyses without retraining."""

import copy
import io
import json
import math
import pickle
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import torch
import yaml

from attnrepro.snell2021.run_tables import curve_summary
from attnrepro.training.engine import fit
from attnrepro.errors import AttnReproError
from attnrepro.io import ragged_prefixes
from attnrepro.snell2021 import config as snellcfg
from attnrepro.snell2021.validation import check as snell_check
from attnrepro.snell2021 import multihead, runs
from attnrepro.snell2021.probes import probe_table
from tests.helpers import ROOT, job_counts, kill_after_a_checkpoint, snakemake, tool_env


def smoke_block():
    return yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["snell2021"]


def spec_of(run, **train):
    spec = copy.deepcopy(snellcfg.runs(smoke_block())[run])
    spec["train"].update(train)
    return spec


def _train_cmd(run, spec, out):
    return [sys.executable, "-m", "attnrepro.cli", "snell2021", "train", run, "--spec-json", json.dumps(spec),
            "--ckpt-dir", str(out / "ckpt"), "--out-dir", str(out / "run"), "--threads", "1"]


@pytest.mark.parametrize("run,steps", [("copy_subset", 400), ("cls_rotten_tomatoes_learned", 200)])
def test_sigkilled_snell_run_resumes_to_identical_weights_metrics_and_probes(tmp_path, run, steps):
    """Copy (with Table 2's probes) and classification: SIGKILL mid-run, rerun the same command, compare with an
    uninterrupted run."""
    spec = spec_of(run, steps=steps, checkpoint_every=10, eval_every=150)
    subprocess.run(_train_cmd(run, spec, tmp_path / "full"), check=True, env=tool_env(), capture_output=True)
    killed = tmp_path / "killed"
    step = kill_after_a_checkpoint(_train_cmd(run, spec, killed), killed / "ckpt")
    assert 0 < step < steps and not (killed / "run" / "model.pt").exists()
    rerun = subprocess.run(_train_cmd(run, spec, killed), env=tool_env(), capture_output=True, text=True, check=True)
    assert f"resuming from step {step}" in rerun.stderr
    a = torch.load(tmp_path / "full" / "run" / "model.pt", weights_only=False)["state_dict"]
    b = torch.load(killed / "run" / "model.pt", weights_only=False)["state_dict"]
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    for name in ("metrics.csv", "probes.parquet", "eval.parquet"):
        assert (tmp_path / "full" / "run" / name).read_bytes() == (killed / "run" / name).read_bytes(), name


def test_a_diverged_member_is_frozen_and_the_others_train_as_alone(tmp_path):
    spec = spec_of("copy_same")
    _, valid, vocab = runs.load_data(spec["data"], spec["train"]["n_eval"])
    source, _, _ = runs.load_data(spec["data"], 1)
    members = runs.members_of(spec)
    from attnrepro.training.config import TrainConfig

    cfg = TrainConfig.from_dict(spec["train"])
    model = runs.build_model(spec["model"], vocab, members)
    with torch.no_grad():
        model.readout.w2[1] = float("inf")                     # member 1's loss is not finite from the start
    log = io.StringIO()
    both = fit(model, members, source, valid, cfg, tmp_path / "both", name="copy_same", spec={}, divergence="freeze",
               log=log)
    assert "copy_same: seed 1 diverged at step 1" in log.getvalue()
    alone = fit(runs.build_model(spec["model"], vocab, members[:1]), members[:1], source, valid, cfg,
                tmp_path / "alone", name="x", spec={}, divergence="freeze", log=io.StringIO())
    m0 = both.metrics[both.metrics.member == 0].reset_index(drop=True)
    pd.testing.assert_frame_equal(m0, alone.metrics, check_dtype=False, rtol=1e-5, atol=1e-6)
    gone = both.metrics[(both.metrics.member == 1) & (both.metrics.step > 0)]
    assert gone.diverged.all() and gone.token_acc.isna().all()
    torch.testing.assert_close(both.model.readout.w2[1], model.readout.w2[1])   # frozen where it was
    s = curve_summary(both.metrics, 0.6, 0.95)
    assert list(s.diverged) == [0.0, 1.0] and math.isnan(s.failed[1]) and not math.isnan(s.failed[0])


def test_infinite_learning_rate_counts_runs_as_diverged_not_failed(tmp_path):
    """lr = inf diverges every copy run: the summary marks them diverged (their measures NaN), and the claims count
    them as failed, saying how many (a run that blew up did not learn)."""
    result, _ = runs.train(spec_of("copy_same", lr=math.inf), tmp_path, name="copy_same", log=io.StringIO())
    s = curve_summary(result.metrics, 0.6, 0.95)
    assert (s.diverged == 1).all() and s.failed.isna().all()
    from attnrepro.verdicts.claims import summarize
    from attnrepro.verdicts.papers import CLAIMS

    table = summarize({"snell2021_copy_same": s}, {"snell2021_copy_same": ("copy_same", "lstm_attention", "")}, CLAIMS)
    row = table.set_index("claim_id").loc["copy_same_some_seeds_fail"]
    assert row.measured_mean == 1.0 and row.diverged == len(s) == row.n


def test_divergence_stops_a_run_whose_result_is_not_a_rate_and_writes_nothing(tmp_path):
    from attnrepro.cli import main

    spec = spec_of("keyword", lr=math.inf)
    with pytest.raises(AttnReproError, match=r"keyword: seed 0 diverged at step \d+ \(loss nan\)"):
        runs.train(spec, tmp_path / "a", name="keyword", log=io.StringIO())
    assert main(["snell2021", "train", "keyword", "--spec-json", json.dumps(spec), "--ckpt-dir", str(tmp_path / "c"),
                 "--out-dir", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_aitken_training_stops_on_divergence_naming_experiment_seed_and_step(tmp_path, tiny_task):
    from attnrepro.data import tasks
    from attnrepro.cli import main
    from attnrepro.training.config import TrainConfig
    from attnrepro.data.vocab import Vocab, encode
    from attnrepro.seq2seq.model import ModelConfig
    from attnrepro.seq2seq.train import train

    splits = tasks.generate(tiny_task)
    vocab = Vocab.from_words(*tasks.words(tiny_task))
    tr, va = encode(splits["train"], vocab), encode(splits["valid"], vocab)
    cfg = dict(steps=8, batch_size=8, lr=math.inf, lr_decay=1.0, betas=[0.9, 0.99], eps=1e-8, grad_clip=1.0, l2=0.0,
               checkpoint_every=4, eval_every=4, n_eval=8)
    mc = ModelConfig("aed", "gru", 8, len(vocab.src), len(vocab.tgt))
    with pytest.raises(AttnReproError, match=r"aed_x: seed 3 diverged at step 2 \(loss nan\); nothing was written"):
        train(mc, TrainConfig.from_dict(cfg), [3], tr, va, tmp_path / "ck", sos=1, name="aed_x", log=io.StringIO())
    assert main(["data", "--task-json", json.dumps(tiny_task), "--out-dir", str(tmp_path / "data")]) == 0
    spec = {"task": "data", "model": {"arch": "aed", "cell": "gru", "hidden": 8}, "train": cfg}
    out = tmp_path / "model"
    assert main(["train", "--spec-json", json.dumps(spec), "--seeds", "3", "--data-dir", str(tmp_path / "data"),
                 "--ckpt-dir", str(tmp_path / "ck2"), "--model-out", str(out / "model.pt"),
                 "--metrics-out", str(out / "metrics.csv"), "--name", "aed_x", "--device", "cpu"]) == 2
    assert not (out / "model.pt").exists() and not (out / "metrics.csv").exists()


def test_every_k_head_model_draws_distinct_heads_and_a_set_of_its_own():
    heads = list(range(100, 112))
    labels = ["good"] * 3 + ["bad"] * 9
    table = pd.DataFrame({"candidate": range(12), "head_seed": heads, "label": labels})
    for kind in multihead.COMBOS:
        sets = multihead.draw_heads(table, kind, 8, 5, sampling_seed=0)
        assert all(len(set(s)) == 8 for s in sets)                       # no head twice in a model
        assert len({frozenset(s) for s in sets}) == 5                     # every model its own set
        good = [sum(h in heads[:3] for h in s) for s in sets]
        if kind == "all_bad":
            assert good == [0] * 5
        elif kind == "one_good":
            assert good == [1] * 5 and len({s[0] for s in sets}) == 3     # the good heads taken in turn
    assert multihead.draw_heads(table, "random", 8, 5, 1) != multihead.draw_heads(table, "random", 8, 5, 0)
    with pytest.raises(AttnReproError, match="cannot be drawn"):
        multihead.draw_heads(table.assign(label=["good"] * 4 + ["bad"] * 8), "all_bad", 8, 10, 0)


@pytest.mark.parametrize("change,message", [
    ({"n_bad": 7}, "n_bad"),                          # fewer bad heads than K: an all-bad model repeats one
    ({"n_bad": 8, "n_combos": 2}, "different sets"),  # one set of 8 of 8 bad heads for two all-bad models
    ({"candidates_per_round": 8}, "candidates_per_round"),   # the random models' pool must exceed K
    ({"max_rounds": 1, "candidates_per_round": 9}, "labelled heads"),
])
def test_config_check_rejects_settings_that_cannot_give_distinct_draws(change, message):
    block = smoke_block()
    block["multihead"].update({"heads": 8, "n_bad": 10, "n_good": 2, "n_combos": 3, "candidates_per_round": 16,
                               "max_rounds": 2})
    snell_check(block)
    block["multihead"].update(change)
    with pytest.raises(AttnReproError, match=message):
        snell_check(block)


def test_an_analysis_parameter_reruns_analyses_not_training(tmp_path):
    cfg = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    (tmp_path / "smoke.yaml").write_text(yaml.safe_dump(cfg))
    targets = ["results/analysis/snell2021/table2/summary.csv", "results/analysis/snell2021/copy_subset/summary.csv"]
    snakemake("--cores", "2", *targets, "--configfile", "smoke.yaml", cwd=tmp_path)
    cfg["snell2021"]["fail_below"] = 0.5                      # what a run counts as failed: an analysis parameter
    (tmp_path / "smoke.yaml").write_text(yaml.safe_dump(cfg))
    counts = job_counts(snakemake("-n", *targets, "--configfile", "smoke.yaml", cwd=tmp_path).stdout)
    assert counts == {"snell2021_analyze_copy": 1}, counts    # Table 2's row is untouched, nothing retrains
    cfg["snell2021"]["train"]["lr"] = 0.002                   # a training parameter: retrains, then reanalyses
    (tmp_path / "smoke.yaml").write_text(yaml.safe_dump(cfg))
    counts = job_counts(snakemake("-n", *targets, "--configfile", "smoke.yaml", cwd=tmp_path).stdout)
    assert counts["snell2021_train"] == 3 and counts["snell2021_export"] == 1, counts   # learned, uniform, proxy
    assert counts["snell2021_analyze_table2"] == counts["snell2021_analyze_copy"] == 1


@pytest.mark.slow
def test_app_a4_records_reach_the_table2_rows(tmp_path):
    """The smoke config with App. A.4's records on: the learned and uniform runs write their training-pair probes,
    the translation learned run its decodes at every evaluation, and the Table 2 rows gain Table 7's and the BLEU
    ξ's columns (the claims' measures)."""
    cfg = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    cfg["snell2021"]["table2"]["train_sample"] = 16
    cfg["snell2021"]["translation"]["bleu_curve"] = True
    (tmp_path / "on.yaml").write_text(yaml.safe_dump(cfg))
    rows = {"cls_rotten_tomatoes": "classification", "mt_bible": "translation"}
    snakemake("--cores", "2", *(f"results/analysis/snell2021/{r}/summary.csv" for r in rows),
              "--configfile", "on.yaml", cwd=tmp_path, timeout=900)
    models, analysis = tmp_path / "results" / "models" / "snell2021", tmp_path / "results" / "analysis" / "snell2021"
    for run in ("cls_rotten_tomatoes_learned", "cls_rotten_tomatoes_uniform", "mt_bible_learned", "mt_bible_uniform"):
        train = pd.read_parquet(models / run / "train_probes.parquet")
        held_out = pd.read_parquet(models / run / "probes.parquet")
        assert train.example.nunique() == 16 and sorted(train.step.unique()) == sorted(held_out.step.unique())
    assert not (models / "cls_rotten_tomatoes_proxy" / "train_probes.parquet").exists()
    decodes = pd.read_parquet(models / "mt_bible_learned" / "checkpoint_decodes.parquet")
    metrics = pd.read_csv(models / "mt_bible_learned" / "metrics.csv")
    assert sorted(decodes.step.unique()) == sorted(metrics.step.unique()) and set(decodes.member) == {0, 1}
    for row, family in rows.items():
        summary = pd.read_csv(analysis / row / "summary.csv")
        assert summary.A_alpha_beta_uf_train_excess.between(-1, 1).all()
        assert (summary.A_alpha_beta_uf_train_excess == summary.A_alpha_beta_uf_train - summary.A_hat_train).all()
        assert ("xi_alpha_beta_uf_bleu_progress" in summary) == (family == "translation")
    mt = pd.read_csv(analysis / "mt_bible" / "summary.csv")
    assert (mt.xi_star_bleu >= 0).all() and "bleu" in pd.read_csv(analysis / "mt_bible" / "xi_curves.csv")


def test_probe_records_as_arrow_lists_give_the_table_of_per_row_arrays():
    """An evaluation's probe rows hold Arrow ``list<float32>`` columns (two buffers to pickle, not one array per
    row); their table equals the one from per-row arrays, which is also what a record pickled before the change
    (a run resumed across it) holds, alone or concatenated with new ones."""
    rng = np.random.default_rng(0)
    padded = rng.standard_normal((7, 5)).astype(np.float32)
    lengths = np.array([5, 1, 3, 0, 2, 5, 4])
    per_row = [padded[i, :n] for i, n in enumerate(lengths)]
    assert ragged_prefixes(padded, lengths).to_pylist() == [r.tolist() for r in per_row]
    keys = {"seed": [9] * 7, "member": [1, 0, 1, 0, 0, 1, 0], "step": [10] * 7, "example": [3, 2, 1, 0, 1, 2, 3],
            "t": [0, 1, 0, 0, 0, 1, 1], "src_len": lengths}
    new = pickle.loads(pickle.dumps(pd.DataFrame(keys | {"beta": pd.arrays.ArrowExtensionArray(
        ragged_prefixes(padded, lengths))})))
    old = pd.DataFrame(keys | {"beta": per_row})
    table = probe_table(new, ["beta"])
    assert table.equals(probe_table(old, ["beta"]))
    assert table.schema == probe_table(None, ["beta"]).schema
    assert table.column("beta").to_pylist()[0] == per_row[3].tolist()   # (member 0, example 0) first
    both = probe_table(pd.concat([old, new.assign(step=20)], ignore_index=True), ["beta"])
    assert both.equals(probe_table(pd.concat([old, old.assign(step=20)], ignore_index=True), ["beta"]))
