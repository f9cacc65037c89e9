"""The ``snell2021:`` config block resolved into the specs of its jobs, and its cross-field checks.

Imports nothing heavy: the Snakefile calls it before any job starts. Each job receives one self-contained spec,
so it reruns exactly when something it depends on changes.
"""

from __future__ import annotations

from typing import Any

from ..errors import AttnReproError

# copy runs of Fig. 3 and §6.2: name -> (task kind, which vocabulary size)
COPY_RUNS = {
    "copy_same": ("permutation", "same"),          # permutations of one set of L words (Fig. 3 red)
    "copy_subset": ("permutation", "subset"),      # L of `subset_words` words (Fig. 3 blue; §6.2 copying)
    "copy_mixture": ("mixture", "mixture"),        # permutations of one of two disjoint sets (App. A.3)
    "copy_permute": ("permutation_function", "subset"),  # a fixed permutation function (§6.2)
}

# the three kinds of K-head models of Fig. 6
COMBOS = ("all_bad", "one_good", "random")


def check(block: dict[str, Any]) -> None:
    c = block["copy"]
    if c["subset_words"] <= c["length"]:
        raise AttnReproError(f"snell2021.copy.subset_words ({c['subset_words']}) must exceed copy.length "
                             f"({c['length']}): the control draws L words out of more than L")
    if block["fail_below"] >= block["good_above"]:
        raise AttnReproError(f"snell2021.fail_below ({block['fail_below']}) must be below good_above "
                             f"({block['good_above']})")
    if len(set(block["seeds"])) != len(block["seeds"]):
        raise AttnReproError(f"snell2021.seeds: repeated seed in {block['seeds']}")
    for name in c.get("uniform", []):
        if name not in COPY_RUNS:
            raise AttnReproError(f"snell2021.copy.uniform: unknown run {name!r}; choose from {sorted(COPY_RUNS)}")
    m = block["multihead"]
    if m["heads"] < 2:
        raise AttnReproError(f"snell2021.multihead.heads ({m['heads']}) must be at least 2")
    if m["n_bad"] < 1 or m["n_good"] < 1:
        raise AttnReproError("snell2021.multihead: n_good and n_bad must be at least 1")
    for where, t in (("train", block["train"]), ("multihead.train", {**block["train"], **m.get("train", {})}),
                     ("keyword.train", block["keyword"]["train"])):
        if t["eval_every"] > t["steps"]:
            raise AttnReproError(f"snell2021.{where}.eval_every ({t['eval_every']}) exceeds steps ({t['steps']})")
    for name in translation_sets(block):
        t = translation_spec(block, name)["train"]
        if t["eval_every"] > t["steps"]:
            raise AttnReproError(f"snell2021.translation.sets.{name}: eval_every ({t['eval_every']}) exceeds steps "
                                 f"({t['steps']})")


