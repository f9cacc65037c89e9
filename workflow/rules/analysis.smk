rule analyze:
    input:
        exports=lambda wc: chunk_outputs(f"{R}/activations/{{experiment}}/{{chunk}}/encoder.parquet", wc.experiment)
        + chunk_outputs(f"{R}/activations/{{experiment}}/{{chunk}}/decoder.parquet", wc.experiment)
        + chunk_outputs(f"{R}/activations/{{experiment}}/{{chunk}}/readout.parquet", wc.experiment),
        vocab=lambda wc: f"{R}/data/{experiment_task(wc)}/vocab.json",
        metrics=lambda wc: chunk_outputs(f"{R}/models/{{experiment}}/{{chunk}}/metrics.csv", wc.experiment),
    output:
        summary=f"{R}/analysis/{{experiment}}/summary.csv",
        temporal=f"{R}/analysis/{{experiment}}/temporal.parquet",
        input_components=f"{R}/analysis/{{experiment}}/input.parquet",
        input_delta=f"{R}/analysis/{{experiment}}/input_delta.parquet",
        readout=f"{R}/analysis/{{experiment}}/readout.parquet",
        terms=f"{R}/analysis/{{experiment}}/terms.parquet",
        maps=f"{R}/analysis/{{experiment}}/maps.parquet",
        offsets=f"{R}/analysis/{{experiment}}/offsets.parquet",
        accuracy=f"{R}/analysis/{{experiment}}/accuracy.parquet",
        word_variance=f"{R}/analysis/{{experiment}}/word_variance.parquet",
        readout_alignment=f"{R}/analysis/{{experiment}}/readout_alignment.parquet",
    log:
        f"{R}/logs/analysis/{{experiment}}.log",
    benchmark:
        f"{R}/benchmarks/analysis/{{experiment}}.tsv"
    conda:
        ATTNREPRO_ENV
    resources:
        **needs("analyze"),
    params:
        export_dirs=lambda wc: chunk_outputs(f"{R}/activations/{{experiment}}/{{chunk}}", wc.experiment),
        data_dir=lambda wc: f"{R}/data/{experiment_task(wc)}",
        arch=lambda wc: config["experiments"][wc.experiment]["model"]["arch"],
        task=lambda wc: json_arg(task_spec(config, experiment_task(wc))),
    shell:
        "attnrepro aitken2021 analyze --export-dirs {params.export_dirs:q} --data-dir {params.data_dir:q} --arch {params.arch:q} --task-json {params.task:q}"
        " --metrics {input.metrics:q}"
        f" --out-dir {R}/analysis/{{wildcards.experiment:q}} > {{log:q}} 2>&1"


# Every seed group's greedy decodes of the test split, scored by token/sequence accuracy and corpus BLEU (the
# transformers' counterpart of the accuracy in the Aitken analysis' summary.csv).
rule evaluate:
    input:
        models=lambda wc: chunk_outputs(f"{R}/models/{{experiment}}/{{chunk}}/model.pt", wc.experiment),
        test=lambda wc: f"{R}/data/{experiment_task(wc)}/test.parquet",
    output:
        f"{R}/analysis/{{experiment}}/evaluation.csv",
    log:
        f"{R}/logs/evaluate/{{experiment}}.log",
    benchmark:
        f"{R}/benchmarks/evaluate/{{experiment}}.tsv"
    conda:
        ATTNREPRO_ENV
    threads: config["threads"]
    resources:
        **needs("evaluate", gpus=GPUS_PER_JOB),
    params:
        torch_threads=config["threads"],
        data_dir=lambda wc: f"{R}/data/{experiment_task(wc)}",
        device=config["device"],
    shell:
        "attnrepro evaluate --models {input.models:q} --experiment {wildcards.experiment:q} --data-dir {params.data_dir:q}"
        " --split test --out {output:q}"
        " --device {params.device:q} --threads {params.torch_threads:q} > {log:q} 2>&1"
