"""Run configuration: the YAML the workflow reads, validated once at the edge, then passed around as dataclasses.

The JSON schema (``workflow/schemas/config.schema.yaml``) checks keys, types and the names of tasks, cells and
architectures; :func:`check` adds the rules a schema cannot express (references between blocks, min ≤ max). This
module imports nothing heavy: the Snakefile calls it before any job starts. :func:`experiment_spec` resolves one experiment
into the self-contained dict that its training job receives, so a job's parameters change exactly when
something that job depends on changes.
"""

from __future__ import annotations

from typing import Any

from .budget import check as check_memory
from ..errors import AttnReproError
from ..seq2seq.options import AITKEN_CODE_OPTIONS
from ..verdicts.ladder import experiments as ladder_experiments


def task_spec(config: dict[str, Any], name: str) -> dict[str, Any]:
    """The task an experiment trains on: a block of ``tasks``, or a translation corpus of ``corpora`` (the papers'
    own data, prepared into the same ``results/data/<name>/`` layout), seen as a task whose kind is its format."""
    if name in config["tasks"]:
        return config["tasks"][name]
    corpus = config["corpora"][name]
    return {"kind": corpus["format"], "corpus": name,
            **({"max_len": corpus["max_len"]} if "max_len" in corpus else {})}


ATTENTION_ARCHS = ("aed", "ao")  # the architectures whose attention a config chooses ("dot", the paper's, or "qkv")


def attention(model: dict[str, Any]) -> str:
    """The attention of an experiment's ``model`` block: its ``attention`` key, or for an AED / AO that names none
    the paper's dot product (the schema's documented default and ModelConfig's); "" where there is no choice (VED,
    transformer). Read here rather than filled into the block: the block is the training spec, whose fingerprint
    stamps every trained model."""
    return model.get("attention", "dot") if model["arch"] in ATTENTION_ARCHS else ""


