rule export:
    input:
        model=f"{R}/models/{{experiment}}/{{chunk}}/model.pt",
        test=lambda wc: f"{R}/data/{experiment_task(wc)}/test.parquet",
    output:
        encoder=f"{R}/activations/{{experiment}}/{{chunk}}/encoder.parquet",
        decoder=f"{R}/activations/{{experiment}}/{{chunk}}/decoder.parquet",
        readout=f"{R}/activations/{{experiment}}/{{chunk}}/readout.parquet",
    params:
        torch_threads=config["threads"],
        data_dir=lambda wc: f"{R}/data/{experiment_task(wc)}",
        n_examples=config["export"]["n_examples"],
        device=config["device"],
        tables=layout.EXPORT_FORMAT,
    threads: config["threads"]
    resources:
        **needs("export", gpus=GPUS_PER_JOB),
    log:
        f"{R}/logs/export/{{experiment}}/{{chunk}}.log",
    benchmark:
        f"{R}/benchmarks/export/{{experiment}}/{{chunk}}.tsv"
    shell:
        "attnrepro export --model {input.model} --experiment {wildcards.experiment} --data-dir {params.data_dir}"
        " --n-examples {params.n_examples}"
        f" --out-dir {R}/activations/{{wildcards.experiment}}/{{wildcards.chunk}}"
        " --device {params.device} --threads {params.torch_threads} > {log} 2>&1"
