"""Snell et al.'s Δ at the best checkpoint (deviations.md, Snell row 13): the engine's ``keep_best``, the run's
``model_best.pt`` and the config's ``snell2021.table2.export_at``."""

import copy
import io
import math

import pytest
import torch
import yaml

from attnrepro.engine import best_update
from attnrepro.errors import AttnReproError
from attnrepro.snell2021 import config as snellcfg
from attnrepro.snell2021 import runs
from conftest import ROOT


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
    snellcfg.check(block)
    best = snellcfg.runs(block)
    kept = sorted(r for r, s in best.items() if s.get("keep_best"))
    assert kept == sorted(snellcfg.exports(block)) and snellcfg.export_model(block) == "model_best.pt"
    assert all(best[r] == default[r] for r in default if r not in kept)
    block["table2"]["export_at"] = "last"
    with pytest.raises(AttnReproError, match="snell2021.table2.export_at: 'last'"):
        snellcfg.check(block)


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
