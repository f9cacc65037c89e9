# The paper artifact (attnrepro.artifact, docs/artifact.md): a BagIt bag holding a Workflow Run RO-Crate of
# exactly the jobs this config runs, packed reproducibly; and its check.


localrules:
    archive_jobs,
    report_zip,


rule report_zip:
    input:
        final_targets(),
    output:
        "results/report.zip",
    params:
        python=sys.executable,
        snakefile=workflow.main_snakefile,
        config=json_arg(config),
    log:
        "results/logs/report_zip.log",
    benchmark:
        "results/benchmarks/report_zip.tsv"
    # the report of this run (`snakemake --report`), read from the running workflow's own records: --nolock
    shell:
        "cfg=$(mktemp --suffix=.yaml) && trap 'rm -f $cfg' EXIT && printf '%s' {params.config} > $cfg"
        " && {params.python} -m snakemake --snakefile {params.snakefile} --directory . --configfile $cfg"
        " --nolock --report {output} > {log} 2>&1"


rule archive_jobs:
    input:
        final_targets(),
    output:
        "results/artifact.jobs.json",
    params:
        # a param, so a config that adds or removes a job rewrites the list (and so the archive)
        jobs=lambda wc: workflow_jobs(final_targets() + ["results/report.zip"]),
    log:
        "results/logs/archive_jobs.log",
    benchmark:
        "results/benchmarks/archive_jobs.tsv"
    # a list too long for a shell line (thousands of jobs at paper scale): written by Snakemake itself
    run:
        write_jobs(params.jobs, output[0], log[0])


rule archive:
    input:
        final_targets(),
        "results/report.zip",
        jobs="results/artifact.jobs.json",
    output:
        "results/artifact.tar.gz",
    params:
        repo=workflow.basedir,
        config=json_arg(config),
        include=" ".join(f"--{k}" for k in ("activations", "models", "analysis") if config["archive"].get(k)),
    log:
        "results/logs/archive.log",
    benchmark:
        "results/benchmarks/archive.tsv"
    shell:
        "attnrepro archive --repo {params.repo} --results results --config-json {params.config}"
        " --jobs {input.jobs} {params.include} --out {output} > {log} 2>&1"


rule verify:
    input:
        "results/artifact.tar.gz",
    output:
        "results/artifact.verified",
    log:
        "results/logs/verify.log",
    shell:
        "attnrepro verify {input} > {output} 2> {log}"
