"""Aitken et al. 2021 §3, abstract and footnotes (issue 29): each measure of aitken2021.mechanisms on a hand case
where its claim holds and one where it fails, run through the claims table."""

import numpy as np
import pandas as pd
import pytest

from attnrepro.aitken2021.analysis import analyze_seed
from attnrepro.aitken2021.claims import CLAIMS as WING
from attnrepro.aitken2021.claims_section3 import CLAIMS
from attnrepro.aitken2021.decomposition import alignment_terms, decompose
from attnrepro.aitken2021.mechanisms import (adjacent_share, attention_diagonal_share, average_map_fit,
                                             decoder_input_delta_ratio, handoff_nearest, last_state_mean,
                                             readout_state_ratio, simplex_irregularity, top_axes_variance)
from attnrepro.claims import summarize
from attnrepro.intervals import NOT_REPRODUCED, REPRODUCED

SEEDS = list(range(8))
BY_ID = {c.claim_id: c for c in CLAIMS}


def _verdict(claim_id: str, values, partner=None, cell="gru") -> str:
    """The claim's verdict on eight seeds scattered tightly around each of ``values`` (and its versus partner's)."""
    claim = BY_ID[claim_id]
    jitter = np.linspace(-1e-3, 1e-3, len(SEEDS))
    lo, hi = -np.inf if claim.versus else claim.measure_range[0], np.inf if claim.versus else claim.measure_range[1]
    frame = lambda v: pd.DataFrame({"seed": SEEDS, claim.measure: np.clip(v + jitter, lo, hi)})  # noqa: E731
    cell = claim.cells[0] if claim.cells else cell
    summaries = {"this": frame(values)}
    experiments = {"this": (claim.task_kinds[0], claim.archs[0], cell)}
    if claim.versus is not None:
        summaries["that"] = frame(partner)
        experiments["that"] = (*claim.versus, cell)
    if claim.kind == "proportion":
        summaries["this"][claim.measure] = values
    row = summarize(summaries, experiments, (claim,))
    assert len(row) == 1
    return row.verdict.iloc[0]


def _flat(n_examples, length, hidden, state):
    """Flattened states of ``n_examples`` examples of ``length`` steps: ``state(example, step)`` -> vector."""
    ex = np.repeat(np.arange(n_examples), length)
    pos = np.tile(np.arange(length), n_examples)
    return np.array([state(e, p) for e, p in zip(ex, pos)], dtype=float).reshape(-1, hidden), ex, pos


def test_the_section3_claims_are_in_the_wing_and_unique():
    ids = [c.claim_id for c in WING]
    assert len(ids) == len(set(ids)) and set(BY_ID) <= set(ids)
    assert all(c.origin == "paper" and c.quote and c.reading for c in CLAIMS)
    assert len({c.group or c.claim_id for c in CLAIMS}) >= 14


def test_average_map_fit_orders_a_fixed_diagonal_above_a_permutation():
    rng = np.random.default_rng(0)
    L, H = 6, 8
    eye = np.eye(H) * 5
    # one-to-one: every sample attends t = s, as the average does
    diag, ex, pos = _flat(30, L, H, lambda e, p: eye[p])
    tok = np.zeros(len(pos), dtype=int)
    same = decompose(diag, pos, tok)
    fit_diag = average_map_fit(same, ex, same, ex)
    assert fit_diag > 0.99
    # sort: each sample attends a random permutation, the average is flat
    perms = [rng.permutation(L) for _ in range(30)]
    enc_h, _, _ = _flat(30, L, H, lambda e, p: eye[perms[e][p]])
    fit_perm = average_map_fit(same, ex, decompose(enc_h, pos, tok), ex)
    assert fit_perm < 0.5
    assert _verdict("average_map_fit_one_to_one_vs_sort_aed", fit_diag, fit_perm) == REPRODUCED
    assert _verdict("average_map_fit_one_to_one_vs_sort_aed", fit_perm, fit_diag) == NOT_REPRODUCED


