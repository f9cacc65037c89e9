# Config validation (schema, then cross-field rules) and the helpers the rules share.
import json
import os
import re
import shutil
import sys
from pathlib import Path

# every job runs the `attnrepro` of the environment that runs Snakemake, whatever PATH holds (an environment used
# as .venv/bin/snakemake without activating it; Slurm jobs inherit this PATH through sbatch --export=ALL)
ENV_BIN = str(Path(sys.executable).parent)
if shutil.which("attnrepro", path=ENV_BIN) is None:
    raise WorkflowError(
        f"attnrepro is not installed in the environment running Snakemake ({sys.executable}): "
        "run `make install` and `source .venv/bin/activate` (or call .venv/bin/snakemake)"
    )
os.environ.update(PATH=ENV_BIN + os.pathsep + os.environ.get("PATH", ""))
# the software environment of every rule that runs the package, for `--sdm conda` (a job then runs the attnrepro its
# post-deploy script installs there, ahead of ENV_BIN on PATH); without --sdm conda, Snakemake ignores it
ATTNREPRO_ENV = str(Path(workflow.basedir) / "envs" / "attnrepro.yaml")

sys.path.insert(0, str(Path(workflow.basedir) / "src"))  # the package, also when it is not installed

from attnrepro.run import config as cfglib  # noqa: E402
from attnrepro.verdicts import ladder as ladderlib  # noqa: E402
from attnrepro.run import layout  # noqa: E402
from attnrepro.io import RESULTS_ROOT_ENV, moved_aside, use_results_root  # noqa: E402
from attnrepro.run import validation  # noqa: E402
from attnrepro.run.config import task_spec  # noqa: E402
from attnrepro.errors import AttnReproError  # noqa: E402
from attnrepro.aitken2021 import panels as aitken_panels  # noqa: E402
from attnrepro.figures import registry as figure_registry  # noqa: E402

try:  # one short message naming the key (validation.FULL_SCHEMA_ENV=1 adds the schema), never a traceback
    validation.validate(
        config,
        Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml",
        files=workflow.configfiles,
        overrides=workflow.config_settings.config,
    )
    cfglib.check(config)
    layout.check_left_out(config)
    # the scale ladder's experiments train, export and are analysed by the ordinary rules; only `snakemake ladder`
    # asks for them (workflow/rules/ladder.smk)
    LADDER_EXPERIMENTS = ladderlib.experiments(config)
    config["experiments"].update(LADDER_EXPERIMENTS)
except AttnReproError as err:
    raise WorkflowError(f"config: {err}") from None

# every output under the config's own results root (key `results`), so that a command run with one config never
# rebuilds or overwrites another's; attnrepro.run.layout builds the paths the package names under the same root
R = use_results_root(config)
# the jobs inherit it: their quarantine moves aside only files under this root (attnrepro.io.owned)
os.environ[RESULTS_ROOT_ENV] = R

# every experiment's seed groups (an experiment may train fewer seeds than `seeds`: its own `seeds` key)
EXPERIMENT_CHUNKS = {
    e: [cfglib.chunk_name(c) for c in cfglib.experiment_chunks(config, e)] for e in config["experiments"]
}
SEED_CHUNKS = {cfglib.chunk_name(c): c for e in config["experiments"] for c in cfglib.experiment_chunks(config, e)}


wildcard_constraints:
    task="|".join(map(re.escape, config["tasks"])),
    experiment="|".join(map(re.escape, config["experiments"])),
    chunk="|".join(map(re.escape, SEED_CHUNKS)),


# -- what a job needs; where it goes is the profile's business (slurm/config.yaml, slurm/partitions.yaml) --------
from attnrepro.run import cluster  # noqa: E402
from attnrepro.run.cluster import gpu_resources, read_resources  # noqa: E402

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


# a job's runtime: its own predicted cost (workflow/reference/paper_cost.json, CPU times until a GPU is measured) ×
# cluster.MARGIN, never above the longest max_runtime of the partitions that can take it (slurm/partitions.yaml);
# a longer training run continues in checkpointed segments (--time-budget), each a retry that resumes
COST = json.loads((Path(workflow.basedir) / "workflow" / "reference" / "paper_cost.json").read_text())
COST_RULE = {"analyze": "analysis"}  # the cost table's name of a rule, where it differs
PARTITIONS = Path(workflow.basedir) / "slurm" / "partitions.yaml"


def train_job(wildcards):
    return wildcards.experiment, cfglib.experiment_spec(config, wildcards.experiment)["train"]["steps"]


def snell_job(run):
    return run, snell2021_runs()[run]["train"]["steps"]


