# The papers' own corpora (config key `corpora`): each file is downloaded once, verified by its SHA-256, then each
# corpus is prepared into results/data/<corpus>/ by the rule of its family. Downloads run where Snakemake runs
# (localrules: the login node of a cluster has the internet its compute nodes lack).


rule download:
    output:
        f"{R}/downloads/{{corpus}}/{{file}}",
    log:
        f"{R}/logs/download/{{corpus}}/{{file}}.log",
    benchmark:
        f"{R}/benchmarks/download/{{corpus}}/{{file}}.tsv"
    wildcard_constraints:
        corpus=corpus_pattern(),
    conda:
        ATTNREPRO_ENV
    params:
        url=lambda wc: corpus_file(wc)["url"],
        sha256=lambda wc: corpus_file(wc)["sha256"] or "null",
        options=download_options,
    shell:
        "attnrepro download --url {params.url:q} --sha256 {params.sha256:q} --out {output:q} {params.options:q} > {log:q} 2>&1"


rule prepare_pieces:
    input:
        corpus_downloads,
    output:
        train=f"{R}/data/{{corpus}}/train.parquet",
        valid=f"{R}/data/{{corpus}}/valid.parquet",
        test=f"{R}/data/{{corpus}}/test.parquet",
        vocab=f"{R}/data/{{corpus}}/vocab.json",
        spm=f"{R}/data/{{corpus}}/spm.model",
    log:
        f"{R}/logs/prepare/{{corpus}}.log",
    benchmark:
        f"{R}/benchmarks/prepare/{{corpus}}.tsv"
    wildcard_constraints:
        corpus=corpus_pattern("pieces"),
    conda:
        ATTNREPRO_ENV
    params:
        corpus=lambda wc: json_arg(config["corpora"][wc.corpus]),
    shell:
        f"attnrepro prepare --corpus-json {{params.corpus:q}} --raw-dir {R}/downloads/{{wildcards.corpus:q}}"
        f" --out-dir {R}/data/{{wildcards.corpus:q}} > {{log:q}} 2>&1"


rule prepare_words:
    input:
        corpus_downloads,
    output:
        train=f"{R}/data/{{corpus}}/train.parquet",
        valid=f"{R}/data/{{corpus}}/valid.parquet",
        test=f"{R}/data/{{corpus}}/test.parquet",
        vocab=f"{R}/data/{{corpus}}/vocab.json",
    log:
        f"{R}/logs/prepare/{{corpus}}.log",
    benchmark:
        f"{R}/benchmarks/prepare/{{corpus}}.tsv"
    wildcard_constraints:
        corpus=corpus_pattern("words"),
    conda:
        ATTNREPRO_ENV
    params:
        corpus=lambda wc: json_arg(config["corpora"][wc.corpus]),
    shell:
        f"attnrepro prepare --corpus-json {{params.corpus:q}} --raw-dir {R}/downloads/{{wildcards.corpus:q}}"
        f" --out-dir {R}/data/{{wildcards.corpus:q}} > {{log:q}} 2>&1"


# the gold word alignments a corpus's release carries (wmt16: the RWTH De-En set), tokenised like its sentences
rule prepare_gold:
    input:
        corpus_downloads,
    output:
        source=f"{R}/data/{{corpus}}/gold.src",
        target=f"{R}/data/{{corpus}}/gold.tgt",
        alignment=f"{R}/data/{{corpus}}/gold.talp",
    log:
        f"{R}/logs/prepare/{{corpus}}_gold.log",
    benchmark:
        f"{R}/benchmarks/prepare/{{corpus}}_gold.tsv"
    wildcard_constraints:
        corpus=gold_corpus_pattern(),
    conda:
        ATTNREPRO_ENV
    params:
        corpus=lambda wc: json_arg(config["corpora"][wc.corpus]),
    shell:
        f"attnrepro prepare-gold --corpus-json {{params.corpus:q}} --raw-dir {R}/downloads/{{wildcards.corpus:q}}"
        f" --out-dir {R}/data/{{wildcards.corpus:q}} > {{log:q}} 2>&1"


rule prepare_classification:
    input:
        corpus_downloads,
    output:
        train=f"{R}/data/{{corpus}}/train.parquet",
        valid=f"{R}/data/{{corpus}}/valid.parquet",
        test=f"{R}/data/{{corpus}}/test.parquet",
        vocab=f"{R}/data/{{corpus}}/vocab.json",
    log:
        f"{R}/logs/prepare/{{corpus}}.log",
    benchmark:
        f"{R}/benchmarks/prepare/{{corpus}}.tsv"
    wildcard_constraints:
        corpus=corpus_pattern("classification"),
    conda:
        ATTNREPRO_ENV
    params:
        corpus=lambda wc: json_arg(config["corpora"][wc.corpus]),
    shell:
        f"attnrepro prepare --corpus-json {{params.corpus:q}} --raw-dir {R}/downloads/{{wildcards.corpus:q}}"
        f" --out-dir {R}/data/{{wildcards.corpus:q}} > {{log:q}} 2>&1"


rule downloads:
    input:
        all_downloads(),


rule corpora:
    input:
        corpus_targets(),