def test_attention_diagonal_share_reads_the_top_alignment():
    L, H = 5, 8
    eye = np.eye(H) * 5
    h, ex, pos = _flat(4, L, H, lambda e, p: eye[p])
    tok = np.zeros(len(pos), dtype=int)
    d = decompose(h, pos, tok)
    on = attention_diagonal_share(alignment_terms(d, ex, d, ex))
    shifted = decompose(_flat(4, L, H, lambda e, p: eye[(p + 1) % L])[0], pos, tok)
    off = attention_diagonal_share(alignment_terms(shifted, ex, d, ex))
    assert on == 1.0 and off == 0.0
    assert _verdict("one_to_one_full_attention_diagonal", on) == REPRODUCED
    assert _verdict("one_to_one_full_attention_diagonal", off) == NOT_REPRODUCED


def test_decoder_input_delta_ratio_small_when_the_decoder_is_its_temporal_component():
    rng = np.random.default_rng(1)
    mu, chi = rng.normal(size=(6, 16)) * 4, rng.normal(size=(3, 16))
    pos, tok = np.tile(np.arange(6), 20), rng.integers(0, 3, 120)
    temporal = decoder_input_delta_ratio(decompose(mu[pos] + 0.1 * chi[tok], pos, tok))
    wordy = decoder_input_delta_ratio(decompose(0.1 * mu[pos] + 4 * chi[tok], pos, tok))
    assert temporal < 0.1 < 1 < wordy
    assert _verdict("one_to_one_decoder_temporal", temporal) == REPRODUCED
    assert _verdict("one_to_one_decoder_temporal", wordy) == NOT_REPRODUCED


def test_ved_adjacent_clusters_and_handoff():
    t = np.arange(10)
    arc = np.stack([np.cos(t / 5), np.sin(t / 5)], 1)  # a path traversed in time
    shuffled = arc[np.random.default_rng(2).permutation(10)]
    assert adjacent_share(arc) == 1.0 and adjacent_share(shuffled) < 0.5
    assert _verdict("ved_adjacent_clusters", adjacent_share(arc)) == REPRODUCED
    assert _verdict("ved_adjacent_clusters", adjacent_share(shuffled)) == NOT_REPRODUCED
    # μ_T^E: the mean state at each example's last step, whatever its length
    h = np.array([[0.0], [1.0], [2.0], [0.0], [4.0]])
    assert last_state_mean(h, np.array([0, 0, 0, 1, 1]), np.array([0, 1, 2, 0, 1])) == pytest.approx([3.0])
    enc_mu, last = arc[:8], np.array([[1.5, 1.5]])
    assert handoff_nearest(np.array([[1.4, 1.6]]), enc_mu, last) == 1.0
    assert handoff_nearest(arc[:1] + 0.01, enc_mu, last) == 0.0
    assert _verdict("ved_handoff", np.ones(8)) == REPRODUCED
    assert _verdict("ved_handoff", np.zeros(8)) == NOT_REPRODUCED


def test_ved_no_alignment_compares_with_the_aed():
    assert _verdict("ved_no_alignment", 0.1, 0.95) == REPRODUCED
    assert _verdict("ved_no_alignment", 0.95, 0.95 - 0.2) == NOT_REPRODUCED


def test_top_axes_variance_of_a_low_dimensional_path():
    rng = np.random.default_rng(3)
    flat = rng.normal(size=(40, 3)) @ rng.normal(size=(3, 20))
    spread = rng.normal(size=(40, 20))
    assert top_axes_variance(flat) == pytest.approx(1.0)
    assert top_axes_variance(spread) < 0.5
    # the input-delta points on the input components' axes: off those axes they count as unexplained
    assert top_axes_variance(spread, basis=flat) < 0.5
    assert _verdict("one_to_one_pcs_temporal", top_axes_variance(flat)) == REPRODUCED
    assert _verdict("one_to_one_pcs_input", top_axes_variance(spread, basis=flat)) == NOT_REPRODUCED


def test_simplex_irregularity_zero_for_a_regular_simplex():
    words = ["<eos>", "A", "B", "C"]
    regular = np.vstack([np.full(5, 9.0), np.eye(5)[:3] * 2])  # <eos> far away, left out
    skewed = np.vstack([np.zeros(5), [[0, 0, 0, 0, 0], [0.1, 0, 0, 0, 0], [5, 0, 0, 0, 0]]])
    assert simplex_irregularity(regular, words) == pytest.approx(0.0)
    assert simplex_irregularity(skewed, words) > 0.5
    assert _verdict("one_to_one_input_simplex", simplex_irregularity(regular, words)) == REPRODUCED
    assert _verdict("one_to_one_input_simplex", simplex_irregularity(skewed, words)) == NOT_REPRODUCED