def planned(rule, gpus, job):
    """(minutes, segments) of one job of ``rule``; ``job``: (its name in the cost table, its steps) or None."""
    name, steps = job or ("each", None)
    cap = cluster.partition_cap(PARTITIONS, gpu=gpus > 0)
    seconds = cluster.predicted_seconds(COST, COST_RULE.get(rule, rule), name, steps)
    return cluster.plan_minutes(seconds, RESOURCES[rule]["runtime"], cap)


def needs(rule, gpus=0, job=None, need_bytes=None):
    """A rule's resources: memory (MB) from workflow/resources.yaml, or MARGIN × ``need_bytes`` (a job's estimated
    peak) where that is more; a runtime (minutes) planned per job from its predicted cost (``job``: wildcards ->
    (its name in the cost table, its training steps)), the same on every attempt; and ``gpus`` GPUs in the one
    form the profile's gpu_request names."""
    runtime = lambda wildcards: planned(rule, gpus, job(wildcards) if job else None)[0]  # noqa: E731
    mem_mb = RESOURCES[rule]["mem_mb"]
    if need_bytes is not None:
        mem_mb = cluster.memory_mb(need_bytes, mem_mb)
    return {"mem_mb": mem_mb, "runtime": runtime, **gpu_resources(profile_default("gpu_request"), gpus)}


def segments(rule, jobs):
    """How many retries a training rule's jobs get (cluster.rule_retries of its jobs' planned segments)."""
    return cluster.rule_retries([planned(rule, GPUS_PER_JOB, j)[1] for j in jobs])