def check(config: dict[str, Any]) -> None:
    """Cross-field rules the schema cannot state; raises :class:`AttnReproError` naming the key."""
    tasks = config["tasks"]
    for name, task in tasks.items():
        if task["kind"] != "bible" and task["min_len"] > task["max_len"]:
            raise AttnReproError(f"tasks.{name}: min_len ({task['min_len']}) is larger than max_len ({task['max_len']})")
        if task["kind"] == "sort" and task.get("distinct", True) and task["n_words"] < task["max_len"]:
            raise AttnReproError(f"tasks.{name}: distinct letters need n_words ({task['n_words']}) >= max_len "
                                 f"({task['max_len']}); raise n_words or set distinct: false")
    if len(set(config["seeds"])) != len(config["seeds"]):
        raise AttnReproError(f"seeds: repeated seed in {config['seeds']}")
    for name, exp in config["experiments"].items():
        if len(set(exp.get("seeds", []))) != len(exp.get("seeds", [])):
            raise AttnReproError(f"experiments.{name}.seeds: repeated seed in {exp['seeds']}")
    for name, exp in config["experiments"].items():
        corpora = config.get("corpora") or {}
        if exp["task"] in corpora:
            if corpus_family(corpora[exp["task"]]) == "classification":
                raise AttnReproError(f"experiments.{name}.task: corpus {exp['task']!r} is a classification set; "
                                     f"an encoder-decoder trains on a translation corpus")
        elif exp["task"] not in tasks:
            raise AttnReproError(f"experiments.{name}.task: unknown task {exp['task']!r}; defined: {sorted(tasks)}"
                                 + (f", or a translation corpus of corpora: {sorted(corpora)}" if corpora else ""))
        model = exp["model"]
        if model["arch"] == "ved" and model.get("attention", "dot") != "dot":
            raise AttnReproError(f"experiments.{name}.model.attention: 'ved' has no attention to choose")
        if model["cell"] == "ff" and model["arch"] not in ("ao", "transformer"):
            raise AttnReproError(f"experiments.{name}.model.cell: the feed-forward cell 'ff' has no recurrence and "
                                 f"works only with arch 'ao' or 'transformer', not {model['arch']!r}")
        if model["arch"] == "transformer" and (key := next((k for k in AITKEN_CODE_OPTIONS if k in model), None)):
            raise AttnReproError(f"experiments.{name}.model.{key}: an option of Aitken et al.'s recurrent "
                                 f"encoder-decoders (ved, aed, ao), not of the transformer")
        if model.get("initial_state", "zeros") != "zeros" and model["arch"] not in ("ved", "aed"):
            raise AttnReproError(f"experiments.{name}.model.initial_state: a learned initial state needs a recurrent "
                                 f"encoder (ved, aed); {model['arch']!r} has none")
        if model["arch"] == "transformer":
            _check_transformer(name, model)
        elif "layers" in model or "heads" in model:
            raise AttnReproError(f"experiments.{name}.model: 'layers' and 'heads' apply to arch 'transformer' only")
        elif model["arch"] != "ao" and (key := next((k for k in ("pe_norm", "time_scale", "pe_shared") if k in model),
                                                    None)):
            raise AttnReproError(f"experiments.{name}.model.{key}: only AO adds a positional code to its inputs")
        train = {**config["train"], **exp.get("train", {})}
        if train["eval_every"] > train["steps"]:
            raise AttnReproError(f"experiments.{name}.train.eval_every ({train['eval_every']}) exceeds steps ({train['steps']})")
        task = task_spec(config, exp["task"])
        if task.get("window") == "output":  # eSCAN bounded by its output: the input by max_in_len, if set
            bound = task.get("max_in_len") and max(task["max_in_len"], task["max_len"])
        else:
            bound = task.get("max_len")
        if model["arch"] in ("ao", "transformer") and bound:  # else checked by train on the data
            longest = bound + 1
            if model.get("max_positions", 64) < longest:
                raise AttnReproError(
                    f"experiments.{name}.model.max_positions ({model.get('max_positions', 64)}) is shorter than the "
                    f"task's longest sequence ({longest}, <eos> included)")
    for name in config.get("kobayashi2020_aer", {}).get("experiments", []):
        exp = config["experiments"].get(name)
        if exp is None:
            raise AttnReproError(f"kobayashi2020_aer.experiments: unknown experiment {name!r}")
        if exp["model"]["arch"] == "ved":
            raise AttnReproError(f"kobayashi2020_aer.experiments: {name!r} is a VED, it has no attention to read")
        if task_spec(config, exp["task"])["kind"] not in GOLD_TASK_KINDS:
            raise AttnReproError(f"kobayashi2020_aer.experiments: task of {name!r} has no gold alignments")
    ladder_experiments(config)  # the scale ladder's block, and its points' names against the config's own
    _check_gold_sets(config)
    _check_figures(config)
    check_corpora(config)
    _check_pinned_sets(config)
    # sizes that cannot fit, with the estimate
    check_memory(config, {e["task"]: task_spec(config, e["task"]) for e in config.get("experiments", {}).values()})
    if "snell2021" in config:  # Snell et al. 2021's own block
        from ..snell2021.validation import check as check_snell2021

        check_snell2021(config["snell2021"])
        known = set(config["tasks"]) | set(config.get("corpora") or {})
        for name in config["snell2021"].get("translation", {}).get("sets", {}):
            if name not in known:
                raise AttnReproError(f"snell2021.translation.sets: {name!r} is neither a task nor a corpus of this "
                                     f"config (results/data/{name}/ would not be built); known: {sorted(known)}")
        from ..snell2021.classification_sets import SOURCES

        corpora = config.get("corpora") or {}
        for name in config["snell2021"].get("classification", {}).get("sets", {}):
            if name in SOURCES:
                continue
            if name in corpora and corpus_family(corpora[name]) == "classification":
                if len(corpora[name]["classes"]) != 2:
                    raise AttnReproError(f"snell2021.classification.sets: corpus {name!r} has "
                                         f"{len(corpora[name]['classes'])} classes; the classifier is binary")
                continue
            raise AttnReproError(
                f"snell2021.classification.sets: {name!r} is neither an offline set ({sorted(SOURCES)}) nor a "
                f"classification corpus of this config's corpora "
                f"({sorted(n for n, c in corpora.items() if corpus_family(c) == 'classification')})")


# task kinds whose exact gold alignments the workflow knows (attnrepro.kobayashi2020.task_gold)
GOLD_TASK_KINDS = ("one_to_one", "reversed", "sort", "escan")


