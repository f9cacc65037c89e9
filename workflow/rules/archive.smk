# The paper artifact (attnrepro.archive.artifact, docs/artifact.md): a BagIt bag holding a Workflow Run RO-Crate of
# exactly the jobs this config runs, packed reproducibly; and its check.


localrules:
    archive_jobs,
    report_zip,


rule report_zip:
    input:
        final_targets(),
    output:
        f"{R}/report.zip",
    log:
        f"{R}/logs/report_zip.log",
    benchmark:
        f"{R}/benchmarks/report_zip.tsv"
    conda:
        ATTNREPRO_ENV
    params:
        python=sys.executable,
        snakefile=workflow.main_snakefile,
        config=json_arg(config),
    # the report of this run (`snakemake --report`), read from the running workflow's own records: --nolock
    shell:
        "cfg=$(mktemp --suffix=.yaml) && trap 'rm -f $cfg' EXIT && printf '%s' {params.config:q} > $cfg"
        " && {params.python:q} -m snakemake --snakefile {params.snakefile:q} --directory . --configfile $cfg"
        " --nolock --report {output:q} > {log:q} 2>&1"


# a list too long for a shell line (thousands of jobs at paper scale): written by Snakemake itself
rule archive_jobs:
    input:
        final_targets(),
    output:
        f"{R}/artifact.jobs.json",
    log:
        f"{R}/logs/archive_jobs.log",
    benchmark:
        f"{R}/benchmarks/archive_jobs.tsv"
    params:
        # a param, so a config that adds or removes a job rewrites the list (and so the archive)
        jobs=lambda wc: workflow_jobs(final_targets() + [f"{R}/report.zip"]),
    run:
        write_jobs(params.jobs, output[0], log[0])


rule archive:
    input:
        final_targets(),
        f"{R}/report.zip",
        jobs=f"{R}/artifact.jobs.json",
    output:
        f"{R}/artifact.tar.gz",
    log:
        f"{R}/logs/archive.log",
    benchmark:
        f"{R}/benchmarks/archive.tsv"
    conda:
        ATTNREPRO_ENV
    params:
        repo=workflow.basedir,
        config=json_arg(config),
        include=[f"--{k}" for k in ("activations", "models", "analysis") if config["archive"].get(k)],
    shell:
        f"attnrepro archive --repo {{params.repo:q}} --results {R} --config-json {{params.config:q}}"
        " --jobs {input.jobs:q} {params.include:q} --out {output:q} > {log:q} 2>&1"


rule verify:
    input:
        f"{R}/artifact.tar.gz",
    output:
        f"{R}/artifact.verified",
    log:
        f"{R}/logs/verify.log",
    conda:
        ATTNREPRO_ENV
    shell:
        "attnrepro verify {input:q} > {output:q} 2> {log:q}"
