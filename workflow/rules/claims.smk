rule claims:
    input:
        [s.path for s in claim_sources()],
        list(claim_references().values()),
    output:
        csv=report(R + "/claims.csv", caption="../report/claims.rst", category="Claims"),
        md=report(R + "/claims.md", caption="../report/claims.rst", category="Claims"),
        by_claim=report(R + "/claims_by_claim.csv", caption="../report/claims.rst", category="Claims"),
    params:
        sources=json_arg([vars(s) for s in claim_sources()]),
        confidence=config["claims"]["confidence"],
        references=claim_reference_args(),
    log:
        R + "/logs/claims.log",
    benchmark:
        R + "/benchmarks/claims.tsv"
    shell:
        "attnrepro claims --sources-json {params.sources} --confidence {params.confidence}"
        " --out {output.csv} --markdown {output.md} --by-claim {output.by_claim}{params.references} > {log} 2>&1"
