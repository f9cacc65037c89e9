# Config validation (schema, then cross-field rules) and the helpers the rules share.
import json
import shlex
import sys

from snakemake.utils import validate

sys.path.insert(0, str(Path(workflow.basedir) / "src"))  # the package, also when it is not installed

from attnrepro import config as cfglib  # noqa: E402
from attnrepro.errors import AttnReproError  # noqa: E402

validate(config, schema="../schemas/config.schema.yaml")
try:
    cfglib.check(config)
except AttnReproError as err:
    raise WorkflowError(f"config: {err}") from None

SEED_CHUNKS = {
    cfglib.chunk_name(c): c for c in cfglib.seed_chunks(config["seeds"], config["seeds_per_job"])
}


wildcard_constraints:
    task="|".join(config["tasks"]),
    experiment="|".join(config["experiments"]),
    chunk="|".join(SEED_CHUNKS),


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
        + all_figures()
        + ["results/claims.csv", "results/claims.md"]
    )


def all_figures():
    out = []
    if "aitken2021_fig2" in config["figures"]:
        out += expand("results/figures/aitken2021/fig2{panel}.{ext}", panel=["a", "b"], ext=["png", "pdf"])
    out += snell2021_figures()
    return out


def claim_summaries():
    out = {name: f"results/analysis/{name}/summary.csv" for name in config["experiments"]}
    out.update({name: path for name, (_, _, path) in snell2021_claim_experiments().items()})
    return out


def claim_summary_args():
    """EXPERIMENT:TASK_KIND:ARCH:PATH for every experiment: what the claims step needs to match claims."""
    items = [
        f"{name}:{config['tasks'][exp['task']]['kind']}:{exp['model']['arch']}:{claim_summaries()[name]}"
        for name, exp in config["experiments"].items()
    ]
    items += [f"{name}:{kind}:{arch}:{path}" for name, (kind, arch, path) in snell2021_claim_experiments().items()]
    return " ".join(shlex.quote(item) for item in items)


# -- Snell et al. 2021 (the optional `snell2021:` block) -------------------------------------------------------
from attnrepro.snell import config as snellcfg  # noqa: E402

SNELL2021 = config.get("snell2021")
SNELL2021_FIGURES = ["fig3", "sec6_2", "fig4", "fig6", "fig7"]  # table2 has its own rule (it adds a CSV)


def snell2021_copy_runs():
    return snellcfg.copy_runs(SNELL2021) if SNELL2021 else {}


def snell2021_figures():
    if not SNELL2021:
        return []
    tables = ["table2"] + (["table10"] if snellcfg.classification_sets(SNELL2021) else [])
    return expand("results/figures/snell2021/{name}.{ext}", name=SNELL2021_FIGURES, ext=["png", "pdf"]) + expand(
        "results/figures/snell2021/{name}.{ext}", name=tables, ext=["png", "pdf", "csv"]
    )


def snell2021_claim_experiments():
    return snellcfg.claim_experiments(SNELL2021) if SNELL2021 else {}


def snell2021_table_inputs(wildcards):
    sets = [f"results/snell2021/cls_{n}/summary.csv" for n in snellcfg.classification_sets(SNELL2021)]
    return sets + (["results/snell2021/table2/summary.csv"] if wildcards.table == "table2" else [])


def snell2021_figure_inputs(wildcards):
    runs = {
        "fig3": ["copy_same", "copy_subset", "copy_mixture"]
        + [f"{r}_uniform" for r in ("copy_same", "copy_subset", "copy_mixture") if r in SNELL2021["copy"]["uniform"]],
        "sec6_2": ["copy_subset", "copy_permute"],
        "fig6": ["multihead"],
        "fig7": ["keyword"],
        "fig4": ["counts"],
    }[wildcards.name]
    files = {"multihead": ["curves.csv", "candidates.csv"] + [f"summary_{c}.csv" for c in snellcfg.COMBOS],
             "counts": ["tables.csv"]}
    return [f"results/snell2021/{r}/{f}" for r in runs for f in files.get(r, ["curves.csv"])]
