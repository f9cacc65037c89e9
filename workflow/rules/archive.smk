rule archive:
    input:
        final_targets(),
    output:
        "results/artifact.tar.gz",
    params:
        repo=workflow.basedir,
        config=json_arg(config),
        activations="--activations" if config["archive"]["activations"] else "",
    log:
        "results/logs/archive.log",
    shell:
        "attnrepro archive --repo {params.repo} --results results --config-json {params.config}"
        " {params.activations} --out {output} > {log} 2>&1"


rule verify:
    input:
        "results/artifact.tar.gz",
    output:
        "results/artifact.verified",
    log:
        "results/logs/verify.log",
    shell:
        "attnrepro verify {input} > {output} 2> {log}"
