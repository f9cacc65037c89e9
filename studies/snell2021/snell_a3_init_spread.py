"""Snell et al. 2021, App. A.3 (claim ``proxy_flat_over_positions``; docs/deviations.md, Snell row 22): how much of
the bag-of-words proxy's spread over positions is its random start, by width.

For each ``--dims`` width, the A3 proxies of ``--config``'s snell2021 block (``copy_same_proxy``,
``copy_mixture_proxy``: Table 2's proxy settings, one proxy per seed, an evaluation at step 0) trained through the
project's own ``attnrepro.snell2021.runs.train`` with the model's ``dim`` set to that width, and read by
:func:`attnrepro.snell2021.run_tables.proxy_spread`: per seed the relative spread of β^px over the word positions at
initialisation, trained (least held-out loss) and their difference, with the claim's verdict under the registry's
reading (the difference < 0.1) and under the spread alone (< 0.2, the earlier reading). Writes
``results/snell_a3_init_spread.json``.

    nice -n 10 python studies/snell2021/snell_a3_init_spread.py --config config/config.yaml --dims 16 64 256 1024
        --work /tmp/snell_a3 [--runs copy_same copy_mixture]
"""

from __future__ import annotations

import argparse
import copy
import io
import time
from dataclasses import replace
from pathlib import Path

import yaml

from attnrepro.io import write_json
from attnrepro.snell2021 import config as snellcfg
from attnrepro.snell2021.run_tables import proxy_spread
from attnrepro.snell2021.runs import train
from attnrepro.verdicts.claims import summarize
from attnrepro.verdicts.papers import CLAIMS

OUT = Path(__file__).parent / "results" / "snell_a3_init_spread.json"
EARLIER = 0.2  # the spread-alone reading's threshold


def verdicts(run: str, spread) -> dict[str, str]:
    claim = next(c for c in CLAIMS if c.claim_id == f"{run}_proxy_flat_over_positions")
    earlier = replace(claim, measure=claim.original, bounds=(0.0, 1.0), threshold=EARLIER, original="")
    out = {}
    for name, c in (("gain_below_0.1", claim), ("spread_below_0.2", earlier)):
        out[name] = summarize({"x": spread}, {"x": (c.task_kinds[0], c.archs[0])}, (c,)).iloc[0].verdict
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--dims", type=int, nargs="+", default=[64])
    ap.add_argument("--runs", nargs="+", default=list(snellcfg.A3_PROXY))
    ap.add_argument("--work", required=True, help="checkpoint folder (reused when rerun)")
    args = ap.parse_args()
    block = yaml.safe_load(Path(args.config).read_text())["snell2021"]
    specs, analyses = snellcfg.runs(block), snellcfg.analyses(block)
    rows = []
    for dim in args.dims:
        for run in args.runs:
            spec = copy.deepcopy(specs[f"{run}_proxy"])
            spec["model"]["dim"] = dim
            started = time.perf_counter()
            result, _ = train(spec, Path(args.work) / f"{run}_d{dim}", name=f"{run}_d{dim}", log=io.StringIO())
            spread = proxy_spread(result.record_frame("probes"), result.metrics, analyses[run]["words"])
            rows.append({"run": run, "dim": dim, "seconds": round(time.perf_counter() - started, 1),
                         **{k: [round(float(v), 4) for v in spread[k]] for k in spread.columns if k != "seed"},
                         "seeds": spread.seed.tolist(), "verdicts": verdicts(run, spread)})
            print(rows[-1], flush=True)
    write_json({"config": args.config, "steps": specs[f"{args.runs[0]}_proxy"]["train"]["steps"], "rows": rows}, OUT)


if __name__ == "__main__":
    main()
