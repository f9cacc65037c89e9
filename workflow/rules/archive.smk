# The paper artifact: exactly the products of the jobs this config runs (attnrepro.artifact), and its check.


localrules:
    archive_products,


rule archive_products:
    input:
        final_targets(),
    output:
        R + "/artifact.products",
    params:
        # a param, so a config that adds or removes a job rewrites the list (and so the archive)
        products=lambda wc: archived_products(),
    log:
        R + "/logs/archive_products.log",
    benchmark:
        R + "/benchmarks/archive_products.tsv"
    # a list too long for a shell line (thousands of paths at paper scale): written by Snakemake itself
    run:
        write_products(params.products, output[0], log[0])


rule archive:
    input:
        final_targets(),
        products=R + "/artifact.products",
    output:
        R + "/artifact.tar.gz",
    params:
        repo=workflow.basedir,
        config=json_arg(config),
        activations="--activations" if config["archive"]["activations"] else "",
    log:
        R + "/logs/archive.log",
    shell:
        "attnrepro archive --repo {params.repo} --results " + R + " --config-json {params.config}"
        " --products {input.products} {params.activations} --out {output} > {log} 2>&1"


rule verify:
    input:
        R + "/artifact.tar.gz",
    output:
        R + "/artifact.verified",
    log:
        R + "/logs/verify.log",
    shell:
        "attnrepro verify {input} > {output} 2> {log}"
