"""The Snakemake workflow catalog's quality checks pass: `snakemake --lint` flags nothing (every rule has its log
and its conda environment, envs/attnrepro.yaml) under the default, smoke and paper configs, and `snakefmt --check .`
would reformat nothing (pyproject.toml's [tool.snakefmt]; `snakefmt .` formats)."""

import importlib.util
import subprocess
import sys

import pytest

from tests.helpers import ROOT, tool_env


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, env=tool_env(), capture_output=True, text=True,
                          timeout=600)


@pytest.mark.parametrize("config", [None, "config/smoke.yaml", "config/paper.yaml"])
def test_snakemake_lint_flags_nothing(config):
    out = run("snakemake", "--lint", *(["--configfile", config] if config else []))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Congratulations, your workflow is in a good condition!" in out.stdout + out.stderr


@pytest.mark.skipif(importlib.util.find_spec("snakefmt") is None,
                    reason="snakefmt is not installed (the lock, requirements.txt, pins it: make install)")
def test_snakefmt_would_reformat_nothing():
    out = run("snakefmt", "--check", ".")
    assert out.returncode == 0, f"run `snakefmt .` to format:\n{out.stdout}{out.stderr}"
