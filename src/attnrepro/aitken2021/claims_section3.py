"""Claims of Aitken et al. 2021's §3, abstract and footnotes that :mod:`attnrepro.aitken2021.claims` does
not hold, gathered into that wing's ``CLAIMS``. Measures: :mod:`attnrepro.aitken2021.mechanisms`, written to
each experiment's ``summary.csv`` by :func:`attnrepro.aitken2021.analysis.analyze_seed`.

Sentences an untrained network already bears out have no row of their own; the reading of the nearest row that can
fail quotes them with what an untrained GRU measures (``tests/test_aitken_section3.py``).

Comparisons across tasks pair one seed's model on one task with the same seed's model of the same architecture and
cell on the other (``Claim.versus``); the demo config (config/config.yaml) trains GRU models only, and its
translation AO, LSTM and UGRNN models are in config/paper.yaml.
"""

import math

from ..verdicts.claims import Claim
from .claim_keys import ATTENTION, POSITIVE, REAL, SHARE, TRANSLATION
from .claim_keys import FIG as _FIG
from .claim_keys import PAPER_CONFIG as _PAPER
_ABSTRACT = ("In the tasks studied, we show the temporal (input) components play a larger role in determining the "
             "attention matrix as the average attention matrix becomes a better (worse) approximation for a random "
             "sample's attention matrix.")
_FIT = ("average_map_fit: per decoder state, the overlap Σ_t min(α_st, ᾱ_st) of its softmax attention with the "
        "mean attention over test examples at that step, averaged per step and then over steps")
_SHARE = "share_mu_mu (the authors' top-five per-step share of μ_s^D·μ_t^E, as one_to_one_temporal_alignment)"
_SHARE_QUOTE = ("For eSCAN, the μ_s^D·μ_t^E term is still largely dominant ... For translation, we see the term "
                "μ_s^D·μ_t^E makes up a significantly smaller portion of the alignment scores")

# (task, the task it is compared with, the pair's reading): the abstract's ordering of tasks by how well the
# average attention fits a sample — one-to-one (one diagonal matrix) above eSCAN above translation, and one-to-one
# above sort (§3: "the average attention matrix is very different from that of a random sample")
_FIT_PAIRS = (("one_to_one", "sort"), ("one_to_one", "escan"), *(("escan", t) for t in TRANSLATION))
_SHARE_PAIRS = (("one_to_one", "escan"), *(("escan", t) for t in TRANSLATION))


def _versus(claim_id: str, group: str, section: str, quote: str, reading: str, measure: str, pairs,
            figure: str, bounds=REAL, measured_by: str = "") -> tuple[Claim, ...]:
    """One row per (task pair, architecture): measure(task) − measure(other task) of the same seed and cell > 0."""
    return tuple(
        Claim(paper="aitken2021", claim_id=f"{claim_id}_{task}_vs_{other}_{arch}", group=group, section=section,
              quote=quote, reading=reading.format(task=task, other=other, arch=arch.upper()), measure=measure,
              kind="continuous", bounds=bounds, direction=">", threshold=0.0, task_kinds=(task,), archs=(arch,),
              versus=(other, arch), figure=figure, measured_by=measured_by)
        for task, other in pairs for arch in ATTENTION)


