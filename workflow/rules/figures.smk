FIG2 = config["figures"].get("aitken2021_fig2", {})


rule figure_aitken2021_fig2:
    input:
        temporal=lambda wc: f"results/analysis/{FIG2['experiment']}/temporal.parquet",
        input_components=lambda wc: f"results/analysis/{FIG2['experiment']}/input.parquet",
        input_delta=lambda wc: f"results/analysis/{FIG2['experiment']}/input_delta.parquet",
        readout=lambda wc: f"results/analysis/{FIG2['experiment']}/readout.parquet",
    output:
        png=report(
            "results/figures/aitken2021/fig2{panel}.png",
            caption="../report/aitken2021_fig2.rst",
            category="Aitken et al. 2021",
            subcategory="Fig. 2",
            labels={"panel": "{panel}"},
        ),
        pdf="results/figures/aitken2021/fig2{panel}.pdf",
    wildcard_constraints:
        panel="a|b",
    params:
        experiment=FIG2.get("experiment"),
        seed=FIG2.get("seed"),
        dpi=FIG2.get("dpi"),
    log:
        "results/logs/figures/aitken2021_fig2{panel}.log",
    benchmark:
        "results/benchmarks/figures/aitken2021_fig2{panel}.tsv"
    conda:
        "../../envs/attnrepro.yaml"
    shell:
        "attnrepro figure aitken2021-fig2{wildcards.panel} --analysis-dir results/analysis/{params.experiment}"
        " --experiment {params.experiment} --seed {params.seed} --png {output.png} --pdf {output.pdf} --dpi {params.dpi} > {log} 2>&1"
