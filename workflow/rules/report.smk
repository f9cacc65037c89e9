# HTML pages of the tables, for `snakemake --report`: the report shows an HTML result in a frame, a CSV as nothing.


rule claims_html:
    input:
        f"{R}/claims.csv",
    output:
        report(f"{R}/report/claims.html", caption="../report/claims.rst", category="Claims"),
    log:
        f"{R}/logs/report/claims.log",
    benchmark:
        f"{R}/benchmarks/report/claims.tsv"
    conda:
        ATTNREPRO_ENV
    shell:
        "attnrepro report-table --csv {input:q} --group-by paper --title 'Claims: every paper claim we test'"
        " --note 'One row per claim and experiment: the paper value where it prints one, our median (or rate) over"
        " replicates with its interval, the number of replicates, the model check, what stands in for the paper"
        f" (tested_on) and the verdict. The same table: {R}/claims.csv, {R}/claims.md; one verdict per claim:"
        f" {R}/claims_by_claim.csv.'"
        " --out {output:q} > {log:q} 2>&1"


if SNELL2021:

    localrules:
        snell2021_table_html,

    rule snell2021_table_html:
        input:
            f"{R}/figures/snell2021/{{table}}.csv",
        output:
            report(
                f"{R}/report/snell2021_{{table}}.html",
                caption="../report/snell2021_table.rst",
                category="Snell et al. 2021",
                labels={"figure": "{table} as a table"},
            ),
        log:
            f"{R}/logs/report/snell2021_{{table}}.log",
        benchmark:
            f"{R}/benchmarks/report/snell2021_{{table}}.tsv"
        conda:
            ATTNREPRO_ENV
        shell:
            "attnrepro report-table --csv {input:q} --title 'Snell et al. 2021, {wildcards.table:q}'"
            " --note 'Mean ± standard deviation over the seeds (n_seeds) of each row; agreement A and ξ in percent;"
            " ref_ columns: the paper’s own numbers (Table 2: its Multi30k row beside our translation set).'"
            " --out {output:q} > {log:q} 2>&1"
