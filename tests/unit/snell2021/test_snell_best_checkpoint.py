"""Snell et al.'s Δ at the best checkpoint (deviations.md, Snell row 13): the engine's ``keep_best``, the run's
``model_best.pt`` and the config's ``snell2021.table2.export_at``."""

import copy
import io
import math

import pytest
import torch
import yaml

from attnrepro.training.engine import best_update
from attnrepro.errors import AttnReproError
from attnrepro.snell2021 import config as snellcfg
from attnrepro.snell2021.validation import check as snell_check
from attnrepro.snell2021 import runs
from tests.helpers import ROOT, import_script


def smoke_block():
    return yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["snell2021"]


def test_best_update_copies_a_members_slice_only_when_it_beats_its_best():
    """Two members; member 0 improves at step 10, ties at 20 (the earlier is kept), member 1 is NaN (diverged)."""
    best = {"acc": [float("-inf")] * 2, "step": [-1, -1], "state_dict": {"w": torch.zeros(2, 3)}}
    assert best_update(best, {"w": torch.tensor([[1.0] * 3, [2.0] * 3])}, [0.5, 0.4], 0) == [0, 1]
    assert best_update(best, {"w": torch.tensor([[3.0] * 3, [4.0] * 3])}, [0.7, math.nan], 10) == [0]
    assert best_update(best, {"w": torch.tensor([[5.0] * 3, [6.0] * 3])}, [0.7, 0.3], 20) == []
    assert best["step"] == [10, 0] and best["acc"] == [0.7, 0.4]
    assert torch.equal(best["state_dict"]["w"], torch.tensor([[3.0] * 3, [2.0] * 3]))


def test_model_best_holds_each_member_at_its_most_accurate_evaluation(tmp_path):
    """A smoke classification run evaluated at every step: the best steps are the first arg-max of metrics.csv, and
    a member's best weights (best inside training) equal the final weights of the same run stopped at that step."""
    spec = copy.deepcopy(snellcfg.runs(smoke_block())["cls_rotten_tomatoes_learned"])
    spec["train"].update(steps=8, eval_every=1, eval_at=[0], checkpoint_every=100)
    spec["keep_best"] = True
    result, valid = runs.train(spec, tmp_path / "ckpt", name="best", log=io.StringIO())
    runs.write_run(spec, result, valid, tmp_path / "run")
    blob = torch.load(tmp_path / "run" / runs.BEST_MODEL, weights_only=False)
    m = result.metrics
    want = [int(m[m.member == s].sort_values("step").set_index("step").token_acc.idxmax())
            for s in sorted(m.member.unique())]
    assert blob["best_step"] == want
    s = next(s for s, step in enumerate(want) if 0 < step < 8)   # best inside training (not the initial weights)
    short = {**spec, "train": {**spec["train"], "steps": want[s]}}
    stopped, _ = runs.train(short, tmp_path / "ckpt_short", name="short", log=io.StringIO())
    final = stopped.model.state_dict()
    assert all(torch.equal(blob["state_dict"][k][s], final[k][s]) for k in final)
    assert not all(torch.equal(blob["state_dict"][k][s], result.model.state_dict()[k][s]) for k in final)
    spec_, model, _, _ = runs.load_run(tmp_path / "run" / runs.BEST_MODEL)   # the export reads it as a model.pt
    assert spec_["keep_best"] and model.n_seeds == len(want)


def test_export_at_best_keeps_the_learned_runs_best_and_leaves_the_default_specs_as_they_were():
    block = smoke_block()
    default = snellcfg.runs(block)
    assert not any("keep_best" in s for s in default.values()) and snellcfg.export_model(block) == "model.pt"
    block["table2"]["export_at"] = "best"
    snell_check(block)
    best = snellcfg.runs(block)
    kept = sorted(r for r, s in best.items() if s.get("keep_best"))
    assert kept == sorted(snellcfg.exports(block)) and snellcfg.export_model(block) == "model_best.pt"
    assert all(best[r] == default[r] for r in default if r not in kept)
    block["table2"]["export_at"] = "last"
    with pytest.raises(AttnReproError, match="snell2021.table2.export_at: 'last'"):
        snell_check(block)


