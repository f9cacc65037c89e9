"""Claims of Snell et al. 2021 beyond those of :mod:`attnrepro.snell2021.claims`: the other columns of Table 2 and
its appendix variants (Tables 3, 6, 7), Eq. 15 at initialisation, App. A.1, A.3 and A.9, and Fig. 6's random heads.

Those no experiment of the demo config can measure name, in ``measured_by``, what they need. The Table 2 rows read
the measures of :func:`attnrepro.snell2021.agreement_table.table2_row`; Eq. 15 those of
:func:`attnrepro.snell2021.count_table.count_tables`; Fig. 6 those of
:func:`attnrepro.snell2021.run_tables.multihead_summary`.
"""

import math
from dataclasses import replace

from ..verdicts.claims import Claim

# shared with :mod:`attnrepro.snell2021.claims`, which imports them (it imports this module's claims)
AGREE, REAL = (-1.0, 1.0), (-math.inf, math.inf)  # differences of two agreements, each in [0, 1]
TAU = (-2.0, 2.0)  # differences of two Kendall τ, each in [-1, 1]
FIG = "figures/snell2021/"
TABLE2_SAMPLES = ("training seeds; one bag-of-words proxy run serves every seed, and ξ reads another seed's run as "
                   "each seed's second run (replicates share those runs)")
TABLE2_QUOTE = ("Across all tasks, A(α, β), A(α, β^uf), and A(β^uf, β^px) significantly outperform the random "
                 "baseline Â and the corresponding contextualized interpretations ξ are also non-trivial")
_KENDALL_QUOTE = ("Table 3 contains the same results as Table 2, except that its agreement score A(u, v) is now "
                  "Kendall Tau rank correlation coefficient")
# family -> (task kind, arch, the paper's reference set, its numbers: Table 3's τ, Table 7's A excess)
_FAMILIES = {
    "classification": ("classification", "bilstm_attention", "SST",
                       {"tau_px": 0.3143, "tau_delta": 0.1501, "train_uf": 0.2182 - 0.0848}),
    "translation": ("translation", "lstm_attention", "Multi30k",
                    {"tau_px": 0.2754, "tau_delta": 0.0393, "train_uf": 0.3289 - 0.0721}),
}
_TRAIN_PROBES = ("config/paper.yaml (snell2021.table2.train_sample: the learned and uniform runs of every Table 2 "
                  "row record their probes on that many training pairs)")


