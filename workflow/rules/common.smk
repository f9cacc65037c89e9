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
    out += kobayashi2020_figures()
    return out


def claim_summaries():
    out = {name: f"results/analysis/{name}/summary.csv" for name in config["experiments"]
           if name not in transformer_experiments()}
    out.update({name: f"results/analysis/{name}/aer_summary.csv" for name in transformer_experiments()})
    out.update(kobayashi2020_summaries())
    return out


def claim_summary_args():
    """EXPERIMENT:TASK_KIND:ARCH:PATH for every experiment: what the claims step needs to match claims."""
    return " ".join(
        shlex.quote(f"{name}:{config['tasks'][exp['task']]['kind']}:{exp['model']['arch']}:{claim_summaries()[name]}")
        for name, exp in config["experiments"].items()
    ) + kobayashi2020_summary_args()


# -- Kobayashi et al. 2020 on the pretrained encoder (optional config block `kobayashi2020`) -------------------
from attnrepro.cli import KOBAYASHI_CACHE, KOBAYASHI_FIGURES  # noqa: E402

KOBAYASHI_SUMMARY = "results/analysis/kobayashi2020_minilm/summary.csv"


def kobayashi2020_figures():
    out = []
    if "kobayashi2020" in config:
        out += expand("results/figures/kobayashi2020/{name}.{ext}", name=KOBAYASHI_FIGURES, ext=["png", "pdf", "csv"])
    if aer_experiments():
        out += expand("results/figures/kobayashi2020/{name}.{ext}", name=["fig7", "table3"], ext=["png", "pdf", "csv"])
    return out


def aer_experiments():
    """Experiments whose source-target attention is scored against gold alignments (Kobayashi §5): every
    transformer, and the recurrent ones listed under kobayashi2020_aer.experiments."""
    listed = config.get("kobayashi2020_aer", {}).get("experiments", [])
    return transformer_experiments() + [name for name in config["experiments"] if name in listed]


def transformer_experiments():
    """Experiments of arch transformer: read by AER per layer (§5), not by the Aitken decomposition."""
    return [name for name, exp in config["experiments"].items() if exp["model"]["arch"] == "transformer"]


def kobayashi2020_summaries():
    """One pretrained model: its replicates are disjoint folds of the sequences (kobayashi2020.folds)."""
    return {"kobayashi2020_minilm": KOBAYASHI_SUMMARY} if "kobayashi2020" in config else {}


def kobayashi2020_summary_args():
    return "".join(f" {shlex.quote(f'{name}:news:minilm:{path}')}" for name, path in kobayashi2020_summaries().items())