def _check_gold_sets(config: dict[str, Any]) -> None:
    """``kobayashi2020_aer.gold``: each set names a trained experiment with attention and either a corpus whose
    release has a gold set (prepared by the workflow, e.g. wmt16's RWTH De-En) or three files that exist (paths
    relative to the workflow's working directory); their contents are checked by the job."""
    from pathlib import Path

    from ..data.corpora import has_gold

    corpora = config.get("corpora") or {}
    for name, gold in config.get("kobayashi2020_aer", {}).get("gold", {}).items():
        key = f"kobayashi2020_aer.gold.{name}"
        exp = config["experiments"].get(gold["experiment"])
        if exp is None:
            raise AttnReproError(f"{key}.experiment: unknown experiment {gold['experiment']!r}")
        if exp["model"]["arch"] == "ved":
            raise AttnReproError(f"{key}.experiment: {gold['experiment']!r} is a VED, it has no attention to read")
        files = [f for f in ("source", "target", "alignment") if f in gold]
        if "corpus" in gold:
            if files or gold.get("index_base", 0) != 0:  # the schema fills index_base 0 in
                raise AttnReproError(f"{key}: give either corpus (its files count from 0) or the files "
                                     f"source/target/alignment, not both")
            if gold["corpus"] not in corpora or not has_gold(corpora[gold["corpus"]]):
                raise AttnReproError(f"{key}.corpus: {gold['corpus']!r} is not a corpus of corpora whose release "
                                     f"has a gold alignment set (such formats: wmt16)")
            if exp["task"] != gold["corpus"]:
                raise AttnReproError(f"{key}.corpus: {gold['corpus']!r} is not the corpus experiment "
                                     f"{gold['experiment']!r} trains on ({exp['task']!r}); its vocabulary would "
                                     f"not be the gold sentences' tokenisation")
            continue
        if len(files) != 3:
            raise AttnReproError(f"{key}: needs corpus, or all of source, target and alignment (has {files})")
        for field in ("source", "target", "alignment"):
            if not Path(gold[field]).is_file():
                raise AttnReproError(f"{key}.{field}: file not found: {gold[field]}")
        if gold.get("index_base", 0) not in (0, 1):
            raise AttnReproError(f"{key}.index_base: {gold['index_base']!r} is neither 0 nor 1")


# panels that read alignments need an attention model
_ATTENTION_ROLES = {("fig2", "sort"), ("fig3", "aed"), ("fig3", "ao"), ("fig4", "ao"), ("fig5", "shares"),
                    ("fig6", "aed"), ("fig6", "ao")}

# panels drawn for one task kind, whose titles name it
_PANEL_TASKS = {("bottleneck", "ved"): "bottleneck", ("bottleneck", "aed"): "bottleneck",
                ("bottleneck", "ved_reversed"): "bottleneck_reversed", ("fig3", "aed"): "escan",
                ("fig3", "ao"): "escan", ("fig6", "aed"): "escan", ("fig6", "ao"): "escan"}


def _check_figures(config: dict[str, Any]) -> None:
    aitken = config.get("figures", {}).get("aitken2021")
    if not aitken:
        return
    if aitken["seed"] not in config["seeds"]:
        raise AttnReproError(f"figures.aitken2021.seed: seed {aitken['seed']} is not in seeds {config['seeds']}")
    for block, roles in aitken.items():
        if block == "seed":
            continue
        for role, names in roles.items():
            for name in [names] if isinstance(names, str) else names:
                key = f"figures.aitken2021.{block}.{role}"
                if name not in config["experiments"]:
                    raise AttnReproError(f"{key}: unknown experiment {name!r}")
                if aitken["seed"] not in experiment_seeds(config, name):
                    raise AttnReproError(f"{key}: {name!r} does not train figures.aitken2021.seed "
                                         f"{aitken['seed']} (its seeds: {experiment_seeds(config, name)})")
                if (block, role) in _ATTENTION_ROLES and config["experiments"][name]["model"]["arch"] == "ved":
                    raise AttnReproError(f"{key}: {name!r} is a VED model, but this panel reads its attention")
                want = _PANEL_TASKS.get((block, role))
                if want is not None:
                    kind = task_spec(config, config["experiments"][name]["task"])["kind"]
                    if kind != want:
                        raise AttnReproError(f"{key}: {name!r} trains on a {kind!r} task, but this panel is drawn "
                                             f"(and titled) for {want!r}")


def corpus_family(corpus: dict[str, Any]) -> str:
    """pieces, words or classification: which preparation rule builds the corpus."""
    from ..data.corpora import FORMATS

    return FORMATS[corpus["format"]].FAMILY


