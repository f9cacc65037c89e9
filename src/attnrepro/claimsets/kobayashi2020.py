"""Claims of Kobayashi et al. 2020 (paper 004).

§4 claims are measured on the pretrained encoder (all-MiniLM-L6-v2; the paper used BERT-base) over news
paragraphs. One pretrained model has no seeds: its replicates are disjoint folds of the sequences (sequence id
mod ``kobayashi2020.folds``), each with every measure computed on that fold alone, so the CI says how much the
measure moves with the text, not with training. Thresholds (fixed before any run): "clearly negative" is
ρ < −0.2 (the paper's weakest such value is −0.25), "near zero" is |ρ| < 0.15, "strongly positive" is ρ > 0.5.
"""

from ..claims import Claim

_ENCODER = dict(task_kinds=("news",), archs=("minilm",))
_FIG = "figures/kobayashi2020/"

CLAIMS: tuple[Claim, ...] = (
    Claim(paper="kobayashi2020", claim_id="fnorm_dispersion",
          description="§4.1, Table 1: ‖f(x)‖ is far from constant (mean CV over heads; 'large' read as CV > 0.1)",
          measure="cv_fnorm_mean", direction=">", threshold=0.1, reference_value=0.22,
          figure=_FIG + "table1.png", **_ENCODER),
    Claim(paper="kobayashi2020", claim_id="rho_alpha_fnorm_cls",
          description="§4.2, Table 2: α and ‖f(x)‖ cancel on [CLS] (Spearman ρ clearly negative); replicates are "
                      "folds of the sequences",
          measure="rho_alpha_fnorm_cls", direction="<", threshold=-0.2, reference_value=-0.34,
          figure=_FIG + "table2.png", **_ENCODER),
    Claim(paper="kobayashi2020", claim_id="rho_alpha_fnorm_sep",
          description="§4.2, Table 2: α and ‖f(x)‖ cancel on [SEP] (ρ clearly negative); folds as replicates",
          measure="rho_alpha_fnorm_sep", direction="<", threshold=-0.2, reference_value=-0.69,
          figure=_FIG + "table2.png", **_ENCODER),
    Claim(paper="kobayashi2020", claim_id="rho_alpha_fnorm_punct",
          description="§4.2, Table 2: α and ‖f(x)‖ cancel on commas and periods (ρ clearly negative); folds as "
                      "replicates",
          measure="rho_alpha_fnorm_punct", direction="<", threshold=-0.2, reference_value=-0.25,
          figure=_FIG + "table2.png", **_ENCODER),
    Claim(paper="kobayashi2020", claim_id="rho_alpha_fnorm_other",
          description="§4.2, Table 2: no such cancelling on other tokens (|ρ| near zero; paper ρ = −0.06); folds "
                      "as replicates",
          measure="abs_rho_alpha_fnorm_other", direction="<", threshold=0.15, reference_value=0.06,
          figure=_FIG + "table2.png", **_ENCODER),
    Claim(paper="kobayashi2020", claim_id="rho_rank_fnorm",
          description="§4.3, Fig. 6b: frequent words get small ‖f(x)‖ (ρ(rank, ‖f‖) strongly positive); folds as "
                      "replicates",
          measure="rho_rank_fnorm", direction=">", threshold=0.5, reference_value=0.75,
          figure=_FIG + "fig6.png", **_ENCODER),
    Claim(paper="kobayashi2020", claim_id="rho_rank_alpha",
          description="§4.3, Fig. 6a: but not small α (|ρ(rank, α)| near zero; paper ρ = −0.08); folds as "
                      "replicates",
          measure="abs_rho_rank_alpha", direction="<", threshold=0.15, reference_value=0.08,
          figure=_FIG + "fig6.png", **_ENCODER),
)

# §5 on our own Transformers (experiments of arch transformer), seeds as replicates: on the synthetic tasks'
# exact alignments, and on the EN→FR verses wherever a gold file is given (kobayashi2020_aer.gold)
CLAIMS += (
    Claim(paper="kobayashi2020", claim_id="aer_norm_below_weight",
          description="§5, Table 3: alignments read from vector norms have a lower AER than those read from "
                      "attention weights in the best layer (measure: best-layer AER of weights minus that of "
                      "norms, each seed's own best layers; paper: 51.9 − 28.3 points on De-En NMT)",
          measure="aer_best_gain", direction=">", threshold=0.0, reference_value=0.236,
          task_kinds=("one_to_one", "reversed", "sort", "escan", "bible"), archs=("transformer",),
          figure=_FIG + "table3.png"),
)
