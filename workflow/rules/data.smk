rule data:
    output:
        train=f"{R}/data/{{task}}/train.parquet",
        valid=f"{R}/data/{{task}}/valid.parquet",
        test=f"{R}/data/{{task}}/test.parquet",
        vocab=f"{R}/data/{{task}}/vocab.json",
    log:
        f"{R}/logs/data/{{task}}.log",
    benchmark:
        f"{R}/benchmarks/data/{{task}}.tsv"
    conda:
        ATTNREPRO_ENV
    resources:
        **needs("data"),
    params:
        task=lambda wc: json_arg(config["tasks"][wc.task]),
    shell:
        f"attnrepro data --task-json {{params.task:q}} --out-dir {R}/data/{{wildcards.task:q}} > {{log:q}} 2>&1"