CLAIMS: tuple[Claim, ...] = (
    *_versus("average_map_fit", "abstract_average_map_fit", "Abstract; §1 'Our Contributions'", _ABSTRACT,
             f"{{arch}}: per seed, {_FIT}, on {{task}} minus that on {{other}}, above 0: the average attention fits "
             "a sample better on the task whose μ·μ share is larger (one-to-one > eSCAN > translation, Fig. 5a: "
             "mu_mu_share_order; one-to-one > sort, §3), so fit and temporal reliance are ordered alike",
             "average_map_fit", _FIT_PAIRS, _FIG + "fig5a.png", bounds=(-1.0, 1.0),
             measured_by=f"{_PAPER} (AO on sort and translation; ParaCrawl)"),
    *_versus("mu_mu_share_order", "mu_mu_share_order", "§4.1 'Alignment Approximation', Fig. 5a", _SHARE_QUOTE,
             f"{{arch}}: per seed, {_SHARE} on {{task}} minus that on {{other}}, above 0 (the order one-to-one > "
             "eSCAN > translation of Fig. 5a's dark bars)",
             "share_mu_mu", _SHARE_PAIRS, _FIG + "fig5a.png", bounds=(-1.0, 1.0),
             measured_by=f"{_PAPER} (AO on translation; ParaCrawl)"),
    *(Claim(
        paper="aitken2021", claim_id=f"abstract_sort_input_driven_{arch}", group="abstract_average_map_fit",
        section="Abstract; §3 'Additional Tasks'", quote=_ABSTRACT,
        reading=f"{arch.upper()}: per seed, {_SHARE} on one-to-one minus that on sort, above 0: the task whose "
                "average attention fits a sample worse (sort) relies less on the temporal components",
        measure="share_mu_mu", kind="continuous", bounds=(-1.0, 1.0), direction=">", threshold=0.0,
        task_kinds=("one_to_one",), archs=(arch,), versus=("sort", arch), figure=_FIG + "fig2h.png",
        measured_by="" if arch == "aed" else f"{_PAPER} (ao_*_sort)")
      for arch in ATTENTION),
    Claim(
        paper="aitken2021", claim_id="one_to_one_decoder_temporal", section="§3, Fig. 2b",
        quote="Also note the decoder input-delta components are significantly smaller in magnitude than the decoder "
              "temporal components. Together, this means we can approximate ... h_s^D ≈ μ_s^D",
        reading="AED: mean ‖χ_y^D + Δh_s^D‖ / mean ‖μ_s^D‖ over the test decoder states, below 0.5 ('significantly "
                "smaller' read as less than half)",
        measure="decoder_input_delta_ratio", kind="continuous", bounds=POSITIVE, direction="<", threshold=0.5,
        task_kinds=("one_to_one",), archs=("aed",), figure=_FIG + "fig2b.png"),
    Claim(
        paper="aitken2021", claim_id="one_to_one_full_attention_diagonal", section="§3",
        quote="For the one-to-one translation task, the network learns an approximately diagonal attention matrix, "
              "meaning the decoder at time s primarily attends to the encoder's hidden state at t = s",
        reading="share of decoder states whose largest full alignment a_st = h_s^D·h_t^E (not only μ·μ) is at "
                "t = s, per step and then over steps, above 0.8 ('primarily')",
        measure="attention_diagonal_share", kind="continuous", bounds=SHARE, direction=">", threshold=0.8,
        task_kinds=("one_to_one",), archs=ATTENTION, figure=_FIG + "fig2a.png"),
    Claim(
        paper="aitken2021", claim_id="ved_no_alignment", section="§3 'Vanilla Encoder-Decoder'",
        quote="Since there is no attention in this architecture, there is no incentive for the network to align "
              "temporal components of the encoder and decoder as we saw in AED and AO",
        reading="per seed, the VED's share of steps whose argmax_t μ_s^D·μ_t^E is t = s (as one_to_one_diagonal) "
                "minus that of the AED of the same cell, below 0: without attention the temporal components align "
                "less. Fig. 2e's 'said clusters are closest to those corresponding to adjacent time steps' and "
                "'μ_T^E next to μ_1^D' have no row: an untrained GRU VED already shows both (the share of μ_t whose "
                "nearest other is t ± 1: 0.59–0.97 over seeds; μ_T^E nearest μ_1^D in 2 of 3 seeds, the encoder "
                "handing its last state to the decoder), so neither could fail",
        measure="temporal_diagonal_share", kind="continuous", bounds=(-1.0, 1.0), direction="<", threshold=0.0,
        task_kinds=("one_to_one",), archs=("ved",), versus=("one_to_one", "aed"), figure=_FIG + "fig2e.png"),
    Claim(
        paper="aitken2021", claim_id="one_to_one_variance_temporal", section="§4.1 'Word Variance', Fig. 5c",
        quote="χ_x^E is constant for a given input word, so the variance in the hidden states corresponding to a "
              "given input word is primarily contained in the temporal component (Fig. 5c)",
        reading="on one-to-one: 1 − the mean over input words of var(h^E − μ^E)/var(h^E) (variance_drop, <eos> "
                "left out), above 0.5 ('primarily')",
        measure="variance_drop", kind="continuous", bounds=(-math.inf, 1.0), direction=">", threshold=0.5,
        task_kinds=("one_to_one",), archs=ATTENTION, figure=_FIG + "fig5c.png"),
    Claim(
        paper="aitken2021", claim_id="one_to_one_pcs_input", section="§3, footnote 4",
        quote="For all one-to-one plots, a large percentage (> 90%) of the variance is explained by the first 2 or "
              "3 PC dimensions.",
        reading="share of the variance of the encoder and decoder input-delta components χ + Δh on the first three "
                "principal axes of the input components χ (the projection of Fig. 2b/d/f's bottom row), above 0.9 "
                "(an untrained GRU: 0.69–0.81). The plots of the temporal components have no row: an untrained "
                "GRU's μ_t already put 0.99 of their variance on three axes (a smooth trajectory). Nor has "
                "footnote 5's 'For N possible input words, the encoder input components align with the vertices of "
                "an (N − 1)-simplex': N points always span one, and a regular one (coefficient of variation of the "
                "pairwise distances below 0.2) is what random Gaussian points at H ≥ 32 give (untrained GRU: "
                "0.08–0.10)",
        measure="pc3_input", kind="continuous", bounds=SHARE, direction=">", threshold=0.9, reference_value=0.9,
        threshold_from="paper", task_kinds=("one_to_one",), archs=(*ATTENTION, "ved"), figure=_FIG + "fig2b.png"),
    Claim(
        paper="aitken2021", claim_id="aed_readout_state_negligible", section="§3, footnote 6",
        quote="We plot only the readout weights corresponding to the context vector, since generally those "
              "corresponding to the decoder hidden state are negligible",
        reading="AED: the logits the readout's h_s^D part adds, mean ‖W_h h_s^D‖, over those its context part adds "
                "to an encoder state, mean ‖W_c h_t^E‖, below 0.25 ('negligible'), on every AED task",
        measure="readout_state_ratio", kind="continuous", bounds=POSITIVE, direction="<", threshold=0.25,
        task_kinds=("one_to_one", "reversed", "sort", "escan", *TRANSLATION), archs=("aed",),
        figure=_FIG + "fig2b.png"),
    Claim(
        paper="aitken2021", claim_id="ao_feedforward_similar", section="§2, footnote 2; Abstract",
        quote="We train non-gated feedforward networks and find their dynamics to be qualitatively the same",
        reading="an AO whose cell is feed-forward (cell ff): share of μ_s^D·μ_t^E on one-to-one above 0.8, as "
                "one_to_one_temporal_alignment",
        measure="share_mu_mu", kind="continuous", bounds=SHARE, direction=">", threshold=0.8,
        task_kinds=("one_to_one",), archs=("ao",), cells=("ff",), figure=_FIG + "fig2c.png",
        measured_by=f"{_PAPER} (ao_ff_one_to_one)"),
    Claim(
        paper="aitken2021", claim_id="qkv_attention_similar", section="§2, footnote 1",
        quote="we implement a learned-attention mechanism using a scaled-dot product attention in the form of "
              "queries, keys, and value matrices ... For the AED and AO architectures, we find qualitatively similar "
              "results to the simple dot-product attention",
        reading="AED and AO with attention: qkv on one-to-one: share of μ_s^D·μ_t^E of the queries and keys above "
                "0.8, as one_to_one_temporal_alignment",
        measure="share_mu_mu", kind="continuous", bounds=SHARE, direction=">", threshold=0.8,
        task_kinds=("one_to_one",), archs=ATTENTION, attentions=("qkv",), figure=_FIG + "fig2a.png",
        measured_by=f"{_PAPER} (aed_qkv_one_to_one, ao_qkv_one_to_one)"),
    Claim(
        paper="aitken2021", claim_id="sort_attention_permutes", section="§3 'Additional Tasks', Fig. 2h",
        quote="For this example, we expect the network to learn an input-dependent attention matrix that correctly "
              "permutes the input sequence",
        reading="the expectation Fig. 2h's full attention (top left) bears out: the share of decoder states whose "
                "top alignment argmax_t a_st is the input position holding the letter the state must output, per "
                "step and then over steps, above 0.8 (an untrained AED or AO scores 0.05–0.19, about 1 / length)",
        measure="attention_target_share", kind="continuous", bounds=SHARE, direction=">", threshold=0.8,
        task_kinds=("sort",), archs=ATTENTION, figure=_FIG + "fig2h.png"),
)
