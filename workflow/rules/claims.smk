rule claims:
    input:
        [s.path for s in claim_sources()],
        list(claim_references().values()),
    output:
        csv=report(f"{R}/claims.csv", caption="../report/claims.rst", category="Claims"),
        md=report(f"{R}/claims.md", caption="../report/claims.rst", category="Claims"),
        by_claim=report(f"{R}/claims_by_claim.csv", caption="../report/claims.rst", category="Claims"),
    log:
        f"{R}/logs/claims.log",
    benchmark:
        f"{R}/benchmarks/claims.tsv"
    conda:
        ATTNREPRO_ENV
    params:
        sources=json_arg([vars(s) for s in claim_sources()]),
        confidence=config["claims"]["confidence"],
        references=claim_reference_args(),
        # rows this config leaves to another (claims.leave_out): named, with why, under claims with no row
        left_out=json_arg(
            {
                "sources": [vars(s) for s in layout.left_out_sources(config)],
                "claims": config["claims"].get("leave_out", {}).get("claims", []),
            }
        ),
    shell:
        "attnrepro claims --sources-json {params.sources:q} --confidence {params.confidence:q}"
        " --out {output.csv:q} --markdown {output.md:q} --by-claim {output.by_claim:q} {params.references:q}"
        " --left-out-json {params.left_out:q} > {log:q} 2>&1"
