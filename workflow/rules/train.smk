rule train:
    input:
        train=lambda wc: f"{R}/data/{experiment_task(wc)}/train.parquet",
        valid=lambda wc: f"{R}/data/{experiment_task(wc)}/valid.parquet",
        vocab=lambda wc: f"{R}/data/{experiment_task(wc)}/vocab.json",
    output:
        # the model is written last: its presence means the job finished
        metrics=f"{R}/models/{{experiment}}/{{chunk}}/metrics.csv",
        model=f"{R}/models/{{experiment}}/{{chunk}}/model.pt",
    log:
        f"{R}/logs/train/{{experiment}}/{{chunk}}.log",
    benchmark:
        f"{R}/benchmarks/train/{{experiment}}/{{chunk}}.tsv"
    retries: segments("train", [(e, cfglib.experiment_spec(config, e)["train"]["steps"]) for e in config["experiments"]])
    conda:
        ATTNREPRO_ENV
    threads: config["threads"]
    resources:
        **needs("train", gpus=GPUS_PER_JOB, job=train_job),
    params:
        torch_threads=config["threads"],
        spec=lambda wc: json_arg(cfglib.experiment_spec(config, wc.experiment)),
        seeds=lambda wc: SEED_CHUNKS[wc.chunk],
        data_dir=lambda wc: f"{R}/data/{experiment_task(wc)}",
        # checkpoints live outside the outputs so a killed job's rerun finds them
        ckpt_dir=f"{R}/checkpoints/{{experiment}}/{{chunk}}",
        device=config["device"],
        budget=time_budget,
    # torch's threads from the config, not {threads} (which --cores caps): a sum's order, so the weights, depend on
    # them, and `--cores 1` must give the numbers `--cores 2` gives (every torch rule does the same)
    shell:
        "attnrepro train --spec-json {params.spec:q} --seeds {params.seeds:q} --data-dir {params.data_dir:q}"
        " --ckpt-dir {params.ckpt_dir:q} --model-out {output.model:q} --metrics-out {output.metrics:q}"
        " --name {wildcards.experiment:q} --device {params.device:q} --threads {params.torch_threads:q}"
        " --time-budget {params.budget:q} > {log:q} 2>&1"
