"""One row of Snell et al. 2021's Table 2 (and Table 3, the Kendall τ variant) from probe arrays.

Every probe is an array [checkpoints, N, L] over the held-out target tokens (N rows, one per target token, L
input positions), checkpoints in training order:

- ``alpha``: the reference run's attention; α is taken at its best-accuracy checkpoint (authors' code).
- ``beta``: the reference run's lexical probe (Eq. 4); ``beta_uf``: the probe of a run with frozen uniform
  attention (§3.2); ``beta_px`` [N, L]: the bag-of-words proxy (Eq. 6); ``delta`` [N, L]: gradient saliency.
- ``alpha_b`` / ``perf_b`` / ``beta_b``: a second run's attention, performance and probe at its checkpoints.

As App. A.7 and the authors' code, A against a trained probe is the maximum over that probe's checkpoints; the
checkpoint of β^uf that agrees most with α is also the one compared with β^px and Δ. As their utils.py, A(α, β)
pairs α with the second run's β and Â is A(α, α_B shuffled); the maxima also get their matching null.

App. A.4's variants: Table 7 (``*_train``: :func:`alpha_agreements` on the probes of a sample of training pairs,
:func:`train_split_row`) and Tables 4, 6, 8 (``xi_*_bleu``: ξ with p̂ the second run's corpus BLEU at each
checkpoint, :func:`xi_columns` on the BLEU curve, :func:`checkpoint_bleu`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .agreement import agreement, max_over_checkpoints_null, shuffle_rows, shuffled_baseline
from .contextual_agreement import averaged_curve, xi_marked
from .kendall import kendall_agreement
from .probes import padded, stacked


def reference_alpha(alpha: np.ndarray, perf: np.ndarray) -> np.ndarray:
    """α of the reference run: its attention at its best-performance checkpoint (the authors' code)."""
    return alpha[int(np.argmax(perf))]


def second_run_curve(alpha_ref: np.ndarray, alpha_b: np.ndarray, perf_b: np.ndarray, steps: np.ndarray,
                     lengths: np.ndarray | None = None) -> pd.DataFrame:
    """The curve ξ reads (Eq. 11, Fig. 2): per checkpoint τ of the second run, ``step``, ``agreement``
    A(α, α̂(τ)) and ``performance`` p̂(τ)."""
    return pd.DataFrame({"step": np.asarray(steps), "agreement": [agreement(alpha_ref, ab, lengths) for ab in alpha_b],
                         "performance": np.asarray(perf_b, dtype=float)})


def seeds_agreement(alpha: np.ndarray, perf: np.ndarray, alpha_b: np.ndarray, perf_b: np.ndarray,
                    lengths: np.ndarray | None = None, seed: int = 0) -> dict[str, float]:
    """App. A.9's stability across seeds: A(α, α_B) (Eq. 10), this seed's attention against another seed's B, each
    at its best-performance checkpoint (``alpha`` [C, N, L] with ``perf`` [C], ``alpha_b`` [C', N, L] with ``perf_b``
    [C'], as ξ reads "another seed's run"), the baseline Â = A(α, α_B shuffled once per token) (Table 2's Â) and
    ``A_alpha_alpha_seeds_excess`` = A(α, α_B) − Â: near 0 when two seeds' attentions "did not correlate much"."""
    a, b = reference_alpha(alpha, perf), reference_alpha(alpha_b, perf_b)
    return _seeds_columns(a, b, shuffled_baseline(a, b, lengths, seed), lengths)


def _seeds_columns(a: np.ndarray, b_best: np.ndarray, a_hat: float, lengths: np.ndarray | None) -> dict[str, float]:
    """:func:`seeds_agreement`'s columns from the best-checkpoint attentions and an Â already computed."""
    same = agreement(a, b_best, lengths)
    return {"A_alpha_alpha_seeds": same, "A_hat": a_hat, "A_alpha_alpha_seeds_excess": same - a_hat}


def peak_inside(scores: np.ndarray) -> float:
    """App. A.7's peak: the largest score over checkpoints minus the larger of the first and last (≥ 0 always)."""
    scores = np.asarray(scores, dtype=float)
    return float(scores.max() - max(scores[0], scores[-1]))


def peak_inside_excess(scores: np.ndarray, seed: int, n_shuffles: int = 200) -> float:
    """:func:`peak_inside` minus its mean over the same scores with the checkpoints in random order: the null of
    a curve with no shape in training time (a flat noisy curve scores ≈ 0, a rise-then-fall above 0)."""
    rng = np.random.default_rng(seed)
    scores = np.asarray(scores, dtype=float)
    null = np.mean([peak_inside(rng.permutation(scores)) for _ in range(n_shuffles)])
    return peak_inside(scores) - float(null)


def target_token_rows(probe: np.ndarray, tgt_mask: np.ndarray, src_len: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A probe over padded sentence pairs, [..., B, T, L], as rows of the real target tokens, [..., N, L], with
    each row's source length [N] (N = number of true entries of ``tgt_mask`` [B, T], in row-major order)."""
    tgt_mask = np.asarray(tgt_mask, dtype=bool)
    rows = probe[..., tgt_mask, :]
    lengths = np.broadcast_to(np.asarray(src_len)[:, None], tgt_mask.shape)[tgt_mask]
    return rows, lengths


def alpha_agreements(a: np.ndarray, beta_uf: np.ndarray, beta_b: np.ndarray, alpha_b_best: np.ndarray, seed: int,
                     lengths: np.ndarray | None = None) -> dict[str, float]:
    """The columns of Table 2 (held-out pairs) and Table 7 (training pairs) alike, for α ``a`` [N, L]: A(α, β^uf)
    and A(α, β) (Eq. 10, maxima over the checkpoints of ``beta_uf`` / ``beta_b`` [C, N, L]), Â = A(α, α_B shuffled
    once per token) (``alpha_b_best``: B's α at its best checkpoint), each maximum's null
    (:func:`.agreement.max_over_checkpoints_null`) and the excesses over Â (``*_excess``) and over it
    (``*_excess_null``)."""
    A = lambda u, v: agreement(u, v, lengths)  # noqa: E731
    row = {"A_alpha_beta_uf": max(A(a, b) for b in beta_uf), "A_alpha_beta": max(A(a, b) for b in beta_b),
           "A_hat": shuffled_baseline(a, alpha_b_best, lengths, seed),
           "A_alpha_beta_uf_null": max_over_checkpoints_null(a, beta_uf, lengths, seed),
           "A_alpha_beta_null": max_over_checkpoints_null(a, beta_b, lengths, seed)}
    for name in ("A_alpha_beta_uf", "A_alpha_beta"):
        row[f"{name}_excess"] = row[name] - row["A_hat"]
        row[f"{name}_excess_null"] = row[name] - row[f"{name}_null"]
    return row


def train_split_row(alpha: np.ndarray, perf: np.ndarray, beta_b: np.ndarray, beta_uf: np.ndarray,
                    alpha_b: np.ndarray, perf_b: np.ndarray, seed: int = 0,
                    lengths: np.ndarray | None = None) -> dict[str, float]:
    """App. A.4, Table 7: "the same results as Table 2, except that the statistics is calculated over the training
    set". The probes ``alpha`` / ``beta_b`` / ``beta_uf`` / ``alpha_b`` [C, N, L] are read on a sample of training
    pairs (rows and ``lengths`` [N] of those pairs); the checkpoints are chosen as in Table 2's held-out columns,
    α and α_B at the best held-out performance ``perf`` / ``perf_b`` [C], and the same null. Returns
    :func:`alpha_agreements` with ``_train`` after each name (``A_alpha_beta_uf_train_excess``: Table 7's
    A(α, β^uf) − Â)."""
    row = alpha_agreements(reference_alpha(alpha, perf), beta_uf, beta_b, reference_alpha(alpha_b, perf_b), seed,
                           lengths)
    return {_train_name(name): value for name, value in row.items()}


def _train_name(name: str) -> str:
    """A_alpha_beta_uf_excess -> A_alpha_beta_uf_train_excess, A_hat -> A_hat_train: ``_train`` after the
    statistic's own name, before what is done to it (``_null``, ``_excess``, ``_excess_null``)."""
    for tail in ("_excess_null", "_excess", "_null"):
        if name.endswith(tail):
            return f"{name.removesuffix(tail)}_train{tail}"
    return f"{name}_train"


def xi_columns(a_uf: float, a_b: float, curve: pd.DataFrame, tag: str = "") -> dict[str, float]:
    """Eq. 11 on ``curve`` (:func:`second_run_curve`, averaged): ξ(α, β^uf) and ξ(α, β) of the agreements ``a_uf``
    and ``a_b`` (ξ := ξ* where no checkpoint agrees that much, marked in ``*_starred``), ξ* = p̂(T), and each ξ's
    ``*_progress`` (:func:`xi_progress`). ``tag`` names the p̂ after each ξ: "" token accuracy (Table 2), "_bleu"
    corpus BLEU (App. A.4's Tables 4, 6, 8), the same ξ on another curve."""
    curve = curve.sort_values("step")
    p0, star = float(curve.performance.iloc[0]), float(curve.performance.iloc[-1])
    out: dict[str, float] = {}
    for name, a_uv in (("xi_alpha_beta_uf", a_uf), ("xi_alpha_beta", a_b)):
        out[name + tag], out[f"{name}{tag}_starred"] = xi_marked(a_uv, curve)
    out[f"xi_star{tag}"] = star
    for name in ("xi_alpha_beta_uf", "xi_alpha_beta"):
        out[f"{name}{tag}_progress"] = xi_progress(out[name + tag], p0, star)
    return out


def table2_row(alpha: np.ndarray, perf: np.ndarray, beta_b: np.ndarray, beta_uf: np.ndarray, beta_px: np.ndarray,
               delta: np.ndarray, alpha_b: np.ndarray, perf_b: np.ndarray, curve: pd.DataFrame, seed: int = 0,
               lengths: np.ndarray | None = None, alpha_fr: np.ndarray | None = None,
               bleu_curve: pd.DataFrame | None = None) -> dict[str, float]:
    """One seed's row. As the authors' code (utils.py): A(α, β) compares this run's α with the second run B's β
    (``beta_b`` [C, N, L], max over B's checkpoints), and Â is A(α, α_B shuffled once per token) (``alpha_b`` /
    ``perf_b``: B's attention and performance, α_B at its best checkpoint). Beside Â, each statistic maximised over
    checkpoints gets the null that matches it (``*_null``: the same maximum against shuffled partners,
    :func:`.agreement.max_over_checkpoints_null`); ``*_excess`` is over Â, ``*_excess_null`` over that null.
    ``curve``: the ξ curve (:func:`.contextual_agreement.averaged_curve` of the other runs); ξ := ξ* where no
    checkpoint agrees enough, marked in ``*_starred``. ``alpha_fr`` [C'', N, L]: attention of a frozen-β run
    (App. A.6), for Table 10's A(α, α^fr) (max over its checkpoints). ``A_alpha_alpha_seeds``: A(α, α_B), this
    seed's attention against B's at its best checkpoint (App. A.9's stability across seeds). ``bleu_curve``: the
    ξ curve with p̂ the second runs' corpus BLEU (App. A.4), for the ``xi_*_bleu`` columns of :func:`xi_columns`."""
    a, b_best = reference_alpha(alpha, perf), reference_alpha(alpha_b, perf_b)
    A = lambda u, v: agreement(u, v, lengths)  # noqa: E731
    tau = lambda u, v: kendall_agreement(u, v, lengths)  # noqa: E731
    uf_scores = [A(a, b) for b in beta_uf]
    uf = beta_uf[int(np.argmax(uf_scores))]
    shuffled = shuffle_rows(b_best, lengths, seed)
    row = {
        **alpha_agreements(a, beta_uf, beta_b, b_best, seed, lengths),
        "A_beta_uf_beta_px": A(uf, beta_px),
        "A_delta_beta_uf": A(delta, uf),
        "tau_alpha_beta_uf": max(tau(a, b) for b in beta_uf),
        "tau_beta_uf_beta_px": tau(uf, beta_px),
        "tau_delta_beta_uf": tau(delta, uf),
        "tau_hat": tau(a, shuffled),
    }
    for name in ("A_beta_uf_beta_px", "A_delta_beta_uf"):
        row[f"{name}_excess"] = row[name] - row["A_hat"]
    for name in ("tau_alpha_beta_uf", "tau_beta_uf_beta_px", "tau_delta_beta_uf"):
        row[f"{name}_excess"] = row[name] - row["tau_hat"]
    # App. A.9: do two seeds' attentions agree? (the paper's SMS set: "did not correlate much")
    row.update(_seeds_columns(a, b_best, row["A_hat"], lengths))
    # App. A.7: A(α, β^uf(τ)) rises, then falls — its peak above both ends of training
    row["A_alpha_beta_uf_peak_inside"] = peak_inside(uf_scores)
    row["A_alpha_beta_uf_peak_excess"] = peak_inside_excess(uf_scores, seed)
    if alpha_fr is not None:
        row["A_alpha_alpha_fr"] = max(A(a, f) for f in alpha_fr)
        row["A_beta_uf_minus_alpha_fr"] = row["A_alpha_beta_uf"] - row["A_alpha_alpha_fr"]
    row.update(xi_columns(row["A_alpha_beta_uf"], row["A_alpha_beta"], curve))
    if bleu_curve is not None:
        row.update(xi_columns(row["A_alpha_beta_uf"], row["A_alpha_beta"], bleu_curve, "_bleu"))
    return row


def _xi_curve(i: int, a: np.ndarray, alpha: np.ndarray, perf: np.ndarray, steps: np.ndarray,
              lengths: np.ndarray) -> pd.DataFrame:
    """Seed i's ξ curve: every other seed's :func:`second_run_curve` against α ``a``, averaged (itself when alone);
    ``perf`` [S, C] is the p̂ it carries (token accuracy, or BLEU for App. A.4's tables)."""
    others = [k for k in range(len(alpha)) if k != i] or [i]
    return averaged_curve([second_run_curve(a, alpha[k], perf[k], steps, lengths) for k in others])


def table2_table(seeds: list[int], steps: np.ndarray, perf: np.ndarray, alpha: np.ndarray, beta: np.ndarray,
                 beta_uf: np.ndarray, beta_px: np.ndarray, delta: np.ndarray, lengths: np.ndarray,
                 alpha_fr: np.ndarray | None = None, train: dict[str, np.ndarray] | None = None,
                 bleu: np.ndarray | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 2 (and Table 3, Table 10) for every seed of a learned run: ``perf`` [S, C] and ``alpha`` / ``beta``
    [S, C, N, L] of the learned run at its checkpoints ``steps``, ``beta_uf`` [S, C', N, L] of the uniform run
    paired with it by index, ``beta_px`` [N, L] of the proxy, ``delta`` [S, N, L] of the learned run,
    ``alpha_fr`` [S, C'', N, L] of the frozen-β run. Run B of seed i (its β, its shuffled α for Â) is seed i+1
    (cyclically); its ξ curve is the mean over every other seed's curve (one other seed when S = 2).
    App. A.4: ``train`` (``alpha``, ``beta``, ``beta_uf`` as above and ``lengths`` [N'], on a sample of training
    pairs) adds Table 7's :func:`train_split_row`; ``bleu`` [S, C] (corpus BLEU at each checkpoint) adds the
    ``xi_*_bleu`` columns of Tables 4, 6, 8, ξ read on the same seeds' curves with BLEU as p̂.
    Returns (one row per seed, :func:`table2_row`'s columns; the averaged ξ curves of Fig. 2, with their ``bleu``
    where given)."""
    rows, xi_curves = [], []
    n = len(seeds)
    for i, seed in enumerate(seeds):
        j = (i + 1) % n
        a = reference_alpha(alpha[i], perf[i])
        curve = _xi_curve(i, a, alpha, perf, steps, lengths)
        bleu_curve = None if bleu is None else _xi_curve(i, a, alpha, bleu, steps, lengths)
        row = table2_row(alpha[i], perf[i], beta[j], beta_uf[i], beta_px, delta[i], alpha[j], perf[j], curve,
                         seed=seed, lengths=lengths, alpha_fr=None if alpha_fr is None else alpha_fr[i],
                         bleu_curve=bleu_curve)
        if train is not None:
            row.update(train_split_row(train["alpha"][i], perf[i], train["beta"][j], train["beta_uf"][i],
                                       train["alpha"][j], perf[j], seed, train["lengths"]))
        row.update({"seed": seed, "second_run_seed": seeds[j]})
        rows.append(row)
        if bleu_curve is not None:
            curve = curve.assign(bleu=bleu_curve.performance.to_numpy())
        xi_curves.append(curve.assign(seed=seed, second_run_seed=seeds[j]))
    return pd.DataFrame(rows), pd.concat(xi_curves, ignore_index=True)


def best_proxy_step(proxy_metrics: pd.DataFrame) -> int:
    """The evaluation of the proxy with the least held-out loss (the authors keep the best validation epoch)."""
    return int(proxy_metrics.loc[proxy_metrics.valid_loss.idxmin(), "step"])


def table2_from_runs(probes: dict[str, pd.DataFrame], metrics: pd.DataFrame, saliency: pd.DataFrame,
                     proxy_metrics: pd.DataFrame | None = None, train_probes: dict[str, pd.DataFrame] | None = None,
                     bleu: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`table2_table` from one task's run tables: ``probes`` by role (learned, uniform, proxy and optionally
    frozen_beta; each run's probes.parquet), the learned run's metrics.csv and its exported saliency.parquet.
    Every member of the learned run is one seed, paired by member index with the uniform and frozen-β runs;
    ``token_acc`` is the learned run's last token accuracy, the model check of its rows (translation reports it
    beside BLEU). β^px is the proxy's probe at its best evaluation (:func:`best_proxy_step` of ``proxy_metrics``),
    or at its last without them. App. A.4: ``train_probes`` (learned and uniform; each run's train_probes.parquet)
    for Table 7's columns, ``bleu`` (member, step, bleu: :func:`checkpoint_bleu`) for the BLEU ξ."""
    members = sorted(metrics.member.unique())
    seeds = [int(metrics[metrics.member == m].seed.iloc[0]) for m in members]
    per = lambda role, column: [stacked(probes[role], column, m) for m in members]  # noqa: E731
    learned_a, learned_b, uniform = per("learned", "alpha"), per("learned", "beta"), per("uniform", "beta")
    steps, lengths = learned_a[0][0], learned_a[0][2]
    perf = np.stack([metrics[metrics.member == m].sort_values("step").token_acc.to_numpy() for m in members])
    proxy = probes["proxy"]
    step = proxy.step.max() if proxy_metrics is None else best_proxy_step(proxy_metrics)
    beta_px, _ = padded(proxy[proxy.step == step].sort_values(["example", "t"]), "beta")
    delta = np.stack([padded(saliency[saliency.member == m].sort_values(["example", "t"]), "delta")[0]
                      for m in members])
    alpha_fr = np.stack([p[1] for p in per("frozen_beta", "alpha")]) if "frozen_beta" in probes else None
    train = None
    if train_probes is not None:
        tr = lambda role, column: np.stack([stacked(train_probes[role], column, m)[1] for m in members])  # noqa: E731
        train = {"alpha": tr("learned", "alpha"), "beta": tr("learned", "beta"), "beta_uf": tr("uniform", "beta"),
                 "lengths": stacked(train_probes["learned"], "alpha", members[0])[2]}
    bleu_sc = None
    if bleu is not None:
        wide = bleu.pivot(index="member", columns="step", values="bleu")
        if list(wide.index) != list(members) or list(wide.columns) != list(steps):
            raise ValueError(f"the BLEU curve's members {list(wide.index)} and steps {list(wide.columns)} are not "
                             f"the probes' ({list(members)}, {list(steps)})")
        bleu_sc = wide.to_numpy(dtype=float)
    rows, xi_curves = table2_table(seeds, steps, perf, np.stack([p[1] for p in learned_a]),
                                   np.stack([p[1] for p in learned_b]), np.stack([p[1] for p in uniform]), beta_px,
                                   delta, lengths, alpha_fr, train, bleu_sc)
    rows["token_acc"] = perf[:, -1]
    return rows, xi_curves


def member_bleu(references: pd.DataFrame, decodes: pd.DataFrame, words: list[str], score=None) -> list[float]:
    """Corpus BLEU of each member's greedy decodes (``decodes``: member, example, predicted) against the held-out
    targets (``references``: example, tgt), both word ids into ``words``; members in sorted order. ``score``: another
    corpus score of (hypotheses, references) in its place (:func:`attnrepro.seq2seq.bleu.source_gain`)."""
    from ..seq2seq.bleu import bleu, sentences

    score = score or bleu

    refs = references.sort_values("example")
    width = max(len(t) for t in refs.tgt)
    pad = lambda xs: np.stack([np.pad(x, (0, width - len(x))) for x in xs])  # noqa: E731
    targets = sentences(pad(refs.tgt.to_numpy()), words, "reference")
    return [score(sentences(pad(decodes[decodes.member == m].sort_values("example").predicted.to_numpy()), words,
                            "hypothesis"), targets) for m in sorted(decodes.member.unique())]


def checkpoint_bleu(references: pd.DataFrame, decodes: pd.DataFrame, words: list[str]) -> pd.DataFrame:
    """App. A.4's p̂ of Tables 4, 6, 8: corpus BLEU (:func:`member_bleu`) of every member's greedy decodes at every
    evaluation (``decodes``: member, step, example, predicted; a run's checkpoint_decodes.parquet): member, step,
    bleu."""
    rows = []
    for step, d in decodes.groupby("step"):
        members = sorted(d.member.unique())
        rows += [{"member": m, "step": step, "bleu": b} for m, b in zip(members, member_bleu(references, d, words))]
    return pd.DataFrame(rows, columns=["member", "step", "bleu"])


def xi_progress(xi_value: float, p0: float, p_final: float) -> float:
    """(ξ − p̂(0)) / (ξ* − p̂(0)): how much of its learning curve the second run has covered when its attention
    first agrees with α as much as the probe does — ξ on a scale that does not depend on chance performance (½ for
    a binary classifier, ~0 for translation). NaN when the run does not learn or never agrees that much."""
    if not p_final > p0:
        return float("nan")
    return (xi_value - p0) / (p_final - p0)
