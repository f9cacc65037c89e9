"""Claims of Snell et al. 2021 (paper 002), measured on the per-seed ``summary.csv`` of each synthetic experiment
(:mod:`attnrepro.snell.experiments`). Task kinds and archs are those of :func:`attnrepro.snell.config.claim_experiments`:
the copy runs ``copy_same`` / ``copy_subset`` / ``copy_mixture`` / ``copy_permute`` with arch ``lstm_attention``
(learned) or ``lstm_uniform``; ``multihead_<combo>``; ``keyword`` (arch ``bilstm_uniform``); ``count_table``;
``classification`` (``bilstm_attention``) and ``translation`` (``lstm_attention``) for Table 2's real data sets.

A run *fails* when its final teacher-forced token accuracy is below the config's ``fail_below`` (0.6, the
authors' bad-head rule) and *succeeds* when it ends at or above ``good_above`` (0.95, their good-head rule).
"""

from ..claims import Claim

_FIG = "figures/snell2021/"

CLAIMS: tuple[Claim, ...] = (
    Claim(
        paper="snell2021", claim_id="copy_same_some_seeds_fail",
        description=("§3.3 / Fig. 3 left: copying inputs that are permutations of one set of L words, the model "
                     "'sometimes fails to learn' — fraction of seeds ending below the failure threshold (the "
                     "paper prints no rate; claimed > 0)"),
        measure="failed", direction=">", threshold=0.0,
        task_kinds=("copy_same",), archs=("lstm_attention",), figure=_FIG + "fig3.png"),
    Claim(
        paper="snell2021", claim_id="copy_subset_no_seed_fails",
        description=("§3.3 / Fig. 3 left: L words drawn from a larger vocabulary (40 of 60), the model 'successfully "
                     "learns every time' — fraction of seeds that fail, claimed below 5%"),
        measure="failed", direction="<", threshold=0.05, reference_value=0.0,
        task_kinds=("copy_subset",), archs=("lstm_attention",), figure=_FIG + "fig3.png"),
    Claim(
        paper="snell2021", claim_id="copy_mixture_some_seeds_fail",
        description=("Fig. 3 right / App. A.3: a mixture of permutations of two disjoint sets — the model "
                     "sometimes fails; fraction of seeds that fail, claimed > 0"),
        measure="failed", direction=">", threshold=0.0,
        task_kinds=("copy_mixture",), archs=("lstm_attention",), figure=_FIG + "fig3.png"),
    Claim(
        paper="snell2021", claim_id="copying_reaches_perfect_accuracy",
        description="§6.2: copying (L of a larger vocabulary) 'always reaches perfect accuracy' — final token accuracy",
        measure="final_acc", direction=">", threshold=0.95, reference_value=1.0,
        task_kinds=("copy_subset",), archs=("lstm_attention",), figure=_FIG + "sec6_2.png"),
    Claim(
        paper="snell2021", claim_id="permutation_function_fails",
        description=("§6.2: learning a fixed random permutation function of the input 'always fails' — final "
                     "token accuracy, claimed below the failure threshold 0.6"),
        measure="final_acc", direction="<", threshold=0.6,
        task_kinds=("copy_permute",), archs=("lstm_attention",), figure=_FIG + "sec6_2.png"),
    Claim(
        paper="snell2021", claim_id="multihead_all_bad_heads_fail",
        description=("§5.2 / Fig. 6: 8-head models whose head initialisations are all bad are 'likely to fail' — "
                     "success rate, claimed below ½"),
        measure="success", direction="<", threshold=0.5,
        task_kinds=("multihead_all_bad",), archs=("lstm_attention",), figure=_FIG + "fig6.png"),
    Claim(
        paper="snell2021", claim_id="multihead_one_good_head_suffices",
        description=("§5.2 / Fig. 6: as long as one of the 8 head initialisations is good, the model 'can converge' — "
                     "success rate, claimed above ½"),
        measure="success", direction=">", threshold=0.5,
        task_kinds=("multihead_one_good",), archs=("lstm_attention",), figure=_FIG + "fig6.png"),
    Claim(
        paper="snell2021", claim_id="multihead_random_heads_converge",
        description=("§5.2 / Fig. 6: with 8 independently drawn heads the model converges 'with very high "
                     "probability' — success rate, claimed above ½"),
        measure="success", direction=">", threshold=0.5,
        task_kinds=("multihead_random",), archs=("lstm_attention",), figure=_FIG + "fig6.png"),
    Claim(
        paper="snell2021", claim_id="keyword_hypothesis2_early",
        description=("§6.1 / Fig. 7: when training under uniform attention begins, Hypothesis 2 holds "
                     "(γ_l* > γ_l*+1 > mean γ) — per seed 1 if it holds at the first evaluation after step 0"),
        measure="hyp2_early", direction=">", threshold=0.5,
        task_kinds=("keyword",), archs=("bilstm_uniform",), figure=_FIG + "fig7.png"),
    Claim(
        paper="snell2021", claim_id="keyword_observation3_late",
        description=("§6.1 / Fig. 7, Observation 3: trained long under uniform attention, γ_L > γ_l*+1 > mean γ and "
                     "γ_L > γ_l* — per seed 1 if it holds at the last evaluation"),
        measure="obs3_final", direction=">", threshold=0.5,
        task_kinds=("keyword",), archs=("bilstm_uniform",), figure=_FIG + "fig7.png"),
    Claim(
        paper="snell2021", claim_id="count_table_flat_on_permutations",
        description=("§4.3 / Fig. 4: under permutations of one set the count table C is uninformative — "
                     "Trans(i|i) minus the mean Trans(o|i) of co-occurring o ≠ i (Eq. 16–17), per sampling seed"),
        measure="diag_excess_same_C", direction="<", threshold=1e-6, reference_value=0.0,
        task_kinds=("count_table",), archs=("ibm1",), figure=_FIG + "fig4.png"),
    Claim(
        paper="snell2021", claim_id="count_table_flat_on_mixture",
        description=("App. A.3 / Fig. 8: under the mixture C tells the two sets apart but not the words within a "
                     "set — the same diagonal excess within a set"),
        measure="diag_excess_mixture_C", direction="<", threshold=1e-6, reference_value=0.0,
        task_kinds=("count_table",), archs=("ibm1",), figure=_FIG + "fig4.png"),
    Claim(
        paper="snell2021", claim_id="count_table_informative_on_subsets",
        description=("§3.3 / §4: with L of a larger vocabulary, C favours the copied word (diagonal excess > 0), "
                     "so KTIW can be learnt"),
        measure="diag_excess_subset_C", direction=">", threshold=0.0,
        task_kinds=("count_table",), archs=("ibm1",), figure=_FIG + "fig4.png"),
    Claim(
        paper="snell2021", claim_id="copy_alpha_agrees_with_beta_uf",
        description=("§3.2 / Table 2: KTIW is learnt under uniform attention — A(α, β^uf) minus the shuffled "
                     "baseline Â, on the copy task (L of a larger vocabulary; the paper's tasks are real data sets, "
                     "where A(α,β^uf) − Â ranges 12–60 points)"),
        measure="A_alpha_beta_uf_excess", direction=">", threshold=0.0,
        task_kinds=("copy_table2",), archs=("lstm_attention",), figure=_FIG + "table2.png"),
    Claim(
        paper="snell2021", claim_id="copy_proxy_agrees_with_beta_uf",
        description=("§3.2 / Table 2: the bag-of-words proxy approximates how KTIW is learnt — A(β^uf, β^px) − Â "
                     "on the copy task"),
        measure="A_beta_uf_beta_px_excess", direction=">", threshold=0.0,
        task_kinds=("copy_table2",), archs=("lstm_attention",), figure=_FIG + "table2.png"),
    Claim(
        paper="snell2021", claim_id="copy_alpha_agrees_with_beta",
        description="Table 2: attention and the lexical probe agree — A(α, β) − Â on the copy task",
        measure="A_alpha_beta_excess", direction=">", threshold=0.0,
        task_kinds=("copy_table2",), archs=("lstm_attention",), figure=_FIG + "table2.png"),
    Claim(
        paper="snell2021", claim_id="classification_alpha_agrees_with_beta_uf",
        description=("§3.2 / Table 2 on the offline classification sets: A(α, β^uf) − Â, the agreement of attention "
                     "with the probe of a model trained with uniform attention above the shuffled baseline "
                     "(reference: the paper's SST, the set closest to rotten-tomatoes snippets, 20 − 8 points)"),
        measure="A_alpha_beta_uf_excess", direction=">", threshold=0.0, reference_value=0.12,
        task_kinds=("classification",), archs=("bilstm_attention",), figure=_FIG + "table2.png"),
    Claim(
        paper="snell2021", claim_id="classification_proxy_agrees_with_beta_uf",
        description=("Table 2 on the classification sets: A(β^uf, β^px) − Â, the bag-of-words proxy against the "
                     "uniform-attention probe (reference: SST, 34 − 8 points)"),
        measure="A_beta_uf_beta_px_excess", direction=">", threshold=0.0, reference_value=0.26,
        task_kinds=("classification",), archs=("bilstm_attention",), figure=_FIG + "table2.png"),
    Claim(
        paper="snell2021", claim_id="classification_saliency_agrees_with_beta_uf",
        description=("§5.1 / Table 2: gradient saliency agrees with β^uf — A(Δ, β^uf) − Â (reference: SST, "
                     "22 − 8 points)"),
        measure="A_delta_beta_uf_excess", direction=">", threshold=0.0, reference_value=0.14,
        task_kinds=("classification",), archs=("bilstm_attention",), figure=_FIG + "table2.png"),
    Claim(
        paper="snell2021", claim_id="classification_alpha_agrees_with_beta",
        description="Table 2: A(α, β) − Â on the classification sets (reference: SST, 25 − 8 points)",
        measure="A_alpha_beta_excess", direction=">", threshold=0.0, reference_value=0.17,
        task_kinds=("classification",), archs=("bilstm_attention",), figure=_FIG + "table2.png"),
    Claim(
        paper="snell2021", claim_id="translation_alpha_agrees_with_beta_uf",
        description=("§3.2 / Table 2 on translation (EN→FR Bible verses here): KTIW is learnt under uniform attention "
                     "— A(α, β^uf) − Â, attention against the lexical probe of a frozen-uniform model, above the "
                     "shuffled baseline (reference: the paper's Multi30k, 31.02 − 7.11 points)"),
        measure="A_alpha_beta_uf_excess", direction=">", threshold=0.0, reference_value=0.2391,
        task_kinds=("translation",), archs=("lstm_attention",), figure=_FIG + "table2.png"),
    Claim(
        paper="snell2021", claim_id="translation_proxy_agrees_with_beta_uf",
        description=("Table 2 on translation: A(β^uf, β^px) − Â, the bag-of-words proxy against the uniform-attention "
                     "probe (reference: Multi30k, 34.43 − 7.11 points)"),
        measure="A_beta_uf_beta_px_excess", direction=">", threshold=0.0, reference_value=0.2732,
        task_kinds=("translation",), archs=("lstm_attention",), figure=_FIG + "table2.png"),
    Claim(
        paper="snell2021", claim_id="translation_alpha_agrees_with_beta",
        description="Table 2 on translation: A(α, β) − Â (reference: Multi30k, 48.78 − 7.11 points)",
        measure="A_alpha_beta_excess", direction=">", threshold=0.0, reference_value=0.4167,
        task_kinds=("translation",), archs=("lstm_attention",), figure=_FIG + "table2.png"),
    Claim(
        paper="snell2021", claim_id="frozen_beta_attention_agrees_less",
        description=("App. A.6 / Table 10: attention trained with β frozen agrees less with α than β^uf does — "
                     "A(α, β^uf) − A(α, α^fr) (reference: SST, 20 − 14 points; 6 to 46 over the paper's sets)"),
        measure="A_beta_uf_minus_alpha_fr", direction=">", threshold=0.0, reference_value=0.06,
        task_kinds=("classification",), archs=("bilstm_attention",), figure=_FIG + "table10.png"),
)
