def claim_summaries():
    return {name: f"results/analysis/{name}/summary.csv" for name in config["experiments"]}


rule claims:
    input:
        list(claim_summaries().values()),
    output:
        report("results/claims.csv", caption="../report/claims.rst", category="Claims"),
    params:
        summaries=" ".join(
            shlex.quote(f"{name}:{config['tasks'][exp['task']]['kind']}:{exp['model']['arch']}:{path}")
            for (name, path), exp in zip(claim_summaries().items(), config["experiments"].values())
        ),
        confidence=config["claims"]["confidence"],
    log:
        "results/logs/claims.log",
    benchmark:
        "results/benchmarks/claims.tsv"
    conda:
        "../../envs/attnrepro.yaml"
    shell:
        "attnrepro claims --summary {params.summaries} --confidence {params.confidence} --out {output} > {log} 2>&1"
