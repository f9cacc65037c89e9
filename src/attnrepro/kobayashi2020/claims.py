"""Claims of Kobayashi et al. 2020 (paper 004).

§4 claims are measured on the pretrained encoder (all-MiniLM-L6-v2 offline by default; the paper's own
bert-base-uncased where ``kobayashi2020.encoder`` downloads it, as config/paper.yaml does) over news paragraphs. One pretrained model has no seeds: its replicates are disjoint folds of the sequences (sequence id
mod ``kobayashi2020.folds``), each with every measure computed on that fold alone, so the interval says how much the
measure moves with the text, not with training. Thresholds (fixed before any run): "clearly negative" is
ρ < −0.2 (the paper's weakest such value is −0.25), "near zero" is −0.15 < ρ < 0.15 on the signed ρ (the
paper's −0.06 and −0.08 are its reference values), "strongly positive" is ρ > 0.5.

§5's AER claims are the paper's on real translation (a gold alignment set, ``kobayashi2020_aer.gold``) and the
project's own check on the synthetic tasks with exact alignments. The paper's own De-En data (task kind ``wmt16``:
corpus format :mod:`attnrepro.data.corpora.wmt16`) is measured by config/paper.yaml (``measured_by``), and Table 3's
numbers of other methods (SmoothGrad, fast_align) are compared with a wmt16 row only, never with a substitute's.
"""

import math

from ..verdicts.claims import PAPER_SETUP, TRANSLATES, Claim, ModelCheck

RHO, POSITIVE, REAL = (-1.0, 1.0), (0.0, math.inf), (-math.inf, math.inf)
_ENCODER = dict(paper="kobayashi2020", kind="continuous", task_kinds=("news",), archs=("pretrained",),
                samples="folds of one pretrained model's text (the model, the uncertainty that matters, is not "
                        "sampled)")
TEXT = "news paragraphs for Clark et al.'s Wikipedia sequences"
MINILM = "all-MiniLM-L6-v2 for BERT-base; " + TEXT
_AER_DATA = {"bible": "Bible verses (En-Fr) for De-En with Vilar et al.'s gold alignments",
             "paracrawl": "ParaCrawl En-Fr for De-En with Vilar et al.'s gold alignments"}
# the translation models must translate (stated gates: the paper prints no BLEU; the Bible verses, a substitute
# corpus, at verdicts.gate.TRANSLATES); the synthetic ones must learn
MODEL_CHECKS = {"paracrawl": ModelCheck("bleu", 10.0), "wmt16": ModelCheck("bleu", 10.0), "bible": TRANSLATES,
                **{k: ModelCheck("token_acc", 0.95) for k in ("one_to_one", "reversed", "sort", "escan")}}


def model_check(experiment: str, task_kind: str, arch: str) -> ModelCheck | None:
    return MODEL_CHECKS.get(task_kind)  # the pretrained encoder has none: it is the paper's kind of model


def tested_on(experiment: str, task_kind: str, arch: str) -> str:
    """What stands in for the paper's BERT-base and its De-En Transformer (every row substitutes something)."""
    if arch == "pretrained":
        return MINILM if "minilm" in experiment else TEXT
    model = "" if arch == "transformer" else f"; a recurrent {arch.upper()} for the Transformer"
    if task_kind == "wmt16" and not model:
        return PAPER_SETUP
    return _AER_DATA.get(task_kind, f"synthetic {task_kind} with exact alignments for De-En gold") + model

_FIG = "figures/kobayashi2020/"
_FOLDS = "; folds of the text as replicates"
_TABLE1_QUOTE = ("Table 1: Mean (μ), standard deviation (σ), coefficient of variance (CV), and maximum and minimum "
                 "values of ||f(x)||; the former three are averaged on all the heads")
# a max, min or ρ over heads is a statistic of the whole census of one model's heads, not a sample of them
_CENSUS = {**_ENCODER, "samples": "folds of one pretrained model's text; the statistic is over the census of its "
                                  "heads (the model, the uncertainty that matters, is not sampled)"}
