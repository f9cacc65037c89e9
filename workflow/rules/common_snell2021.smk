# What Snell et al. 2021's rules (snell2021.smk) read: the runs, analyses and exports of the `snell2021:` block
# (attnrepro.snell2021.config) and their jobs' estimated peaks. Functions only, as common.smk.

from attnrepro.snell2021 import config as snellcfg  # noqa: E402
from attnrepro.snell2021 import panels as snell_panels  # noqa: E402
from attnrepro.run.budget import multihead_bytes  # noqa: E402

SNELL2021 = config.get("snell2021")
SNELL2021_FIGURES = list(snell_panels.FIGURES)
SNELL2021_RUNS = snellcfg.runs(SNELL2021) if SNELL2021 else {}
# Fig. 6's jobs' estimated peaks (attnrepro.run.budget.multihead_bytes, the config check's own, calibrated on the paper
# config's measured jobs): a candidates round and a K-head job stack as many models as the block says, so a fixed
# resources.yaml entry cannot fit both the paper config and the smoke config's small Slurm nodes
SNELL2021_MULTIHEAD_BYTES = multihead_bytes(SNELL2021) if SNELL2021 else {}


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
    """Every figure of the block that reads an analysis (Table 10: only where there are classification sets)."""
    if not SNELL2021:
        return []
    spec = snellcfg.figure_spec(SNELL2021)
    names = [n for n in SNELL2021_FIGURES if snell_panels.FIGURES[n].inputs.analyses(spec)]
    return expand(f"{R}/figures/snell2021/{{name}}.{{ext}}", name=names, ext=["png", "pdf", "csv"])


def snell2021_figure_inputs(wildcards):
    """The files of the analyses the figure reads: the ones it names (Table 2, Table 10 and Fig. 2: the Table 2
    analyses' summaries and ξ curves), else every file of each analysis."""
    reads = snell_panels.FIGURES[wildcards.name].inputs
    names = reads.analyses(snellcfg.figure_spec(SNELL2021))
    return [
        f"{R}/analysis/snell2021/{n}/{f}"
        for n in names
        for f in reads.files or snellcfg.ANALYSIS_OUTPUTS[snellcfg.analyses(SNELL2021)[n]["kind"]]
    ]


# -- the paper artifact (workflow/rules/archive.smk) ---------------------------------------------------------
def workflow_jobs(targets):
    """Every job that builds ``targets``: rule, wildcards, inputs, outputs, logs and benchmark, found by walking the
    rules as Snakemake's DAG does (producer of each file, its wildcards, its inputs); sorted by rule and wildcards.
    A file an earlier config left behind (a removed experiment, another seed group) is no product of these jobs."""
    jobs, visited = {}, set()
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
        key = (producer.name, tuple(sorted(wildcards.items())))
        if key in jobs:
            continue
        inputs = sorted(map(str, producer.expand_input(wildcards)[0]))
        jobs[key] = {
            "rule": producer.name,
            "wildcards": dict(key[1]),
            "input": inputs,
            "output": sorted(map(str, producer.expand_output(wildcards)[0])),
            "log": sorted(map(str, producer.expand_log(wildcards))),
            "benchmark": str(producer.expand_benchmark(wildcards)) if producer.benchmark else None,
        }
        todo.extend(inputs)
    return [jobs[k] for k in sorted(jobs)]


def write_jobs(jobs, out, log):
    Path(out).write_text(json.dumps(jobs, indent=1) + "\n")
    Path(log).write_text(f"{len(jobs)} jobs to archive\n")
