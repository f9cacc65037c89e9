"""Did a refactor change the results? The same config's results before and after it, file by file.

Run the workflow in two clones (``snakemake --cores 2 --configfile config/smoke.yaml``), then

    python tools/move_identity.py OLD_CLONE NEW_CLONE --config config/smoke.yaml

Compares every file under the config's results root (its ``results`` key) by SHA-256. Logs, benchmark TSVs and
PDFs carry times and dates, so they are counted apart; checkpoints and models (``*.pt``) are compared tensor by
tensor, leaving out their wall-clock ``seconds``. Writes ``tools/results/move_identity_<config>.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

import torch
from runs import digests, results_root

ROOT = Path(__file__).resolve().parents[1]
TIMED = (".log", ".pdf")  # hold a date or a duration by design


def leaves(obj, prefix=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from leaves(v, f"{prefix}/{k}")
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from leaves(v, f"{prefix}[{i}]")
    else:
        yield prefix, obj


def same_weights(a: Path, b: Path) -> bool:
    """Equal keys, tensors and values, but the wall-clock ``seconds`` a checkpoint records."""
    x = dict(leaves(torch.load(a, map_location="cpu", weights_only=False)))
    y = dict(leaves(torch.load(b, map_location="cpu", weights_only=False)))
    if set(x) != set(y):
        return False
    for key, u in x.items():
        v = y[key]
        if key.endswith("seconds"):
            continue
        if isinstance(u, torch.Tensor):
            if not (isinstance(v, torch.Tensor) and torch.equal(u, v)):
                return False
        elif u != v and u == u:  # NaN equals NaN here
            return False
    return True


def compare(old: Path, new: Path) -> dict:
    """``old`` and ``new``: the two runs' results roots."""
    a, b = digests(old, skip=())[0], digests(new, skip=())[0]
    common = sorted(set(a) & set(b))
    differ = [f for f in common if a[f] != b[f]]
    timed = [f for f in differ if f.endswith(TIMED) or f.startswith("benchmarks/")]
    weights = [f for f in differ if f.endswith(".pt")]
    weights_differ = [f for f in weights if not same_weights(old / f, new / f)]
    rest = sorted(set(differ) - set(timed) - set(weights))
    by_kind = {}
    for f in common:
        if f not in timed:
            kind = Path(f).suffix or "(none)"
            by_kind.setdefault(kind, [0, 0])[f in rest or f in weights_differ] += 1
    return {"files_in_both": len(common), "byte_identical": len(common) - len(differ),
            "timed_files_differing": len(timed), "pt_differing_only_in_seconds": len(weights) - len(weights_differ),
            "pt_weights_differing": weights_differ, "other_files_differing": rest,
            "identical_and_differing_by_suffix": by_kind,
            "only_in_old": sorted(set(a) - set(b)), "only_in_new": sorted(set(b) - set(a))}


def commit(clone: Path) -> str:
    return subprocess.run(["git", "-C", str(clone), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("old", type=Path)
    p.add_argument("new", type=Path)
    p.add_argument("--config", type=Path, required=True, help="the config both ran, e.g. config/smoke.yaml")
    p.add_argument("--why", action="append", default=[], metavar="FILE=REASON",
                   help="the measured reason a file differs (relative to the results root); repeatable")
    args = p.parse_args()
    why = dict(w.split("=", 1) for w in args.why)
    label, root = args.config.stem, results_root(args.config)
    out = {"benchmark": "move_identity", "config": str(args.config), "old": commit(args.old), "new": commit(args.new),
           **compare(args.old / root, args.new / root)}
    out["why"] = {f: why[f] for f in out["other_files_differing"] if f in why}
    (ROOT / "tools" / "results" / f"move_identity_{label}.json").write_text(json.dumps(out, indent=1) + "\n")
    verdict = "identical" if not (out["pt_weights_differing"] or out["other_files_differing"]) else "DIFFERENT"
    lines = [f"# Results before ({out['old']}) and after ({out['new']}) the move, config {label}: {verdict}", "",
             f"- {out['files_in_both']} files in both; {out['byte_identical']} byte-identical",
             f"- {out['timed_files_differing']} differ as logs, PDFs and benchmark TSVs do (dates, durations)",
             f"- {out['pt_differing_only_in_seconds']} checkpoints/models differ only in their wall-clock seconds; "
             f"{len(out['pt_weights_differing'])} in weights",
             f"- other files differing: {out['other_files_differing'] or 'none'}",
             *[f"  - `{f}`: {reason}" for f, reason in out["why"].items()],
             f"- only before: {out['only_in_old'] or 'none'}; only after: {out['only_in_new'] or 'none'}", "",
             "| suffix | identical | differing |", "|---|---|---|"]
    lines += [f"| {k} | {v[0]} | {v[1]} |" for k, v in sorted(out["identical_and_differing_by_suffix"].items())]
    (ROOT / "tools" / "results" / f"move_identity_{label}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
