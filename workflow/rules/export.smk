rule export:
    input:
        model="results/models/{experiment}/{chunk}/model.pt",
        test=lambda wc: f"results/data/{experiment_task(wc)}/test.parquet",
    output:
        encoder="results/activations/{experiment}/{chunk}/encoder.parquet",
        decoder="results/activations/{experiment}/{chunk}/decoder.parquet",
        readout="results/activations/{experiment}/{chunk}/readout.parquet",
    params:
        torch_threads=config["threads"],
        data_dir=lambda wc: f"results/data/{experiment_task(wc)}",
        n_examples=config["export"]["n_examples"],
        device=config["device"],
    threads: config["threads"]
    resources:
        **needs("export", gpus=GPUS_PER_JOB),
    log:
        "results/logs/export/{experiment}/{chunk}.log",
    benchmark:
        "results/benchmarks/export/{experiment}/{chunk}.tsv"
    shell:
        "attnrepro export --model {input.model} --experiment {wildcards.experiment} --data-dir {params.data_dir}"
        " --n-examples {params.n_examples}"
        " --out-dir results/activations/{wildcards.experiment}/{wildcards.chunk}"
        " --device {params.device} --threads {params.torch_threads} > {log} 2>&1"
