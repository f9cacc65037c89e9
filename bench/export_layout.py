"""Read speed of candidate Parquet layouts for exported hidden states (the choice behind attnrepro.seq2seq.export).

The analyses read all states of one seed into an [N, H] array plus their (example, position, token) columns.
Layouts compared, for the default scale (500 examples x ~18.5 positions x 5 seeds, H = 64 and the paper's 128):

- ``fixed_list``:    one row per state, ``h`` a fixed_size_list<float32>[H], pyarrow's default writer settings
- ``fixed_list_rg``: the same with one row group per seed and no dictionary encoding of the floats
                     (what attnrepro.seq2seq.export writes)
- ``wide``:          one row per state, H float32 columns h0 .. h{H-1}
- ``wide_rg``:       the same with one row group per seed
- ``nested``:        one row per sequence, ``h`` a list<list<float32>>

Usage: python bench/export_layout.py [--out bench/results/export_layout.json]
Writes the median of 7 reads per layout (and file sizes) to JSON and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def make(n_examples=500, n_seeds=5, hidden=64, seed=0):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(16, 22, size=n_examples)
    ex = np.repeat(np.arange(n_examples), lengths)
    pos = np.concatenate([np.arange(n) for n in lengths])
    n = len(ex)
    seeds = np.repeat(np.arange(n_seeds), n)
    h = rng.normal(size=(n * n_seeds, hidden)).astype(np.float32)
    meta = {"seed": seeds.astype(np.int32), "example": np.tile(ex, n_seeds).astype(np.int32),
            "t": np.tile(pos, n_seeds).astype(np.int16)}
    return meta, h, lengths


def per_seed_rows(meta):
    return int(np.bincount(meta["seed"]).max())


def write_fixed(meta, h, path, **kw):
    cols = {k: pa.array(v) for k, v in meta.items()}
    cols["h"] = pa.FixedSizeListArray.from_arrays(pa.array(h.reshape(-1)), h.shape[1])
    pq.write_table(pa.table(cols), path, **kw)


def write_fixed_rg(meta, h, path):
    write_fixed(meta, h, path, row_group_size=per_seed_rows(meta), use_dictionary=False)


def write_wide(meta, h, path, **kw):
    cols = {k: pa.array(v) for k, v in meta.items()}
    cols.update({f"h{i}": pa.array(h[:, i]) for i in range(h.shape[1])})
    pq.write_table(pa.table(cols), path, **kw)


def write_wide_rg(meta, h, path):
    write_wide(meta, h, path, row_group_size=per_seed_rows(meta))


def write_nested(meta, h, lengths, path):
    rows = []
    n_seeds = int(meta["seed"].max()) + 1
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    per_seed = len(h) // n_seeds
    for s in range(n_seeds):
        for e in range(len(lengths)):
            rows.append(h[s * per_seed + offsets[e] : s * per_seed + offsets[e + 1]].tolist())
    table = pa.table({"seed": np.repeat(np.arange(n_seeds), len(lengths)).astype(np.int32),
                      "example": np.tile(np.arange(len(lengths)), n_seeds).astype(np.int32),
                      "h": pa.array(rows, pa.list_(pa.list_(pa.float32())))})
    pq.write_table(table, path)


def read_fixed(path, seed):
    t = pq.read_table(path, filters=[("seed", "=", seed)])
    col = t.column("h").combine_chunks()
    return col.values.to_numpy().reshape(len(col), col.type.list_size)


def read_wide(path, seed):
    t = pq.read_table(path, filters=[("seed", "=", seed)])
    hs = [c for c in t.column_names if c.startswith("h")]
    return np.column_stack([t.column(c).to_numpy() for c in hs])


def read_nested(path, seed):
    t = pq.read_table(path, filters=[("seed", "=", seed)])
    col = t.column("h").combine_chunks()
    inner = col.values  # list<float> per state
    return inner.values.to_numpy().reshape(len(inner), -1)


def median_time(fn, *args, repeat=7):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="bench/results/export_layout.json")
    args = p.parse_args()
    results = {"machine": platform.processor() or platform.machine(), "python": platform.python_version(),
               "pyarrow": pa.__version__, "layouts": []}
    with tempfile.TemporaryDirectory() as d:
        for hidden in (64, 128):
            meta, h, lengths = make(hidden=hidden)
            expected = h[meta["seed"] == 2]
            for name, write, read in (("fixed_list", write_fixed, read_fixed),
                                      ("fixed_list_rg", write_fixed_rg, read_fixed),
                                      ("wide", write_wide, read_wide), ("wide_rg", write_wide_rg, read_wide),
                                      ("nested", lambda m, x, path: write_nested(m, x, lengths, path), read_nested)):
                path = Path(d) / f"{name}_{hidden}.parquet"
                t0 = time.perf_counter()
                write(meta, h, path)
                write_s = time.perf_counter() - t0
                read_s, got = median_time(read, path, 2)
                assert np.array_equal(got, expected), name
                mb = path.stat().st_size / 1e6
                results["layouts"].append({"layout": name, "hidden": hidden, "rows": len(h), "file_mb": round(mb, 2),
                                           "write_s": round(write_s, 4), "read_one_seed_s": round(read_s, 4),
                                           "read_mb_per_s": round(mb / read_s, 1)})
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    print("| layout | H | rows | file MB | write s | read one seed s |")
    print("|---|---|---|---|---|---|")
    for r in results["layouts"]:
        print(f"| {r['layout']} | {r['hidden']} | {r['rows']} | {r['file_mb']} | {r['write_s']} | {r['read_one_seed_s']} |")


if __name__ == "__main__":
    main()
