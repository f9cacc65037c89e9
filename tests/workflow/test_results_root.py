"""Each config writes under its own results root (config key `results`), so no command run with one config
rebuilds or overwrites another's outputs: the shipped configs' roots differ and their outputs are
disjoint; a run of one config after another, in the same folder, leaves the first's files as they were and the
first config still up to date."""

import hashlib
import subprocess
import sys

import pytest
import yaml

from tests.helpers import ROOT, core_config, snakemake, tool_env

SHIPPED = ("config", "smoke", "paper", "paper_slice", "paper_slice_lstm", "paper_slice_ugrnn", "paper_slice_options")


def outputs(name: str, work) -> set[str]:
    """Every output of `all` under a shipped config (Snakemake's --summary of a dry run)."""
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "-n",
                           "--summary", "all", "--configfile", str(ROOT / "config" / f"{name}.yaml"),
                           "--directory", str(work)], cwd=ROOT, env=tool_env(), capture_output=True, text=True,
                          check=True)
    rows = [line.split("\t") for line in proc.stdout.splitlines() if "\t" in line]
    return {row[0] for row in rows if row[0] and row[0] != "output_file"}


def test_shipped_configs_have_distinct_roots_and_disjoint_outputs(tmp_path):
    roots = {name: yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())["results"] for name in SHIPPED}
    assert len(set(roots.values())) == len(roots), roots
    for a in roots.values():  # no root inside another's
        assert not any(b != a and (b + "/").startswith(a + "/") for b in roots.values()), roots
    seen = {}
    for name in SHIPPED:
        files = outputs(name, tmp_path / name)
        assert files and all(f.startswith(roots[name] + "/") for f in files), name
        for other, theirs in seen.items():
            assert not files & theirs, (name, other, sorted(files & theirs)[:3])
        seen[name] = files


def test_a_bad_root_is_refused_before_any_job(tmp_path):
    cfg = core_config()
    cfg["results"] = "../elsewhere"
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake("-n", "--configfile", "bad.yaml", cwd=tmp_path, check=False, own_root=True)
    assert proc.returncode != 0 and "results" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


def snapshot(root) -> dict[str, tuple[str, int]]:
    return {str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_running_a_second_config_leaves_the_first_ones_outputs_unchanged(tmp_path):
    """Two configs with the same experiment names and other settings (the README's demo after a paper run): the
    second trains its own model under its own root; the first's files keep their bytes and times, and the first
    config has nothing to rebuild."""
    first = core_config()
    first["experiments"] = {"aed_gru_one_to_one": first["experiments"]["aed_gru_one_to_one"]}
    first["figures"] = {"dpi": 60}
    first["seeds"], first["seeds_per_job"] = [0], 1
    first["train"].update(steps=20, eval_every=10, checkpoint_every=10)
    second = yaml.safe_load(yaml.safe_dump(first))
    first["results"], second["results"] = "results_first", "results_second"
    second["experiments"]["aed_gru_one_to_one"]["model"]["hidden"] += 4  # other settings, the same names
    (tmp_path / "first.yaml").write_text(yaml.safe_dump(first))
    (tmp_path / "second.yaml").write_text(yaml.safe_dump(second))
    target = "analysis/aed_gru_one_to_one/summary.csv"

    snakemake("--cores", "1", f"results_first/{target}", "--configfile", "first.yaml", cwd=tmp_path, own_root=True)
    before = snapshot(tmp_path / "results_first")
    assert f"{target}" in before and any(k.endswith("model.pt") for k in before)
    dry = snakemake("-n", "-p", "--configfile", "second.yaml", cwd=tmp_path, own_root=True).stdout
    assert "results_first/" not in dry  # the second config plans nothing under the first's root
    snakemake("--cores", "1", f"results_second/{target}", "--configfile", "second.yaml", cwd=tmp_path,
              own_root=True)
    assert (tmp_path / "results_second" / target).is_file()
    assert snapshot(tmp_path / "results_first") == before
    again = snakemake("-n", f"results_first/{target}", "--configfile", "first.yaml", cwd=tmp_path, own_root=True)
    assert "Nothing to be done" in again.stdout + again.stderr
