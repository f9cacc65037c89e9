# Aitken et al. 2021's figures: one job per panel of attnrepro.aitken2021.panels that the config's
# figures.aitken2021 blocks ask for, drawn through the figure registry (attnrepro.figures.registry).
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
    log:
        f"{R}/logs/figures/aitken2021/{{name}}.log",
    benchmark:
        f"{R}/benchmarks/figures/aitken2021/{{name}}.tsv"
    wildcard_constraints:
        name="|".join(aitken_panels.FIGURES),
    conda:
        ATTNREPRO_ENV
    params:
        inputs=aitken_figure_args,
        caption=figure_caption("aitken2021"),
        dpi=config["figures"]["dpi"],
    shell:
        "attnrepro figure aitken2021 {wildcards.name:q} --inputs-json {params.inputs:q}"
        " --png {output.png:q} --pdf {output.pdf:q} --csv {output.csv:q} --dpi {params.dpi:q} > {log:q} 2>&1"