def _family(family: str) -> tuple[Claim, ...]:
    kind, arch, ref, refs = _FAMILIES[family]
    where = f" (reference: the paper's {ref})"
    common = dict(paper="snell2021", kind="continuous", task_kinds=(kind,), archs=(arch,), samples=TABLE2_SAMPLES,
                  figure=FIG + "table2.png")
    rows = [
        Claim(claim_id=f"{family}_xi_alpha_beta_non_trivial", section="§3.1, Table 2, Eq. 11", quote=TABLE2_QUOTE,
              reading="ξ(α, β) as the share of the second run's learning curve covered when its attention agrees "
                      "with α as much as β does, (ξ − p̂(0)) / (ξ* − p̂(0)); 'non-trivial' read as above ¼ of that "
                      "curve (a stated line: Table 2 prints ξ and ξ* but not p̂(0), so none of its numbers has a "
                      "value on this scale)",
              measure="xi_alpha_beta_progress", bounds=REAL, direction=">", threshold=0.25, **common),
        Claim(claim_id=f"{family}_kendall_proxy_agrees", section="App. A.4, Table 3", quote=_KENDALL_QUOTE,
              reading=f"Kendall τ(β^uf, β^px) minus τ(α, α_B shuffled), above 0{where}",
              measure="tau_beta_uf_beta_px_excess", bounds=TAU, direction=">", threshold=0.0,
              reference_value=refs["tau_px"], **common),
        Claim(claim_id=f"{family}_kendall_saliency_agrees", section="App. A.4, Table 3", quote=_KENDALL_QUOTE,
              reading=f"Kendall τ(Δ, β^uf) minus τ(α, α_B shuffled), above 0{where}",
              measure="tau_delta_beta_uf_excess", bounds=TAU, direction=">", threshold=0.0,
              reference_value=refs["tau_delta"], **common),
        Claim(claim_id=f"{family}_train_split_alpha_agrees_with_beta_uf", section="App. A.4, Table 7",
              quote="Table 7 consists of the same results as Table 2, except that the statistics is calculated over "
                    "the training set rather than the validation set",
              reading=f"A(α, β^uf) − Â with every probe read on training pairs instead of held-out ones, above 0 "
                      f"(Table 2's claim on the training split){where}",
              measure="A_alpha_beta_uf_train_excess", bounds=AGREE, direction=">", threshold=0.0,
              reference_value=refs["train_uf"], measured_by=_TRAIN_PROBES, **common),
    ]
    if family == "translation":
        rows += [
            Claim(claim_id="translation_saliency_agrees_with_beta_uf", section="§5.1, Table 2",
                  quote="The column A(Δ, β^uf) reports the agreement between Δ and β^uf, and it significantly "
                        "outperforms the random baseline",
                  reading=f"A(Δ, β^uf) − Â, gradient saliency of the learned run against the uniform-attention "
                          f"probe, above 0{where}",
                  measure="A_delta_beta_uf_excess", bounds=AGREE, direction=">", threshold=0.0,
                  reference_value=0.2706 - 0.0711, **common),
            Claim(claim_id="translation_xi_bleu_non_trivial", section="App. A.4, Tables 4, 6, 8",
                  quote="Table 4, Table 6, and Table 8 contain the translation results from the above 3 mentioned "
                        "tables respectively, except that p̂ is defined as BLEU score rather than token accuracy, "
                        "and hence the contextualized metric interpretation ξ changes correspondingly",
                  reading="ξ(α, β^uf) with p̂ the second run's corpus BLEU at each checkpoint, as a share of its "
                          "BLEU curve, (ξ − p̂(0)) / (ξ* − p̂(0)); Table 2's 'non-trivial' read as above 0, a "
                          "stated line (the paper's BLEU ξ are small, News It-Pt's 1.29 of ξ* 24.71 in Table 6, "
                          "and Tables 4, 6 and 8 print no p̂(0): no reference value on this scale)",
                  measure="xi_alpha_beta_uf_bleu_progress", bounds=REAL, direction=">", threshold=0.0,
                  measured_by="config/paper.yaml and config/config.yaml (snell2021.translation.bleu_curve: the "
                              "learned runs decode the held-out sample greedily at every evaluation)", **common),
            Claim(claim_id="translation_alpha_opt_agrees_with_beta", section="App. A.1, Eq. 32",
                  quote="We use α^opt to denote the attention that can minimize the loss, and we find that "
                        "A(α^opt, β) = 0.53. β do strongly agree with α^opt",
                  reading="A(α^opt, β) − Â, α^opt the loss-minimising attention of App. A.1's linear-output model "
                          "(Eq. 32) found per target token by gradient descent on the simplex, β that model's "
                          "lexical probe; above 0 (reference: 0.53 − Multi30k's Â 0.07)",
                  measure="A_alpha_opt_beta_excess", bounds=AGREE, direction=">", threshold=0.0,
                  reference_value=0.53 - 0.0711, threshold_from="stated",
                  measured_by="config/paper.yaml (snell2021.translation.alpha_opt: experiment "
                              "snell2021_mt_multi30k, its Eq. 32 run mt_multi30k_eq32 and the snell2021_alpha_opt "
                              "job)",
                  **{**common, "samples": "training seeds of the Eq. 32 model"}),
        ]
    # "Across all tasks" / Table 3's and Table 7's rows: the classification and translation rows make one claim
    return tuple(replace(c, group=c.claim_id.removeprefix(f"{family}_")) for c in rows)


_COPY = dict(paper="snell2021", archs=("lstm_attention",))
_A3_QUOTE = ("The proxy model can easily learn whether the input words are less than 40 and decide whether the "
             "output words are all less than 40. However, β^px is still the same for every position; as a result, "
             "the attention and hence the model fail to learn")

