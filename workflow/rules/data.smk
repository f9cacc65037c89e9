rule data:
    output:
        train="results/data/{task}/train.parquet",
        valid="results/data/{task}/valid.parquet",
        test="results/data/{task}/test.parquet",
        vocab="results/data/{task}/vocab.json",
    params:
        task=lambda wc: json_arg(config["tasks"][wc.task]),
    resources:
        **needs("data"),
    log:
        "results/logs/data/{task}.log",
    benchmark:
        "results/benchmarks/data/{task}.tsv"
    shell:
        "attnrepro data --task-json {params.task} --out-dir results/data/{wildcards.task} > {log} 2>&1"
