"""The artifact's provenance as a Workflow Run RO-Crate (https://w3id.org/ro/wfrun/workflow/0.5): the
``ro-crate-metadata.json`` at the root of the bag's payload, written with the ``rocrate`` library.

What it says: the workflow (``code/Snakefile`` at its git commit) is the crate's main entity and the instrument of
one CreateAction for the whole run, whose object is the resolved config and whose results are the claims table
first (the main result), then the other final products; every job of the run is a CreateAction of its own, with
its rule as instrument, the packed files it read and wrote, its start and end, and where it ran (host, Slurm job,
device, peak memory, torch and CUDA) — taken from the record the job wrote into its own log on the node that ran it
(:mod:`attnrepro.run.jobrecord`), else from Snakemake's benchmark file. The lock (``code/requirements.txt``) and the
packing environment's ``pip freeze`` describe the software.

The crate references only files the bag holds: a job's input or output that the artifact leaves out (activations;
models and analysis tables unless ``archive.models``/``archive.analysis``) is counted in ``unpackedFiles``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..run.jobrecord import iso_utc, read_records

CRATE_FILE = "ro-crate-metadata.json"
PROFILES = {"https://w3id.org/ro/wfrun/process/0.5": "Process Run Crate",
            "https://w3id.org/ro/wfrun/workflow/0.5": "Workflow Run Crate",
            "https://w3id.org/workflowhub/workflow-ro-crate/1.0": "Workflow RO-Crate"}
WFRUN_CONTEXT = "https://w3id.org/ro/terms/workflow-run/context"
# what schema.org has no term for: where a job ran, recorded by the job itself
TERMS = {term: f"urn:attnrepro:terms#{term}"
         for term in ("host", "slurmJob", "device", "peakMemoryMB", "torchVersion", "cudaVersion", "unpackedFiles")}
WORKFLOW = "code/Snakefile"
DESCRIPTIONS = {"config.yaml": "the resolved config the workflow ran with",
                "environment.txt": "pip freeze of the environment that packed the artifact",
                "code/requirements.txt": "the lock: every package of the environment at an exact version (torch: "
                                         "code/requirements.in)"}
CLAIMS_DESCRIPTION = "the main result: per paper claim, our measurement, its interval and a verdict"
MAIN_RESULTS = ("claims.csv", "claims.md", "report.zip")  # under the config's results root


def job_id(job: dict) -> str:
    return "#job/" + "/".join([job["rule"]] + [f"{k}={v}" for k, v in sorted(job["wildcards"].items())])


def benchmark_record(path: str | None) -> dict | None:
    """A job's times and peak memory from Snakemake's benchmark file: its end is the file's mtime."""
    if not path or not Path(path).is_file():
        return None
    try:
        row = pd.read_csv(path, sep="\t").iloc[-1]
    except (pd.errors.ParserError, pd.errors.EmptyDataError, IndexError, KeyError):
        return None
    end = Path(path).stat().st_mtime
    seconds, rss = pd.to_numeric(row[["s", "max_rss"]], errors="coerce")  # '-': a job too short to sample
    record = {"start": iso_utc(end - (0.0 if pd.isna(seconds) else seconds)), "end": iso_utc(end)}
    return record if pd.isna(rss) else {**record, "peak_rss_mb": float(rss)}


def job_provenance(job: dict) -> dict:
    """Where and when a job ran: its own record (its log), completed by its benchmark file."""
    own = next(filter(None, map(read_records, job.get("log", []))), None) or {}
    bench = benchmark_record(job.get("benchmark")) or {}
    return {**bench, **{k: v for k, v in own.items() if v is not None}}


