# The scale ladder (attnrepro.verdicts.ladder): `snakemake ladder` trains the config's `ladder` points and draws each claim's
# measure against width and steps. Not part of `all`.
LADDER_POINTS = ladderlib.points(config)


rule ladder_claims:
    input:
        lambda wc: [s.path for s in layout.summary_sources(config, ladderlib.point_experiments(config, wc.point))],
    output:
        f"{R}/ladder/{{point}}/claims.csv",
    log:
        f"{R}/logs/ladder/{{point}}.log",
    benchmark:
        f"{R}/benchmarks/ladder/{{point}}.tsv"
    wildcard_constraints:
        point="|".join(LADDER_POINTS) or "(?!)",
    conda:
        ATTNREPRO_ENV
    params:
        sources=lambda wc: json_arg(
            [vars(s) for s in layout.summary_sources(config, ladderlib.point_experiments(config, wc.point))]
        ),
        confidence=config["claims"]["confidence"],
    shell:
        "attnrepro claims --sources-json {params.sources:q} --confidence {params.confidence:q} --out {output:q} > {log:q} 2>&1"


rule ladder:
    input:
        expand(f"{R}/ladder/{{point}}/claims.csv", point=LADDER_POINTS),
    output:
        csv=f"{R}/ladder/ladder.csv",
        png=report(f"{R}/figures/ladder/ladder.png", caption="../report/ladder.rst", category="Scale ladder"),
        pdf=f"{R}/figures/ladder/ladder.pdf",
    log:
        f"{R}/logs/ladder/ladder.log",
    benchmark:
        f"{R}/benchmarks/ladder/ladder.tsv"
    conda:
        ATTNREPRO_ENV
    params:
        claims=lambda wc, input: [f"{p}={path}" for p, path in zip(LADDER_POINTS, input)],
        spec=json_arg(ladderlib.spec(config)),
        dpi=config["figures"]["dpi"],
    shell:
        "attnrepro ladder --claims {params.claims:q} --spec-json {params.spec:q} --csv {output.csv:q} --png {output.png:q}"
        " --pdf {output.pdf:q} --dpi {params.dpi:q} > {log:q} 2>&1"
