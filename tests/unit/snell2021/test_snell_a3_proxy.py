"""App. A.3 in the demo: a bag-of-words proxy per seed on the permutation and mixture copy distributions, its β^px
spread over input positions trained and at initialisation (:func:`attnrepro.snell2021.run_tables.proxy_spread`) in
the copy run's summary, and the claim — the spread training adds — on a proxy where position matters (it must fail),
on proxies trained on the permutations (it holds, though their spread alone is far from 0) and by hand."""

import io
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import yaml

from attnrepro.verdicts.claims import summarize
from attnrepro.verdicts.intervals import NOT_REPRODUCED, REPRODUCED
from attnrepro.verdicts.papers import CLAIMS
from attnrepro.snell2021 import config as snellcfg
from attnrepro.snell2021 import runs
from attnrepro.snell2021.run_tables import proxy_spread
from tests.helpers import ROOT


DEMO_TRAIN = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["snell2021"]["train"]


def _probes(values: dict[tuple[int, int], np.ndarray]) -> pd.DataFrame:
    """(member, step) -> β [N examples, T targets, L positions] as probe rows (every target, every position)."""
    rows = []
    for (member, step), v in values.items():
        for ex in range(v.shape[0]):
            for t in range(v.shape[1]):
                rows.append({"seed": member, "member": member, "step": step, "example": ex, "t": t,
                             "src_len": v.shape[2], "beta": v[ex, t].astype(np.float32)})
    return pd.DataFrame(rows)


def _metrics(losses: dict[tuple[int, int], float]) -> pd.DataFrame:
    return pd.DataFrame([{"member": m, "seed": m, "step": s, "valid_loss": loss} for (m, s), loss in losses.items()])


def test_spread_reads_word_positions_at_the_least_loss_and_at_initialisation():
    flat = np.full((2, 4, 4), 0.1)
    flat[:, :, 3] = 0.9                      # <eos> (last position, last target) stands out: left out
    flat[:, 3, :] = np.arange(4)
    peaked = np.tile(np.eye(4) * 0.9 + 0.05, (2, 1, 1))   # target t peaks on position t: the copied word
    half = np.tile(np.eye(4) * 0.3 + 0.35, (2, 1, 1))     # a random start's spread: (0.65 − 0.35) / 0.65
    probes = _probes({(0, 0): half, (0, 10): peaked, (0, 20): flat,
                      (1, 0): half, (1, 10): peaked, (1, 20): flat})
    # seed 0's step 0 has the least loss of all: the trained reading is of a later step all the same
    metrics = _metrics({(0, 0): 0.5, (0, 10): 2.0, (0, 20): 1.0, (1, 0): 3.0, (1, 10): 1.0, (1, 20): 2.0})
    out = proxy_spread(probes, metrics, words=3).set_index("seed")
    assert out.beta_px_relative_spread[0] == pytest.approx(0.0)      # its best step is the flat one
    assert out.beta_px_relative_spread[1] == pytest.approx(0.9 / 0.95, rel=1e-5)   # (0.95 − 0.05) / 0.95
    assert out.beta_px_relative_spread_init.tolist() == pytest.approx([0.3 / 0.65] * 2, rel=1e-5)
    assert out.beta_px_spread_gain.tolist() == pytest.approx([-0.3 / 0.65, 0.9 / 0.95 - 0.3 / 0.65], rel=1e-5)
    # a run without a step-0 evaluation has no initial spread, so no gain
    late = proxy_spread(probes[probes.step > 0], metrics[metrics.step > 0], words=3)
    assert late.beta_px_relative_spread_init.isna().all() and late.beta_px_spread_gain.isna().all()


def _claim(claim_id):
    return next(c for c in CLAIMS if c.claim_id == claim_id)


def _verdict(claim_id, spread: pd.DataFrame):
    claim = _claim(claim_id)
    return summarize({"x": spread}, {"x": (claim.task_kinds[0], claim.archs[0])}, (claim,)).iloc[0].verdict


def _proxy_spec(kind: str, n_words: int, length: int = 6) -> pd.DataFrame:
    """Proxies of six seeds (Adam, 200 steps) on a copy distribution."""
    spec = {"model": {"type": "proxy", "dim": 16},
            "data": {"task": "copy", "kind": kind, "length": length, "n_words": n_words, "task_seed": 0},
            "train": {**DEMO_TRAIN, "steps": 200, "batch_size": 32, "lr": 0.01, "eval_every": 200, "eval_at": [],
                      "n_eval": 50, "checkpoint_every": 1000},
            "members": [[s, s, []] for s in range(6)], "record": ["beta"], "divergence": "stop"}
    return spec


def test_a_proxy_where_position_matters_fails_the_claim_and_flat_probes_hold_it(tmp_path):
    spec = _proxy_spec("permutation", 12)       # L of a larger vocabulary: β^px singles out the copied word
    spec["train"]["eval_at"] = [0]
    result, _ = runs.train(spec, tmp_path / "ck", name="control", log=io.StringIO())
    spread = proxy_spread(result.record_frame("probes"), result.metrics, words=6)
    assert (spread.beta_px_relative_spread_init < 0.6).all(), spread
    assert (spread.beta_px_relative_spread > 0.9).all() and (spread.beta_px_spread_gain > 0.3).all(), spread
    for claim_id in ("copy_same_proxy_flat_over_positions", "copy_mixture_proxy_flat_over_positions"):
        assert _verdict(claim_id, spread) == NOT_REPRODUCED
        flat = pd.DataFrame({"seed": range(6), "beta_px_spread_gain": [0.02, -0.05, 0.03, 0.01, 0.04, -0.02]})
        assert _verdict(claim_id, flat) == REPRODUCED


