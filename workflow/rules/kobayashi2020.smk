# Kobayashi et al. 2020 on a pretrained encoder (all-MiniLM-L6-v2 offline by default; the paper's bert-base-uncased
# where kobayashi2020.encoder pins it, downloaded by the download rule): pack news paragraphs, run the encoder once
# into a Parquet cache, then every table and figure is a pure function of that cache.


rule kobayashi2020_data:
    input:
        encoder=kobayashi_pinned("encoder"),
        ranks=kobayashi_pinned("ranks"),
    output:
        f"{R}/data/{KOBAYASHI_MODEL}/tokens.parquet",
    log:
        f"{R}/logs/kobayashi2020/data.log",
    benchmark:
        f"{R}/benchmarks/kobayashi2020/data.tsv"
    conda:
        ATTNREPRO_ENV
    params:
        n_sequences=KOBA.get("n_sequences"),
        max_len=KOBA.get("max_len"),
        first_article=KOBA.get("first_article", 0),
        pinned=kobayashi_pinned_args("encoder", "ranks"),
    shell:
        "attnrepro kobayashi2020 data --n-sequences {params.n_sequences:q} --max-len {params.max_len:q}"
        " --first-article {params.first_article:q} {params.pinned:q} --out {output:q} > {log:q} 2>&1"


rule kobayashi2020_cache:
    input:
        tokens=f"{R}/data/{KOBAYASHI_MODEL}/tokens.parquet",
        encoder=kobayashi_pinned("encoder"),
    output:
        expand(f"{R}/activations/{KOBAYASHI_MODEL}/{{name}}.parquet", name=KOBAYASHI_CACHE),
    log:
        f"{R}/logs/kobayashi2020/cache.log",
    benchmark:
        f"{R}/benchmarks/kobayashi2020/cache.tsv"
    conda:
        ATTNREPRO_ENV
    threads: config["threads"]
    resources:
        **needs("kobayashi2020_cache", need_bytes=KOBA_CACHE_BYTES),
    params:
        torch_threads=config["threads"],
        out_dir=lambda wc, output: Path(output[0]).parent,
        batch_size=KOBA.get("batch_size"),
        pair_fraction=KOBA.get("pair_fraction"),
        seed=KOBA.get("seed"),
        pinned=kobayashi_pinned_args("encoder"),
        shape=["--encoder-shape", json_arg(KOBA["encoder_shape"])] if KOBA.get("encoder_shape") else [],
    shell:
        "attnrepro kobayashi2020 cache --tokens {input.tokens:q} --batch-size {params.batch_size:q}"
        " --pair-fraction {params.pair_fraction:q} --seed {params.seed:q} {params.pinned:q} {params.shape:q}"
        " --out-dir {params.out_dir:q}"
        " --threads {params.torch_threads:q} > {log:q} 2>&1"


rule kobayashi2020_summary:
    input:
        tokens=f"{R}/data/{KOBAYASHI_MODEL}/tokens.parquet",
        cache=expand(f"{R}/activations/{KOBAYASHI_MODEL}/{{name}}.parquet", name=KOBAYASHI_CACHE),
    output:
        KOBAYASHI_SUMMARY,
    log:
        f"{R}/logs/kobayashi2020/summary.log",
    benchmark:
        f"{R}/benchmarks/kobayashi2020/summary.tsv"
    conda:
        ATTNREPRO_ENV
    params:
        cache_dir=lambda wc, input: Path(input.cache[0]).parent,
        folds=KOBA.get("folds"),
    shell:
        "attnrepro kobayashi2020 summary --tokens {input.tokens:q} --cache-dir {params.cache_dir:q}"
        " --folds {params.folds:q} --out {output:q} > {log:q} 2>&1"


# every figure and table of attnrepro.kobayashi2020.panels drawn from the norm cache (§4, Appendices A and C),
# through the figure registry
rule kobayashi2020_figure:
    input:
        tokens=f"{R}/data/{KOBAYASHI_MODEL}/tokens.parquet",
        cache=expand(f"{R}/activations/{KOBAYASHI_MODEL}/{{name}}.parquet", name=KOBAYASHI_CACHE),
    output:
        png=report(
            f"{R}/figures/kobayashi2020/{{name}}.png",
            caption="../report/kobayashi2020.rst",
            category="Kobayashi et al. 2020",
            subcategory="pretrained encoder",
            labels={"figure": "{name}"},
        ),
        pdf=f"{R}/figures/kobayashi2020/{{name}}.pdf",
        csv=f"{R}/figures/kobayashi2020/{{name}}.csv",
    log:
        f"{R}/logs/kobayashi2020/{{name}}.log",
    benchmark:
        f"{R}/benchmarks/kobayashi2020/{{name}}.tsv"
    wildcard_constraints:
        name="|".join(KOBAYASHI_FIGURES),
    conda:
        ATTNREPRO_ENV
    params:
        inputs=lambda wc, input: json_arg(
            {
                "tokens": input.tokens,
                "cache_dir": str(Path(input.cache[0]).parent),
                "pair_fraction": KOBA.get("pair_fraction"),
                "max_points": KOBA.get("max_points"),
                "seed": KOBA.get("seed"),
            }
        ),
        caption=figure_caption("kobayashi2020"),
        dpi=KOBA.get("dpi"),
    shell:
        "attnrepro figure kobayashi2020 {wildcards.name:q} --inputs-json {params.inputs:q}"
        " --png {output.png:q} --pdf {output.pdf:q} --csv {output.csv:q} --dpi {params.dpi:q} > {log:q} 2>&1"