def test_an_interrupted_keep_best_run_resumes_to_the_same_best_weights(tmp_path):
    """The best weights are part of the checkpoint: a run stopped after one resumes to the uninterrupted best."""
    spec = copy.deepcopy(snellcfg.runs(smoke_block())["cls_rotten_tomatoes_learned"])
    spec["train"].update(steps=8, eval_every=1, eval_at=[0], checkpoint_every=4)
    spec["keep_best"] = True
    full, _ = runs.train(spec, tmp_path / "full", name="full", log=io.StringIO())

    def stop(step):
        if step == 6:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runs.train(spec, tmp_path / "cut", name="cut", log=io.StringIO(), on_step=stop)
    log = io.StringIO()
    resumed, _ = runs.train(spec, tmp_path / "cut", name="cut", log=log)
    assert "resuming from step 4" in log.getvalue() and resumed.best["step"] == full.best["step"]
    a, b = full.best["state_dict"], resumed.best["state_dict"]
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_epoch_steps_keeps_the_last_short_batch():
    """Row 11's conversion: 12,308 examples in batches of 64 are 193 steps an epoch (192 full + 1 of 20)."""
    b = import_script("studies/snell2021/snell_best_checkpoint.py")
    assert b.epoch_steps(12308, 64, 60) == (193, 11580)
    assert b.epoch_steps(128, 64, 30) == (2, 60)
    assert b.epoch_steps(1, 64, 1) == (1, 1)
    with pytest.raises(ValueError, match="n_train=0"):
        b.epoch_steps(0, 64, 60)


def test_claim_readings_read_the_median_above_zero_by_a_rank_interval():
    """Six seeds all above 0: reproduced; six straddling 0: not decided; the median and mean are the plain ones."""
    import pandas as pd

    b = import_script("studies/snell2021/snell_best_checkpoint.py")
    rows = pd.DataFrame({"up": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], "mixed": [-0.3, -0.2, -0.1, 0.1, 0.2, 0.3]})
    r = b.claim_readings(rows, ["up", "mixed"])
    assert r["up"]["median"] == pytest.approx(0.35) and r["up"]["mean"] == pytest.approx(0.35)
    assert r["up"]["verdict"] == "reproduced" and r["up"]["low"] > 0
    assert r["mixed"]["verdict"] != "reproduced" and r["mixed"]["low"] < 0 < r["mixed"]["high"]


def test_with_paper_options_changes_the_recipe_options_only():
    """The demo block keeps its sizes, seeds and steps; the paper's copy, table2 and classification options move
    in; the proxy keeps its steps, takes the paper's bias and learning rate and evaluates proxy_evals times."""
    b = import_script("studies/snell2021/snell_best_checkpoint.py")
    demo = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["snell2021"]
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())["snell2021"]
    before = copy.deepcopy(demo)
    got = b.with_paper_options(demo, paper, 10)
    assert demo == before   # pure: the input is not changed
    assert got["copy"]["score_bias"] is True and got["copy"]["judge_step"] == 191
    assert got["copy"]["length"] == demo["copy"]["length"] and got["seeds"] == demo["seeds"]
    assert got["train"]["steps"] == 200 and got["train"]["eval_every"] == demo["train"]["eval_every"]
    assert {0, 1, 11, 191} <= set(got["train"]["eval_at"]) and got["train"]["eval_at"] == sorted(got["train"]["eval_at"])
    assert got["table2"]["export_at"] == "best"
    cl = got["classification"]
    assert cl["embed"] == 300 and cl["bos_eos"] is True and cl["hidden"] == demo["classification"]["hidden"]
    assert cl["proxy"]["bias"] is True and cl["proxy"]["train"]["lr"] == 1.5e-4
    assert cl["proxy"]["train"]["steps"] == 1000 and cl["proxy"]["train"]["eval_every"] == 100
    assert cl["train"] == demo["classification"]["train"]
    snell_check(got)
    with pytest.raises(ValueError, match="--proxy-evals 7"):
        b.with_paper_options(demo, paper, 7)


def test_with_paper_options_gives_translation_the_authors_model_and_proxy():
    b = import_script("studies/snell2021/snell_best_checkpoint.py")
    demo = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["snell2021"]
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())["snell2021"]
    tr = b.with_paper_options(demo, paper, 10)["translation"]
    assert tr["architecture"] == "authors" and tr["dropout"] == 0.5 and tr["hidden"] == demo["translation"]["hidden"]
    assert tr["proxy"]["bias"] is True and tr["proxy"]["train"]["lr"] == 1.5e-4
    assert tr["proxy"]["train"]["steps"] == 900 and tr["proxy"]["train"]["eval_every"] == 90
    assert tr["train"] == {**demo["translation"]["train"], "eval_at": [0]}   # the demo's evaluations, not copy's
    assert snellcfg.runs(b.with_paper_options(demo, paper, 10))["mt_bible_learned"]["train"]["eval_at"] == [0]
