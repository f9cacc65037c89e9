# What the download and prepare rules (download.smk) read: the pinned files of the papers' own corpora, the
# Kobayashi encoder and rank file, and each job's options. Functions only, as common.smk.

CORPORA = config.get("corpora") or {}
# every pinned set the download jobs fetch (the corpora, and the Kobayashi encoder and rank file where configured)
PINNED = {**CORPORA}
for _key in ("encoder", "ranks"):  # their names differ from the corpora's (config.check)
    _set = (config.get("kobayashi2020") or {}).get(_key)
    if _set:
        PINNED[_set["name"]] = _set


def corpus_pattern(family=None):
    """The corpus names (of one family; every pinned set when None) as a wildcard constraint; one that matches
    nothing when there are none."""
    names = [
        n
        for n, c in (PINNED if family is None else CORPORA).items()
        if family is None or cfglib.corpus_family(c) == family
    ]
    return "|".join(names) if names else "(?!)"


def corpus_file(wildcards):
    return PINNED[wildcards.corpus]["files"][wildcards.file]


def corpus_downloads(wildcards):
    return pinned_downloads(wildcards.corpus)


def pinned_downloads(name):
    return [f"{R}/downloads/{name}/{f}" for f in PINNED[name]["files"]]


def all_downloads():
    return [f"{R}/downloads/{name}/{f}" for name, c in PINNED.items() for f in c["files"]]


def corpus_targets():
    return [f"{R}/data/{name}/vocab.json" for name in CORPORA]


def download_options(wildcards):
    """--md5 (the publisher's digest, when no SHA-256 is pinned), --local-dir (offline mirror) and --allow-unpinned
    from the corpus file and the `downloads` block, as the words of a ``{params.options:q}`` list."""
    downloads = config.get("downloads") or {}
    options = []
    if corpus_file(wildcards).get("md5"):
        options += ["--md5", corpus_file(wildcards)["md5"]]
    if downloads.get("local_dir"):
        options += ["--local-dir", downloads["local_dir"], "--local-name", f"{wildcards.corpus}/{wildcards.file}"]
    if downloads.get("allow_unpinned"):
        options.append("--allow-unpinned")
    return options


localrules:
    download,
    downloads,
    corpora,