# §5 on our own encoder-decoders (every transformer experiment on a synthetic task, plus the recurrent ones listed
# under kobayashi2020_aer.experiments, all trained by the train rule): AER per attention layer of alignments read
# from weights vs vector norms, against the tasks' exact gold alignments.
rule kobayashi2020_aer:
    input:
        models=lambda wc: chunk_outputs(f"{R}/models/{{experiment}}/{{chunk}}/model.pt", wc.experiment),
        test=lambda wc: f"{R}/data/{experiment_task(wc)}/test.parquet",
    output:
        aer=f"{R}/analysis/{{experiment}}/aer.csv",
        summary=f"{R}/analysis/{{experiment}}/aer_summary.csv",
        soft=f"{R}/analysis/{{experiment}}/soft_alignments.parquet",
    log:
        f"{R}/logs/kobayashi2020/aer_{{experiment}}.log",
    benchmark:
        f"{R}/benchmarks/kobayashi2020/aer_{{experiment}}.tsv"
    conda:
        ATTNREPRO_ENV
    threads: config["threads"]
    params:
        torch_threads=config["threads"],
        data_dir=lambda wc: f"{R}/data/{experiment_task(wc)}",
        task=lambda wc: json_arg(task_spec(config, experiment_task(wc))),
        n_examples=config["export"]["n_examples"],
    shell:
        "attnrepro kobayashi2020 aer --models {input.models:q} --data-dir {params.data_dir:q} --task-json {params.task:q}"
        f" --n-examples {{params.n_examples:q}} --out-dir {R}/analysis/{{wildcards.experiment:q}}"
        " --threads {params.torch_threads:q} > {log:q} 2>&1"


# §5 on real translation: the models of an experiment read with teacher forcing on the sentence pairs of a
# gold alignment file (kobayashi2020_aer.gold), scored per layer like the synthetic tasks.
rule kobayashi2020_aer_gold:
    input:
        models=lambda wc: chunk_outputs(f"{R}/models/{{experiment}}/{{chunk}}/model.pt", gold_set(wc)["experiment"]),
        vocab=lambda wc: f"{R}/data/{experiment_task(wc)}/vocab.json",
        source=lambda wc: gold_set(wc)["source"],
        target=lambda wc: gold_set(wc)["target"],
        alignment=lambda wc: gold_set(wc)["alignment"],
    output:
        aer=f"{R}/analysis/{{experiment}}/gold_{{gold}}/aer.csv",
        summary=f"{R}/analysis/{{experiment}}/gold_{{gold}}/aer_summary.csv",
        soft=f"{R}/analysis/{{experiment}}/gold_{{gold}}/soft_alignments.parquet",
    log:
        f"{R}/logs/kobayashi2020/aer_{{experiment}}_gold_{{gold}}.log",
    benchmark:
        f"{R}/benchmarks/kobayashi2020/aer_{{experiment}}_gold_{{gold}}.tsv"
    wildcard_constraints:
        gold="|".join(KOBA_GOLD) if KOBA_GOLD else "(?!)",
    conda:
        ATTNREPRO_ENV
    threads: config["threads"]
    params:
        torch_threads=config["threads"],
        index_base=lambda wc: gold_set(wc).get("index_base", 0),
        out_dir=lambda wc, output: Path(output.aer).parent,
    shell:
        "attnrepro kobayashi2020 aer-gold --models {input.models:q} --vocab {input.vocab:q} --source {input.source:q}"
        " --target {input.target:q} --alignment {input.alignment:q} --index-base {params.index_base:q}"
        " --key kobayashi2020_aer.gold.{wildcards.gold:q} --out-dir {params.out_dir:q} --threads {params.torch_threads:q} > {log:q} 2>&1"


