#!/usr/bin/env python3
"""Stand-in Slurm commands for tests that read what snakemake-executor-plugin-slurm submits, without a cluster.

Linked as sbatch, squeue, sacct, sacctmgr, sshare, sinfo, scontrol and scancel into a folder put first on PATH.
``sbatch`` appends its arguments as one JSON line to $FAKE_SLURM_DIR/sbatch.jsonl and answers a new job id; every
job then reads as COMPLETED to ``squeue``, but nothing ran, so its outputs are missing: Snakemake fails it, retries
it once (that attempt is recorded too) and gives up on it. The other commands answer what the plugin asks them (account, MinJobAge, partitions).
"""

import json
import os
import sys
from pathlib import Path

STATE = Path(os.environ["FAKE_SLURM_DIR"])
SUBMITTED = STATE / "sbatch.jsonl"


def jobs() -> list[str]:
    return [str(i + 1) for i in range(len(SUBMITTED.read_text().splitlines()))] if SUBMITTED.exists() else []


def main(command: str, args: list[str]) -> int:
    if command == "sbatch":
        with SUBMITTED.open("a") as f:
            f.write(json.dumps(args) + "\n")
        print(len(jobs()))
    elif command == "squeue":  # squeue --format='%i|%T' --states=all --noheader --name <run uuid>
        print("\n".join(f"{job}|COMPLETED" for job in jobs()))
    elif command in ("sacctmgr", "sshare"):
        print(os.environ.get("FAKE_SLURM_ACCOUNT", "testacct"))
    elif command == "scontrol":
        print("MinJobAge               = 300 sec\nMaxArraySize            = 1001")
    elif command == "sinfo":
        print("PARTITION\ncpu*\ngpu")
    # sacct (account guess, failure reasons) and scancel: nothing to say
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[0]).name, sys.argv[1:]))
