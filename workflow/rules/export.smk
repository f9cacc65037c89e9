# export.pass (docs/activations.md): the greedy pass adds its option to the command only when chosen, so the default's
# command, and so the record of a results folder exported before the key existed, is unchanged (no rerun), while
# choosing greedy changes the command, which reruns the export (Snakemake's code trigger) and everything after it.
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
    shell:
        "attnrepro export --model {input.model} --experiment {wildcards.experiment} --data-dir {params.data_dir}"
        " --n-examples {params.n_examples}"
        + ("" if EXPORT_PASS == "teacher_forced" else f" --pass {EXPORT_PASS}")
        + f" --out-dir {R}/activations/{{wildcards.experiment}}/{{wildcards.chunk}}"
        " --device {params.device} --threads {params.torch_threads} > {log} 2>&1"
