# Config validation (schema, then cross-field rules) and the helpers the rules share.
import json
import re
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "src"))  # the package, also when it is not installed

from attnrepro import config as cfglib  # noqa: E402
from attnrepro import ladder as ladderlib  # noqa: E402
from attnrepro import layout  # noqa: E402
from attnrepro import validation  # noqa: E402
from attnrepro.config import task_spec  # noqa: E402
from attnrepro.errors import AttnReproError  # noqa: E402
from attnrepro.aitken2021 import panels as aitken_panels  # noqa: E402

try:  # one short message naming the key (validation.FULL_SCHEMA_ENV=1 adds the schema), never a traceback
    validation.validate(config, Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml",
                        files=workflow.configfiles, overrides=workflow.config_settings.config)
    cfglib.check(config)
    # the scale ladder's experiments train, export and are analysed by the ordinary rules; only `snakemake ladder`
    # asks for them (workflow/rules/ladder.smk)
    LADDER_EXPERIMENTS = ladderlib.experiments(config)
    config["experiments"].update(LADDER_EXPERIMENTS)
except AttnReproError as err:
    raise WorkflowError(f"config: {err}") from None

SEED_CHUNKS = {
    cfglib.chunk_name(c): c for c in cfglib.seed_chunks(config["seeds"], config["seeds_per_job"])
}


wildcard_constraints:
    task="|".join(map(re.escape, config["tasks"])),
    experiment="|".join(map(re.escape, config["experiments"])),
    chunk="|".join(map(re.escape, SEED_CHUNKS)),


# -- what a job needs; where it goes is the profile's business (slurm/config.yaml, slurm/partitions.yaml) --------
from attnrepro.cluster import gpu_resources, read_resources  # noqa: E402

# a config that trains on the CPU asks for no GPU
GPUS_PER_JOB = 0 if config["device"] == "cpu" else 1


def profile_default(name):
    """A default resource the profile sets (slurm/config.yaml), as written there; None without one (local runs)."""
    defaults = workflow.resource_settings.default_resources
    return defaults[name].raw if defaults is not None and name in defaults else None


try:
    gpu_resources(profile_default("gpu_request"), 1)  # checked once, before any job starts
except AttnReproError as err:
    raise WorkflowError(f"profile: {err}") from None


try:
    RESOURCES = read_resources(Path(workflow.basedir) / "workflow" / "resources.yaml")
except AttnReproError as err:
    raise WorkflowError(str(err)) from None


def needs(rule, gpus=0):
    """A rule's resources from workflow/resources.yaml (set from the measured paper-scale cost): memory (MB), a
    runtime (minutes) that grows with each attempt, so that a job killed at its time limit gets longer on its
    retry, and ``gpus`` GPUs in the one form the profile's gpu_request names."""
    mem_mb, runtime = RESOURCES[rule]["mem_mb"], RESOURCES[rule]["runtime"]
    return {"mem_mb": mem_mb, "runtime": lambda wildcards, attempt: runtime * attempt,
            **gpu_resources(profile_default("gpu_request"), gpus)}


def experiment_task(wildcards):
    return config["experiments"][wildcards.experiment]["task"]


def json_arg(obj):
    """A config block as one shell-quoted JSON argument; also what makes a change of it rerun the rule."""
    return shlex.quote(json.dumps(obj, sort_keys=True))


def chunk_outputs(pattern, experiment):
    return [pattern.format(experiment=experiment, chunk=c) for c in SEED_CHUNKS]


def final_targets():
    """What `rule all` builds, and what the artifact archives."""
    return (
        expand("results/data/{task}/vocab.json", task=config["tasks"])
        + corpus_targets()
        + all_figures()
        + transformer_evaluations()
        + ["results/claims.csv", "results/claims.md", "results/report/claims.html"]
        + [f"results/report/snell2021_{t}.html" for t in snell2021_tables()]
    )


AITKEN_FIGURES = config["figures"].get("aitken2021", {})


def all_figures():
    return [
        f"results/figures/aitken2021/{name}.{ext}"
        for name in aitken_panels.panels_of(AITKEN_FIGURES)
        for ext in ("png", "pdf", "csv")
    ] + kobayashi2020_figures() + snell2021_figures()


def aitken_figure_experiments(wc):
    return aitken_panels.experiments_of(AITKEN_FIGURES, wc.name)


