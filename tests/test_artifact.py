"""The paper artifact (archive + verify), claims.md, and partial reruns that stay partial (smoke scale)."""

import shutil
import tarfile

import pytest
import yaml

from attnrepro.artifact import format_manifest, manifest, parse_manifest, verify
from attnrepro.cli import main

from attnrepro.aitken2021.panels import PANELS
from conftest import job_counts, snakemake

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def artifact(smoke_run, tmp_path_factory):
    work, _ = smoke_run
    snakemake("results/artifact.verified", "--cores", "1", "--configfile", "smoke.yaml", cwd=work, timeout=300)
    unpacked = tmp_path_factory.mktemp("unpacked")
    with tarfile.open(work / "results" / "artifact.tar.gz") as tar:
        tar.extractall(unpacked, filter="data")
    return work, unpacked / "artifact"


def test_artifact_holds_code_config_environment_results_and_provenance(artifact):
    import json

    _, root = artifact
    for name in ("code.tar", "config.yaml", "environment.txt", "provenance.json", "MANIFEST.sha256",
                 "results/claims.csv", "results/claims.md", "results/claims_by_claim.csv",
                 "results/figures/aitken2021/fig2a.png",
                 "results/figures/aitken2021/fig2b.pdf", "results/models/aed_gru_one_to_one/s0-1/metrics.csv"):
        assert (root / name).is_file(), name
    assert not list(root.rglob("*.parquet"))  # activations only when the config asks
    assert yaml.safe_load((root / "config.yaml").read_text())["seeds"] == [0, 1]
    assert "torch==" in (root / "environment.txt").read_text()
    prov = json.loads((root / "provenance.json").read_text())
    assert len(prov["git_commit"]) == 40 and isinstance(prov["git_dirty"], bool)
    jobs = {j["job"] for j in prov["jobs"]}
    assert "train/aed_gru_one_to_one/s0-1" in jobs and all(j["start"] <= j["end"] for j in prov["jobs"])
    with tarfile.open(root / "code.tar") as code:
        assert "Snakefile" in code.getnames()


def test_verify_passes_then_fails_after_one_changed_byte(artifact, tmp_path):
    _, root = artifact
    copy = tmp_path / "artifact"
    shutil.copytree(root, copy)
    assert verify(copy) == []
    assert main(["verify", str(copy)]) == 0
    fig = copy / "results" / "figures" / "aitken2021" / "fig2a.png"
    data = bytearray(fig.read_bytes())
    data[len(data) // 2] ^= 0x01
    fig.write_bytes(bytes(data))
    assert verify(copy) == ["changed: results/figures/aitken2021/fig2a.png"]
    assert main(["verify", str(copy)]) == 2
    (copy / "extra.txt").write_text("x")
    (copy / "config.yaml").unlink()
    assert set(verify(copy)) == {"changed: results/figures/aitken2021/fig2a.png", "missing: config.yaml",
                                 "not in manifest: extra.txt"}


def test_verify_target_checks_the_tarball(artifact):
    work, _ = artifact
    assert "every file matches" in (work / "results" / "artifact.verified").read_text()


def test_manifest_roundtrip(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f.txt").write_text("hello")
    entries = manifest(tmp_path)
    assert entries == {"a/f.txt": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}
    assert parse_manifest(format_manifest(entries), tmp_path / "m") == entries


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
    assert job_counts(proc.stdout) == {"figure_aitken2021": len(PANELS), "all": 1}


def test_changing_training_reruns_that_experiment_downstream_only(smoke_run):
    work, _ = smoke_run
    proc = _changed_config(work, lambda c: c["experiments"]["ao_qkv_one_to_one"].update(train={"steps": 30}))
    counts = job_counts(proc.stdout)
    # its figures: fig2c/d (fig2 ao) and fig5a/b (shares, offsets)
    assert counts == {"train": 1, "export": 1, "analyze": 1, "figure_aitken2021": 4, "claims": 1, "claims_html": 1,
                      "all": 1}, \
        proc.stdout[-3000:]
    assert "results/models/aed_gru_one_to_one" not in proc.stdout
