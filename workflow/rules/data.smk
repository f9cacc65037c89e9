rule data:
    output:
        train=R + "/data/{task}/train.parquet",
        valid=R + "/data/{task}/valid.parquet",
        test=R + "/data/{task}/test.parquet",
        vocab=R + "/data/{task}/vocab.json",
    params:
        task=lambda wc: json_arg(config["tasks"][wc.task]),
    resources:
        **needs("data"),
    log:
        R + "/logs/data/{task}.log",
    benchmark:
        R + "/benchmarks/data/{task}.tsv"
    shell:
        "attnrepro data --task-json {params.task} --out-dir " + R + "/data/{wildcards.task} > {log} 2>&1"
