#!/usr/bin/env bash
# stop_slurm.sh - stop the daemons that start_slurm.sh started (listed in $SLURM_STARTED_FILE), by their pid
# files (each pid is checked against the expected process name first). Daemons it found already running are
# left alone.
set -u
STARTED=${SLURM_STARTED_FILE:-/run/attnrepro-slurm/started}
[ -s "$STARTED" ] || exit 0
log() { echo "[stop_slurm] $*" >&2; }
alive() {
  local pid
  [ -s "$1" ] || return 1
  pid=$(cat "$1")
  [ -d "/proc/$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]
}
stop() {  # stop PIDFILE COMM
  grep -qx "$2" "$STARTED" || return 0
  alive "$1" "$2" || return 0
  local pid; pid=$(cat "$1")
  log "stopping $2 ($pid)"
  kill "$pid"
  for ((i = 0; i < 60; i++)); do [ -d "/proc/$pid" ] || return 0; sleep 0.25; done
  log "$2 ($pid) ignored SIGTERM, sending SIGKILL"; kill -9 "$pid" 2>/dev/null
}
# cancel this private cluster's jobs so slurmstepd/job processes end cleanly
if grep -qx slurmctld "$STARTED" && alive /run/slurm/slurmctld.pid slurmctld; then
  jobs=$(squeue -h -o %i 2>/dev/null)
  if [ -n "$jobs" ]; then
    log "cancelling jobs: $(echo $jobs)"; scancel $jobs
    for ((i = 0; i < 40; i++)); do [ -z "$(squeue -h -t R,CG -o %i 2>/dev/null)" ] && break; sleep 0.25; done
  fi
fi
for name in $(grep '^slurmd@' "$STARTED"); do  # one slurmd per node
  node=${name#slurmd@}
  if alive "/run/slurm/slurmd-$node.pid" slurmd; then
    pid=$(cat "/run/slurm/slurmd-$node.pid"); log "stopping slurmd of $node ($pid)"; kill "$pid"
    for ((i = 0; i < 60; i++)); do [ -d "/proc/$pid" ] || break; sleep 0.25; done
  fi
done
stop /run/slurm/slurmctld.pid slurmctld
stop /run/slurm/slurmdbd.pid slurmdbd
stop /run/mysqld/mysqld.pid mariadbd
stop /run/munge/munged.pid munged
rm -f "$STARTED"
exit 0
