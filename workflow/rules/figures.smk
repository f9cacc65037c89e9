rule figure_aitken2021:
    input:
        aitken_figure_inputs,
    output:
        png=report(
            f"{R}/figures/aitken2021/{{name}}.png",
            caption="../report/aitken2021.rst",
            category="Aitken et al. 2021",
            labels={"figure": "{name}"},
        ),
        pdf=f"{R}/figures/aitken2021/{{name}}.pdf",
        csv=f"{R}/figures/aitken2021/{{name}}.csv",
    wildcard_constraints:
        name="|".join(aitken_panels.PANELS),
    params:
        roles=aitken_figure_roles,
        meta=aitken_figure_meta,
        seed=AITKEN_FIGURES.get("seed"),
        dpi=config["figures"]["dpi"],
    log:
        f"{R}/logs/figures/aitken2021/{{name}}.log",
    benchmark:
        f"{R}/benchmarks/figures/aitken2021/{{name}}.tsv"
    conda:
        ATTNREPRO_ENV
    shell:
        "attnrepro aitken2021 figure {wildcards.name} --roles-json {params.roles} --meta-json {params.meta} --seed {params.seed}"
        " --png {output.png} --pdf {output.pdf} --csv {output.csv} --dpi {params.dpi} > {log} 2>&1"
