# HTML pages of the tables, for `snakemake --report`: the report shows an HTML result in a frame, a CSV as nothing.


rule claims_html:
    input:
        "results/claims.csv",
    output:
        report("results/report/claims.html", caption="../report/claims.rst", category="Claims"),
    log:
        "results/logs/report/claims.log",
    benchmark:
        "results/benchmarks/report/claims.tsv"
    shell:
        "attnrepro report-table --csv {input} --group-by paper --title 'Claims: every paper claim we test'"
        " --note 'One row per claim and experiment: the paper value where it prints one, our median (or rate) over"
        " replicates with its interval, the number of replicates, the model check, what stands in for the paper"
        " (tested_on) and the verdict. The same table: results/claims.csv, results/claims.md; one verdict per claim:"
        " results/claims_by_claim.csv.'"
        " --out {output} > {log} 2>&1"


if SNELL2021:

    localrules:
        snell2021_table_html,

    rule snell2021_table_html:
        input:
            "results/figures/snell2021/{table}.csv",
        output:
            report("results/report/snell2021_{table}.html", caption="../report/snell2021_table.rst",
                   category="Snell et al. 2021", labels={"figure": "{table} as a table"}),
        log:
            "results/logs/report/snell2021_{table}.log",
        benchmark:
            "results/benchmarks/report/snell2021_{table}.tsv"
        shell:
            "attnrepro report-table --csv {input} --title 'Snell et al. 2021, {wildcards.table}'"
            " --note 'Mean ± standard deviation over the seeds (n_seeds) of each row; agreement A and ξ in percent;"
            " ref_ columns: the paper’s own numbers (Table 2: its Multi30k row beside our translation set).'"
            " --out {output} > {log} 2>&1"
