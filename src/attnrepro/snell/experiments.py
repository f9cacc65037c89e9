"""The synthetic experiments of Snell et al. 2021, each a function from its config block to DataFrames.

Per-seed summaries (one row per run, one column per measure) feed the claims table; curves feed the figures.

- :func:`copy_run` — Fig. 3 (permutations of one set vs subsets, the mixture of App. A.3, frozen uniform
  attention) and §6.2 (copying vs a fixed permutation function).
- :func:`multihead_run` — Fig. 6: rejection sampling of single-head initialisations into good and bad, then
  K-head models of all-bad, one-good and random heads.
- :func:`keyword_run` — Fig. 7 (§6.1): γ over training under uniform attention.
- :func:`count_tables` — Fig. 4 / 8: the count table C of Eq. 16 and IBM Model 1 on the copy distributions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..analysis import count_table as ct
from ..analysis import ibm1
from . import tasks
from .classifier import ClassifierConfig
from .seq2seq import Seq2SeqConfig, head_seeds_of
from .train import Member, data_generator, train_copy, train_keyword


COMPARISON_SEED_OFFSET = 10_000  # model seed of a uniform / frozen-β comparison run = seed + k · offset


def curve_summary(curves: pd.DataFrame, fail_below: float, good_above: float) -> pd.DataFrame:
    """Per run: final and best token accuracy, failed (final < ``fail_below``, the authors' bad-head rule),
    step of first accuracy ≥ ``good_above`` (NaN if never) and the mean accuracy over evaluations."""
    rows = []
    for (member, seed), c in curves.sort_values("step").groupby(["member", "seed"]):
        reached = c[c.token_acc >= good_above]
        rows.append({"seed": seed, "member": member, "final_acc": c.token_acc.iloc[-1], "max_acc": c.token_acc.max(),
                     "failed": float(c.token_acc.iloc[-1] < fail_below),
                     "steps_to_good": float(reached.step.iloc[0]) if len(reached) else np.nan,
                     "mean_acc": c.token_acc.mean()})
    return pd.DataFrame(rows)


def copy_run(spec: dict, seeds: list[int], threads: int | None = None, log=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``spec``: task (kind, length, n_words, task_seed), model (hidden, attention), train (steps, batch_size,
    eval_every, n_eval, lr), fail_below, good_above. Returns (curves, summary)."""
    task, train = spec["task"], spec["train"]
    vocab = tasks.copy_vocab(task["kind"], task["length"], task.get("n_words", task["length"]))
    cfg = Seq2SeqConfig(vocab, spec["model"]["hidden"], attention=spec["model"]["attention"])
    curves = train_copy(task, cfg, [Member.plain(s) for s in seeds], threads=threads, log=log, **train)
    return curves, curve_summary(curves, spec["fail_below"], spec["good_above"])


def multihead_run(spec: dict, threads: int | None = None, log=None) -> dict[str, pd.DataFrame]:
    """Fig. 6 after the authors' ``multihead.py``: one backbone initialisation (``backbone_seed``) is kept; a
    candidate head is trained alone with ``trials`` data seeds and labelled good if every trial reaches
    ``good_above`` token accuracy at some evaluation, bad if every trial ends below ``bad_below``, else
    discarded. Candidates are drawn in rounds (all trials of a round train stacked) until ``n_good`` good and
    ``n_bad`` bad heads are found or ``max_rounds`` pass. Then ``n_combos`` K-head models of each kind — all
    bad, one good + K−1 bad, K random candidates — train stacked, each with its own data seed.

    Returns ``candidates`` (one row per candidate), ``combo_curves`` and ``summary`` (one row per K-head model,
    column ``combo``; ``success`` = final accuracy ≥ ``good_above``). A kind whose heads were not found (no
    good head, say) is left out and the log says so."""
    task, train = spec["task"], spec["train"]
    vocab = tasks.copy_vocab(task["kind"], task["length"], task.get("n_words", task["length"]))
    hidden, heads, trials = spec["hidden"], spec["heads"], spec["trials"]
    backbone = spec["backbone_seed"]
    rng = np.random.default_rng(spec["sampling_seed"])
    good, bad, labels = [], [], []
    # candidate heads: one stream, independent of the backbone's own head seeds
    all_heads = head_seeds_of(1_000_000 + backbone, spec["candidates_per_round"] * spec["max_rounds"])
    for rnd in range(spec["max_rounds"]):
        if len(good) >= spec["n_good"] and len(bad) >= spec["n_bad"]:
            break
        per = spec["candidates_per_round"]
        cands = all_heads[rnd * per : (rnd + 1) * per]
        members = [Member(backbone, 10_000 * (rnd + 1) + 100 * j + t, (h,)) for j, h in enumerate(cands)
                   for t in range(trials)]
        curves = train_copy(task, Seq2SeqConfig(vocab, hidden, heads=1), members, threads=threads, log=log, **train)
        for j, h in enumerate(cands):
            c = curves[curves.member.isin(range(j * trials, (j + 1) * trials))]
            best = c.groupby("member").token_acc.max()
            final = c[c.step == c.step.max()].set_index("member").token_acc
            label = ("good" if (best >= spec["good_above"]).all() else
                     "bad" if (final < spec["bad_below"]).all() else "unclear")
            labels.append({"head_seed": h, "round": rnd, "label": label, "min_best_acc": best.min(),
                           "max_final_acc": final.max()})
            (good if label == "good" else bad if label == "bad" else []).append(h)
        if log is not None:
            print(f"round {rnd}: {len(good)} good, {len(bad)} bad heads so far", file=log, flush=True)
    candidates = pd.DataFrame(labels)
    pool = list(candidates.head_seed)
    possible = {"all_bad": bool(bad), "one_good": bool(good) and bool(bad), "random": True}
    if log is not None and not all(possible.values()):
        print(f"found {len(good)} good and {len(bad)} bad heads: no {[k for k, v in possible.items() if not v]} "
              "models (raise max_rounds or candidates_per_round)", file=log, flush=True)
    combos, members = [], []
    for kind in (k for k, ok in possible.items() if ok):
        for i in range(spec["n_combos"]):
            if kind == "all_bad":
                hs = list(rng.choice(bad, heads, replace=len(bad) < heads))
            elif kind == "one_good":
                hs = [rng.choice(good)] + list(rng.choice(bad, heads - 1, replace=len(bad) < heads - 1))
            else:
                hs = list(rng.choice(pool, heads, replace=len(pool) < heads))
            combos.append(kind)
            members.append(Member(backbone, 500_000 + len(members), tuple(int(h) for h in hs)))
    curves = train_copy(task, Seq2SeqConfig(vocab, hidden, heads=heads), members, threads=threads, log=log, **train)
    curves["combo"] = [combos[m] for m in curves.member]
    summary = curve_summary(curves, spec["bad_below"], spec["good_above"])
    summary["combo"] = [combos[m] for m in summary.member]
    summary["success"] = (summary.final_acc >= spec["good_above"]).astype(float)
    summary["seed"] = summary.member  # one row per K-head model: the claims' "seeds"
    return {"candidates": candidates, "combo_curves": curves, "summary": summary}


SUMMARY_COLUMNS = ["seed", "member", "final_acc", "max_acc", "failed", "steps_to_good", "mean_acc", "combo", "success"]


def keyword_run(spec: dict, seeds: list[int], threads: int | None = None, log=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 7: the classifier trained with uniform attention on the keyword toy. Summary per seed:
    ``hyp2_early`` — Hypothesis 2's order γ_{l*} > γ_{l*+1} > γ̄ at the first evaluation after step 0;
    ``obs3_final`` — Observation 3's order γ_L > γ_{l*+1} > γ̄ and γ_L > γ_{l*} at the last evaluation;
    ``obs3_step`` — the first evaluation from which Observation 3's order holds to the end, as a fraction of
    training (1 = only at the end, NaN = never)."""
    task, train = spec["task"], spec["train"]
    cfg = ClassifierConfig(task["n_words"], spec["model"]["hidden"], attention=spec["model"]["attention"])
    curves = train_keyword(task, cfg, seeds, threads=threads, log=log, **train)
    rows = []
    for seed, c in curves.sort_values("step").groupby("seed"):
        hyp2 = (c.gamma_key > c.gamma_next) & (c.gamma_next > c.gamma_mean)
        obs3 = (c.gamma_last > c.gamma_next) & (c.gamma_next > c.gamma_mean) & (c.gamma_last > c.gamma_key)
        holds_to_end = obs3[::-1].cummin()[::-1]
        steps = c.step.to_numpy()
        first = steps[holds_to_end.to_numpy()]
        rows.append({"seed": seed, "hyp2_early": float(hyp2.iloc[1]), "obs3_final": float(obs3.iloc[-1]),
                     "obs3_step": first[0] / steps[-1] if len(first) else np.nan, "final_acc": c.acc.iloc[-1]})
    return curves, pd.DataFrame(rows)


def diagonal_excess(trans: np.ndarray, c: np.ndarray) -> float:
    """Mean over input words i of Trans(i|i) minus the mean Trans(o|i) over the other words o that ever co-occur
    with i (C_io > 0) — for the mixture, the words of i's own set. 0: C does not single out the copied word."""
    n = len(trans)
    other = (c > 0) & ~np.eye(n, dtype=bool)
    rows = [trans[i, i] - trans[i, other[i]].mean() for i in range(n) if other[i].any()]
    return float(np.mean(rows))


def count_tables(spec: dict, seeds: list[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 4 / 8: for each copy distribution (permutations of one set, subsets, mixture) and sampling seed,
    C (Eq. 16) over ``n_samples`` pairs, Trans (Eq. 17) and Trans after ``em_iterations`` of EM. Returns the
    long table of Trans entries (seed 0 only, for the heat maps) and a per-seed summary: ``diag_excess_<dist>``
    = mean Trans(i|i) − mean Trans(o|i), o ≠ i, after one and after all EM iterations — 0 when C carries no
    word-to-word signal (:func:`diagonal_excess`)."""
    length, n_words = spec["length"], spec["subset_words"]
    dists = {"same": ("permutation", length), "subset": ("permutation", n_words), "mixture": ("mixture", length)}
    tables, rows = [], []
    for seed in seeds:
        row = {"seed": seed}
        for name, (kind, v) in dists.items():
            src, _, tgt = tasks.copy_batch(kind, spec["n_samples"], length, v, data_generator(seed))
            x, y = src[:, :-1].numpy(), tgt[:, :-1].numpy()   # words only: <eos> is in every pair
            n = 2 * length if kind == "mixture" else v
            c = ct.count_table_dense(x, y, n, n)
            for stage, trans in (("C", ibm1.translation_table(c)), ("EM", ibm1.em(x, y, n, n, spec["em_iterations"]))):
                row[f"diag_excess_{name}_{stage}"] = diagonal_excess(trans, c)
                if seed == seeds[0]:
                    i, o = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
                    tables.append(pd.DataFrame({"distribution": name, "stage": stage, "input": i.ravel(),
                                                "output": o.ravel(), "trans": trans.ravel(),
                                                "count": c.ravel() if stage == "C" else np.nan}))
        rows.append(row)
    return pd.concat(tables, ignore_index=True), pd.DataFrame(rows)


def table2_copy(spec: dict, seeds: list[int], threads: int | None = None, log=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 2 (and Table 3's τ) on a copy distribution: for each seed, a run with learned attention (α, β at
    every evaluation), a run with frozen uniform attention (β^uf at every evaluation), the bag-of-words proxy
    (β^px), gradient saliency Δ of the learned run at its end, and, for ξ, the learned run of the next seed in
    ``seeds`` as the second run. Returns (per-seed rows, the curves of both runs, the ξ curves of Fig. 2)."""
    import torch

    from ..analysis.agreement_table import reference_alpha, second_run_curve, table2_row
    from ..analysis.proxy import proxy_probe, train_proxy
    from .seq2seq import saliency

    task, train = spec["task"], spec["train"]
    vocab = tasks.copy_vocab(task["kind"], task["length"], task["n_words"])
    members = [Member.plain(s) for s in seeds]
    flat = lambda x: x.reshape(x.shape[0], -1, x.shape[-1]).cpu().numpy()  # [S,B,T,L] -> [S, B·T, L]
    store = {"learned": {"alpha": [], "beta": []}, "uniform": {"beta": []}}
    final = {}

    def recorder(name):
        def on_eval(step, model, ev):
            src, tgt_in, tgt_out = ev
            with torch.no_grad():
                _, cache = model.run_with_cache(src, tgt_in)
            store[name]["beta"].append(flat(model.lexical_probe(src, tgt_in, tgt_out)))
            if name == "learned":
                store[name]["alpha"].append(flat(cache["attention.alpha"][:, :, 0]))
            final[name] = (model, ev)
        return on_eval

    curves = []
    for name in ("learned", "uniform"):
        cfg = Seq2SeqConfig(vocab, spec["model"]["hidden"], attention=name)
        # the uniform run starts from its own initialisation: a shared one would make β^uf agree with α by birth
        runs = members if name == "learned" else [Member.plain(s + COMPARISON_SEED_OFFSET) for s in seeds]
        c = train_copy(task, cfg, runs, threads=threads, log=log, on_eval=recorder(name), **train)
        c["attention"] = name
        curves.append(c)
    curves = pd.concat(curves, ignore_index=True)
    model, (src, tgt_in, tgt_out) = final["learned"]
    delta = flat(saliency(model, src, tgt_in, tgt_out))

    gen = data_generator(spec["proxy"]["seed"])
    psrc, _, ptgt = tasks.copy_batch(task["kind"], spec["proxy"]["n_samples"], task["length"], task["n_words"], gen)
    theta = train_proxy(psrc.numpy(), ptgt.numpy(), vocab, vocab, dim=spec["model"]["hidden"],
                        epochs=spec["proxy"]["epochs"], seed=spec["proxy"]["seed"])
    x, y = src[0].numpy(), tgt_out[0].numpy()
    beta_px = np.concatenate([proxy_probe(theta, xi_, yi) for xi_, yi in zip(x, y)])   # [B·T, L]

    learned = curves[curves.attention == "learned"]
    steps = np.array(sorted(learned.step.unique()))
    alpha = np.stack(store["learned"]["alpha"], 1)    # [S, checkpoints, N, L]
    beta = np.stack(store["learned"]["beta"], 1)
    beta_uf = np.stack(store["uniform"]["beta"], 1)
    rows, xi_curves = [], []
    for i, seed in enumerate(seeds):
        j = (i + 1) % len(seeds)
        perf = learned[learned.member == i].sort_values("step").token_acc.to_numpy()
        perf_b = learned[learned.member == j].sort_values("step").token_acc.to_numpy()
        row = table2_row(alpha[i], perf, beta[i], beta_uf[i], beta_px, delta[i], alpha[j], perf_b, steps,
                         seed=seed)
        row.update({"seed": seed, "second_run_seed": seeds[j]})
        row["A_alpha_beta_uf_excess"] = row["A_alpha_beta_uf"] - row["A_hat"]
        row["A_beta_uf_beta_px_excess"] = row["A_beta_uf_beta_px"] - row["A_hat"]
        row["A_alpha_beta_excess"] = row["A_alpha_beta"] - row["A_hat"]
        rows.append(row)
        xi_curves.append(second_run_curve(reference_alpha(alpha[i], perf), alpha[j], perf_b, steps)
                         .assign(seed=seed, second_run_seed=seeds[j]))
    return pd.DataFrame(rows), curves, pd.concat(xi_curves, ignore_index=True)


def classification_run(spec: dict, seeds: list[int], threads: int | None = None, log=None
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 2 and Table 10 on one offline classification set (:mod:`attnrepro.snell.text`): per seed a run with
    learned attention (α, β of Eq. 9 at every checkpoint), one with frozen uniform attention (β^uf), one with
    frozen β (only the attention trains: α^fr, App. A.6), the bag-of-words proxy (β^px), gradient saliency Δ of
    the learned run at its end, and the next seed's learned run for ξ. Returns (per-seed rows, curves, the ξ curves
    of Fig. 2: per seed, A(α, α̂(τ)) and p̂(τ) of the second run at each checkpoint)."""
    import torch

    from ..analysis.agreement_table import reference_alpha, second_run_curve, table2_row
    from ..analysis.lexical_probe import classifier_probe
    from ..analysis.proxy import proxy_probe, train_proxy
    from . import text
    from .classifier import saliency
    from .train import train_text_classifier

    d = spec["data"]
    if "data_dir" in d:  # a corpus prepared by the download rules: its own splits and vocabulary
        train_set, test_set, vocab = text.from_prepared(d["data_dir"], d["max_len"])
    else:
        train_set, test_set, vocab = text.prepare(text.load(d["name"]), n_test=d["n_test"], max_len=d["max_len"],
                                                  min_count=d["min_count"], seed=d["seed"])
    if log is not None:
        print(f"{d['name']}: {len(train_set.x)} train, {len(test_set.x)} test, vocabulary {len(vocab)}", file=log)
    lengths = test_set.length
    y = test_set.label
    store = {"learned": {"alpha": [], "beta": []}, "uniform": {"beta": []}, "frozen_beta": {"alpha": []}}
    final = {}

    def recorder(name):
        def on_eval(step, model, ev):
            with torch.no_grad():
                _, cache = model.run_with_cache(ev[0], ev[1])
            if "alpha" in store[name]:
                store[name]["alpha"].append(cache["alpha"].numpy())
            if "beta" in store[name]:
                store[name]["beta"].append(classifier_probe(cache["gamma"].flatten(0, 1).numpy(), np.tile(y, len(seeds)))
                                           .reshape(cache["gamma"].shape))
            final[name] = (model, ev)
        return on_eval

    curves = []
    for k, mode in enumerate(("learned", "uniform", "frozen_beta")):
        cfg = ClassifierConfig(len(vocab), spec["model"]["hidden"], attention=mode)
        # comparison runs start from their own initialisations (a shared one would agree with α by birth)
        run_seeds = [s + k * COMPARISON_SEED_OFFSET for s in seeds]
        c = train_text_classifier(train_set, test_set, cfg, run_seeds, threads=threads, log=log,
                                  on_eval=recorder(mode), **spec["train"])
        c["seed"] = c.seed - k * COMPARISON_SEED_OFFSET
        c["attention"] = mode
        curves.append(c)
    curves = pd.concat(curves, ignore_index=True)
    model, (x, mask, yy) = final["learned"]
    delta = saliency(model, x, yy, mask).numpy()
    p = spec["proxy"]
    theta = train_proxy(train_set.x, train_set.label.astype(np.int64)[:, None], len(vocab), 2,
                        dim=spec["model"]["hidden"], epochs=p["epochs"], seed=p["seed"], lengths=train_set.length)
    width = x.shape[-1]
    beta_px = np.stack([proxy_probe(theta, row[:width], [int(label)])[0] for row, label in zip(test_set.x, y)])

    learned = curves[curves.attention == "learned"]
    steps = np.array(sorted(learned.step.unique()))
    stacked = lambda name, key: np.stack(store[name][key], 1)   # [S, checkpoints, N, L]
    alpha, beta = stacked("learned", "alpha"), stacked("learned", "beta")
    beta_uf, alpha_fr = stacked("uniform", "beta"), stacked("frozen_beta", "alpha")
    rows, xi_curves = [], []
    for i, seed in enumerate(seeds):
        j = (i + 1) % len(seeds)
        perf = learned[learned.seed == seed].sort_values("step").acc.to_numpy()
        perf_b = learned[learned.seed == seeds[j]].sort_values("step").acc.to_numpy()
        row = table2_row(alpha[i], perf, beta[i], beta_uf[i], beta_px, delta[i], alpha[j], perf_b, steps,
                         seed=seed, lengths=lengths, alpha_fr=alpha_fr[i])
        row.update({"seed": seed, "second_run_seed": seeds[j]})
        for name in ("A_alpha_beta_uf", "A_beta_uf_beta_px", "A_alpha_beta", "A_delta_beta_uf"):
            row[f"{name}_excess"] = row[name] - row["A_hat"]
        row["A_beta_uf_minus_alpha_fr"] = row["A_alpha_beta_uf"] - row["A_alpha_alpha_fr"]
        rows.append(row)
        xi_curves.append(second_run_curve(reference_alpha(alpha[i], perf), alpha[j], perf_b, steps, lengths)
                         .assign(seed=seed, second_run_seed=seeds[j]))
    return pd.DataFrame(rows), curves, pd.concat(xi_curves, ignore_index=True)


def _in_chunks(fn, n: int, size: int, *tensors):
    """``fn`` on slices of the batch axis (axis 1) of ``tensors``, concatenated: bounds the memory of the
    lexical probe, whose logits are [S, B, T, L, V]."""
    import torch

    return torch.cat([fn(*(t[:, i : i + size] for t in tensors)) for i in range(0, n, size)], 1)


def translation_run(spec: dict, seeds: list[int], data_dir, threads: int | None = None, log=None
                    ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Table 2 on a prepared translation set (``data_dir``: the ``data`` rule's ``results/data/<task>/``, in
    joint ids, :mod:`attnrepro.snell.parallel`): per seed a seq2seq with learned attention (α, β of Eq. 4 at every
    checkpoint), one with frozen uniform attention (β^uf), the bag-of-words proxy trained on the training split
    (β^px), gradient saliency Δ of the learned run at its end, and the next seed's learned run for ξ. Every
    probe is read on ``n_test`` test pairs (a seeded sample), one row per real target token (``<eos>``
    included). Beside Table 2's columns, each seed's final teacher-forced token accuracy and the corpus BLEU of
    its greedy decodes (:func:`attnrepro.bleu.bleu` on space-joined words, ``<eos>`` and padding dropped; the
    references keep the set's ``<unk>``). Returns (per-seed rows, curves, the ξ curves of Fig. 2)."""
    from pathlib import Path

    import torch

    from ..analysis.agreement_table import reference_alpha, second_run_curve, table2_row, target_token_rows
    from ..analysis.proxy import proxy_probe, train_proxy
    from ..bleu import bleu, sentences
    from ..data import EOS, SOS
    from . import parallel
    from .seq2seq import greedy_decode, saliency
    from .train import train_translation

    splits, words = parallel.load(Path(data_dir))
    train_set, test_all = splits["train"], splits["test"]
    pick = np.sort(np.random.default_rng(spec["test_seed"]).permutation(len(test_all))[: spec["n_test"]])
    test_set = test_all.subset(torch.as_tensor(pick))
    vocab, hidden, n = len(words), spec["model"]["hidden"], len(seeds)
    if log is not None:
        print(f"{Path(data_dir).name}: {len(train_set)} train pairs, {len(test_set)} of {len(test_all)} test pairs, "
              f"joint vocabulary {vocab}", file=log, flush=True)
    src_len = test_set.src_len.numpy()
    tgt_mask = (torch.arange(int(test_set.tgt_len.max())) < test_set.tgt_len[:, None]).numpy()
    rows_of = lambda probe: target_token_rows(probe.cpu().numpy(), tgt_mask, src_len)[0]   # [S, N, L]
    _, lengths = target_token_rows(np.zeros((*tgt_mask.shape, 1)), tgt_mask, src_len)
    store = {"learned": {"alpha": [], "beta": []}, "uniform": {"beta": []}}
    final = {}

    def recorder(name):
        def on_eval(step, model, ev):
            src, src_mask, tgt_in, tgt_out, _ = ev
            width = src.shape[-1] * tgt_in.shape[-1] * vocab * n
            beta = _in_chunks(model.lexical_probe, src.shape[1], max(1, int(2.5e7 // width)),
                              src, tgt_in, tgt_out, src_mask)
            store[name]["beta"].append(rows_of(beta))
            if name == "learned":
                with torch.no_grad():
                    _, cache = model.run_with_cache(src, tgt_in, src_mask)
                store[name]["alpha"].append(rows_of(cache["attention.alpha"][:, :, 0]))
            final[name] = (model, ev)
        return on_eval

    curves = []
    for k, mode in enumerate(("learned", "uniform")):
        # the uniform run starts from its own initialisation: a shared one would make β^uf agree with α by birth
        run_seeds = [s + k * COMPARISON_SEED_OFFSET for s in seeds]
        c = train_translation(train_set, test_set, Seq2SeqConfig(vocab, hidden, attention=mode), run_seeds,
                              threads=threads, log=log, on_eval=recorder(mode), **spec["train"])
        c["seed"] = c.seed - k * COMPARISON_SEED_OFFSET
        c["attention"] = mode
        curves.append(c)
    curves = pd.concat(curves, ignore_index=True)

    model, (src, src_mask, tgt_in, tgt_out, _) = final["learned"]
    delta = rows_of(saliency(model, src, tgt_in, tgt_out, src_mask))
    decoded = greedy_decode(model, src, src_mask, words.index(SOS), tgt_in.shape[-1]).numpy()
    references = sentences(tgt_out[0].numpy(), words, "reference")
    bleus = [bleu(sentences(decoded[i], words, "hypothesis"), references) for i in range(n)]

    p = spec["proxy"]
    theta = train_proxy(train_set.src.numpy(), train_set.tgt_out.numpy(), vocab, vocab, dim=hidden,
                        epochs=p["epochs"], seed=p["seed"], lengths=train_set.src_len.numpy(),
                        tgt_lengths=train_set.tgt_len.numpy())
    width = src.shape[-1]
    beta_px = np.concatenate([
        np.pad(proxy_probe(theta, x[:ls], y[:lt]), ((0, 0), (0, width - ls)))
        for x, y, ls, lt in zip(test_set.src.numpy(), test_set.tgt_out.numpy(), src_len, test_set.tgt_len.numpy())])

    learned = curves[curves.attention == "learned"]
    steps = np.array(sorted(learned.step.unique()))
    stacked = lambda name, key: np.stack(store[name][key], 1)   # [S, checkpoints, N, L]
    alpha, beta, beta_uf = stacked("learned", "alpha"), stacked("learned", "beta"), stacked("uniform", "beta")
    rows, xi_curves = [], []
    for i, seed in enumerate(seeds):
        j = (i + 1) % n
        perf = learned[learned.seed == seed].sort_values("step").token_acc.to_numpy()
        perf_b = learned[learned.seed == seeds[j]].sort_values("step").token_acc.to_numpy()
        row = table2_row(alpha[i], perf, beta[i], beta_uf[i], beta_px, delta[i], alpha[j], perf_b, steps,
                         seed=seed, lengths=lengths)
        row.update({"seed": seed, "second_run_seed": seeds[j], "token_acc": perf[-1], "bleu": bleus[i]})
        for name in ("A_alpha_beta_uf", "A_beta_uf_beta_px", "A_alpha_beta", "A_delta_beta_uf"):
            row[f"{name}_excess"] = row[name] - row["A_hat"]
        rows.append(row)
        xi_curves.append(second_run_curve(reference_alpha(alpha[i], perf), alpha[j], perf_b, steps, lengths)
                         .assign(seed=seed, second_run_seed=seeds[j]))
    return pd.DataFrame(rows), curves, pd.concat(xi_curves, ignore_index=True)