def copy_runs(block: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every copy job: the four runs with learned attention and ``<run>_uniform`` for those listed in
    ``copy.uniform`` (frozen uniform attention, §3.2)."""
    c = block["copy"]
    words = {"same": c["length"], "subset": c["subset_words"], "mixture": c["length"]}
    out = {}
    for name, (kind, vocab) in COPY_RUNS.items():
        for mode in ("learned", "uniform"):
            if mode == "uniform" and name not in c.get("uniform", []):
                continue
            task = {"kind": kind, "length": c["length"], "n_words": words[vocab], "task_seed": c["task_seed"]}
            out[name if mode == "learned" else f"{name}_uniform"] = {
                "task": task, "model": {"hidden": c["hidden"], "attention": mode},
                "train": dict(block["train"]), "fail_below": block["fail_below"], "good_above": block["good_above"],
            }
    return out


def multihead_spec(block: dict[str, Any]) -> dict[str, Any]:
    c, m = block["copy"], block["multihead"]
    spec = {k: v for k, v in m.items() if k != "train"}
    spec["task"] = {"kind": "permutation", "length": c["length"], "n_words": c["length"]}
    spec["hidden"] = c["hidden"]
    spec["train"] = {**block["train"], **m.get("train", {})}
    spec["good_above"], spec["bad_below"] = block["good_above"], block["fail_below"]
    return spec


def keyword_spec(block: dict[str, Any]) -> dict[str, Any]:
    k = block["keyword"]
    return {"task": {"length": k["length"], "n_words": k["n_words"]},
            "model": {"hidden": k["hidden"], "attention": "uniform"}, "train": dict(k["train"])}


def counts_spec(block: dict[str, Any]) -> dict[str, Any]:
    c = block["copy"]
    return {"length": c["length"], "subset_words": c["subset_words"], **block["counts"]}


def claim_experiments(block: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    """name -> (task kind, arch, summary path) for the claims rule."""
    out = {}
    for run, spec in copy_runs(block).items():
        base = run.removesuffix("_uniform")
        arch = "lstm_uniform" if spec["model"]["attention"] == "uniform" else "lstm_attention"
        out[f"snell2021_{run}"] = (base, arch, f"results/snell2021/{run}/summary.csv")
    for combo in COMBOS:
        out[f"snell2021_multihead_{combo}"] = (f"multihead_{combo}", "lstm_attention",
                                               f"results/snell2021/multihead/summary_{combo}.csv")
    out["snell2021_table2"] = ("copy_table2", "lstm_attention", "results/snell2021/table2/summary.csv")
    for name in classification_sets(block):
        out[f"snell2021_cls_{name}"] = ("classification", "bilstm_attention", f"results/snell2021/cls_{name}/summary.csv")
    for name in translation_sets(block):
        out[f"snell2021_mt_{name}"] = ("translation", "lstm_attention", f"results/snell2021/mt_{name}/summary.csv")
    out["snell2021_keyword"] = ("keyword", "bilstm_uniform", "results/snell2021/keyword/summary.csv")
    out["snell2021_counts"] = ("count_table", "ibm1", "results/snell2021/counts/summary.csv")
    return out


def figure_spec(block: dict[str, Any]) -> dict[str, Any]:
    c = block["copy"]
    length, v = c["length"], c["subset_words"]
    translation = {name: translation_label(name) for name in translation_sets(block)}
    references = {translation[name]: s["reference"] for name, s in block.get("translation", {}).get("sets", {}).items()
                  if s.get("reference")}
    return {"fail_below": block["fail_below"], "classification": classification_sets(block),
            "translation": translation_sets(block), "references": references, "labels": {**translation,
        "same": f"permutations of the same {length} words", "subset": f"{length} of {v} words",
        "mixture": f"mixture: permutations of words 1-{length} or {length + 1}-{2 * length}",
        "copy": f"copying ({length} of {v} words)", "permute": f"fixed permutation π ({length} of {v} words)",
        "table2": f"copy, {length} of {v} words", "rotten_tomatoes": "rotten tomatoes (sentiment)",
        "parlspeech": "ParlSpeech Con/Lab (topic)"}}


def table2_spec(block: dict[str, Any]) -> dict[str, Any]:
    """Table 2 on the copy task with L of `subset_words` words (the distribution where KTIW can be learnt)."""
    spec = copy_runs(block)["copy_subset"]
    return {"task": spec["task"], "model": {"hidden": spec["model"]["hidden"]}, "train": spec["train"],
            "proxy": dict(block["table2"]["proxy"])}


def classification_sets(block: dict[str, Any]) -> list[str]:
    return list(block.get("classification", {}).get("sets", {}))


def classification_spec(block: dict[str, Any], name: str) -> dict[str, Any]:
    """An offline set (``text.SOURCES``) is split by its own block; any other set is a classification corpus
    prepared into ``results/data/<name>/`` (its own train/test splits and vocabulary)."""
    from .text import SOURCES

    c = block["classification"]
    data = {"name": name, **c["sets"][name]}
    if name not in SOURCES:
        data["data_dir"] = prepared_dir(name)
    return {"data": data, "model": {"hidden": c["hidden"]}, "train": dict(c["train"]), "proxy": dict(c["proxy"])}


def prepared_dir(name: str) -> str:
    return f"results/data/{name}"


def classification_inputs(block: dict[str, Any], name: str) -> list[str]:
    """What a classification job reads from the workflow: a corpus set's prepared splits, nothing for the
    offline sets (they come with their packages)."""
    data = classification_spec(block, name)["data"]
    return ([f"{data['data_dir']}/{f}" for f in ("train.parquet", "test.parquet", "vocab.json")]
            if "data_dir" in data else [])


# Table 2 / Fig. 2 row names of the translation sets we can prepare (others: "<name> (translation)")
TRANSLATION_LABELS = {"bible": "Bible verses EN→FR (translation)", "multi30k": "Multi30k DE→EN (translation)",
                      "iwslt14": "IWSLT14 DE→EN (translation)"}


def translation_label(name: str) -> str:
    return TRANSLATION_LABELS.get(name, f"{name} (translation)")


def translation_sets(block: dict[str, Any]) -> list[str]:
    """Prepared data sets (``results/data/<name>/``: a task of the config's ``tasks`` or a ``corpora`` entry)."""
    return list(block.get("translation", {}).get("sets", {}))


def translation_spec(block: dict[str, Any], name: str) -> dict[str, Any]:
    t = block["translation"]
    s = t["sets"][name]
    return {"n_test": s["n_test"], "test_seed": s["test_seed"], "model": {"hidden": t["hidden"]},
            "train": {**t["train"], **s.get("train", {})}, "proxy": dict(t["proxy"])}
