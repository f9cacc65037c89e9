rule claims:
    input:
        [path for paths in claim_summaries().values() for path in paths],
        list(claim_references().values()),
    output:
        csv=report("results/claims.csv", caption="../report/claims.rst", category="Claims"),
        md=report("results/claims.md", caption="../report/claims.rst", category="Claims"),
    params:
        summaries=claim_summary_args(),
        confidence=config["claims"]["confidence"],
        references=claim_reference_args(),
    log:
        "results/logs/claims.log",
    benchmark:
        "results/benchmarks/claims.tsv"
    shell:
        "attnrepro claims --summary {params.summaries} --confidence {params.confidence}"
        " --out {output.csv} --markdown {output.md}{params.references} > {log} 2>&1"
