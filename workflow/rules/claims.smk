rule claims:
    input:
        list(claim_summaries().values()),
        [f"results/analysis/{name}/aer_summary.csv" for name in aer_experiments()],
    output:
        csv=report("results/claims.csv", caption="../report/claims.rst", category="Claims"),
        md=report("results/claims.md", caption="../report/claims.rst", category="Claims"),
    params:
        summaries=claim_summary_args(),
        confidence=config["claims"]["confidence"],
    log:
        "results/logs/claims.log",
    benchmark:
        "results/benchmarks/claims.tsv"
    shell:
        "attnrepro claims --summary {params.summaries} --confidence {params.confidence}"
        " --out {output.csv} --markdown {output.md} > {log} 2>&1"