def _check_pinned_sets(config: dict) -> None:
    """kobayashi2020.encoder and .ranks download into results/downloads/<name>/, beside the corpora: one folder each."""
    taken = {name: f"corpora.{name}" for name in config.get("corpora") or {}}
    for key in ("encoder", "ranks"):
        pinned = (config.get("kobayashi2020") or {}).get(key)
        if not pinned:
            continue
        if pinned["name"] in taken:
            raise AttnReproError(f"kobayashi2020.{key}.name: {pinned['name']!r} is already the download folder of "
                                 f"{taken[pinned['name']]}; give it a name of its own")
        taken[pinned["name"]] = f"kobayashi2020.{key}"
    ranks = (config.get("kobayashi2020") or {}).get("ranks")
    if ranks and len(ranks["files"]) != 1:
        raise AttnReproError(f"kobayashi2020.ranks.files: one 'rank count id' file, not {len(ranks['files'])}")


def check_corpora(config: dict[str, Any]) -> None:
    """The ``corpora`` block (the papers' own data sets): each corpus names the files its format reads, the keys
    its family needs, and no task of the same name (both write ``results/data/<name>/``)."""
    corpora = config.get("corpora") or {}
    if not corpora:
        return
    from ..data.corpora import FORMATS, REQUIRED

    for name, corpus in corpora.items():
        if name in config["tasks"]:
            raise AttnReproError(f"corpora.{name}: a task has the same name; both would write results/data/{name}/")
        fmt = FORMATS[corpus["format"]]
        missing = [k for k in (*REQUIRED[fmt.FAMILY], *getattr(fmt, "KEYS", ())) if k not in corpus]
        if missing:
            raise AttnReproError(f"corpora.{name}: format {corpus['format']!r} needs the key(s) {missing}")
        if fmt.FAMILY != "classification" and corpus["src"] == corpus["tgt"]:
            raise AttnReproError(f"corpora.{name}: src and tgt are both {corpus['src']!r}")
        expected = fmt.files(corpus)
        if sorted(corpus["files"]) != sorted(expected):
            raise AttnReproError(f"corpora.{name}.files: format {corpus['format']!r} reads {expected}, "
                                 f"the config names {sorted(corpus['files'])}")


def _check_transformer(name: str, model: dict[str, Any]) -> None:
    if model["cell"] != "ff":
        raise AttnReproError(f"experiments.{name}.model.cell: a transformer has feed-forward sublayers; write 'ff', "
                             f"not {model['cell']!r}")
    if "attention" in model or model.get("input_dim", 0) or "pe_norm" in model:
        raise AttnReproError(f"experiments.{name}.model: 'attention', 'input_dim' and 'pe_norm' do not apply to a "
                             "transformer (multi-head query/key/value attention on learned embeddings)")
    if model["hidden"] % model.get("heads", 4):
        raise AttnReproError(f"experiments.{name}.model.heads: hidden ({model['hidden']}) is not a multiple of "
                             f"heads ({model.get('heads', 4)})")


def experiment_spec(config: dict[str, Any], name: str) -> dict[str, Any]:
    """Everything one experiment's training depends on, as plain JSON-able data."""
    exp = config["experiments"][name]
    return {
        "task": exp["task"],
        "model": dict(exp["model"]),
        "train": {**config["train"], **exp.get("train", {})},
    }


def experiment_seeds(config: dict[str, Any], name: str) -> list[int]:
    """The model seeds of experiment ``name``: its own ``seeds``, else the config's."""
    return list(config["experiments"][name].get("seeds", config["seeds"]))


def experiment_chunks(config: dict[str, Any], name: str) -> list[list[int]]:
    """The seed groups of experiment ``name`` that train together, stacked, one job each."""
    return seed_chunks(experiment_seeds(config, name), config["seeds_per_job"])


def seed_chunks(seeds: list[int], per_job: int) -> list[list[int]]:
    """Split the seed list into the groups that train together, stacked, in one job."""
    return [seeds[i : i + per_job] for i in range(0, len(seeds), per_job)]


def chunk_name(seeds: list[int]) -> str:
    return "s" + "-".join(str(s) for s in seeds)


def parse_chunk(name: str) -> list[int]:
    if not name.startswith("s"):
        raise AttnReproError(f"seed group {name!r} is not of the form s0-1-2")
    return [int(x) for x in name[1:].split("-")]


