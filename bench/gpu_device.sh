#!/usr/bin/env bash
# The GPU lease's one command, run in the repository root of the device machine with the wheels of the
# packages its image lacks in .whl (snakemake and its plugins, jsonschema, bagit, rocrate, ...):
#
#   bash bench/gpu_device.sh    (OUT: the folder whose files come back; BUDGET: seconds, default 530;
#                               SKIP_INSTALL=1: the environment has everything, e.g. to try the script on a CPU)
#
# Stages, each with its own time limit inside BUDGET, most needed first:
#   1. install: the wheels, then the project (pip install --no-deps -e .)
#   2. the device tests (tests/unit/training/test_devices.py, CPU and CUDA) -> gpu_tests.log;
#      beside them, Snell et al.'s copy block of config/paper.yaml (20 seeds; 40 of 40, 40 of 60, the mixture,
#      the permutation function; learned and frozen-uniform; Table 2's copy row) through Snakemake on the GPU -> its
#      claims
#   3. alone on the GPU, the timings: bench/gpu.py measure, bench/stacked_training.py --device cuda,
#      bench/paper_cost.py measure --device cuda (every paper shape)
# Everything lands in $OUT/w and is packed into $OUT/gpu_run.tgz after every stage, so a lease that ends early
# still brings back what was done.
set -u
: "${OUT:?OUT must name the folder that comes back}"
START=$(date +%s)
DEADLINE=$((START + ${BUDGET:-530}))
W=$OUT/w
RUN=/tmp/run_paper
mkdir -p "$W"
export PYTHONUNBUFFERED=1 CUBLAS_WORKSPACE_CONFIG=:4096:8
left() { echo $((DEADLINE - $(date +%s))); }
say() { echo "$(date -u +%H:%M:%S) +$(($(date +%s) - START))s $*" | tee -a "$W/driver.log"; }
pack() {
    tar czf "$OUT/.gpu_run.tgz" -C "$W" . 2>/dev/null && mv "$OUT/.gpu_run.tgz" "$OUT/gpu_run.tgz"
}

say "stage 1: install"
[ -n "${SKIP_INSTALL:-}" ] || {
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl
    python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile -e . || {
        echo "editable install failed: the source tree on PYTHONPATH and a shell shim for the command instead"
        export PYTHONPATH=$PWD/src
        printf '#!/bin/sh\nexec python3 -c "import sys; from attnrepro.cli import main; sys.exit(main())" "$@"\n' \
            > /usr/local/bin/attnrepro && chmod +x /usr/local/bin/attnrepro
    }
    python3 -c "import attnrepro, torch, snakemake; print('attnrepro', attnrepro.__version__, 'torch', torch.__version__,
'CUDA', torch.version.cuda, torch.cuda.get_device_name(), 'snakemake', snakemake.__version__)"
    nvidia-smi
    python3 -m pip list 2>/dev/null | grep -iE '^(torch|numpy|pandas|pyarrow|scipy|snakemake|triton) '
} > "$W/install.log" 2>&1
say "install: rc $? ($(tail -n 1 "$W/install.log" | head -c 200))"
pack

say "stage 2: device tests beside the Snell copy block"
TARGETS=$(for r in copy_same copy_subset copy_mixture copy_permute copy_same_uniform copy_subset_uniform \
          copy_mixture_uniform table2; do echo results_paper/analysis/snell2021/$r/summary.csv; done)
rm -rf "$RUN"
( t0=$(date +%s)
  timeout $(( $(left) - 200 )) python3 -m snakemake $TARGETS --snakefile "$PWD/Snakefile" --directory "$RUN" \
      --configfile "$PWD/config/paper.yaml" --cores 40 --resources gpu=9 --keep-going > "$W/snell_block.log" 2>&1
  echo "snakemake rc $? wall $(( $(date +%s) - t0 )) s" >> "$W/snell_block.log" ) &
BLOCK=$!
timeout 200 python3 -m pytest tests/unit/training/test_devices.py -p no:cacheprovider -n 0 -v -rA \
    > "$W/gpu_tests.log" 2>&1
say "device tests: rc $? ($(tail -n 1 "$W/gpu_tests.log"))"
pack
wait $BLOCK
say "copy block: $(tail -n 1 "$W/snell_block.log")"
python3 studies/snell2021/snell_paper_claims.py --workdir "$RUN" --out-dir "$W" > "$W/snell_claims.log" 2>&1
say "copy claims: rc $? ($(tail -n 1 "$W/snell_claims.log"))"
python3 studies/snell2021/snell_paper_claims.py --workdir "$RUN" --out-dir "$W" --table2 >> "$W/snell_claims.log" 2>&1
say "Table 2's copy row: rc $?"
( cd "$RUN" && tar czf "$W/snell_run.tgz" results_paper/analysis results_paper/logs results_paper/benchmarks \
      $(ls results_paper/models/snell2021/*/metrics.csv 2>/dev/null) ) 2>> "$W/snell_claims.log"
pack

say "stage 3: timings, alone on the GPU"
timeout $(( $(left) < 110 ? $(left) : 110 )) python3 bench/gpu.py measure --out-dir "$W" > "$W/gpu_measure.log" 2>&1
say "gpu.py measure: rc $?"
pack
timeout $(( $(left) < 100 ? $(left) : 100 )) python3 bench/stacked_training.py --device cuda --seeds 20 --steps 10 \
    --repeats 3 --kernels eager --profile --threads 4 --out "$W/gpu_stacked_training.json" > "$W/stacked.log" 2>&1
say "stacked_training eager: rc $?"
pack
timeout $(( $(left) - 15 )) python3 bench/paper_cost.py measure --device cuda --snell-too --threads 4 \
    --out "$W/gpu_step_times.json" > "$W/paper_shapes.log" 2>&1
say "paper shapes: rc $? ($(grep -c s_per_step "$W/paper_shapes.log") timed)"
pack
