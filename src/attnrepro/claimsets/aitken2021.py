"""Claims of Aitken et al. 2021 (paper 000), measured on the per-seed ``summary.csv`` of each experiment."""

from ..claims import Claim

CLAIMS: tuple[Claim, ...] = (
    Claim(
        paper="aitken2021",
        claim_id="one_to_one_temporal_alignment",
        description=("§3: for AED on one-to-one the temporal term μ_s^D·μ_t^E carries almost all of the top "
                     "alignment (share of Σ|nine terms| of Eq. 3 at argmax_t a_st; the paper prints no number, "
                     "'almost all' is read as more than 80%)"),
        measure="share_mu_mu", direction=">", threshold=0.8,
        task_kinds=("one_to_one",), archs=("aed",), figure="figures/aitken2021/fig2a.png",
    ),
)
