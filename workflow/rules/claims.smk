rule claims:
    input:
        list(claim_summaries().values()),
    output:
        csv=report("results/claims.csv", caption="../report/claims.rst", category="Claims"),
        md="results/claims.md",
    params:
        summaries=claim_summary_args(),
        confidence=config["claims"]["confidence"],
    log:
        "results/logs/claims.log",
    benchmark:
        "results/benchmarks/claims.tsv"
    conda:
        "../../envs/attnrepro.yaml"
    shell:
        "attnrepro claims --summary {params.summaries} --confidence {params.confidence}"
        " --out {output.csv} --markdown {output.md} > {log} 2>&1"
