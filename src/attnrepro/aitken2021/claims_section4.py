"""Claims of Aitken et al. 2021 §4 (eSCAN and English-French translation) beyond the alignment shares, offsets and
variance drops of :mod:`attnrepro.aitken2021.claims`: where the attention goes (Fig. 3a/d, 4a), the delta
components recurrence makes (Fig. 3c, 6a), words that hide from attention (Fig. 6c/d), the read-out dictionary
(Fig. 4c, 5d) and the temporal alignment of translation (Fig. 5a/b). Measures:
:mod:`attnrepro.aitken2021.escan_mechanisms`, gathered into summary.csv by
:func:`attnrepro.aitken2021.analysis.analyze_seed`.
"""


from ..verdicts.claims import Claim
from .claim_keys import ATTENTION, CORR, POSITIVE, REAL, SHARE, TRANSLATION
from .claim_keys import FIG as _FIG

_HIDE = ("AO: the largest over offsets k = s − t ∈ −2 … 4 of μ_{{t+k}}^D·(χ_{w}^E + Δh_t^E), each averaged over the "
         "states reading '{w}' and then over encoder steps (the authors' Fig. 6d curve), below 0")

# an untrained AED or AO gives −0.89 to 0.33 (tests/test_claims_more.py)
_RHO = "the Spearman ρ of decoder step s with argmax_t μ_s^D·μ_t^E (+1: the temporal peak moves with s)"