def test_readout_state_ratio_compares_the_logits_of_the_two_halves():
    rng = np.random.default_rng(4)
    w_c, h = rng.normal(size=(5, 8)), rng.normal(size=(30, 8))
    small, equal = readout_state_ratio(0.01 * w_c, h, w_c, h), readout_state_ratio(w_c, h, w_c, h)
    assert small == pytest.approx(0.01) and equal == pytest.approx(1.0)
    with_nan = np.vstack([w_c, np.full((1, 8), np.nan)])
    assert readout_state_ratio(with_nan, h, with_nan, h) == pytest.approx(1.0)
    assert _verdict("aed_readout_state_negligible", small) == REPRODUCED
    assert _verdict("aed_readout_state_negligible", equal) == NOT_REPRODUCED


def test_share_order_and_variance_claims_read_existing_measures():
    assert _verdict("mu_mu_share_order_one_to_one_vs_escan_aed", 0.9, 0.77) == REPRODUCED
    assert _verdict("mu_mu_share_order_escan_vs_bible_ao", 0.3, 0.5) == NOT_REPRODUCED
    assert _verdict("abstract_sort_input_driven_aed", 0.9, 0.05) == REPRODUCED
    assert _verdict("abstract_sort_input_driven_ao", 0.05, 0.9) == NOT_REPRODUCED
    assert _verdict("one_to_one_variance_temporal", 0.9) == REPRODUCED
    assert _verdict("one_to_one_variance_temporal", 0.2) == NOT_REPRODUCED


def test_cell_and_attention_claims_select_their_cell_and_attention():
    lstm = BY_ID["cells_share_mu_mu_lstm"]
    assert lstm.applies_to("one_to_one", "aed", "lstm") and not lstm.applies_to("one_to_one", "aed", "gru")
    assert "config/paper.yaml" in lstm.measured_by and not BY_ID["cells_share_mu_mu_gru"].measured_by
    assert _verdict("cells_temporal_diagonal_share_ugrnn", 0.95) == REPRODUCED
    assert _verdict("ao_feedforward_similar", 0.5) == NOT_REPRODUCED
    assert BY_ID["ao_feedforward_similar"].applies_to("one_to_one", "ao", "ff")
    assert not BY_ID["ao_feedforward_similar"].applies_to("one_to_one", "ao", "gru")
    qkv = BY_ID["qkv_attention_similar"]
    assert all(qkv.applies_to("one_to_one", a, "gru", "qkv") for a in ("aed", "ao")) and qkv.measured_by
    assert not any(qkv.applies_to("one_to_one", a, "gru", "dot") for a in ("aed", "ao"))


def test_analyze_seed_writes_the_section3_measures():
    rng = np.random.default_rng(5)
    n, L, H = 12, 5, 8
    mu_e, mu_d, chi = rng.normal(size=(L + 1, H)) * 3, rng.normal(size=(L + 1, H)) * 3, rng.normal(size=(4, H))
    words = ["<eos>", "A", "B", "C"]
    toks = rng.integers(1, 4, size=(n, L))
    enc = pd.DataFrame([{"example": e, "t": t, "token": words[toks[e, t]] if t < L else "<eos>"}
                        for e in range(n) for t in range(L + 1)])
    dec = pd.DataFrame([{"example": e, "s": s, "token": "<eos>" if s == 0 else words[toks[e, s - 1]],
                         "target": words[toks[e, s]] if s < L else "<eos>", "predicted": "A"}
                        for e in range(n) for s in range(L + 1)])
    code = {w: i for i, w in enumerate(words)}
    enc_h = mu_e[enc.t] + chi[enc.token.map(code)]
    dec_h = mu_d[dec.s] + 0.1 * chi[dec.token.map(code)]
    readout = rng.normal(size=(4, H))
    out = analyze_seed(enc, enc_h, dec, dec_h, words, words, True, readout=readout, readout_state=0.1 * readout)
    s = out["summary"].iloc[0]
    for column in ("decoder_input_delta_ratio", "temporal_adjacent_share", "handoff_nearest", "pc3_temporal",
                   "pc3_input", "chi_simplex_cv", "readout_state_ratio", "average_map_fit",
                   "attention_diagonal_share"):
        assert np.isfinite(s[column]), column
    assert s.decoder_input_delta_ratio < 0.2 and s.readout_state_ratio < 0.25