@pytest.mark.parametrize("kind, claim_id", [("permutation", "copy_same_proxy_flat_over_positions"),
                                            ("mixture", "copy_mixture_proxy_flat_over_positions")])
def test_proxies_on_the_permutations_keep_their_random_start_and_hold_the_claim(tmp_path, kind, claim_id):
    """Permutations of one set (and of one of two sets): every input of a set holds all its words, so their
    embeddings get the same gradient (Eq. 5's mean) and β^px keeps the spread over positions its random
    initialisation gave it (at width d, logits of spread ~d^-1/2: not 0). The spread alone (the claim's earlier
    reading, < 0.2) refutes "still the same for every position" by construction; the spread training adds
    reproduces it."""
    spec = _proxy_spec(kind, 6)
    spec["train"]["eval_at"] = [0]
    result, _ = runs.train(spec, tmp_path / "ck", name=kind, log=io.StringIO())
    spread = proxy_spread(result.record_frame("probes"), result.metrics, words=6)
    assert (spread.beta_px_relative_spread_init.between(0.2, 0.6)).all(), spread       # the start is not flat
    assert (spread.beta_px_spread_gain.abs() < 0.1).all(), spread
    assert _verdict(claim_id, spread) == REPRODUCED
    claim = _claim(claim_id)
    earlier = replace(claim, measure=claim.original, bounds=(0.0, 1.0), threshold=0.2)   # the spread alone
    assert summarize({"x": spread}, {"x": (claim.task_kinds[0], claim.archs[0])}, (earlier,)).iloc[0].verdict \
        == NOT_REPRODUCED


def test_an_evaluation_before_training_leaves_the_trained_proxy_as_it_was(tmp_path):
    """The A3 proxies evaluate at step 0 for their initial spread; evaluating draws nothing, so their trained β^px
    (and Table 2's settings otherwise) are those of a run without it."""
    spec = _proxy_spec("permutation", 6)
    spec["members"] = spec["members"][:2]
    spec["train"]["steps"] = 40
    plain, _ = runs.train(spec, tmp_path / "plain", name="plain", log=io.StringIO())
    spec["train"]["eval_at"] = [0]
    early, _ = runs.train(spec, tmp_path / "early", name="early", log=io.StringIO())
    last = lambda r: r.record_frame("probes").query("step == 40").sort_values(["member", "example", "t"])  # noqa: E731
    assert np.array_equal(np.stack(last(plain).beta.to_numpy()), np.stack(last(early).beta.to_numpy()))


def test_the_demo_trains_a_proxy_per_seed_on_each_a3_distribution_with_table2s_settings():
    for name in ("config", "paper", "smoke"):
        block = yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())["snell2021"]
        all_runs, analyses = snellcfg.runs(block), snellcfg.analyses(block)
        table2 = all_runs[f"{snellcfg.TABLE2_COPY}_proxy"]
        for run in snellcfg.A3_PROXY:
            proxy = all_runs[f"{run}_proxy"]
            assert [m[0] for m in proxy["members"]] == block["seeds"]     # independent replicates, seed by seed
            assert proxy["model"] == table2["model"]
            assert proxy["train"] == {**table2["train"], "eval_at": sorted({0, *table2["train"].get("eval_at", [])})}
            assert proxy["data"] == all_runs[run]["data"] and proxy["record"] == ["beta"]
            assert analyses[run]["runs"] == {"run": run, "proxy": f"{run}_proxy"}
            assert analyses[run]["words"] == block["copy"]["length"]
            assert any(p.endswith(f"/{run}_proxy/probes.parquet") for p in snellcfg.analysis_inputs(block, run))
        assert "proxy" not in analyses["copy_subset"]["runs"] and "proxy" not in analyses["copy_same_uniform"]["runs"]


def test_the_readings_numbers_are_the_studys():
    """The claim's reading quotes the random start's spread by width and how little training moves it, from
    studies/snell2021/snell_a3_init_spread.py's committed result."""
    import json

    rows = json.loads((ROOT / "studies" / "snell2021" / "results" / "snell_a3_init_spread.json").read_text())["rows"]
    start = {r["dim"]: float(np.median(r["beta_px_relative_spread_init"])) for r in rows if r["run"] == "copy_same"}
    reading = _claim("copy_same_proxy_flat_over_positions").reading
    assert f"≈ {start[64]:.2f} at the demo's width 64, {start[256]:.2f} at 256, {start[1024]:.2f} at 1024" in reading
    assert max(abs(g) for r in rows for g in r["beta_px_spread_gain"]) < 0.01
    assert all(r["verdicts"]["gain_below_0.1"] == REPRODUCED for r in rows)
    assert {r["dim"] for r in rows if r["verdicts"]["spread_below_0.2"] == NOT_REPRODUCED} == {64}
