# The papers' own corpora (config key `corpora`): each file is downloaded once, verified by its SHA-256, then each
# corpus is prepared into results/data/<corpus>/ by the rule of its family. Downloads run where Snakemake runs
# (localrules: the login node of a cluster has the internet its compute nodes lack).


localrules:
    download,
    downloads,
    corpora,


rule download:
    output:
        R + "/downloads/{corpus}/{file}",
    wildcard_constraints:
        corpus=corpus_pattern(),
    params:
        url=lambda wc: shlex.quote(corpus_file(wc)["url"]),
        sha256=lambda wc: corpus_file(wc)["sha256"] or "null",
        options=download_options,
    log:
        R + "/logs/download/{corpus}/{file}.log",
    benchmark:
        R + "/benchmarks/download/{corpus}/{file}.tsv"
    shell:
        "attnrepro download --url {params.url} --sha256 {params.sha256} --out {output} {params.options} > {log} 2>&1"


rule prepare_pieces:
    input:
        corpus_downloads,
    output:
        train=R + "/data/{corpus}/train.parquet",
        valid=R + "/data/{corpus}/valid.parquet",
        test=R + "/data/{corpus}/test.parquet",
        vocab=R + "/data/{corpus}/vocab.json",
        spm=R + "/data/{corpus}/spm.model",
    wildcard_constraints:
        corpus=corpus_pattern("pieces"),
    params:
        corpus=lambda wc: json_arg(config["corpora"][wc.corpus]),
    log:
        R + "/logs/prepare/{corpus}.log",
    benchmark:
        R + "/benchmarks/prepare/{corpus}.tsv"
    shell:
        "attnrepro prepare --corpus-json {params.corpus} --raw-dir " + R + "/downloads/{wildcards.corpus}"
        " --out-dir " + R + "/data/{wildcards.corpus} > {log} 2>&1"


rule prepare_words:
    input:
        corpus_downloads,
    output:
        train=R + "/data/{corpus}/train.parquet",
        valid=R + "/data/{corpus}/valid.parquet",
        test=R + "/data/{corpus}/test.parquet",
        vocab=R + "/data/{corpus}/vocab.json",
    wildcard_constraints:
        corpus=corpus_pattern("words"),
    params:
        corpus=lambda wc: json_arg(config["corpora"][wc.corpus]),
    log:
        R + "/logs/prepare/{corpus}.log",
    benchmark:
        R + "/benchmarks/prepare/{corpus}.tsv"
    shell:
        "attnrepro prepare --corpus-json {params.corpus} --raw-dir " + R + "/downloads/{wildcards.corpus}"
        " --out-dir " + R + "/data/{wildcards.corpus} > {log} 2>&1"


rule prepare_classification:
    input:
        corpus_downloads,
    output:
        train=R + "/data/{corpus}/train.parquet",
        valid=R + "/data/{corpus}/valid.parquet",
        test=R + "/data/{corpus}/test.parquet",
        vocab=R + "/data/{corpus}/vocab.json",
    wildcard_constraints:
        corpus=corpus_pattern("classification"),
    params:
        corpus=lambda wc: json_arg(config["corpora"][wc.corpus]),
    log:
        R + "/logs/prepare/{corpus}.log",
    benchmark:
        R + "/benchmarks/prepare/{corpus}.tsv"
    shell:
        "attnrepro prepare --corpus-json {params.corpus} --raw-dir " + R + "/downloads/{wildcards.corpus}"
        " --out-dir " + R + "/data/{wildcards.corpus} > {log} 2>&1"


rule downloads:
    input:
        all_downloads(),


rule corpora:
    input:
        corpus_targets(),
