"""The paper artifact (a BagIt bag holding a Workflow Run RO-Crate, packed reproducibly), claims.md, and partial
reruns that stay partial (smoke scale)."""

import hashlib
from collections import Counter
import json
import shutil
import subprocess
import sys
import tarfile

import pytest
import yaml

from attnrepro.archive.artifact import unpack, verify
from attnrepro.cli import main

from attnrepro.aitken2021.panels import FIGURES as AITKEN_FIGURES
from tests.helpers import ROOT, job_counts, snakemake, tool_env

pytestmark = pytest.mark.slow
FIGURE_RULES = {"figure_aitken2021", "snell2021_figure"}


@pytest.fixture(scope="module")
def artifact(smoke_run, tmp_path_factory):
    work, _ = smoke_run
    snakemake("results/artifact.verified", "--cores", "1", "--configfile", "smoke.yaml", cwd=work, timeout=300)
    unpacked = tmp_path_factory.mktemp("unpacked")
    return work, unpack(work / "results" / "artifact.tar.gz", unpacked)


def _archive(artifact, out, *flags):
    """`attnrepro archive` as the archive rule ran it (the resolved config that the artifact holds), in the smoke
    run's folder."""
    work, root = artifact
    cfg = json.dumps(yaml.safe_load((root / "data" / "config.yaml").read_text()))
    cmd = [sys.executable, "-m", "attnrepro.cli", "archive", "--repo", str(ROOT), "--results", "results",
           "--config-json", cfg, "--jobs", "results/artifact.jobs.json", "--out", str(out), *flags]
    proc = subprocess.run(cmd, cwd=work, env=tool_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def _sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_artifact_is_a_bag_with_a_front_page_code_config_environment_and_results(artifact):
    _, root = artifact
    for name in ("README.md", "LICENSE", "CITATION.cff", "bagit.txt", "bag-info.txt", "manifest-sha256.txt",
                 "tagmanifest-sha256.txt", "data/ro-crate-metadata.json", "data/code/Snakefile",
                 "data/code/requirements.txt", "data/config.yaml", "data/environment.txt", "data/results/claims.csv",
                 "data/results/claims.md", "data/results/claims_by_claim.csv",
                 "data/results/report.zip", "data/results/figures/aitken2021/fig2a.png",
                 "data/results/figures/aitken2021/fig2b.pdf", "data/results/models/aed_gru_one_to_one/s0-1/metrics.csv"):
        assert (root / name).is_file(), name
    assert not list(root.rglob("*.parquet")) and not list(root.rglob("model.pt"))  # only when the config asks
    assert yaml.safe_load((root / "data" / "config.yaml").read_text())["seeds"] == [0, 1]
    assert "torch==" in (root / "data" / "environment.txt").read_text()
    readme = (root / "README.md").read_text()
    for words in ("bagit.py --validate artifact", "Aitken et al. 2021", "Snell et al. 2021", "Kobayashi et al. 2020",
                  "data/results/claims.md", "## How to redraw a figure", "## How to rerun it"):
        assert words in readme, words
    assert (root / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    with __import__("zipfile").ZipFile(root / "data" / "results" / "report.zip") as report:
        assert any(n.endswith("report.html") for n in report.namelist())


def test_bagit_validator_passes_then_fails_after_one_changed_byte(artifact, tmp_path):
    _, root = artifact
    copy = tmp_path / "artifact"
    shutil.copytree(root, copy)
    bagit_py = [sys.executable, "-m", "bagit", "--validate", str(copy)]
    assert subprocess.run(bagit_py, capture_output=True).returncode == 0
    assert verify(copy) == [] and main(["verify", str(copy)]) == 0
    fig = copy / "data" / "results" / "figures" / "aitken2021" / "fig2a.png"
    data = bytearray(fig.read_bytes())
    data[len(data) // 2] ^= 0x01
    fig.write_bytes(bytes(data))
    proc = subprocess.run(bagit_py, capture_output=True, text=True)
    assert proc.returncode != 0 and "fig2a.png" in proc.stderr
    problems = verify(copy)
    assert len(problems) == 1 and "data/results/figures/aitken2021/fig2a.png sha256 validation failed" in problems[0]
    assert main(["verify", str(copy)]) == 2


def test_crate_parses_with_rocrate_and_lists_every_job_of_the_run(artifact, smoke_run):
    from rocrate.rocrate import ROCrate

    work, root = artifact
    _, dry = smoke_run
    crate = ROCrate(root / "data")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    workflow = crate.mainEntity
    assert workflow.id == "code/Snakefile" and workflow["version"] == commit.strip()
    jobs = [e for e in crate.contextual_entities if e.id.startswith("#job/")]
    assert all(e.type == "CreateAction" for e in jobs)
    per_rule = Counter(e["instrument"]["name"].removeprefix("rule ") for e in jobs)
    expected = {r: n for r, n in job_counts(dry).items() if r != "all"} | {"report_zip": 1}
    assert per_rule == expected
    for e in jobs:  # every job says where and when it ran: on this machine, on the CPU
        assert e["startTime"] <= e["endTime"] and e["peakMemoryMB"] > 0, e.id
    train = next(e for e in jobs if e.id == "#job/train/chunk=s0-1/experiment=aed_gru_one_to_one")
    assert train["host"] == __import__("platform").node() and train["device"] == "cpu" and train["torchVersion"]
    assert "results/models/aed_gru_one_to_one/s0-1/metrics.csv" in [r.id for r in train["result"]]
    run = crate.get("#run")
    assert run["instrument"] is workflow and run["object"][0].id == "config.yaml"
    assert run["result"][0].id == "results/claims.csv"  # the main result
    profiles = {p.id for p in crate.root_dataset["conformsTo"]}
    assert "https://w3id.org/ro/wfrun/workflow/0.5" in profiles


def test_two_builds_of_the_same_results_have_the_same_bytes(artifact, tmp_path):
    work, _ = artifact
    first = _archive(artifact, tmp_path / "first.tar.gz")
    second = _archive(artifact, tmp_path / "second.tar.gz")
    assert _sha256(first) == _sha256(second) == _sha256(work / "results" / "artifact.tar.gz")
    with tarfile.open(first) as tar:
        infos = tar.getmembers()
    assert len({(m.mtime, m.uid, m.gid, m.uname) for m in infos}) == 1
    assert first.read_bytes()[4:8] == b"\0\0\0\0"  # no timestamp in the gzip header


def test_a_figure_of_each_paper_redraws_from_the_unpacked_artifact_without_training(artifact, tmp_path):
    work, _ = artifact
    packed = _archive(artifact, tmp_path / "full.tar.gz", "--models", "--analysis")
    fresh = tmp_path / "fresh"
    data = unpack(packed, fresh) / "data"
    assert verify(data.parent) == []
    assert list(data.glob("results/models/**/model.pt")) and list(data.glob("results/analysis/**/*.parquet"))
    # one figure of each paper the smoke config draws (Kobayashi et al.'s: tests/unit/kobayashi2020/test_kobayashi.py)
    figures = [sorted(data.glob(f"results/figures/{paper}/*.png"))[0].relative_to(data).as_posix()
               for paper in ("aitken2021", "snell2021")]
    args = ("--snakefile", "code/Snakefile", "--configfile", "config.yaml", "--cores", "1")
    for figure in figures:
        proc = snakemake(*args, "-n", "-f", figure, cwd=data)
        counts = job_counts(proc.stdout)
        # the figure's own job and nothing before it: no training, export or analysis
        assert list(counts.values()) == [1] and next(iter(counts)) in FIGURE_RULES, (figure, counts)
    target = data / figures[0]
    before = target.stat().st_mtime_ns
    snakemake(*args, "-f", figures[0], cwd=data, timeout=300)
    assert target.stat().st_mtime_ns != before


def test_claims_markdown_summarises(smoke_run):
    work, _ = smoke_run
    md = (work / "results" / "claims.md").read_text()
    assert "The papers' claims:" in md and "one_to_one_temporal_alignment" in md
    assert "## One verdict per claim" in md and "The papers' claim rows:" in md
    assert "[fig2a.png](figures/aitken2021/fig2a.png)" in md
    assert "Σ\\|nine terms of Eq. 3\\|" in md  # pipes inside a cell are escaped


def _changed_config(work, change):
    cfg = yaml.safe_load((work / "smoke.yaml").read_text())
    change(cfg)
    path = work / "changed.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return snakemake("-n", "--configfile", "changed.yaml", cwd=work)


def test_changing_a_plot_parameter_reruns_only_the_figure(smoke_run):
    work, _ = smoke_run
    proc = _changed_config(work, lambda c: c["figures"]["aitken2021"]["fig2"].update(reversed="aed_gru_sort"))
    assert job_counts(proc.stdout) == {"figure_aitken2021": 1, "all": 1}
    proc = _changed_config(work, lambda c: c["figures"].update(dpi=120))
    assert job_counts(proc.stdout) == {"figure_aitken2021": len(AITKEN_FIGURES), "all": 1}


def test_changing_training_reruns_that_experiment_downstream_only(smoke_run):
    work, _ = smoke_run
    proc = _changed_config(work, lambda c: c["experiments"]["ao_qkv_one_to_one"].update(train={"steps": 30}))
    counts = job_counts(proc.stdout)
    # its figures: fig2c/d (fig2 ao) and fig5a/b (shares, offsets)
    assert counts == {"train": 1, "export": 1, "analyze": 1, "figure_aitken2021": 4, "claims": 1, "claims_html": 1,
                      "all": 1}, \
        proc.stdout[-3000:]
    assert "results/models/aed_gru_one_to_one" not in proc.stdout
