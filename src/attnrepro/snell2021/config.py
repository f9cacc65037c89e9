"""The ``snell2021:`` config block resolved into the jobs of its DAG (its cross-field checks:
:mod:`.validation`).

Imports nothing heavy: the Snakefile calls it before any job starts. Each job receives one self-contained spec,
so it reruns exactly when something it depends on changes:

- *runs* (:func:`runs`, rule ``snell2021_train``; ``multihead_candidates`` has its own rule): one model stack
  trained by the engine — the copy runs of Fig. 3 / §6.2 with learned attention and, for the runs in
  ``copy.uniform`` and Table 2's, frozen uniform attention; Fig. 6's candidates and its K-head models; the keyword
  toy; per Table 2 set the runs with learned / uniform / (classification) frozen-β attention and the proxy;
  App. A.3's proxies, one per seed, on the copy distributions of ``A3_PROXY``; App. A.1's Eq. 32 runs
  (:func:`alpha_opt_runs`), whose final models rule ``snell2021_alpha_opt`` reads.
  Training settings are ``snell2021.train`` with a block's own ``train`` keys over it (the top-level ``train`` of
  the Aitken experiments works the same way).
- *exports* (:func:`exports`): the model of each Table 2 learned run (final, or each member at its best
  evaluation: :func:`export_model`) → gradient saliency Δ, greedy decodes.
- *analyses* (:func:`analyses`): pure functions of those tables — the per-run ``summary.csv`` the claims read.

App. A.4's optional records (:func:`appendix_records`): ``table2.train_sample`` and ``translation.bleu_curve``.
"""

from __future__ import annotations

from typing import Any

from ..io import results_dir as root
from .table2_sets import (TRANSLATION_LABELS, classification_data, classification_sets,  # noqa: F401
                          prepared_dir, translation_label, translation_sets)

# copy runs of Fig. 3 and §6.2: name -> (task kind, which vocabulary size)
COPY_RUNS = {
    "copy_same": ("permutation", "same"),          # permutations of one set of L words (Fig. 3 red)
    "copy_subset": ("permutation", "subset"),      # L of `subset_words` words (Fig. 3 blue; §6.2 copying)
    "copy_mixture": ("mixture", "mixture"),        # permutations of one of two disjoint sets (App. A.3)
    "copy_permute": ("permutation_function", "subset"),  # a fixed permutation function (§6.2)
}
TABLE2_COPY = "copy_subset"   # Table 2 on the copy task: L of a larger vocabulary, where KTIW can be learnt
# App. A.3: a bag-of-words proxy per seed on these copy distributions, its β^px read in the run's summary
A3_PROXY = ("copy_same", "copy_mixture")

# the three kinds of K-head models of Fig. 6
COMBOS = ("all_bad", "one_good", "random")

# a comparison run starts from its own initialisation (model seed + offset): a shared one would make β^uf agree
# with α by birth
SEED_OFFSET = {"learned": 0, "uniform": 10_000, "frozen_beta": 20_000}
PROBES = {"learned": ["alpha", "beta"], "uniform": ["beta"], "frozen_beta": ["alpha"]}
EXPORT_AT = ("final", "best")  # table2.export_at: the model of a learned run that Δ and the decodes are read from


def train_of(block: dict[str, Any], *overrides: dict[str, Any]) -> dict[str, Any]:
    """``snell2021.train`` with each override's keys over it."""
    out = dict(block["train"])
    for o in overrides:
        out.update(o or {})
    return out


def _plain(seeds: list[int], offset: int = 0, heads: int = 1) -> list[list]:
    """Members of ordinary runs: model and data seed = seed + offset, head seeds from its heads stream."""
    from ..seeding import stream_seeds

    return [[s + offset, s + offset, stream_seeds(s + offset, "heads", heads)] for s in seeds]


def copy_data(block: dict[str, Any], name: str) -> dict[str, Any]:
    c = block["copy"]
    kind, vocab = COPY_RUNS[name]
    words = {"same": c["length"], "subset": c["subset_words"], "mixture": c["length"]}[vocab]
    return {"task": "copy", "kind": kind, "length": c["length"], "n_words": words, "task_seed": c["task_seed"]}