APPENDIX_CLAIMS: tuple[Claim, ...] = (
    *_family("classification"), *_family("translation"),
    *(Claim(claim_id=f"{run}_proxy_flat_over_positions", section="App. A.3, Fig. 8", quote=_A3_QUOTE,
            group="proxy_flat_over_positions",
            reading=f"per seed, β^px of a bag-of-words proxy trained on the {what} distribution, on its held-out "
                    "pairs at its least held-out loss: the mean over word targets of (max − min) / max over the "
                    "word positions (<eos> left out, as the authors' β code) "
                    "(:func:`attnrepro.snell2021.agreement.relative_spread`); 'the same for every position' read "
                    "as below 0.2 (a proxy trained on the 40-of-60 control singles out the copied word: near 1)",
            measure="beta_px_relative_spread", kind="continuous", bounds=(0.0, 1.0), direction="<", threshold=0.2,
            task_kinds=(run,), samples="training seeds of one proxy each (Table 2's proxy settings)",
            figure=FIG + "fig4.png", **_COPY)
      for run, what in (("copy_same", "permutations of one set"), ("copy_mixture", "mixture-of-permutations"))),
    *(Claim(claim_id=f"eq15_gradient_{dist}", section="§4.1, Eq. 15", group="eq15_initial_gradient",
            quote="the derivative of θ_io when the training starts is: lim_{d→∞} ∂θ^px_io/∂τ(τ = 0) →p "
                  "2(C^px_io − (1/|O|) Σ_o' C^px_io')",
            reading=f"per seed, on the {what} copy distribution: the Pearson correlation between ∂θ^px/∂τ at "
                    "initialisation (a proxy of width 1024 drawn with the seed, gradient flow on Eq. 14 over 500 "
                    "pairs) and C − its row mean over the same pairs; proportionality read as above 0.9 "
                    "(permutations of one set have a flat C: nothing to be proportional to)",
            measure=f"eq15_corr_{dist}", kind="continuous", bounds=(-1.0, 1.0), direction=">", threshold=0.9,
            task_kinds=("count_table",), archs=("ibm1",), samples="sampling and initialisation seeds",
            paper="snell2021", figure=FIG + "fig4.png")
      for dist, what in (("subset", "L-of-V subset"), ("mixture", "mixture-of-permutations"))),
    Claim(claim_id="multihead_random_has_good_head", section="§5.2, Fig. 6 caption",
          quote="with high chance, at least one out of eight random head-init is good",
          reading="fraction of 8-head models of heads drawn at random from the candidate pool that hold at least "
                  "one head labelled good by its 1-head runs; 'with high chance' read as above 80%",
          samples="8-head models whose heads are drawn from one shared pool of candidate heads, found in rounds "
                  "until enough good ones turn up (not independent; the pool's good rate is not the population's)",
          measure="has_good_head", kind="proportion", direction=">", threshold=0.8,
          task_kinds=("multihead_random",), figure=FIG + "fig6.png", **_COPY),
    Claim(paper="snell2021", claim_id="sms_attention_unstable_across_seeds", section="App. A.9",
          quote="The attention learned from this dataset was very high variance, and so two different random seeds "
                "would consistently produce attentions that did not correlate much",
          reading="A(α, α_B) − Â: this seed's attention against another seed's (each at its best checkpoint) on "
                  "the SMS Spam Collection; 'did not correlate much' read as below 0.1 (the paper's least "
                  "significant Table 2 excess, SST's A(α, β^uf) − Â, is 0.12)",
          measure="A_alpha_alpha_seeds_excess", kind="continuous", bounds=AGREE, direction="<", threshold=0.1,
          task_kinds=("classification_sms",), archs=("bilstm_attention",), samples=TABLE2_SAMPLES,
          measured_by="config/paper.yaml (snell2021.classification.sets.sms_spam: experiment "
                      "snell2021_cls_sms_spam)",
          figure=FIG + "table2.png"),
)