# Fig. 7, Table 3 (the aer.csv of every scored experiment and gold set) and Fig. 8 (one example sentence pair's
# soft alignments per scored experiment or gold set, layer 2 or the model's last, from the soft_alignments.parquet
# the two AER rules write beside aer.csv), in the figure's order: experiments, then gold sets
rule kobayashi2020_nmt_figure:
    input:
        lambda wc: list(kobayashi_scored_tables(wc).values()),
    output:
        png=report(
            f"{R}/figures/kobayashi2020/{{name}}.png",
            caption="../report/kobayashi2020_nmt.rst",
            category="Kobayashi et al. 2020",
            subcategory="Transformer alignments",
            labels={"figure": "{name}"},
        ),
        pdf=f"{R}/figures/kobayashi2020/{{name}}.pdf",
        csv=f"{R}/figures/kobayashi2020/{{name}}.csv",
    log:
        f"{R}/logs/kobayashi2020/{{name}}.log",
    benchmark:
        f"{R}/benchmarks/kobayashi2020/{{name}}.tsv"
    wildcard_constraints:
        name="|".join(KOBAYASHI_SCORED_FIGURES),
    conda:
        ATTNREPRO_ENV
    params:
        inputs=lambda wc: json.dumps({"tables": kobayashi_scored_tables(wc)}),  # in order, not sorted
        caption=figure_caption("kobayashi2020"),
        dpi=KOBA.get("dpi", 150),
    shell:
        "attnrepro figure kobayashi2020 {wildcards.name:q} --inputs-json {params.inputs:q}"
        " --png {output.png:q} --pdf {output.pdf:q} --csv {output.csv:q} --dpi {params.dpi:q} > {log:q} 2>&1"


# Table 3's fast_align row measured, not quoted (§5): a statistical aligner (eflomal, the optional extra `aligner`)
# fitted on the training text of a gold set's corpus plus the gold sentence pairs, as Zenkel et al. ran the
# fast_align whose AER the paper quotes, scored on the gold pairs; only for gold sets that name a corpus (the paper
# config). Without eflomal the job stops with the wrapper's error naming the install command.
ALIGNER_GOLD = layout.aligner_gold_sets(config)


rule kobayashi2020_aligner:
    input:
        train=lambda wc: f"{R}/data/{ALIGNER_GOLD[wc.gold]}/train.parquet",
        source=lambda wc: f"{R}/data/{ALIGNER_GOLD[wc.gold]}/gold.src",
        target=lambda wc: f"{R}/data/{ALIGNER_GOLD[wc.gold]}/gold.tgt",
        alignment=lambda wc: f"{R}/data/{ALIGNER_GOLD[wc.gold]}/gold.talp",
    output:
        table=f"{R}/analysis/aligner/{{gold}}/aligner_aer.csv",
        links=f"{R}/analysis/aligner/{{gold}}/links_forward.talp",
    log:
        f"{R}/logs/kobayashi2020/aligner_{{gold}}.log",
    benchmark:
        f"{R}/benchmarks/kobayashi2020/aligner_{{gold}}.tsv"
    wildcard_constraints:
        gold="|".join(ALIGNER_GOLD) if ALIGNER_GOLD else "(?!)",
    conda:
        ATTNREPRO_ENV
    threads: 3  # eflomal's three samplers (its default), one process each
    resources:
        **needs("kobayashi2020_aligner"),
    params:
        out_dir=lambda wc, output: Path(output.table).parent,
    shell:
        "attnrepro kobayashi2020 aligner --train {input.train:q} --source {input.source:q} --target {input.target:q}"
        " --alignment {input.alignment:q} --index-base 0 --key kobayashi2020_aer.gold.{wildcards.gold:q}"
        " --n-samplers 3 --out-dir {params.out_dir:q} > {log:q} 2>&1"


rule kobayashi2020_aligner_gap:
    input:
        summary=f"{R}/analysis/{{experiment}}/gold_{{gold}}/aer_summary.csv",
        aligner=f"{R}/analysis/aligner/{{gold}}/aligner_aer.csv",
    output:
        f"{R}/analysis/{{experiment}}/gold_{{gold}}/aligner_gap.csv",
    log:
        f"{R}/logs/kobayashi2020/aligner_gap_{{experiment}}_{{gold}}.log",
    benchmark:
        f"{R}/benchmarks/kobayashi2020/aligner_gap_{{experiment}}_{{gold}}.tsv"
    wildcard_constraints:
        gold="|".join(ALIGNER_GOLD) if ALIGNER_GOLD else "(?!)",
    conda:
        ATTNREPRO_ENV
    shell:
        "attnrepro kobayashi2020 aligner-gap --aer-summary {input.summary:q} --aligner {input.aligner:q}"
        " --out {output:q} > {log:q} 2>&1"