def run_crate(jobs: list[dict], packed: dict[str, int], *, commit: str, created: str, snakemake_version: str,
              version: str, title: str, results: str = "results"):
    """The crate (a ``rocrate.ROCrate``) describing ``jobs`` (:func:`workflow_jobs` in the workflow's common.smk)
    over ``packed`` ({payload path: size}); ``created`` (ISO time, the commit's) dates it so the same results
    give the same bytes."""
    from rocrate.rocrate import ROCrate

    crate = ROCrate()
    crate.metadata.extra_contexts.append(WFRUN_CONTEXT)
    crate.metadata.extra_terms.update(TERMS)
    root = crate.root_dataset
    root["name"] = title
    root["description"] = ("A reproduction run of the attnrepro workflow: code at its commit, resolved config, "
                           "environment, every job's provenance and its results; the claims table first.")
    root["datePublished"] = created
    root["version"] = version
    root["license"] = crate.add_jsonld({"@id": "https://spdx.org/licenses/MIT", "@type": "CreativeWork",
                                        "name": "MIT License"})
    for profile, name in PROFILES.items():
        root.append_to("conformsTo", crate.add_jsonld({"@id": profile, "@type": "CreativeWork", "name": name,
                                                      "version": profile.rsplit("/", 1)[1]}))
    workflow = crate.add_workflow(dest_path=WORKFLOW, main=True, lang="snakemake", lang_version=snakemake_version,
                                  properties={"name": "attnrepro", "version": commit,
                                              "contentSize": packed.get(WORKFLOW),
                                              "description": f"the Snakefile and everything under code/, git commit "
                                                             f"{commit}"})
    files = {p: crate.add_file(dest_path=p, properties={"contentSize": size})
             for p, size in sorted(packed.items()) if p != WORKFLOW}
    files[WORKFLOW] = workflow
    for path, text in {**DESCRIPTIONS, f"{results}/claims.csv": CLAIMS_DESCRIPTION}.items():
        if path in files:
            files[path]["description"] = text
    lock = files.get("code/requirements.txt")
    if lock is not None:
        workflow["softwareRequirements"] = lock
    rules = {}
    provenance = []
    for job in jobs:
        rule = rules.get(job["rule"]) or crate.add_jsonld(
            {"@id": f"#rule/{job['rule']}", "@type": "SoftwareApplication", "name": f"rule {job['rule']}",
             "isPartOf": {"@id": workflow.id}})
        rules[job["rule"]] = rule
        record = job_provenance(job)
        provenance.append(record)
        ins = [files[p] for p in job["input"] if p in files]
        outs = [files[p] for p in job["output"] + job["log"] + [job["benchmark"] or ""] if p in files]
        unpacked = sum(p not in files for p in job["input"] + job["output"])
        props = {"name": job_id(job)[len("#job/"):],
                 "actionStatus": {"@id": "http://schema.org/CompletedActionStatus"},
                 "startTime": record.get("start"), "endTime": record.get("end"), "host": record.get("host"),
                 "slurmJob": record.get("slurm_job"), "device": record.get("device"),
                 "peakMemoryMB": record.get("peak_rss_mb"), "torchVersion": record.get("torch"),
                 "cudaVersion": record.get("cuda"), "unpackedFiles": unpacked or None}
        crate.add_action(rule, identifier=job_id(job), object=ins, result=outs,
                         properties={k: v for k, v in props.items() if v is not None})
    starts = [r["start"] for r in provenance if r.get("start")]
    ends = [r["end"] for r in provenance if r.get("end")]
    mains = [f"{results}/{p}" for p in MAIN_RESULTS]
    main = [files[p] for p in mains if p in files]
    finals = [files[p] for p in sorted(files) if p.startswith(f"{results}/figures/") and p not in mains]
    run = crate.add_action(workflow, identifier="#run", object=[files[p] for p in ("config.yaml",) if p in files],
                           result=main + finals,
                           properties={"name": f"attnrepro run of commit {commit[:12]}: {len(jobs)} jobs",
                                       "actionStatus": {"@id": "http://schema.org/CompletedActionStatus"},
                                       **({"startTime": min(starts)} if starts else {}),
                                       **({"endTime": max(ends)} if ends else {})})
    root.append_to("mentions", run)
    return crate


def crate_problems(data: Path) -> list[str]:
    """What is wrong with the crate in ``data`` (a bag's payload): unreadable, not a workflow run crate, or naming
    a file the payload lacks."""
    from rocrate.rocrate import ROCrate

    data = Path(data)
    if not (data / CRATE_FILE).is_file():
        return [f"missing: data/{CRATE_FILE} (no RO-Crate in the payload)"]
    try:
        crate = ROCrate(data)
    except Exception as err:  # rocrate raises ValueError, KeyError, JSONDecodeError... on a malformed crate
        return [f"data/{CRATE_FILE}: not a readable RO-Crate ({type(err).__name__}: {err})"]
    problems = []
    if crate.mainEntity is None or "ComputationalWorkflow" not in crate.mainEntity.type:
        problems.append(f"data/{CRATE_FILE}: its main entity is not the workflow")
    profiles = {c.id for c in _as_list(crate.root_dataset.get("conformsTo"))}
    if "https://w3id.org/ro/wfrun/workflow/0.5" not in profiles:
        problems.append(f"data/{CRATE_FILE}: does not conform to the Workflow Run Crate profile")
    problems += [f"data/{CRATE_FILE}: names data/{e.id}, which the payload lacks"
                 for e in crate.data_entities if not (data / e.id).exists()]
    return problems


def _as_list(value) -> list:
    return value if isinstance(value, list) else [] if value is None else [value]