# the absence (Fig. 12) is one claim with Figs. 10-11: alone, "ρ > −0.2" would hold on noise
_APPC_QUOTE = ("Figures 10 and 11 show that the vectors corresponding to [CLS], periods and commas have the same "
               "tendency as the vectors corresponding to [SEP]. On the other hand, Figure 12 shows that the vectors "
               "corresponding to the other tokens do not strongly have the same tendency")
_TABLE2_QUOTE = ("the vectors for specific tokens ([CLS], [SEP], and punctuation) gain remarkably large attention "
                 "weights. ... the contributions of those vectors for specific tokens are generally small")

CLAIMS: tuple[Claim, ...] = (
    Claim(claim_id="fnorm_dispersion", section="§4.1, Table 1",
          quote="Table 1 shows that the coefficient of variation is 0.22 on average",
          reading="coefficient of variation of ‖f(x)‖, averaged over heads; a dispersion that matters read as "
                  "CV > 0.1" + _FOLDS,
          measure="cv_fnorm_mean", bounds=POSITIVE, direction=">", threshold=0.1, reference_value=0.22,
          figure=_FIG + "table1.png", **_ENCODER),
    Claim(claim_id="fnorm_dispersion_heads_differ", section="§4.1, Table 1 (max vs min CV)", quote=_TABLE1_QUOTE,
          reading="Table 1's rows of the most and least dispersed heads (the paper's Layer 2–Head 4, CV 0.37, and "
                  "Layer 2–Head 7, CV 0.12; its text states no threshold for either): the CV of ‖f(x)‖ of the most "
                  "dispersed head over that of the least, above 2, heads that differ in dispersion (the paper's "
                  "3.1)" + _FOLDS,
          measure="cv_fnorm_max_over_min", bounds=POSITIVE, direction=">", threshold=2.0,
          reference_value=0.37 / 0.12, figure=_FIG + "table1.png", **_CENSUS),
    Claim(claim_id="x_less_dispersed_than_fx", section="App. A, Table 4",
          quote="Table 4 shows that the CV is 0.12 on average ... This is less than the dispersion of ‖f(x)‖",
          reading="mean CV of ‖f(x)‖ over heads minus mean CV of ‖x‖ over layers, above 0" + _FOLDS + ". App. "
                  "A's other source of the dispersion, 'In each head, there is a difference of at least 1.8 times "
                  "or more between the maximum and minimum singular values' of f (Fig. 9), is no row: heads drawn "
                  "at random with the shapes of MiniLM (384×32) and BERT-base (768×64) already give a smallest "
                  "σ_max / σ_min over 12 heads of 2.06–9.8, so the sentence could not fail, and one model's "
                  "weights give one value, no interval (fig9.png shows the singular values; svals_ratio_min is "
                  "in the summary, descriptive)",
          measure="cv_fnorm_minus_x", bounds=REAL, direction=">", threshold=0.0, reference_value=0.10,
          figure=_FIG + "table4.png", **_ENCODER),
    Claim(claim_id="special_tokens_large_alpha_small_norm", section="§4.2, Fig. 3", quote=_TABLE2_QUOTE,
          reading="the share of a query's attention that [CLS], [SEP] and punctuation receive by weight (α) minus "
                  "their share by norm (‖αf‖ over its sum), averaged over layers, heads and queries, above 0" + _FOLDS,
          measure="special_share_drop", bounds=RHO, direction=">", threshold=0.0, figure=_FIG + "fig3.png", **_ENCODER),
    Claim(claim_id="special_tokens_large_alpha", section="§4.2, Fig. 3a",
          quote="Figure 3a shows that the vectors for specific tokens ([CLS], [SEP], and punctuation) gain "
                "remarkably large attention weights",
          reading="the share of a head's attention weight α on [CLS], [SEP] and punctuation over the share of the "
                  "keys they are (uniform attention's share), averaged over heads, above 2: 'remarkably large' read "
                  "as twice what chance gives (heads of random weights attend near uniformly: ratio ≈ 1)" + _FOLDS,
          measure="special_weight_ratio", bounds=POSITIVE, direction=">", threshold=2.0, figure=_FIG + "fig3.png",
          **_ENCODER),
    Claim(claim_id="sep_fnorm_small", section="§4.3 (of §4.2, Fig. 4)",
          quote="In the previous section, we demonstrated that ||f(x)|| corresponding to the specific tokens (e.g., "
                "[SEP]) is small",
          reading="a head's mean ‖f(x)‖ on [SEP] over its mean ‖f(x)‖ on the other tokens, averaged over heads, "
                  "below 0.8: 'small' read as smaller than other tokens' by more than the 0.22 CV of ‖f(x)‖ (heads "
                  "of random weights give a ratio within a few per cent of 1)" + _FOLDS,
          measure="sep_fnorm_ratio", bounds=POSITIVE, direction="<", threshold=0.8, figure=_FIG + "fig4.png",
          **_ENCODER),
    Claim(claim_id="sep_heads_negate", section="§4.2, Fig. 4",
          quote="For almost all heads, α and ‖f(x)‖ clearly negate the magnitude of each other",
          reading="Spearman ρ over heads between a head's mean α on [SEP] and its mean ‖f([SEP])‖, clearly "
                  "negative" + _FOLDS,
          measure="rho_heads_alpha_fnorm_sep", bounds=RHO, direction="<", threshold=-0.2, figure=_FIG + "fig4.png", **_ENCODER),
    Claim(claim_id="cls_heads_negate", section="App. C, Figs. 10-12", quote=_APPC_QUOTE, group="appc_heads_negate",
          reading="Spearman ρ over heads between a head's mean α on [CLS] and its mean ‖f([CLS])‖, clearly negative "
                  "(as sep_heads_negate)" + _FOLDS,
          measure="rho_heads_alpha_fnorm_cls", bounds=RHO, direction="<", threshold=-0.2, figure=_FIG + "fig10.png",
          **_CENSUS),
    Claim(claim_id="punct_heads_negate", section="App. C, Fig. 11", quote=_APPC_QUOTE, group="appc_heads_negate",
          reading="the same ρ over heads for periods and commas, clearly negative" + _FOLDS,
          measure="rho_heads_alpha_fnorm_punct", bounds=RHO, direction="<", threshold=-0.2, figure=_FIG + "fig11.png",
          **_CENSUS),
    Claim(claim_id="other_heads_do_not_negate", section="App. C, Fig. 12", quote=_APPC_QUOTE,
          group="appc_heads_negate",
          reading="the same ρ over heads for all other tokens, not clearly negative (ρ > −0.2, the complement of "
                  "the threshold above); one claim with cls_heads_negate and punct_heads_negate, so the absence "
                  "counts only beside the negation it contrasts with" + _FOLDS,
          measure="rho_heads_alpha_fnorm_other", bounds=RHO, direction=">", threshold=-0.2, figure=_FIG + "fig12.png",
          **_CENSUS),
    Claim(claim_id="rho_alpha_fnorm_cls", section="§4.2, Table 2", group="rho_alpha_fnorm_special",
          quote="α and ‖f(x)‖ corresponding to [CLS], [SEP], periods, and commas are highly inversely correlated",
          reading="Spearman ρ between α_ij and ‖f(x_j)‖ over sampled pairs whose key is [CLS], clearly negative"
                  + _FOLDS,
          measure="rho_alpha_fnorm_cls", bounds=RHO, direction="<", threshold=-0.2, reference_value=-0.34,
          figure=_FIG + "table2.png", **_ENCODER),
    Claim(claim_id="rho_alpha_fnorm_sep", section="§4.2, Table 2", group="rho_alpha_fnorm_special",
          quote="α and ‖f(x)‖ corresponding to [CLS], [SEP], periods, and commas are highly inversely correlated",
          reading="the same ρ for keys that are [SEP], clearly negative" + _FOLDS,
          measure="rho_alpha_fnorm_sep", bounds=RHO, direction="<", threshold=-0.2, reference_value=-0.69,
          figure=_FIG + "table2.png", **_ENCODER),
    Claim(claim_id="rho_alpha_fnorm_punct", section="§4.2, Table 2", group="rho_alpha_fnorm_special",
          quote="α and ‖f(x)‖ corresponding to [CLS], [SEP], periods, and commas are highly inversely correlated",
          reading="the same ρ for keys that are commas or periods, clearly negative" + _FOLDS,
          measure="rho_alpha_fnorm_punct", bounds=RHO, direction="<", threshold=-0.2, reference_value=-0.25,
          figure=_FIG + "table2.png", **_ENCODER),
    Claim(claim_id="rho_alpha_fnorm_other", section="§4.2, Table 2",
          quote="On the other hand, there was no strong trend on the other tokens (see Appendix C)",
          reading="the same ρ for all other keys, signed, near zero (−0.15 < ρ < 0.15)" + _FOLDS,
          measure="rho_alpha_fnorm_other", bounds=RHO, direction="between", threshold=(-0.15, 0.15), reference_value=-0.06,
          figure=_FIG + "table2.png", **_ENCODER),
    Claim(claim_id="rho_rank_fnorm", section="§4.3, Fig. 6b",
          quote="the Spearman rank correlation coefficient between r and ‖f(x^(r,o))‖ was 0.75, indicating a strong positive correlation",
          reading="Spearman ρ of frequency rank with ‖f(x)‖ over every token occurrence (word pieces, single "
                  "characters and special tokens ranked; unranked ids last), strongly positive" + _FOLDS,
          measure="rho_rank_fnorm", bounds=RHO, direction=">", threshold=0.5, reference_value=0.75,
          figure=_FIG + "fig6.png", **_ENCODER),
    Claim(claim_id="rho_rank_alpha", section="§4.3, Fig. 6a",
          quote="The Spearman rank correlation coefficient showed no correlation (ρ = −0.08) between r and α^(r,o)",
          reading="Spearman ρ of frequency rank with α over every token occurrence, signed, near zero "
                  "(−0.15 < ρ < 0.15)" + _FOLDS,
          measure="rho_rank_alpha", bounds=RHO, direction="between", threshold=(-0.15, 0.15), reference_value=-0.08,
          figure=_FIG + "fig6.png", **_ENCODER),
)

