"""App. A.3 in the demo: a bag-of-words proxy per seed on the permutation and mixture copy distributions, its β^px
spread over input positions (:func:`attnrepro.snell2021.run_tables.proxy_spread`) in the copy run's summary, and
the claim on a proxy where position matters (it must fail) and on a flat one (it holds)."""

import io

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


def test_spread_reads_word_positions_at_the_least_loss():
    flat = np.full((2, 4, 4), 0.1)
    flat[:, :, 3] = 0.9                      # <eos> (last position, last target) stands out: left out
    flat[:, 3, :] = np.arange(4)
    peaked = np.tile(np.eye(4) * 0.9 + 0.05, (2, 1, 1))   # target t peaks on position t: the copied word
    probes = _probes({(0, 10): peaked, (0, 20): flat, (1, 10): peaked, (1, 20): flat})
    metrics = _metrics({(0, 10): 2.0, (0, 20): 1.0, (1, 10): 1.0, (1, 20): 2.0})
    out = proxy_spread(probes, metrics, words=3).set_index("seed").beta_px_relative_spread
    assert out[0] == pytest.approx(0.0)      # its best step is the flat one
    assert out[1] == pytest.approx(0.9 / 0.95, rel=1e-5)   # (0.95 - 0.05) / 0.95 on every word row


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
    result, _ = runs.train(spec, tmp_path / "ck", name="control", log=io.StringIO())
    spread = proxy_spread(result.record_frame("probes"), result.metrics, words=6)
    assert (spread.beta_px_relative_spread > 0.8).all(), spread
    for claim_id in ("copy_same_proxy_flat_over_positions", "copy_mixture_proxy_flat_over_positions"):
        assert _verdict(claim_id, spread) == NOT_REPRODUCED
        flat = pd.DataFrame({"seed": range(6), "beta_px_relative_spread": [0.02, 0.05, 0.03, 0.01, 0.04, 0.02]})
        assert _verdict(claim_id, flat) == REPRODUCED


@pytest.mark.parametrize("kind, n_words, moved", [("permutation", 6, False), ("mixture", 6, False),
                                                   ("permutation", 12, True)])
def test_training_moves_the_spread_only_where_position_matters(tmp_path, kind, n_words, moved):
    """Permutations of one set (and of one of two sets): every input of a set holds all its words, so their
    embeddings get the same gradient (Eq. 5's mean) and β^px keeps the spread over positions its random
    initialisation gave it (at width d, logits of spread ~d^-1/2: not 0, see the demo's reading); the control's
    proxy learns the copied word."""
    spec = _proxy_spec(kind, n_words)
    spec["train"]["eval_at"] = [0]
    result, _ = runs.train(spec, tmp_path / "ck", name=kind, log=io.StringIO())
    probes, m = result.record_frame("probes"), result.metrics
    start = proxy_spread(probes, m[m.step == 0], words=6).beta_px_relative_spread
    end = proxy_spread(probes, m[m.step > 0], words=6).beta_px_relative_spread
    assert (start < 0.6).all(), start
    assert (end > 0.9).all() if moved else ((end - start).abs() < 0.1).all(), (start, end)


def test_the_demo_trains_a_proxy_per_seed_on_each_a3_distribution_with_table2s_settings():
    for name in ("config", "paper", "smoke"):
        block = yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())["snell2021"]
        all_runs, analyses = snellcfg.runs(block), snellcfg.analyses(block)
        table2 = all_runs[f"{snellcfg.TABLE2_COPY}_proxy"]
        for run in snellcfg.A3_PROXY:
            proxy = all_runs[f"{run}_proxy"]
            assert [m[0] for m in proxy["members"]] == block["seeds"]     # independent replicates, seed by seed
            assert proxy["model"] == table2["model"] and proxy["train"] == table2["train"]
            assert proxy["data"] == all_runs[run]["data"] and proxy["record"] == ["beta"]
            assert analyses[run]["runs"] == {"run": run, "proxy": f"{run}_proxy"}
            assert analyses[run]["words"] == block["copy"]["length"]
            assert any(p.endswith(f"/{run}_proxy/probes.parquet") for p in snellcfg.analysis_inputs(block, run))
        assert "proxy" not in analyses["copy_subset"]["runs"] and "proxy" not in analyses["copy_same_uniform"]["runs"]