def _table2_runs(prefix: str, data: dict, model: dict, train: dict, seeds: list[int], modes, proxy: dict,
                 proxy_seed: int, proxy_train: dict, keep_best: bool = False,
                 appendix: dict | None = None) -> dict[str, dict]:
    """The runs behind one Table 2 row: one per attention mode (the copy task's learned run is ``copy_subset``
    itself, a Fig. 3 run whose diverged members are counted apart) and the bag-of-words proxy; ``keep_best``: the
    learned run also writes its members at their best evaluation (``model_best.pt``). ``appendix``: App. A.4's
    records (:func:`appendix_records`) for the runs Table 7's A(α, β^uf) − Â reads, the learned (α, α_B) and
    uniform (β^uf) ones; ``bleu_curve`` for the learned run only (ξ reads its seeds). Keys absent when off."""
    appendix = appendix or {}
    own = {"learned": {**appendix, **({"keep_best": True} if keep_best else {})},
           "uniform": {k: v for k, v in appendix.items() if k == "train_sample"}}
    out = {f"{prefix}_{mode}" if prefix != TABLE2_COPY or mode != "learned" else prefix: {
        "model": {**model, "attention": mode}, "data": data, "train": train,
        "members": _plain(seeds, SEED_OFFSET[mode]), "record": PROBES[mode],
        "divergence": "freeze" if prefix == TABLE2_COPY else "stop", **own.get(mode, {})} for mode in modes}
    out[f"{prefix}_proxy"] = {"model": proxy, "data": data, "train": proxy_train,
                              "members": [[proxy_seed, proxy_seed, []]], "record": ["beta"], "divergence": "stop"}
    return out


def appendix_records(block: dict[str, Any], family: str) -> dict[str, Any]:
    """App. A.4's optional records of a Table 2 row's runs (``family``: copy, classification, translation):
    ``train_sample`` (Table 7: probes on that many training pairs) and, for translation, ``bleu_curve`` (Tables 4,
    6, 8: greedy decodes at every evaluation). Keys absent when off, so specs (and reruns) stay as they were."""
    n = block["table2"].get("train_sample", 0)
    bleu = family == "translation" and block.get("translation", {}).get("bleu_curve", False)
    return {**({"train_sample": n} if n else {}), **({"bleu_curve": True} if bleu else {})}


def copy_vocab(kind: str, length: int, n_words: int) -> int:
    """Model vocabulary of a copy task (words + <eos> + <sos>); here, not in :mod:`.tasks`, so that the memory
    estimate of Fig. 6's jobs (attnrepro.run.budget) reads it without importing torch."""
    return (2 * length if kind == "mixture" else n_words) + 2


def copy_model(c: dict[str, Any]) -> dict[str, Any]:
    """The 1-head copy model of ``snell2021.copy`` (§2.1)."""
    return {"type": "seq2seq", "hidden": c["hidden"], "heads": 1,
            **({"score_bias": True} if c.get("score_bias") else {})}  # absent when off: specs (and reruns) as before