_REAL = ("bible", "paracrawl", "wmt16")  # gold sets (kobayashi2020_aer.gold) carry their experiment's task kind
# the paper's own §5 data: config/paper.yaml's route to it
_WMT16 = ("config/paper.yaml (kobayashi2020_aer.gold.rwth_de_en: transformer_wmt16, 6+6 layers, 8 heads, width 512 "
          "as App. D, trained on WMT16 De-En and scored on the RWTH gold alignments of Vilar et al., both pinned "
          "downloads of corpus wmt16_de_en; words, not the paper's BPE)")
_SYNTHETIC = ("one_to_one", "reversed", "sort", "escan")
_AER_QUOTE = ("the results obtained using our norm-based method considerably differ from the observation "
              "through attention weights (Figure 7 and 8), (2) the norm-based result is much better than existing "
              "works")
_AER = dict(paper="kobayashi2020", kind="continuous", bounds=RHO, figure=_FIG + "table3.png")
_TABLE3 = dict(paper="kobayashi2020", kind="continuous", task_kinds=("wmt16",), archs=("transformer",),
               threshold_from="paper", figure=_FIG + "table3.png")

for _kinds, _origin, _archs, _suffix in ((_REAL, "paper", ("transformer", "aed", "ao"), ""),
                                         (_SYNTHETIC, "extension", ("transformer",), "_synthetic")):
    CLAIMS += (
        Claim(claim_id=f"aer_norm_below_weight{_suffix}", section="§5, Table 3 (best layer)", quote=_AER_QUOTE,
              reading="best-layer AER of the weights minus that of the norms, each seed's own best layers, above 0 "
                      "(paper: 51.9 − 28.3 points on De-En)", origin=_origin,
              measure="aer_best_gain", direction=">", threshold=0.0, reference_value=0.236,
              task_kinds=_kinds, archs=_archs, measured_by=_WMT16 if _origin == "paper" else "", **_AER),
        Claim(claim_id=f"aer_mean_layer_norm_below_weight{_suffix}", section="§5, Table 3 (mean)", quote=_AER_QUOTE,
              reading="AER averaged over layers, weights minus norms, above 0 (paper: 81.4 − 61.6)", origin=_origin,
              measure="aer_mean_gain", direction=">", threshold=0.0, reference_value=0.198,
              task_kinds=_kinds, archs=("transformer",), measured_by=_WMT16 if _origin == "paper" else "", **_AER),
        Claim(claim_id=f"aer_gain_in_lower_layers{_suffix}", section="§5, Fig. 7",
              quote="Figure 7 shows that, especially in the lower layer, the AER scores with our norm-based method "
                    "significantly improve", origin=_origin,
              reading="the AER gain (weights minus norms) of the lowest decoder layer minus the mean gain of the "
                      "layers above it, above 0",
              measure="aer_lowest_layer_extra_gain", direction=">", threshold=0.0,
              task_kinds=_kinds, archs=("transformer",), measured_by=_WMT16 if _origin == "paper" else "", **_AER),
    )

