"""Do two runs of one config in two directories give the same bytes?

    python tools/byte_identical.py [--config config/smoke.yaml] [--cores 2] \
        [--out tools/results/byte_identical_smoke.json]

Runs the config from scratch in two fresh directories, one after the other, and compares the SHA-256 of every file
under the config's results root. Left out, and counted in the JSON: logs and benchmark files (they hold timings)
and ``checkpoints/`` (resume state that records elapsed time; no rule output, not packed in the artifact —
docs/failures.md). Exit status 1, naming each file, when any other file differs or exists in one run only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
from collections import Counter
from pathlib import Path

from runs import NOT_COMPARED, ROOT, digests, results_root, run_workflow


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="config/smoke.yaml")
    p.add_argument("--cores", type=int, default=2)
    p.add_argument("--out")
    args = p.parse_args()
    config = Path(args.config).resolve()
    root = results_root(config)
    runs, walls = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("a", "b"):
            work = Path(tmp) / name
            work.mkdir()
            walls.append(round(run_workflow(config, work, args.cores), 1))
            runs.append(digests(work / root))
    (a, skipped_a), (b, skipped_b) = runs
    differ = sorted(k for k in a.keys() & b.keys() if a[k] != b[k])
    only = sorted(a.keys() ^ b.keys())
    kinds = Counter(Path(rel).suffix or "(none)" for rel in a)
    out = {"benchmark": "byte_identical", "config": str(config.relative_to(ROOT)), "cores": args.cores,
           "wall_s": walls, "compared": len(a), "compared_by_suffix": dict(sorted(kinds.items())),
           "identical": len(a) - len(differ) - len(a.keys() - b.keys()), "differ": differ, "in_one_run_only": only,
           "left_out": {"dirs": list(NOT_COMPARED), "files": [skipped_a, skipped_b]},
           "machine": platform.machine(), "cpu_count": os.cpu_count()}
    name = args.out or f"tools/results/byte_identical_{config.stem}.json"
    Path(name).write_text(json.dumps(out, indent=2) + "\n")
    for rel in differ + only:
        print(f"differs: {rel}", file=sys.stderr)
    print(f"{out['identical']} of {len(a)} files identical; {len(differ)} differ; {len(only)} in one run only")
    return 1 if differ or only else 0


if __name__ == "__main__":
    sys.exit(main())
