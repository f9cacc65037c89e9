# Snell et al. 2021, "Approximating How Single Head Attention Learns": the synthetic experiments (Fig. 3, 4, 6, 7
# and §6.2). Each experiment is one job; its seeds train stacked in one process. Active when the config has a
# `snell2021:` block.


if SNELL2021:

    wildcard_constraints:
        run="|".join(snell2021_copy_runs()),
        name="|".join(SNELL2021_FIGURES),
        table="table2|table10",
        dataset="|".join(snellcfg.classification_sets(SNELL2021)) or "none",
        tset="|".join(snellcfg.translation_sets(SNELL2021)) or "none",

    rule snell2021_copy:
        output:
            curves="results/snell2021/{run}/curves.csv",
            summary="results/snell2021/{run}/summary.csv",
        params:
            spec=lambda wc: json_arg(snell2021_copy_runs()[wc.run]),
            seeds=" ".join(map(str, SNELL2021["seeds"])),
        threads: SNELL2021["threads"]
        resources:
            **needs(mem_mb=4000, runtime=240),
        log:
            "results/logs/snell2021/{run}.log",
        benchmark:
            "results/benchmarks/snell2021/{run}.tsv"
        shell:
            "attnrepro snell2021 copy --spec-json {params.spec} --seeds {params.seeds}"
            " --out-dir results/snell2021/{wildcards.run} --threads {threads} > {log} 2>&1"

    rule snell2021_multihead:
        output:
            curves="results/snell2021/multihead/curves.csv",
            candidates="results/snell2021/multihead/candidates.csv",
            summaries=expand("results/snell2021/multihead/summary_{combo}.csv", combo=snellcfg.COMBOS),
        params:
            spec=json_arg(snellcfg.multihead_spec(SNELL2021)),
        threads: SNELL2021["threads"]
        resources:
            **needs(mem_mb=4000, runtime=480),
        log:
            "results/logs/snell2021/multihead.log",
        benchmark:
            "results/benchmarks/snell2021/multihead.tsv"
        shell:
            "attnrepro snell2021 multihead --spec-json {params.spec}"
            " --out-dir results/snell2021/multihead --threads {threads} > {log} 2>&1"

    rule snell2021_keyword:
        output:
            curves="results/snell2021/keyword/curves.csv",
            summary="results/snell2021/keyword/summary.csv",
        params:
            spec=json_arg(snellcfg.keyword_spec(SNELL2021)),
            seeds=" ".join(map(str, SNELL2021["seeds"])),
        threads: SNELL2021["threads"]
        resources:
            **needs(mem_mb=4000, runtime=240),
        log:
            "results/logs/snell2021/keyword.log",
        benchmark:
            "results/benchmarks/snell2021/keyword.tsv"
        shell:
            "attnrepro snell2021 keyword --spec-json {params.spec} --seeds {params.seeds}"
            " --out-dir results/snell2021/keyword --threads {threads} > {log} 2>&1"

    rule snell2021_counts:
        output:
            tables="results/snell2021/counts/tables.csv",
            summary="results/snell2021/counts/summary.csv",
        params:
            spec=json_arg(snellcfg.counts_spec(SNELL2021)),
            seeds=" ".join(map(str, SNELL2021["counts"]["seeds"])),
        log:
            "results/logs/snell2021/counts.log",
        benchmark:
            "results/benchmarks/snell2021/counts.tsv"
        shell:
            "attnrepro snell2021 counts --spec-json {params.spec} --seeds {params.seeds}"
            " --out-dir results/snell2021/counts > {log} 2>&1"

    rule snell2021_table2:
        output:
            summary="results/snell2021/table2/summary.csv",
            curves="results/snell2021/table2/curves.csv",
            xi_curves="results/snell2021/table2/xi_curves.csv",
        params:
            spec=json_arg(snellcfg.table2_spec(SNELL2021)),
            seeds=" ".join(map(str, SNELL2021["seeds"])),
        threads: SNELL2021["threads"]
        resources:
            **needs(mem_mb=4000, runtime=240),
        log:
            "results/logs/snell2021/table2.log",
        benchmark:
            "results/benchmarks/snell2021/table2.tsv"
        shell:
            "attnrepro snell2021 table2 --spec-json {params.spec} --seeds {params.seeds}"
            " --out-dir results/snell2021/table2 --threads {threads} > {log} 2>&1"

    rule snell2021_figure:
        input:
            snell2021_figure_inputs,
        output:
            png=report(
                "results/figures/snell2021/{name}.png",
                caption="../report/snell2021.rst",
                category="Snell et al. 2021",
                labels={"figure": "{name}"},
            ),
            pdf="results/figures/snell2021/{name}.pdf",
        params:
            spec=json_arg(snellcfg.figure_spec(SNELL2021)),
            dpi=SNELL2021["dpi"],
        log:
            "results/logs/figures/snell2021_{name}.log",
        benchmark:
            "results/benchmarks/figures/snell2021_{name}.tsv"
        shell:
            "attnrepro snell2021 figure {wildcards.name} --spec-json {params.spec} --results-dir results/snell2021"
            " --png {output.png} --pdf {output.pdf} --dpi {params.dpi} > {log} 2>&1"

    rule snell2021_classification:
        input:
            lambda wc: snellcfg.classification_inputs(SNELL2021, wc.dataset),
        output:
            summary="results/snell2021/cls_{dataset}/summary.csv",
            curves="results/snell2021/cls_{dataset}/curves.csv",
            xi_curves="results/snell2021/cls_{dataset}/xi_curves.csv",
        params:
            spec=lambda wc: json_arg(snellcfg.classification_spec(SNELL2021, wc.dataset)),
            seeds=" ".join(map(str, SNELL2021.get("classification", {}).get("seeds", []))),
        threads: SNELL2021["threads"]
        resources:
            **needs(mem_mb=4000, runtime=480),
        log:
            "results/logs/snell2021/cls_{dataset}.log",
        benchmark:
            "results/benchmarks/snell2021/cls_{dataset}.tsv"
        shell:
            "attnrepro snell2021 classification --spec-json {params.spec} --seeds {params.seeds}"
            " --out-dir results/snell2021/cls_{wildcards.dataset} --threads {threads} > {log} 2>&1"

    # Table 2 on a prepared translation set: reads the `data` rule's (or a corpus's) splits and vocabularies
    rule snell2021_translation:
        input:
            train="results/data/{tset}/train.parquet",
            test="results/data/{tset}/test.parquet",
            vocab="results/data/{tset}/vocab.json",
        output:
            summary="results/snell2021/mt_{tset}/summary.csv",
            curves="results/snell2021/mt_{tset}/curves.csv",
            xi_curves="results/snell2021/mt_{tset}/xi_curves.csv",
        params:
            spec=lambda wc: json_arg(snellcfg.translation_spec(SNELL2021, wc.tset)),
            seeds=" ".join(map(str, SNELL2021.get("translation", {}).get("seeds", []))),
        threads: SNELL2021["threads"]
        resources:
            **needs(mem_mb=8000, runtime=480),
        log:
            "results/logs/snell2021/mt_{tset}.log",
        benchmark:
            "results/benchmarks/snell2021/mt_{tset}.tsv"
        shell:
            "attnrepro snell2021 translation --spec-json {params.spec} --seeds {params.seeds}"
            " --data-dir results/data/{wildcards.tset} --out-dir results/snell2021/mt_{wildcards.tset}"
            " --threads {threads} > {log} 2>&1"

    # Fig. 2: ξ read off the second runs' checkpoints, from the Table 2 jobs' ξ curves (no training of its own)
    rule snell2021_fig2:
        input:
            snell2021_fig2_inputs,
        output:
            png=report(
                "results/figures/snell2021/fig2.png",
                caption="../report/snell2021_fig2.rst",
                category="Snell et al. 2021",
                labels={"figure": "fig2"},
            ),
            pdf="results/figures/snell2021/fig2.pdf",
            csv="results/figures/snell2021/fig2.csv",
        params:
            spec=json_arg(snellcfg.figure_spec(SNELL2021)),
            dpi=SNELL2021["dpi"],
        log:
            "results/logs/figures/snell2021_fig2.log",
        benchmark:
            "results/benchmarks/figures/snell2021_fig2.tsv"
        shell:
            "attnrepro snell2021 figure fig2 --spec-json {params.spec} --results-dir results/snell2021"
            " --png {output.png} --pdf {output.pdf} --dpi {params.dpi} > {log} 2>&1"

    rule snell2021_table_figure:
        input:
            snell2021_table_inputs,
        output:
            png=report(
                "results/figures/snell2021/{table}.png",
                caption="../report/snell2021.rst",
                category="Snell et al. 2021",
                labels={"figure": "{table}"},
            ),
            pdf="results/figures/snell2021/{table}.pdf",
            csv="results/figures/snell2021/{table}.csv",
        params:
            spec=json_arg(snellcfg.figure_spec(SNELL2021)),
            dpi=SNELL2021["dpi"],
        log:
            "results/logs/figures/snell2021_{table}.log",
        benchmark:
            "results/benchmarks/figures/snell2021_{table}.tsv"
        shell:
            "attnrepro snell2021 figure {wildcards.table} --spec-json {params.spec} --results-dir results/snell2021"
            " --png {output.png} --pdf {output.pdf} --dpi {params.dpi} > {log} 2>&1"
