# Snell et al. 2021, "Approximating How Single Head Attention Learns": train -> export -> analyze -> figure, as the
# Aitken experiments. Each run is one stack of members trained by the engine (results/models/snell2021/<run>/: the
# model, its metrics, the probes recorded at every evaluation, its held-out set); the learned run behind each Table 2
# row is exported (gradient saliency, greedy decodes); analyses are pure functions of those tables, and every figure
# and table reads analyses only, so a change to a threshold or a plot reruns no training. Active when the config
# has a `snell2021:` block; the jobs and their specs come from attnrepro.snell2021.config.


if SNELL2021:

    localrules:
        snell2021_figure,

    wildcard_constraints:
        run="|".join(snell2021_plain_runs()),
        combo="|".join(snellcfg.COMBOS),
        erun="|".join(snellcfg.exports(SNELL2021)),
        aorun="|".join(snellcfg.alpha_opt_run(n) for n in snellcfg.alpha_opt_sets(SNELL2021)) or "(?!)",
        name="|".join(SNELL2021_FIGURES),
        table="table2|table10",

    rule snell2021_train:
        input:
            lambda wc: snellcfg.run_inputs(SNELL2021, wc.run),
        output:
            # the model is written last: its presence means the job finished
            evaluation=f"{R}/models/snell2021/{{run}}/eval.parquet",
            probes=f"{R}/models/snell2021/{{run}}/probes.parquet",
            metrics=f"{R}/models/snell2021/{{run}}/metrics.csv",
            model=f"{R}/models/snell2021/{{run}}/model.pt",
        log:
            f"{R}/logs/snell2021/train/{{run}}.log",
        benchmark:
            f"{R}/benchmarks/snell2021/train/{{run}}.tsv"
        retries: segments("snell2021_train", [snell_job(r) for r in snell2021_plain_runs() if r in SNELL2021_RUNS])
        conda:
            ATTNREPRO_ENV
        threads: SNELL2021["threads"]
        resources:
            **needs("snell2021_train", gpus=GPUS_PER_JOB, job=lambda wc: snell_job(wc.run)),
        params:
            torch_threads=SNELL2021["threads"],
            device=config["device"],
            budget=time_budget,
            spec=lambda wc: json_arg(snell2021_runs()[wc.run]),
            ckpt_dir=f"{R}/checkpoints/snell2021/{{run}}",
        shell:
            "attnrepro snell2021 train {wildcards.run:q} --spec-json {params.spec:q} --ckpt-dir {params.ckpt_dir:q}"
            f" --out-dir {R}/models/snell2021/{{wildcards.run:q}}"
            " --device {params.device:q} --threads {params.torch_threads:q} --time-budget {params.budget:q} > {log:q} 2>&1"

    # Fig. 6: rejection sampling of single-head initialisations on one backbone, round after round
    rule snell2021_candidates:
        output:
            metrics=f"{R}/models/snell2021/multihead_candidates/metrics.csv",
            candidates=f"{R}/models/snell2021/multihead_candidates/candidates.parquet",
        log:
            f"{R}/logs/snell2021/train/multihead_candidates.log",
        benchmark:
            f"{R}/benchmarks/snell2021/train/multihead_candidates.tsv"
        retries: segments("snell2021_candidates", [None])
        conda:
            ATTNREPRO_ENV
        threads: SNELL2021["threads"]
        resources:
            **needs("snell2021_candidates", gpus=GPUS_PER_JOB, need_bytes=SNELL2021_MULTIHEAD_BYTES["candidates"]),
        params:
            torch_threads=SNELL2021["threads"],
            device=config["device"],
            budget=time_budget,
            spec=json_arg(snell2021_runs()["multihead_candidates"]),
        shell:
            "attnrepro snell2021 train multihead_candidates --spec-json {params.spec:q}"
            f" --ckpt-dir {R}/checkpoints/snell2021/multihead_candidates"
            f" --out-dir {R}/models/snell2021/multihead_candidates"
            " --device {params.device:q} --threads {params.torch_threads:q} --time-budget {params.budget:q} > {log:q} 2>&1"

    # Fig. 6: the K-head models of one kind, their heads drawn from the labelled candidates
    rule snell2021_multihead:
        input:
            candidates=f"{R}/models/snell2021/multihead_candidates/candidates.parquet",
        output:
            evaluation=f"{R}/models/snell2021/multihead_{{combo}}/eval.parquet",
            heads=f"{R}/models/snell2021/multihead_{{combo}}/heads.parquet",
            metrics=f"{R}/models/snell2021/multihead_{{combo}}/metrics.csv",
            model=f"{R}/models/snell2021/multihead_{{combo}}/model.pt",
        log:
            f"{R}/logs/snell2021/train/multihead_{{combo}}.log",
        benchmark:
            f"{R}/benchmarks/snell2021/train/multihead_{{combo}}.tsv"
        retries: segments("snell2021_multihead", [None])
        conda:
            ATTNREPRO_ENV
        threads: SNELL2021["threads"]
        resources:
            **needs("snell2021_multihead", gpus=GPUS_PER_JOB, need_bytes=SNELL2021_MULTIHEAD_BYTES["khead"]),
        params:
            torch_threads=SNELL2021["threads"],
            device=config["device"],
            budget=time_budget,
            spec=lambda wc: json_arg(snell2021_runs()[f"multihead_{wc.combo}"]),
        shell:
            "attnrepro snell2021 train multihead_{wildcards.combo:q} --spec-json {params.spec:q}"
            f" --candidates {{input.candidates:q}} --ckpt-dir {R}/checkpoints/snell2021/multihead_{{wildcards.combo:q}}"
            f" --out-dir {R}/models/snell2021/multihead_{{wildcards.combo:q}}"
            " --device {params.device:q} --threads {params.torch_threads:q} --time-budget {params.budget:q} > {log:q} 2>&1"

    rule snell2021_export:
        input:
            model=f"{R}/models/snell2021/{{erun}}/model.pt",
            data=lambda wc: snellcfg.run_inputs(SNELL2021, wc.erun),
        output:
            decodes=f"{R}/activations/snell2021/{{erun}}/decodes.parquet",
            saliency=f"{R}/activations/snell2021/{{erun}}/saliency.parquet",
        log:
            f"{R}/logs/snell2021/export/{{erun}}.log",
        benchmark:
            f"{R}/benchmarks/snell2021/export/{{erun}}.tsv"
        conda:
            ATTNREPRO_ENV
        threads: SNELL2021["threads"]
        resources:
            **needs("snell2021_export", gpus=GPUS_PER_JOB),
        params:
            torch_threads=SNELL2021["threads"],
            device=config["device"],
            # model.pt (the input) is written last, so its presence means model_best.pt is there too
            model=lambda wc: f"{R}/models/snell2021/{wc.erun}/{snellcfg.export_model(SNELL2021)}",
        shell:
            f"attnrepro snell2021 export --model {{params.model:q}} --out-dir {R}/activations/snell2021/{{wildcards.erun:q}}"
            " --device {params.device:q} --threads {params.torch_threads:q} > {log:q} 2>&1"

    # App. A.1: α^opt of the linear-read-out (Eq. 32) model, per held-out target token, beside its β
    rule snell2021_alpha_opt:
        input:
            model=f"{R}/models/snell2021/{{aorun}}/model.pt",
            data=lambda wc: snellcfg.run_inputs(SNELL2021, wc.aorun),
        output:
            alpha_opt=f"{R}/activations/snell2021/{{aorun}}/alpha_opt.parquet",
        log:
            f"{R}/logs/snell2021/alpha_opt/{{aorun}}.log",
        benchmark:
            f"{R}/benchmarks/snell2021/alpha_opt/{{aorun}}.tsv"
        conda:
            ATTNREPRO_ENV
        threads: SNELL2021["threads"]
        resources:
            **needs("snell2021_alpha_opt", gpus=GPUS_PER_JOB),
        params:
            torch_threads=SNELL2021["threads"],
            device=config["device"],
            iterations=lambda wc: snellcfg.alpha_opt_iterations(SNELL2021),
        shell:
            f"attnrepro snell2021 alpha-opt --model {{input.model:q}} --out-dir {R}/activations/snell2021/{{wildcards.aorun:q}}"
            " --iterations {params.iterations:q} --device {params.device:q} --threads {params.torch_threads:q} > {log:q} 2>&1"

    # one rule per kind of analysis (their outputs differ); each a pure function of the runs' tables
    for _kind, _outputs in snellcfg.ANALYSIS_OUTPUTS.items():

        rule:
            name:
                f"snell2021_analyze_{_kind}"
            input:
                lambda wc: snellcfg.analysis_inputs(SNELL2021, wc.analysis),
            output:
                [f"{R}/analysis/snell2021/{{analysis}}/{f}" for f in _outputs],
            log:
                f"{R}/logs/snell2021/analysis/{{analysis}}.log",
            benchmark:
                f"{R}/benchmarks/snell2021/analysis/{{analysis}}.tsv"
            wildcard_constraints:
                analysis="|".join(snell2021_analyses(_kind)) or "(?!)",
            conda:
                ATTNREPRO_ENV
            params:
                spec=lambda wc: json_arg(snellcfg.analyses(SNELL2021)[wc.analysis]),
            shell:
                "attnrepro snell2021 analyze {wildcards.analysis:q} --spec-json {params.spec:q}"
                f" --models-dir {R}/models/snell2021 --activations-dir {R}/activations/snell2021"
                f" --out-dir {R}/analysis/snell2021/{{wildcards.analysis:q}} > {{log:q}} 2>&1"

    # every figure and table of attnrepro.snell2021.panels, drawn through the figure registry from the analyses it
    # reads (Table 2, Table 10 and Fig. 2: the Table 2 analyses' summaries and ξ curves)
    rule snell2021_figure:
        input:
            snell2021_figure_inputs,
        output:
            png=report(
                f"{R}/figures/snell2021/{{name}}.png",
                caption="../report/snell2021.rst",
                category="Snell et al. 2021",
                labels={"figure": "{name}"},
            ),
            pdf=f"{R}/figures/snell2021/{{name}}.pdf",
            csv=f"{R}/figures/snell2021/{{name}}.csv",
        log:
            f"{R}/logs/figures/snell2021_{{name}}.log",
        benchmark:
            f"{R}/benchmarks/figures/snell2021_{{name}}.tsv"
        conda:
            ATTNREPRO_ENV
        params:
            inputs=json_arg({"spec": snellcfg.figure_spec(SNELL2021), "analysis_dir": f"{R}/analysis/snell2021"}),
            caption=figure_caption("snell2021"),
            dpi=SNELL2021["dpi"],
        shell:
            "attnrepro figure snell2021 {wildcards.name:q} --inputs-json {params.inputs:q}"
            " --png {output.png:q} --pdf {output.pdf:q} --csv {output.csv:q} --dpi {params.dpi:q} > {log:q} 2>&1"
