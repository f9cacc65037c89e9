"""The README's first command on a fresh clone: ``make smoke`` (install into a new ``.venv``, then the smoke
workflow), timed from nothing to the claims it prints (target: at most 5 minutes on 2 cores).

Usage: python bench/first_look.py [--keep DIR] [--out bench/results/first_look.json]
Clones this checkout's HEAD into DIR (temporary unless ``--keep`` names it; kept, it holds the run's
``results_smoke/`` for a later comparison, e.g. tools/move_identity.py), runs ``make install`` and then
``make smoke`` there, and records each one's wall time and what ``make smoke`` printed last.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], cwd: Path) -> tuple[float, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, done.stdout


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--keep", help="folder to clone into and keep (default: a temporary one)")
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "first_look.json"))
    args = p.parse_args()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=True).stdout.strip()
    load_before = os.getloadavg()
    with (contextlib.nullcontext(args.keep) if args.keep else tempfile.TemporaryDirectory()) as work:
        clone = Path(work).resolve() / "attnrepro"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        install_s, _ = timed(["make", "install"], clone)
        # make smoke's own install step finds the environment built: what is left is the workflow and its summary
        smoke_s, printed = timed(["make", "smoke"], clone)
        claims = (clone / "results_smoke" / "claims.md").exists()
    out = {"benchmark": "first_look", "command": "make smoke", "commit": commit, "cores": 2,
           "machine": f"{platform.machine()}, {os.cpu_count()} CPUs", "wall_s": round(install_s + smoke_s, 1),
           "install_s": round(install_s, 1), "smoke_s": round(smoke_s, 1), "claims_md_written": claims,
           "load_average_before": [round(x, 2) for x in load_before],
           "printed_last": printed.strip().splitlines()[-8:]}
    Path(args.out).write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