def aitken_figure_inputs(wc):
    panel = aitken_panels.PANELS[wc.name]
    names = sorted({n for ns in aitken_figure_experiments(wc).values() for n in ns})
    files = [f"results/analysis/{n}/{table}" for n in names for table in panel.tables]
    if panel.data:
        files += [f"results/data/{config['experiments'][n]['task']}/test.parquet" for n in names]
    return files


def aitken_figure_roles(wc):
    return shlex.quote(json.dumps(aitken_figure_experiments(wc)))  # in the panel's role order


def aitken_figure_meta(wc):
    """What the figure needs to know of each experiment it draws; also what reruns it when that changes."""
    names = sorted({n for ns in aitken_figure_experiments(wc).values() for n in ns})
    meta = {}
    for n in names:
        exp = config["experiments"][n]
        meta[n] = {
            "analysis_dir": f"results/analysis/{n}",
            "data_dir": f"results/data/{exp['task']}",
            "task_kind": task_spec(config, exp["task"])["kind"],
            "arch": exp["model"]["arch"],
            "cell": exp["model"]["cell"],
        }
    return json_arg(meta)


def claim_sources():
    """Every per-seed table the claims step reads (attnrepro.layout decides; the ladder's points have their own)."""
    return layout.claim_sources(config, exclude=set(LADDER_EXPERIMENTS))


def claim_references():
    """Label -> path of each committed claims table shown beside this run's (claims.references, relative to the
    repository, so a run in another working directory finds them)."""
    out = {}
    for label, path in (config["claims"].get("references") or {}).items():
        full = Path(workflow.basedir) / path
        if not full.is_file():
            raise WorkflowError(f"config: claims.references.{label}: no file {full}")
        out[label] = str(full)
    return out


def claim_reference_args():
    return "".join(f" --reference {shlex.quote(f'{label}={path}')}" for label, path in claim_references().items())


# -- the papers' own corpora (workflow/rules/download.smk) -----------------------------------------------------
CORPORA = config.get("corpora") or {}


def corpus_pattern(family=None):
    """The corpus names (of one family) as a wildcard constraint; one that matches nothing when there are none."""
    names = [n for n, c in CORPORA.items() if family is None or cfglib.corpus_family(c) == family]
    return "|".join(names) if names else "(?!)"


def corpus_file(wildcards):
    return CORPORA[wildcards.corpus]["files"][wildcards.file]


def corpus_downloads(wildcards):
    return [f"results/downloads/{wildcards.corpus}/{f}" for f in CORPORA[wildcards.corpus]["files"]]


def all_downloads():
    return [f"results/downloads/{name}/{f}" for name, c in CORPORA.items() for f in c["files"]]


def corpus_targets():
    return [f"results/data/{name}/vocab.json" for name in CORPORA]


def download_options(wildcards):
    """--md5 (the publisher's digest, when no SHA-256 is pinned), --local-dir (offline mirror) and --allow-unpinned
    from the corpus file and the `downloads` block, as shell arguments."""
    downloads = config.get("downloads") or {}
    options = []
    if corpus_file(wildcards).get("md5"):
        options += ["--md5", corpus_file(wildcards)["md5"]]
    if downloads.get("local_dir"):
        options += ["--local-dir", downloads["local_dir"], "--local-name", f"{wildcards.corpus}/{wildcards.file}"]
    if downloads.get("allow_unpinned"):
        options.append("--allow-unpinned")
    return " ".join(shlex.quote(o) for o in options)


# -- Kobayashi et al. 2020 on the pretrained encoder (optional config block `kobayashi2020`) -------------------
from attnrepro.kobayashi2020.panels import CACHE_TABLES as KOBAYASHI_CACHE  # noqa: E402
from attnrepro.kobayashi2020.panels import FIGURES  # noqa: E402

KOBAYASHI_FIGURES = list(FIGURES)

KOBAYASHI_SUMMARY = layout.KOBAYASHI_SUMMARY


def kobayashi2020_figures():
    out = []
    if "kobayashi2020" in config:
        out += expand("results/figures/kobayashi2020/{name}.{ext}", name=KOBAYASHI_FIGURES, ext=["png", "pdf", "csv"])
    if aer_experiments() or aer_gold_sets():
        out += expand("results/figures/kobayashi2020/{name}.{ext}", name=["fig7", "table3"], ext=["png", "pdf", "csv"])
    return out


def aer_experiments():
    return layout.aer_experiments(config)


def aer_gold_sets():
    return layout.aer_gold_sets(config)