def time_budget(wildcards, resources):
    """Minutes a training job trains before it checkpoints and exits for its next segment (its runtime, less the
    time to write the checkpoint)."""
    return resources.runtime - min(cluster.RESERVE_MINUTES, resources.runtime // 4)


def experiment_task(wildcards):
    return config["experiments"][wildcards.experiment]["task"]


def json_arg(obj):
    """A config block as JSON, for a ``--*-json`` option (``{params.x:q}``: one shell word); also what makes a change
    of it rerun the rule."""
    return json.dumps(obj, sort_keys=True)


def chunk_outputs(pattern, experiment):
    return [pattern.format(experiment=experiment, chunk=c) for c in EXPERIMENT_CHUNKS[experiment]]


def final_targets():
    """What `rule all` builds, and what the artifact archives."""
    return (
        expand(f"{R}/data/{{task}}/vocab.json", task=config["tasks"])
        + corpus_targets()
        + all_figures()
        + transformer_evaluations()
        + [f"{R}/claims.csv", f"{R}/claims.md", f"{R}/claims_by_claim.csv", f"{R}/report/claims.html"]
        + [f"{R}/report/snell2021_{t}.html" for t in snell2021_tables()]
    )


def moved_aside_outputs(wildcards):
    """The files a job moved aside as corrupt (attnrepro.io.moved_aside) that this config's jobs make: `rule all`
    asks for them, so a plain rerun rebuilds each and reruns every job downstream of it. Snakemake alone would leave
    such a file missing: it rebuilds a missing file only for a job that runs anyway, and no output made from the
    file is older than its inputs."""
    missing = moved_aside(R)
    if not missing:
        return []
    made = {f for job in workflow_jobs(final_targets()) for f in job["output"]}
    return [f for f in missing if f in made]


AITKEN_FIGURES = config["figures"].get("aitken2021", {})


def all_figures():
    return (
        [
            f"{R}/figures/aitken2021/{name}.{ext}"
            for name in aitken_panels.panels_of(AITKEN_FIGURES)
            for ext in ("png", "pdf", "csv")
        ]
        + kobayashi2020_figures()
        + snell2021_figures()
    )


def aitken_figure_experiments(wc):
    return aitken_panels.experiments_of(AITKEN_FIGURES, wc.name)


def aitken_figure_inputs(wc):
    reads = aitken_panels.FIGURES[wc.name].inputs
    names = sorted({n for ns in aitken_figure_experiments(wc).values() for n in ns})
    files = [f"{R}/analysis/{n}/{table}" for n in names for table in reads.tables]
    if reads.data:
        files += [f"{R}/data/{config['experiments'][n]['task']}/test.parquet" for n in names]
    return files


def aitken_figure_args(wc):
    """What the panel reads: its roles' experiments (in the panel's role order), what it needs to know of each
    experiment (also what reruns it when that changes), the seed single-model panels draw."""
    names = sorted({n for ns in aitken_figure_experiments(wc).values() for n in ns})
    meta = {}
    for n in names:
        exp = config["experiments"][n]
        meta[n] = {
            "analysis_dir": f"{R}/analysis/{n}",
            "data_dir": f"{R}/data/{exp['task']}",
            "task_kind": task_spec(config, exp["task"])["kind"],
            "arch": exp["model"]["arch"],
            "cell": exp["model"]["cell"],
        }
    inputs = {"roles": aitken_figure_experiments(wc), "meta": meta, "seed": AITKEN_FIGURES.get("seed")}
    return json.dumps(inputs)  # roles in the panel's role order, not sorted


def figure_caption(paper):
    """The report caption of each figure of ``paper``: its registry entry's, rendered by the paper's caption file
    under workflow/report/."""
    return lambda wc: figure_registry.get(paper, wc.name).caption


def claim_sources():
    """Every per-seed table the claims step reads (attnrepro.run.layout decides; the ladder's points have their own)."""
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
    return [word for label, path in claim_references().items() for word in ("--reference", f"{label}={path}")]


# -- Kobayashi et al. 2020 on the pretrained encoder (optional config block `kobayashi2020`) -------------------
from attnrepro.kobayashi2020 import panels as kobayashi_panels  # noqa: E402
from attnrepro.kobayashi2020.panels import CACHE_TABLES as KOBAYASHI_CACHE  # noqa: E402
from attnrepro.run.budget import encoder_cache_bytes  # noqa: E402

KOBAYASHI_FIGURES = kobayashi_panels.ENCODER_FIGURES  # from the norm cache
KOBAYASHI_SCORED_FIGURES = kobayashi_panels.SCORED_FIGURES  # from the scored experiments and gold sets (§5)

KOBAYASHI_MODEL = layout.kobayashi_model(config)  # kobayashi2020_minilm, or _<name> of a downloaded encoder
KOBAYASHI_SUMMARY = layout.kobayashi_summary(config)


KOBA = config.get("kobayashi2020", {})
# the cache job's estimated peak for the configured encoder's shape (attnrepro.run.budget, the config check's own
# estimate; the shape from kobayashi2020.encoder_shape: config.json is not downloaded yet when the DAG is built)
KOBA_CACHE_BYTES = encoder_cache_bytes(KOBA) if KOBA else None


def kobayashi_pinned(key):
    """The downloaded files of kobayashi2020.<key> (encoder or ranks), none when it is not set."""
    return pinned_downloads(KOBA[key]["name"]) if KOBA.get(key) else []


def kobayashi_pinned_args(*keys):
    """--encoder-json / --ranks-json for the configured sets (their files checked again before they are read), as
    the words of a ``{params.x:q}`` list."""
    return [word for key in keys if KOBA.get(key) for word in (f"--{key}-json", json_arg(KOBA[key]))]


def kobayashi2020_figures():
    out = []
    if "kobayashi2020" in config:
        out += expand(f"{R}/figures/kobayashi2020/{{name}}.{{ext}}", name=KOBAYASHI_FIGURES, ext=["png", "pdf", "csv"])
    if aer_experiments() or aer_gold_sets():
        out += expand(
            f"{R}/figures/kobayashi2020/{{name}}.{{ext}}", name=KOBAYASHI_SCORED_FIGURES, ext=["png", "pdf", "csv"]
        )
    return out


def kobayashi_scored_tables(wc):
    """Label -> the file a §5 figure reads of each scored experiment and gold set, in the figure's order."""
    return layout.aer_tables(config, kobayashi_panels.FIGURES[wc.name].inputs.file)


def aer_experiments():
    return layout.aer_experiments(config)


def aer_gold_sets():
    return layout.aer_gold_sets(config)


KOBA_GOLD = config.get("kobayashi2020_aer", {}).get("gold", {})


def gold_set(wc):
    """The kobayashi2020_aer.gold set of a job; its experiment must be the one in the job's path. A set that names
    a corpus reads the gold files its preparation writes (rule prepare_gold; 0-based)."""
    gold = KOBA_GOLD[wc.gold]
    if gold["experiment"] != wc.experiment:
        raise WorkflowError(f"kobayashi2020_aer.gold.{wc.gold} reads {gold['experiment']}, not {wc.experiment}")
    if "corpus" in gold:
        data = f"{R}/data/{gold['corpus']}"
        return {
            **gold,
            "source": f"{data}/gold.src",
            "target": f"{data}/gold.tgt",
            "alignment": f"{data}/gold.talp",
            "index_base": 0,
        }
    return gold


def gold_corpus_pattern():
    """The corpora whose release has a gold alignment set (attnrepro.data.corpora.has_gold), as a wildcard constraint."""
    from attnrepro.data.corpora import has_gold

    names = [n for n, c in CORPORA.items() if has_gold(c)]
    return "|".join(names) if names else "(?!)"


def transformer_evaluations():
    """The test-split evaluation (token/sequence accuracy, BLEU) of every transformer experiment."""
    return [f"{layout.analysis_dir(name)}/evaluation.csv" for name in layout.transformer_experiments(config)]