# Table 3's comparisons with other methods: their numbers are on the paper's De-En data only, so only a wmt16 row
# may be compared with them (a substitute's AER against 36.4 would compare different test sets)
CLAIMS += (
    Claim(claim_id="aer_norm_below_smoothgrad", section="§5, Table 3",
          quote="Our norm-based result is also better than the gradient-based results",
          reading="best-layer AER of the vector norms (each seed's best layer) below SmoothGrad's 36.4 that Ding et "
                  "al. report on the same De-En gold set (paper: 28.3)",
          measure="aer_norm_best", bounds=(0.0, 1.0), direction="<", threshold=0.364, reference_value=0.283,
          measured_by=_WMT16, **_TABLE3),
    Claim(claim_id="aer_norm_competitive_with_fast_align", section="§5, Table 3",
          quote="our result is competitive with fast_align, one of the de facto word aligners (Table 3)",
          reading="best-layer AER of the vector norms minus the AER of a fast_align-type aligner (eflomal) trained "
                  "on the same parallel data and scored on the same gold set, below 0.05: at most 5 points worse "
                  "(paper: 28.3 − 28.4)",
          measure="aer_norm_best_minus_aligner", bounds=(-1.0, 1.0), direction="<", threshold=0.05,
          reference_value=0.283 - 0.284,
          measured_by=_WMT16[:-1] + "; the aligner's side: rule kobayashi2020_aligner runs eflomal (the optional "
                                    "extra `aligner`) on the corpus's training text plus the gold sentences and "
                                    "scores its forward links, rule kobayashi2020_aligner_gap sets that AER beside "
                                    "each seed's: aligner_gap.csv)",
          **{**_TABLE3, "threshold_from": "stated"}),
)