KOBA_GOLD = config.get("kobayashi2020_aer", {}).get("gold", {})


def gold_set(wc):
    """The kobayashi2020_aer.gold set of a job; its experiment must be the one in the job's path."""
    gold = KOBA_GOLD[wc.gold]
    if gold["experiment"] != wc.experiment:
        raise WorkflowError(f"kobayashi2020_aer.gold.{wc.gold} reads {gold['experiment']}, not {wc.experiment}")
    return gold


def transformer_evaluations():
    """The test-split evaluation (token/sequence accuracy, BLEU) of every transformer experiment."""
    return [f"{layout.analysis_dir(name)}/evaluation.csv" for name in layout.transformer_experiments(config)]


# -- Snell et al. 2021 (the optional `snell2021:` block) -------------------------------------------------------
from attnrepro.snell2021 import config as snellcfg  # noqa: E402
from attnrepro.snell2021 import panels as snell_panels  # noqa: E402

SNELL2021 = config.get("snell2021")
SNELL2021_FIGURES = [n for n, f in snell_panels.FIGURES.items() if not f.table]  # Table 2, 10, Fig. 2: own rules
SNELL2021_RUNS = snellcfg.runs(SNELL2021) if SNELL2021 else {}


def snell2021_runs():
    return SNELL2021_RUNS


def snell2021_plain_runs():
    """The runs the snell2021_train rule trains; every run but Fig. 6's candidates and K-head models (rules of their own)."""
    return [r for r in SNELL2021_RUNS if not r.startswith("multihead_")] or ["(?!)"]


def snell2021_analyses(kind):
    return [n for n, a in snellcfg.analyses(SNELL2021).items() if a["kind"] == kind] if SNELL2021 else []


def snell2021_tables():
    """Table 2, and Table 10 when there are classification sets (each also an HTML page of the report)."""
    if not SNELL2021:
        return []
    return ["table2"] + (["table10"] if snellcfg.classification_sets(SNELL2021) else [])


def snell2021_figures():
    if not SNELL2021:
        return []
    names = SNELL2021_FIGURES + ["fig2"] + snell2021_tables()  # Fig. 2: ξ of Table 2's rows
    return expand("results/figures/snell2021/{name}.{ext}", name=names, ext=["png", "pdf", "csv"])


def snell2021_table_inputs(wildcards):
    """Table 2, Table 10 and Fig. 2 read the Table 2 analyses: copy, each classification and translation set."""
    return [f"results/analysis/snell2021/{n}/{f}" for n in snellcfg.table2_analyses(SNELL2021)
            for f in ("summary.csv", "xi_curves.csv")]


def snell2021_figure_inputs(wildcards):
    names = snell_panels.FIGURES[wildcards.name].analyses(snellcfg.figure_spec(SNELL2021))
    return [f"results/analysis/snell2021/{n}/{f}" for n in names
            for f in snellcfg.ANALYSIS_OUTPUTS[snellcfg.analyses(SNELL2021)[n]["kind"]]]


# -- the paper artifact (workflow/rules/archive.smk) ---------------------------------------------------------
def job_products(targets):
    """Every output, log and benchmark of the jobs that build ``targets``, found by walking the rules as
    Snakemake's DAG does (producer of each file, its wildcards, its inputs). A file an earlier config left behind
    (a removed experiment, another seed group) is no product of any of these jobs."""
    seen, visited, products = set(), set(), set()
    todo = [str(t) for t in targets]
    while todo:
        path = todo.pop()
        if path in visited:
            continue
        visited.add(path)
        producer = next((r for r in workflow.rules if r.output and r.is_producer(path)), None)
        if producer is None:
            continue  # a source: a config or gold-alignment file
        wildcards = producer.get_wildcards(path)
        job = (producer.name, tuple(sorted(wildcards.items())))
        if job in seen:
            continue
        seen.add(job)
        products.update(map(str, producer.expand_output(wildcards)[0]))
        products.update(map(str, producer.expand_log(wildcards)))
        if producer.benchmark:
            products.add(str(producer.expand_benchmark(wildcards)))
        todo.extend(map(str, producer.expand_input(wildcards)[0]))
    return sorted(products)


def archived_products():
    from attnrepro.artifact import selected

    return selected(job_products(final_targets()), "results", config["archive"]["activations"])


def write_products(products, out, log):
    Path(out).write_text("".join(f"{p}\n" for p in products))
    Path(log).write_text(f"{len(products)} files to archive\n")
