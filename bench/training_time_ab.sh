#!/bin/bash
# Runs for bench/training_time.py: two versions of the code, or two configs, trained at once, one core
# each, so that both see the same load on this shared machine.
#
#   bench/training_time_ab.sh stage OLD_TREE OLD_CONFIG OLD_DIR NEW_TREE NEW_CONFIG NEW_DIR
#       the training stage of each (tree: a worktree of the code, `git worktree add /tmp/old REV`), then the three
#       K-head runs, which `--until` leaves unscheduled (Snakemake: "out of jobs ready")
#   bench/training_time_ab.sh pairs TREE LONG_CONFIG LONG_DIR SHORT_CONFIG SHORT_DIR RUN...
#       each Snell RUN retrained at both configs at once, job by job, in folders copied from a finished stage run
#       (their benchmarks and checkpoints are removed first, so nothing resumes); while the shorter of a pair has
#       ended and the longer has not, a copy of the shorter reruns in a scratch folder, so that neither runs beside
#       an idle core
set -euo pipefail
UNTIL="train snell2021_train snell2021_candidates snell2021_multihead"

root() {  # a config's results root (its key `results`)
  python -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1])).get("results", "results"))' "$1"
}

kheads() {
  local r; r=$(root "$1")
  echo "$r/models/snell2021/multihead_all_bad/model.pt $r/models/snell2021/multihead_one_good/model.pt" \
       "$r/models/snell2021/multihead_random/model.pt"
}

smk() {  # tree config dir args...: the tree's code and Snakefile on one core; targets before --configfile
  local tree=$1 config=$2 dir=$3; shift 3
  PYTHONPATH="$tree/src" snakemake --directory "$dir" --snakefile "$tree/Snakefile" --cores 1 "$@" \
    --configfile "$config" >> "$dir.log" 2>&1
}

one_stage() {  # tree config dir; --until stops with "out of jobs ready" before the K-head runs, which follow
  smk "$1" "$2" "$3" --until $UNTIL || true
  smk "$1" "$2" "$3" $(kheads "$2")
}

stage() {
  mkdir -p "$3" "$6"
  one_stage "$1" "$2" "$3" &
  local old=$!
  one_stage "$4" "$5" "$6"
  wait "$old"
}

pairs() {
  local tree=$1 long_cfg=$2 long_dir=$3 short_cfg=$4 short_dir=$5 scratch="$5.scratch"; shift 5
  local r; r=$(root "$short_cfg")
  [ "$r" = "$(root "$long_cfg")" ] || { echo "pairs: the two configs have different results roots" >&2; exit 2; }
  rm -rf "$long_dir/$r/"{benchmarks,checkpoints} "$short_dir/$r/"{benchmarks,checkpoints} "$scratch"
  cp -a "$short_dir" "$scratch"
  for run in "$@"; do
    local target="$r/models/snell2021/$run/model.pt"
    smk "$tree" "$long_cfg" "$long_dir" --force "$target" &
    local long=$!
    smk "$tree" "$short_cfg" "$short_dir" --force "$target"
    while kill -0 "$long" 2>/dev/null; do
      rm -rf "$scratch/$r/checkpoints"
      (smk "$tree" "$short_cfg" "$scratch" --force "$target" || true) &
      local fill=$!
      while kill -0 "$long" 2>/dev/null && kill -0 "$fill" 2>/dev/null; do sleep 1; done
      # Snakemake, stopped, waits on its job: stop the job (its cwd is the scratch folder), then Snakemake
      for pid in $(pgrep -f attnrepro || true); do
        [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$scratch" ] && kill -KILL "$pid" || true
      done
      pkill -KILL -f -- "--directory $scratch " || true
      wait "$fill" 2>/dev/null || true
    done
    wait "$long"
  done
}

case "${1:-}" in
  stage) shift; [ $# -eq 6 ] || { echo "stage needs OLD_TREE OLD_CONFIG OLD_DIR NEW_TREE NEW_CONFIG NEW_DIR" >&2; exit 2; }
         stage "$@" ;;
  pairs) shift; [ $# -ge 6 ] || { echo "pairs needs TREE LONG_CONFIG LONG_DIR SHORT_CONFIG SHORT_DIR RUN..." >&2; exit 2; }
         pairs "$@" ;;
  *) sed -n '2,14p' "$0" >&2; exit 2 ;;
esac
