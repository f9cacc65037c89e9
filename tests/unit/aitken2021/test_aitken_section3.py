"""Aitken et al. 2021 §3, abstract and footnotes: each measure of aitken2021.mechanisms on a hand case
where its claim holds and one where it fails, run through the claims table."""

import numpy as np
import pandas as pd
import pytest

from attnrepro.aitken2021.analysis import analyze_seed
from attnrepro.aitken2021.claims import CLAIMS as WING
from attnrepro.aitken2021.claims import SECTION3_CLAIMS as CLAIMS
from attnrepro.aitken2021.decomposition import alignment_terms, decompose
from attnrepro.aitken2021.mechanisms import (attention_diagonal_share, average_map_fit, decoder_input_delta_ratio,
                                             readout_state_ratio, section3_measures, top_axes_variance)
from attnrepro.verdicts.claims import summarize
from attnrepro.verdicts.intervals import NOT_REPRODUCED, REPRODUCED

SEEDS = list(range(8))
_IDS = {c.claim_id for c in CLAIMS}
BY_ID = {c.claim_id: c for c in WING if c.claim_id in _IDS}  # as the wing serves them (main-text cells)


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
    assert len({c.group or c.claim_id for c in CLAIMS}) == 11


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


def _untrained_gru(seed: int, hidden: int = 32, n_examples: int = 40):
    """An untrained GRU encoder-decoder (VED wiring: the decoder starts from the encoder's last state) on one-to-one
    data of three words: its decompositions, rows and states, as analyze_seed builds them."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    words = ["<pad>", "<sos>", "<eos>", "<unk>", "a", "b", "c"]
    emb_e, emb_d = torch.nn.Embedding(7, hidden), torch.nn.Embedding(7, hidden)
    enc_rnn, dec_rnn = torch.nn.GRU(hidden, hidden, batch_first=True), torch.nn.GRU(hidden, hidden, batch_first=True)
    enc_rows, dec_rows, enc_h, dec_h = [], [], [], []
    for m in range(n_examples):
        w = rng.integers(4, 7, rng.integers(8, 11))
        src, din = np.r_[w, 2], np.r_[1, w]
        with torch.no_grad():
            out, last = enc_rnn(emb_e(torch.tensor(src)[None]))
            dout, _ = dec_rnn(emb_d(torch.tensor(din)[None]), last)
        enc_h.append(out[0].numpy())
        dec_h.append(dout[0].numpy())
        enc_rows += [{"example": m, "t": t, "token": words[i]} for t, i in enumerate(src)]
        dec_rows += [{"example": m, "s": s, "token": words[i]} for s, i in enumerate(din)]
    enc, dec = pd.DataFrame(enc_rows), pd.DataFrame(dec_rows)
    enc_h, dec_h = np.vstack(enc_h).astype(float), np.vstack(dec_h).astype(float)
    E = decompose(enc_h, enc.t.to_numpy(), enc.token.map(words.index).to_numpy(), n_tokens=7)
    D = decompose(dec_h, dec.s.to_numpy(), dec.token.map(words.index).to_numpy(), n_tokens=7)
    return E, D, enc, dec, enc_h, dec_h


def test_an_untrained_network_fails_the_kept_section3_rows():
    """Footnote 4's temporal plots, footnote 5's simplex and Fig. 2e's adjacent clusters and hand-off have no rows
    because an untrained network bears them out; the rows kept must fail on one."""
    for seed in range(2):
        measures = section3_measures(*_untrained_gru(seed))
        assert _verdict("one_to_one_pcs_input", measures["pc3_input"]) == NOT_REPRODUCED, measures
        assert _verdict("one_to_one_decoder_temporal", measures["decoder_input_delta_ratio"]) == NOT_REPRODUCED
    removed = {"one_to_one_pcs_temporal", "one_to_one_input_simplex", "ved_adjacent_clusters", "ved_handoff"}
    assert not removed & {c.claim_id for c in WING} and not any(c.claim_id.startswith("cells_") for c in WING)


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
    assert _verdict("one_to_one_pcs_input", top_axes_variance(flat, basis=flat)) == REPRODUCED
    assert _verdict("one_to_one_pcs_input", top_axes_variance(spread, basis=flat)) == NOT_REPRODUCED


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


def test_footnote_experiments_test_only_the_footnote_claims():
    wing = {c.claim_id: c for c in WING}
    assert _verdict("ao_feedforward_similar", 0.5) == NOT_REPRODUCED
    ff, qkv = wing["ao_feedforward_similar"], wing["qkv_attention_similar"]
    assert ff.applies_to("one_to_one", "ao", "ff", "dot") and not ff.applies_to("one_to_one", "ao", "gru", "dot")
    assert all(qkv.applies_to("one_to_one", a, "gru", "qkv") for a in ("aed", "ao")) and qkv.measured_by
    assert not any(qkv.applies_to("one_to_one", a, "gru", "dot") for a in ("aed", "ao"))
    # config/paper.yaml's ao_ff_one_to_one, aed_qkv_one_to_one and ao_qkv_one_to_one: the footnote rows only
    for arch, cell, attention, own in (("ao", "ff", "dot", ff), ("aed", "gru", "qkv", qkv), ("ao", "gru", "qkv", qkv)):
        rows = [c.claim_id for c in WING if c.applies_to("one_to_one", arch, cell, attention)]
        assert rows == [own.claim_id], (arch, cell, attention, rows)
    # the main text's rows: every recurrent cell with dot attention, and the VED (no attention to choose)
    main = wing["one_to_one_full_attention_diagonal"]
    assert all(main.applies_to("one_to_one", "aed", c, "dot") for c in ("lstm", "gru", "ugrnn"))
    assert wing["ved_no_alignment"].applies_to("one_to_one", "ved", "gru", "")
    assert not wing["aed_readout_state_negligible"].applies_to("one_to_one", "aed", "gru", "qkv")


def test_analyze_seed_writes_the_section3_measures():
    rng = np.random.default_rng(5)
    n, L, H = 12, 5, 8
    mu_e, mu_d, chi = rng.normal(size=(L + 1, H)) * 3, rng.normal(size=(L + 1, H)) * 3, rng.normal(size=(4, H))
    words = ["<eos>", "A", "B", "C"]
    toks = rng.integers(1, 4, size=(n, L))
    enc = pd.DataFrame([{"example": e, "t": t, "token": words[toks[e, t]] if t < L else "<eos>"}
                        for e in range(n) for t in range(L + 1)])
    dec = pd.DataFrame([{"example": e, "s": s, "token": "<eos>" if s == 0 else words[toks[e, s - 1]],
                         "target": words[toks[e, s]] if s < L else "<eos>", "predicted": "A",
                         "hypothesis": " ".join(["A"] * (L + 1))}
                        for e in range(n) for s in range(L + 1)])
    code = {w: i for i, w in enumerate(words)}
    enc_h = mu_e[enc.t] + chi[enc.token.map(code)]
    dec_h = mu_d[dec.s] + 0.1 * chi[dec.token.map(code)]
    readout = rng.normal(size=(4, H))
    out = analyze_seed(enc, enc_h, dec, dec_h, words, words, True, readout=readout, readout_state=0.1 * readout)
    s = out["summary"].iloc[0]
    for column in ("decoder_input_delta_ratio", "pc3_input", "readout_state_ratio", "average_map_fit",
                   "attention_diagonal_share"):
        assert np.isfinite(s[column]), column
    assert s.decoder_input_delta_ratio < 0.2 and s.readout_state_ratio < 0.25
    assert not {"temporal_adjacent_share", "handoff_nearest", "pc3_temporal", "chi_simplex_cv"} & set(s.index)
