# export.pass (docs/activations.md): the greedy pass adds its option to the command only when chosen; choosing it
# changes the job's params, which reruns the export (Snakemake's params trigger) and everything after it.
EXPORT_PASS = config["export"].get("pass", "teacher_forced")


rule export:
    input:
        model=f"{R}/models/{{experiment}}/{{chunk}}/model.pt",
        test=lambda wc: f"{R}/data/{experiment_task(wc)}/test.parquet",
    output:
        encoder=f"{R}/activations/{{experiment}}/{{chunk}}/encoder.parquet",
        decoder=f"{R}/activations/{{experiment}}/{{chunk}}/decoder.parquet",
        readout=f"{R}/activations/{{experiment}}/{{chunk}}/readout.parquet",
    log:
        f"{R}/logs/export/{{experiment}}/{{chunk}}.log",
    benchmark:
        f"{R}/benchmarks/export/{{experiment}}/{{chunk}}.tsv"
    conda:
        ATTNREPRO_ENV
    threads: config["threads"]
    resources:
        **needs("export", gpus=GPUS_PER_JOB),
    params:
        torch_threads=config["threads"],
        data_dir=lambda wc: f"{R}/data/{experiment_task(wc)}",
        n_examples=config["export"]["n_examples"],
        device=config["device"],
        tables=layout.EXPORT_FORMAT,
        pass_option=[] if EXPORT_PASS == "teacher_forced" else ["--pass", EXPORT_PASS],
        out_dir=f"{R}/activations/{{experiment}}/{{chunk}}",
    shell:
        "attnrepro export --model {input.model:q} --experiment {wildcards.experiment:q} --data-dir {params.data_dir:q}"
        " --n-examples {params.n_examples:q} {params.pass_option:q} --out-dir {params.out_dir:q}"
        " --device {params.device:q} --threads {params.torch_threads:q} > {log:q} 2>&1"