def multihead_runs(block: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Fig. 6's jobs (§5.2): ``multihead_candidates`` (its members are set round by round) and one K-head run per
    kind of :data:`COMBOS` (its members are set from the candidates table); the memory estimate reads them too."""
    m = block["multihead"]
    data = copy_data(block, "copy_same")
    mh_train = train_of(block, m.get("train"))
    # "authors": their multihead.py's GRU encoder and decoder, embeddings apart, attn_proj with a bias
    mh_model = {**copy_model(block["copy"]), **({"cell": "gru", "shared_embedding": False, "score_bias": True}
                                                 if m.get("architecture") == "authors" else {})}
    out = {"multihead_candidates": {"model": {**mh_model, "attention": "learned"}, "data": data, "train": mh_train,
                                    "record": [], "divergence": "freeze", "multihead": m}}
    for combo in COMBOS:
        combine = {"heads_combine": m["combine"]} if m.get("combine", "sum") != "sum" else {}
        out[f"multihead_{combo}"] = {"model": {**mh_model, "heads": m["heads"], "attention": "learned", **combine},
                                     "data": data,
                                     "train": mh_train, "record": ["head_alignment"], "divergence": "freeze",
                                     "combo": combo, "multihead": m}
    return out


def runs(block: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every training job of the block: name -> spec (:mod:`attnrepro.snell2021.runs`)."""
    c, seeds, out = block["copy"], block["seeds"], {}
    keep_best, seq2seq = export_model(block) != "model.pt", copy_model(c)
    for name in COPY_RUNS:
        if name == TABLE2_COPY:
            continue
        modes = ["learned"] + (["uniform"] if name in c.get("uniform", []) else [])
        for mode in modes:
            out[name if mode == "learned" else f"{name}_{mode}"] = {
                "model": {**seq2seq, "attention": mode}, "data": copy_data(block, name), "train": train_of(block),
                "members": _plain(seeds, SEED_OFFSET[mode]), "record": [], "divergence": "freeze"}
    p = block["table2"]["proxy"]
    out.update(_table2_runs(TABLE2_COPY, copy_data(block, TABLE2_COPY), seq2seq, train_of(block), seeds,
                            ("learned", "uniform"), proxy_model(p, c["hidden"]), p["seed"],
                            train_of(block, p.get("train")), keep_best, appendix_records(block, "copy")))
    for name in A3_PROXY:  # Table 2's proxy settings; a proxy per seed (model and data seed = the seed): replicates
        # and an evaluation before training: App. A.3's claim reads the spread training adds to the random start's
        # (run_tables.proxy_spread); evaluating draws nothing, so the trained proxy is the same
        train = train_of(block, p.get("train"))
        train["eval_at"] = sorted({0, *train.get("eval_at", [])})
        out[f"{name}_proxy"] = {"model": proxy_model(p, c["hidden"]), "data": copy_data(block, name), "train": train,
                                "members": _plain(seeds), "record": ["beta"], "divergence": "stop"}
    out.update(multihead_runs(block))
    k = block["keyword"]
    out["keyword"] = {"model": {"type": "classifier", "hidden": k["hidden"], "attention": "uniform"},
                      "data": {"task": "keyword", "length": k["length"], "n_words": k["n_words"]},
                      "train": train_of(block, k.get("train")), "members": _plain(seeds, 0, 0), "record": ["gamma"],
                      "divergence": "stop"}
    for name in classification_sets(block):
        cl = block["classification"]
        out.update(_table2_runs(f"cls_{name}", classification_data(block, name),
                                {"type": "classifier", "hidden": cl["hidden"],
                                 **({"embed": cl["embed"]} if cl.get("embed") else {})},
                                train_of(block, cl.get("train")),
                                cl["seeds"], ("learned", "uniform", "frozen_beta"),
                                proxy_model(cl["proxy"], cl.get("embed") or cl["hidden"], classification=True), cl["proxy"]["seed"],
                                train_of(block, cl.get("train"), cl["proxy"].get("train"),
                                         cl["sets"][name].get("proxy_train")), keep_best,
                                appendix_records(block, "classification")))
    for name in translation_sets(block):
        t = block["translation"]
        s = t["sets"][name]
        train = train_of(block, t.get("train"), s.get("train"))
        # "authors": their 2-layer biLSTM model (App. A.8); absent: the 1-layer copy model
        model = ({"type": "translation", "hidden": t["hidden"], "dropout": t.get("dropout", 0.5)}
                 if t.get("architecture") == "authors" else {**seq2seq, "hidden": t["hidden"]})
        out.update(_table2_runs(f"mt_{name}", {"task": "translation", "data_dir": prepared_dir(name),
                                               "test_seed": s["test_seed"]},
                                model, train, t["seeds"], ("learned", "uniform"),
                                proxy_model(t["proxy"], t["hidden"]), t["proxy"]["seed"],
                                {**train, **t["proxy"].get("train", {})}, keep_best,
                                appendix_records(block, "translation")))
    out.update(alpha_opt_runs(block, out))  # App. A.1's Eq. 32 runs, copies of their sets' learned runs
    return out


# App. A.1 (``translation.alpha_opt: {sets: [...], iterations: N}``): per named translation set, one run
# ``mt_<set>_eq32`` of the set's Table 2 recipe (seeds, width, dropout, training) with the linear read-out of Eq. 32,
# p_t = σ(W(c_t + d_t)) (model ``readout: linear``), learned attention and no probes recorded (α^opt and β are read
# from its final model); the ``snell2021_alpha_opt`` rule solves α^opt per held-out target token with ``iterations``
# projected-gradient steps (:mod:`.optimal_attention`); the set's Table 2 analysis reads that table and adds
# A(α^opt, β) − Â to its summary
EQ32_SUFFIX = "_eq32"


def _alpha_opt(block: dict[str, Any]) -> dict[str, Any] | None:
    return block.get("translation", {}).get("alpha_opt")


def alpha_opt_sets(block: dict[str, Any]) -> list[str]:
    a = _alpha_opt(block)
    return list(a["sets"]) if a else []


def alpha_opt_run(name: str) -> str:
    return f"mt_{name}{EQ32_SUFFIX}"


def alpha_opt_runs(block: dict[str, Any], table2_runs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The Eq. 32 runs: each a copy of its set's learned Table 2 run (``table2_runs``) with the linear read-out and
    nothing recorded (App. A.4's records of the learned run, :func:`appendix_records`, left out too)."""
    out = {}
    for name in alpha_opt_sets(block):
        learned = {k: v for k, v in table2_runs[f"mt_{name}_learned"].items()
                   if k not in ("train_sample", "bleu_curve")}
        out[alpha_opt_run(name)] = {**learned, "model": {**learned["model"], "readout": "linear"}, "record": []}
    return out


def alpha_opt_iterations(block: dict[str, Any]) -> int:
    return int(_alpha_opt(block)["iterations"])


def alpha_opt_roles(block: dict[str, Any], prefix: str) -> dict[str, str]:
    """The Table 2 analysis ``prefix``'s extra spec key: the Eq. 32 run whose α^opt table it reads."""
    name = prefix.removeprefix("mt_")
    return {"alpha_opt": alpha_opt_run(name)} if prefix.startswith("mt_") and name in alpha_opt_sets(block) else {}


def proxy_model(proxy: dict[str, Any], dim: int, classification: bool = False) -> dict[str, Any]:
    """The proxy's model spec; keys left out when off, so specs (and reruns) stay as they were."""
    return {"type": "proxy", "dim": dim, **({"classification": True} if classification else {}),
            **({"bias": True} if proxy.get("bias") else {})}


def run_inputs(block: dict[str, Any], run: str) -> list[str]:
    """What a run reads from the workflow: a prepared set's splits, the candidates of the K-head models."""
    spec = runs(block)[run]
    if "combo" in spec:
        return [f"{root()}/models/snell2021/multihead_candidates/candidates.parquet"]
    data = spec["data"]
    if "data_dir" in data:
        files = ("train.parquet", "test.parquet", "vocab.json")
        return [f"{data['data_dir']}/{f}" for f in files]
    return []


def export_model(block: dict[str, Any]) -> str:
    """The file of a Table 2 learned run its export reads: each member at its most accurate evaluation (the
    authors' Δ) with ``table2.export_at: best``, written before ``model.pt`` (the final model, the default)."""
    return "model_best.pt" if block["table2"].get("export_at", "final") == "best" else "model.pt"


def exports(block: dict[str, Any]) -> list[str]:
    """The runs exported (:func:`export_model`): the learned run behind each Table 2 row."""
    return ([TABLE2_COPY] + [f"cls_{n}_learned" for n in classification_sets(block)]
            + [f"mt_{n}_learned" for n in translation_sets(block)])


def copy_analyses(block: dict[str, Any]) -> list[str]:
    """Copy runs summarised for Fig. 3 / §6.2 and the claims."""
    uniform = [f"{n}_uniform" for n in block["copy"].get("uniform", [])]
    return list(COPY_RUNS) + uniform


def table2_analyses(block: dict[str, Any]) -> dict[str, str]:
    """Table 2 rows: analysis name -> the prefix of its runs."""
    out = {"table2": TABLE2_COPY}
    out.update({f"cls_{n}": f"cls_{n}" for n in classification_sets(block)})
    out.update({f"mt_{n}": f"mt_{n}" for n in translation_sets(block)})
    return out


def analyses(block: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every analysis job: name -> spec (``kind``, the runs it reads by role, its parameters)."""
    judge = block["copy"].get("judge_step")  # the authors' last evaluation (191 updates); None = the run's last
    out = {name: {"kind": "copy", "runs": {"run": name}, "fail_below": block["fail_below"],
                  "good_above": block["good_above"], **({"judge_step": judge} if judge is not None else {})}
           for name in copy_analyses(block)}
    for name in A3_PROXY:  # its proxies' β^px over the copy's word positions
        out[name]["runs"]["proxy"] = f"{name}_proxy"
        out[name]["words"] = block["copy"]["length"]
    mh_judge = block["multihead"].get("judge_step")  # the authors' last evaluation (190 updates); None = the last
    out["multihead"] = {"kind": "multihead", "runs": {"candidates": "multihead_candidates",
                                                       **{c: f"multihead_{c}" for c in COMBOS}},
                        "fail_below": block["fail_below"], "good_above": block["good_above"],
                        **({"judge_step": mh_judge} if mh_judge is not None else {})}
    out["keyword"] = {"kind": "keyword", "runs": {"run": "keyword"}}
    out["counts"] = {"kind": "counts", "runs": {}, "counts": {"length": block["copy"]["length"],
                                                               "subset_words": block["copy"]["subset_words"],
                                                               **block["counts"]}}
    for name, prefix in table2_analyses(block).items():
        learned = TABLE2_COPY if prefix == TABLE2_COPY else f"{prefix}_learned"
        roles = {"learned": learned, "uniform": f"{prefix}_uniform", "proxy": f"{prefix}_proxy"}
        if prefix.startswith("cls_"):
            roles["frozen_beta"] = f"{prefix}_frozen_beta"
        family = {"cls_": "classification", "mt_": "translation"}.get(prefix[:prefix.find("_") + 1], "copy")
        out[name] = {"kind": "table2", "runs": roles, "exported": learned, **alpha_opt_roles(block, prefix),
                     "translation": prepared_dir(prefix[3:]) if prefix.startswith("mt_") else None,
                     **appendix_records(block, family)}
    return out


def analysis_inputs(block: dict[str, Any], name: str) -> list[str]:
    spec = analyses(block)[name]
    files = []
    for role, run in spec["runs"].items():
        d = f"{root()}/models/snell2021/{run}"
        if role == "candidates":
            files.append(f"{d}/candidates.parquet")
        elif spec["kind"] == "multihead":
            files += [f"{d}/metrics.csv", f"{d}/heads.parquet"]
        else:
            files += [f"{d}/metrics.csv", f"{d}/probes.parquet", f"{d}/eval.parquet"]
    if spec.get("exported"):
        files += [f"{root()}/activations/snell2021/{spec['exported']}/{f}" for f in ("saliency.parquet", "decodes.parquet")]
    if spec.get("translation"):
        files.append(f"{spec['translation']}/vocab.json")
    if spec.get("alpha_opt"):
        files.append(f"{root()}/activations/snell2021/{spec['alpha_opt']}/alpha_opt.parquet")
    return files


ANALYSIS_OUTPUTS = {"copy": ["summary.csv", "curves.parquet", "failures.csv"], "keyword": ["summary.csv", "curves.parquet"],
                    "multihead": [*(f"summary_{c}.csv" for c in COMBOS), "curves.parquet", "candidates.parquet"],
                    "counts": ["summary.csv", "tables.parquet"], "table2": ["summary.csv", "xi_curves.csv"]}


SMS_SET = "sms_spam"  # the SMS Spam Collection v.1 of App. A.9, when a config adds it as a classification set


def claim_experiments(block: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    """name -> (task kind, arch, summary path) for the claims rule."""
    out = {}
    path = lambda name, f="summary.csv": f"{root()}/analysis/snell2021/{name}/{f}"  # noqa: E731
    for run in copy_analyses(block):
        arch = "lstm_uniform" if run.endswith("_uniform") else "lstm_attention"
        out[f"snell2021_{run}"] = (run.removesuffix("_uniform"), arch, path(run))
    for combo in COMBOS:
        out[f"snell2021_multihead_{combo}"] = (f"multihead_{combo}", "lstm_attention",
                                               path("multihead", f"summary_{combo}.csv"))
    out["snell2021_table2"] = ("copy_table2", "lstm_attention", path("table2"))
    for name in classification_sets(block):  # App. A.9's SMS set is apart: the paper left it out of its tables
        kind = "classification_sms" if name == SMS_SET else "classification"
        out[f"snell2021_cls_{name}"] = (kind, "bilstm_attention", path(f"cls_{name}"))
    for name in translation_sets(block):
        out[f"snell2021_mt_{name}"] = ("translation", "lstm_attention", path(f"mt_{name}"))
    out["snell2021_keyword"] = ("keyword", "bilstm_uniform", path("keyword"))
    out["snell2021_counts"] = ("count_table", "ibm1", path("counts"))
    return out


def figure_spec(block: dict[str, Any]) -> dict[str, Any]:
    c = block["copy"]
    length, v = c["length"], c["subset_words"]
    translation = {name: translation_label(name) for name in translation_sets(block)}
    references = {translation[name]: s["reference"] for name, s in block.get("translation", {}).get("sets", {}).items()
                  if s.get("reference")}
    return {"fail_below": block["fail_below"], "judge_step": c.get("judge_step"),
            "multihead_judge_step": block["multihead"].get("judge_step"),
            "classification": classification_sets(block),
            "translation": translation_sets(block), "references": references,
            "uniform": [n.removeprefix("copy_") for n in c.get("uniform", [])], "labels": {**translation,
        "same": f"permutations of the same {length} words", "subset": f"{length} of {v} words",
        "mixture": f"mixture: permutations of words 1-{length} or {length + 1}-{2 * length}",
        "copy": f"copying ({length} of {v} words)", "permute": f"fixed permutation π ({length} of {v} words)",
        "table2": f"copy, {length} of {v} words", "rotten_tomatoes": "rotten tomatoes (sentiment)",
        "parlspeech": "ParlSpeech Con/Lab (topic)", "healthtweets": "health tweets, BBC/CNN (topic)",
        SMS_SET: "SMS Spam Collection (App. A.9; not in the paper's tables)"}}
