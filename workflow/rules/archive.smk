# The paper artifact: exactly the products of the jobs this config runs (attnrepro.artifact), and its check.


localrules:
    archive_products,


def job_products(targets):
    """Every output, log and benchmark of the jobs that build ``targets``, found by walking the rules as
    Snakemake's DAG does (producer of each file, its wildcards, its inputs). A file an earlier config left behind
    (a removed experiment, another seed group) is no product of any of these jobs."""
    seen, visited, products = set(), set(), set()
    todo = [str(t) for t in targets]
    while todo:
        path = todo.pop()
        if path in visited:
            continue
        visited.add(path)
        producer = next((r for r in workflow.rules if r.output and r.is_producer(path)), None)
        if producer is None:
            continue  # a source: a config or gold-alignment file
        wildcards = producer.get_wildcards(path)
        job = (producer.name, tuple(sorted(wildcards.items())))
        if job in seen:
            continue
        seen.add(job)
        products.update(map(str, producer.expand_output(wildcards)[0]))
        products.update(map(str, producer.expand_log(wildcards)))
        if producer.benchmark:
            products.add(str(producer.expand_benchmark(wildcards)))
        todo.extend(map(str, producer.expand_input(wildcards)[0]))
    return sorted(products)


def archived_products():
    from attnrepro.artifact import selected

    return selected(job_products(final_targets()), "results", config["archive"]["activations"])


rule archive_products:
    input:
        final_targets(),
    output:
        "results/artifact.products",
    params:
        # a param, so a config that adds or removes a job rewrites the list (and so the archive)
        products=lambda wc: archived_products(),
    log:
        "results/logs/archive_products.log",
    benchmark:
        "results/benchmarks/archive_products.tsv"
    run:
        # a list too long for a shell line (thousands of paths at paper scale); written by Snakemake itself
        Path(output[0]).write_text("".join(f"{p}\n" for p in params.products))
        Path(log[0]).write_text(f"{len(params.products)} files to archive\n")


rule archive:
    input:
        final_targets(),
        products="results/artifact.products",
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
        " --products {input.products} {params.activations} --out {output} > {log} 2>&1"


rule verify:
    input:
        "results/artifact.tar.gz",
    output:
        "results/artifact.verified",
    log:
        "results/logs/verify.log",
    shell:
        "attnrepro verify {input} > {output} 2> {log}"