CLAIMS: tuple[Claim, ...] = (
    Claim(
        paper="aitken2021", claim_id="escan_aed_subphrase_end", section="§4 'Extended SCAN', Fig. 3a",
        quote="Looking at a sample attention matrix of AED, we see consecutive words in the output phrase tend to "
              "attend to the same encoder hidden states at the end of subphrases in the input phrase",
        reading="AED: the share of decoder steps whose top alignment argmax_t a_st is the last word of a sub-phrase "
                "within the command (the word before 'and' or a command separator; the word before <eos> is not "
                "counted, so attention parked at the input's end scores below 0) minus the share of input words "
                "that are, above 0.2 ('tend to': attention at sub-phrase ends well above their frequency)",
        measure="subphrase_end_share", kind="continuous", bounds=CORR, direction=">", threshold=0.2,
        task_kinds=("escan",), archs=("aed",), figure=_FIG + "fig3.png"),
    Claim(
        paper="aitken2021", claim_id="escan_aed_delta_larger_than_one_to_one", section="§4 'Extended SCAN', Fig. 3c/f",
        quote="The delta components are significantly less negligible for this task, as evidence by the fact "
              "χ_x^E + Δh_t^E aren't nearly as clustered around their corresponding input component (Fig. 3c). As "
              "we will verify later, this is a direct result of the network's use of recurrence",
        reading="per seed, the eSCAN AED's projected relative delta norm (as one_to_one_small_delta) minus that of "
                "the one-to-one AED of the same seed, above 0. The comparison with the eSCAN AO ('a direct result "
                "of the network's use of recurrence') has no row: AO has no recurrence, so its Δh_t^E is only the "
                "word–position interaction of one feed-forward map, and the AED's being larger holds by "
                "architecture. Nor has Fig. 3f's 'input-delta components cluster around their corresponding input "
                "components, indicating the delta components are small' for AO: an untrained AO already gives this "
                "ratio 0.08–0.14 (GRU, H = 64), below any reading of 'small'",
        measure="encoder_delta_norm_projected", kind="continuous", bounds=REAL, direction=">", threshold=0.0,
        original="encoder_delta_norm", task_kinds=("escan",), archs=("aed",), versus=("one_to_one", "aed"),
        figure=_FIG + "fig3.png"),
    Claim(
        paper="aitken2021", claim_id="escan_ao_attends_before_twice", section="§4 'Extended SCAN', Fig. 3d; §4.2",
        quote="Focusing on the subphrase mapping 'run twice' → 'RUN RUN', we see the network learns to attend to "
              "the word preceding 'twice', since it can no longer rely on recurrence to carry said word's identity "
              "forward",
        reading="AO: mean a_st at t = s − 1 minus at t = s over the decoder steps s whose input word at t = s is "
                "'twice', above 0",
        measure="twice_before_margin", kind="continuous", bounds=REAL, direction=">", threshold=0.0,
        task_kinds=("escan",), archs=("ao",), figure=_FIG + "fig6.png"),
    Claim(
        paper="aitken2021", claim_id="escan_aed_twice_context", section="§4.2, Fig. 6a",
        quote="Plotting input-delta components, we see the RNN outputs 'twice' hidden states in three separate "
              "clusters separated by the preceding word (Fig. 6a)",
        reading="AED: the share of the variance of χ_twice^E + Δh_t^E that the word before 'twice' explains (η², "
                "between-group over total sum of squares), above 0.5 (separate clusters). The AO half of Fig. 6a "
                "('all occurrences of twice are the same input-delta component cluster') has no row: AO's h_t^E "
                "depends on x_t + pe_t alone, so its η² by the preceding word is a property of the data (what "
                "the position of 'twice' tells of that word), not of what the network learnt",
        measure="twice_context_ratio", kind="continuous", bounds=SHARE, direction=">", threshold=0.5,
        task_kinds=("escan",), archs=("aed",), figure=_FIG + "fig6a.png"),
    *(Claim(
        paper="aitken2021", claim_id=f"escan_{arch}_not_orthogonal", section="§4.2, Fig. 6c",
        quote="Unlike the one-to-one case, the encoder input-delta and the decoder temporal components are no "
              "longer approximately orthogonal to one another (Fig. 6c)",
        reading=f"{arch.upper()}: per seed, the eSCAN model's mean |cos| between μ_s^D and χ_x^E + Δh_t^E at t = s "
                f"above chance (as one_to_one_orthogonal) minus that of the one-to-one {arch.upper()}, above 0",
        measure="cos_temporal_input_delta_excess", kind="continuous", bounds=(-2.0, 2.0), direction=">",
        threshold=0.0, original="cos_temporal_input_delta", group="escan_not_orthogonal",
        task_kinds=("escan",), archs=(arch,), versus=("one_to_one", arch), figure=_FIG + "fig6.png")
      for arch in ATTENTION),
    *(Claim(
        paper="aitken2021", claim_id=f"escan_ao_{w}_hides_all_offsets", section="§4.2, Fig. 6d",
        quote="Additionally, the words 'and' and 'twice' have large negative dot products for all offsets, since "
              "they never want to be the subject of attention",
        reading=_HIDE.format(w=w), measure=f"hide_max_{w}", kind="continuous", bounds=REAL, direction="<",
        threshold=0.0, group="escan_hides_all_offsets",
        task_kinds=("escan",), archs=("ao",), figure=_FIG + "fig6.png")
      for w in ("and", "twice")),
    Claim(
        paper="aitken2021", claim_id="escan_ao_left_hides", section="§4.2, Fig. 6c",
        quote="Perhaps contradictory to expectation, χ_left^E + Δh_t^E has a negative dot product with the "
              "temporal component",
        reading="AO: μ_t^D·(χ_left^E + Δh_t^E) at t = s in the authors' Fig. 6c cell (as escan_ao_and_hides), "
                "below 0",
        measure="hide_left", kind="continuous", bounds=REAL, direction="<", threshold=0.0,
        task_kinds=("escan",), archs=("ao",), figure=_FIG + "fig6.png"),
    Claim(
        paper="aitken2021", claim_id="escan_hidden_words_no_readout", section="§4.1 'Input/Readout Alignment', Fig. 5d",
        quote="Notably, words that produce no corresponding output such as 'and' and 'twice' are not the maximal "
              "in alignment with any readout vector",
        reading="the number of output-word readouts (special tokens left out) whose largest dot product with an "
                "input component χ_x^E is with 'and' or 'twice', below 0.5 (none)",
        measure="readout_max_hidden", kind="continuous", bounds=POSITIVE, direction="<", threshold=0.5,
        task_kinds=("escan",), archs=ATTENTION, figure=_FIG + "fig5d.png"),
    Claim(
        paper="aitken2021", claim_id="translation_near_diagonal", section="§4 'English to French Translation', Fig. 4a",
        quote="Since English and French are syntactically similar with roughly consistent word ordering, the "
              "attention matrices are in general close to diagonal",
        reading="the share of decoder steps whose top alignment argmax_t a_st lies within one step of the diagonal "
                "stretched to the example's lengths (t = s·T/S), above 0.5 ('in general')",
        measure="near_diagonal_share", kind="continuous", bounds=SHARE, direction=">", threshold=0.5,
        task_kinds=TRANSLATION, archs=ATTENTION, figure=_FIG + "fig4.png"),
    Claim(
        paper="aitken2021", claim_id="translation_early_mu_mu", section="§4.1 'Alignment Approximation', Fig. 5a",
        quote="However, at early times in the AED architecture, we again see μ_s^D·μ_t^E is the largest "
              "contribution to the alignment",
        reading="AED: over the first three decoder steps, the authors' share of μ_s^D·μ_t^E at the top five "
                "alignments minus the largest share of the other eight terms of Eq. 3, above 0",
        measure="early_mu_mu_margin", kind="continuous", bounds=CORR, direction=">", threshold=0.0,
        task_kinds=TRANSLATION, archs=("aed",), figure=_FIG + "fig5a.png"),
    Claim(
        paper="aitken2021", claim_id="translation_falloff_slower_late", section="§4.1 'Temporal Component Offset', Fig. 5b",
        quote="Additionally, note the temporal dot product falls off significantly slower as a function of offset "
              "for later time steps, indicating the drop off for non-diagonal alignments is smaller",
        reading="the attention the temporal components alone give, softmax_t(μ_s^D·μ_t^E): its mass off the peak "
                "averaged over the last third of the steps half the examples reach, minus over the first third, "
                "above 0",
        measure="temporal_offpeak_gain", kind="continuous", bounds=CORR, direction=">", threshold=0.0,
        task_kinds=TRANSLATION, archs=ATTENTION, figure=_FIG + "fig5b.png"),
    Claim(
        paper="aitken2021", claim_id="translation_readout_the", section="§4.1 'Input/Readout Alignment', Fig. 4c",
        quote="For example, the readouts for the words 'la', 'le', and 'les', which are the gendered French "
              "equivalents of 'the', all have maximal alignments with χ_the^E",
        reading="the fraction of la, le and les whose readout has its largest dot product with χ_the^E among all "
                "input components, above 0.9 (all)",
        measure="readout_the", kind="continuous", bounds=SHARE, direction=">", threshold=0.9,
        task_kinds=TRANSLATION, archs=ATTENTION, figure=_FIG + "fig4.png"),
    Claim(
        paper="aitken2021", claim_id="escan_aed_temporal_diagonal", section="§4 'Extended SCAN', Fig. 3b",
        quote="we find the temporal components of the encoder and decoder form curves that mirror one another, "
              "leading to an approximately diagonal attention matrix (Fig. 3b)",
        reading=f"AED: {_RHO} over the decoder steps every example reaches, above 0.8 ('approximately "
                f"diagonal': the peak moves forward with s, wherever 'and' offsets it)",
        measure="temporal_argmax_rho", kind="continuous", bounds=CORR, direction=">", threshold=0.8,
        task_kinds=("escan",), archs=("aed",), figure=_FIG + "fig3.png"),
    Claim(
        paper="aitken2021", claim_id="escan_ao_temporal_follow", section="§4 'Extended SCAN', Fig. 3e",
        quote="Once again, the temporal components of the encoder and decoder trace out paths that roughly follow "
              "one another (Fig. 3e)",
        reading=f"AO: {_RHO} over the decoder steps every example reaches, above 0.5 ('roughly')",
        measure="temporal_argmax_rho", kind="continuous", bounds=CORR, direction=">", threshold=0.5,
        task_kinds=("escan",), archs=("ao",), figure=_FIG + "fig3.png"),
    Claim(
        paper="aitken2021", claim_id="translation_temporal_follow", section="§4 'English to French Translation', Fig. 4b",
        quote="Using the decomposition of (2), the temporal components in both AED and AO continue to trace out "
              "similar curves (Fig. 4b)",
        reading=f"{_RHO} over the decoder steps half the examples reach (the shortest verse pairs leave only a few "
                f"steps every example reaches), above 0.5",
        measure="temporal_argmax_rho_half", kind="continuous", bounds=CORR, direction=">", threshold=0.5,
        task_kinds=TRANSLATION, archs=ATTENTION, figure=_FIG + "fig4.png"),
    *(Claim(
        paper="aitken2021", claim_id=f"translation_temporal_less_diagonal_{arch}",
        section="§4 'English to French Translation', Fig. 4b", group="translation_temporal_less_diagonal",
        quote="Notably, the alignment resulting from the temporal components is significantly less diagonal, with "
              "the diagonal behavior clearest at the beginning of the phrase",
        reading=f"{arch.upper()}: per seed, the share of the decoder steps half the examples reach whose "
                f"argmax_t μ_s^D·μ_t^E is t = s, minus that of the one-to-one {arch.upper()} of the same seed, below "
                f"−0.2 ('significantly less'; an untrained pair differs by about 0, both near 1 / length)",
        measure="temporal_diagonal_share_half", kind="continuous", bounds=CORR, direction="<", threshold=-0.2,
        task_kinds=TRANSLATION, archs=(arch,), versus=("one_to_one", arch), figure=_FIG + "fig4.png")
      for arch in ATTENTION),
    Claim(
        paper="aitken2021", claim_id="escan_ao_attention_differs", section="§4 'Extended SCAN', Fig. 3a/d",
        quote="Training the AO architecture on eSCAN, we also observe non-diagonal attention matrices, but in "
              "general their qualitative features differ from those of the AED architecture (Fig. 3d)",
        reading="the AED's feature of Fig. 3a, attention parked at sub-phrase ends (subphrase_end_share, as "
                "escan_aed_subphrase_end), per seed that of the AED minus that of the AO, above 0.2 (the AED row's "
                "threshold): the AO lacks it (untrained pairs differ by −0.13 to 0.16)",
        measure="subphrase_end_share", kind="continuous", bounds=(-2.0, 2.0), direction=">", threshold=0.2,
        task_kinds=("escan",), archs=("aed",), versus=("escan", "ao"), figure=_FIG + "fig3.png"),
)
