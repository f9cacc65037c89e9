"""What a Snell et al. run's probe records cost at each evaluation, outside the model: building the rows,
pickling them (the engine keeps each evaluation's records on disk until the run ends), reading them back and
turning them into the Parquet table. Per-row float32 arrays in an object column (the records before 2026-11-29)
against one Arrow ``list<float32>`` column per probe (:func:`attnrepro.io.ragged_prefixes`), at the default
config's copy shape (6 members, 100 held-out pairs of 20 words and ``<eos>``: 12,600 rows of α and β):

    python bench/probe_records.py [--rounds 5] [--out bench/results/probe_records.json]

Both give the same table (checked here); each round times both, alternating; the least time per version is kept.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from attnrepro.io import ragged_prefixes, write_json  # noqa: E402
from attnrepro.snell2021.probes import probe_table  # noqa: E402

PROBES = ("alpha", "beta")


def evaluation(members: int, examples: int, length: int, seed: int = 0) -> tuple[dict, dict, np.ndarray]:
    """One evaluation's keys, its probes padded [rows, L] as the model gives them, and the real lengths."""
    rng = np.random.default_rng(seed)
    rows = members * examples * length
    keys = {"member": np.repeat(np.arange(members), examples * length).astype(np.int32),
            "example": np.tile(np.repeat(np.arange(examples), length), members).astype(np.int32),
            "t": np.tile(np.arange(length), members * examples).astype(np.int16),
            "src_len": np.full(rows, length, np.int16)}
    return keys, {p: rng.random((rows, length), dtype=np.float32) for p in PROBES}, keys["src_len"].astype(np.int64)


FORMS = {  # the probe column built from the padded values, in each form
    "per_row_arrays": lambda padded, lengths: [r[:n] for r, n in zip(padded, lengths)],
    "arrow_lists": lambda padded, lengths: pd.arrays.ArrowExtensionArray(ragged_prefixes(padded, lengths)),
}


def round_trip(df: pd.DataFrame):
    """The engine's path for one evaluation's records: pickle, read back, table."""
    buf = io.BytesIO()
    df.assign(step=0, seed=df.member).to_pickle(buf, compression=None)
    size = buf.tell()
    buf.seek(0)
    return probe_table(pd.read_pickle(buf, compression=None), list(PROBES)), size


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--members", type=int, default=6)
    p.add_argument("--examples", type=int, default=100)
    p.add_argument("--length", type=int, default=21)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--out", type=Path, default=Path("bench/results/probe_records.json"))
    args = p.parse_args()
    keys, padded, lengths = evaluation(args.members, args.examples, args.length)
    best, sizes, tables = {name: float("inf") for name in FORMS}, {}, {}
    for _ in range(args.rounds):
        for name, form in FORMS.items():
            start = time.perf_counter()
            df = pd.DataFrame(keys | {p: form(v, lengths) for p, v in padded.items()})
            tables[name], sizes[name] = round_trip(df)
            best[name] = min(best[name], time.perf_counter() - start)
    if not tables["per_row_arrays"].equals(tables["arrow_lists"]):
        raise SystemExit("the two forms gave different tables")
    out = {"benchmark": "probe_records", "members": args.members, "examples": args.examples, "length": args.length,
           "rows": args.members * args.examples * args.length, "rounds": args.rounds,
           "seconds": {k: round(v, 4) for k, v in best.items()}, "pickle_bytes": sizes,
           "speedup": round(best["per_row_arrays"] / best["arrow_lists"], 1), "same_table": True}
    write_json(out, args.out)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