_FIG8 = dict(section="§5, Fig. 8", paper="kobayashi2020", group="periods_large_alpha_small_norm",
             quote="while the attention weights assigned to certain tokens (e.g., periods) are large, their vector "
                   "norms are adjusted to become smaller (Figure 8)",
             kind="continuous", bounds=(-1.0, 1.0), direction=">", threshold=0.0, task_kinds=_REAL,
             archs=("transformer",), measured_by=_WMT16, figure=_FIG + "fig8.png")
_FIG8_MEAN = ("averaged over target words, sentences with a period and decoder layers")
CLAIMS += (
    Claim(claim_id="periods_large_alpha_small_norm",
          reading="the share of a target word's source attention that source periods get by weight (α averaged "
                  "over heads) minus their share by norm (‖Σ_h αf‖ over its sum over the source), " + _FIG8_MEAN
                  + ", above 0 (the §4.2 mechanism of special_tokens_large_alpha_small_norm in translation)",
          measure="period_share_drop", **_FIG8),
    Claim(claim_id="periods_large_alpha",
          reading="the periods' share of a target word's source attention by weight minus the share uniform "
                  "attention would give them (periods over source keys), " + _FIG8_MEAN + ", above 0: 'large' "
                  "read as more than uniform attention gives (without it a drop in the norm share alone would hold "
                  "on weights no larger than chance)",
          measure="period_weight_excess", **_FIG8),
)
