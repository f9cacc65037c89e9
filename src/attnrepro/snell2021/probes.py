"""What a Snell et al. 2021 run records at every evaluation, and the tables it is written as.

A probe is one value per (target token, source position) of the held-out set: α (Eq. 1, head 0), β (Eq. 4 / 9 /
6: the model's :meth:`lexical_probe`, which for the bag-of-words proxy is β^px), γ (Eq. 22, the classifier's
log-odds), Δ (gradient saliency, §5.1, read by the export step from the final model or, with
``table2.export_at: best``, each member's best). Each is written as one row per (seed, step, example, target
position t) with the values over the example's real source positions as a ``list<float32>`` (docs/activations.md).
``head_alignment`` (multi-head copy models, §5.2) is one row per (seed, step, head): the fraction of target tokens
whose head-k attention peaks on the copied source position.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd
import pyarrow as pa
import torch

from ..data.vocab import Encoded
from ..io import arrow_column, ragged_prefixes

PROBES = ("alpha", "beta", "gamma")
KEYS = {"seed": pa.int32(), "member": pa.int32(), "step": pa.int32(), "example": pa.int32(), "t": pa.int16(),
        "src_len": pa.int16()}


def rows(values: dict[str, torch.Tensor], batch: Encoded) -> pd.DataFrame:
    """Probes [S,B,T,L] of a stacked held-out batch as one row per (member, example, real target position t);
    each probe column holds the example's ``src_len`` real values (an Arrow ``list<float32>``, which the engine
    pickles as two buffers instead of one array per row)."""
    mask = batch.tgt_mask()[0].cpu().numpy()                     # the held-out set is the same for every member
    src_len = batch.src_len[0].cpu().numpy()
    example, t = np.nonzero(mask)
    n_members = batch.src.shape[0]
    out = pd.DataFrame({"member": np.repeat(np.arange(n_members), len(example)),
                        "example": np.tile(example, n_members).astype(np.int32),
                        "t": np.tile(t, n_members).astype(np.int16),
                        "src_len": np.tile(src_len[example], n_members).astype(np.int16)})
    lengths = out.src_len.to_numpy()
    for name, value in values.items():
        flat = value[:, mask].float().cpu().numpy().reshape(-1, value.shape[-1])       # [S·N, L]
        out[name] = pd.arrays.ArrowExtensionArray(ragged_prefixes(flat, lengths))
    return out


def recorder(probes: list[str]) -> Callable | None:
    """The engine's ``record`` for the named probes of :data:`PROBES` (None when there are none)."""
    unknown = set(probes) - set(PROBES)
    if unknown:
        raise ValueError(f"unknown probes {sorted(unknown)}; known: {PROBES}")
    if not probes:
        return None

    def record(model, batch: Encoded) -> dict[str, pd.DataFrame]:
        args = (batch.src, batch.src_len, batch.tgt_in)
        values = {}
        if "alpha" in probes or "gamma" in probes:
            cache = model.run_with_cache(*args)[1]
            if "alpha" in probes:
                alpha = cache["attention.alpha"][:, :, 0] if "attention.alpha" in cache else cache["alpha"][:, :, None]
                values["alpha"] = alpha
            if "gamma" in probes:
                values["gamma"] = cache["gamma"][:, :, None]
        if "beta" in probes:
            values["beta"] = model.lexical_probe(*args, batch.tgt_out)
        return {"probes": rows({k: values[k] for k in probes}, batch)}
    return record


def head_alignment(model, batch: Encoded) -> dict[str, pd.DataFrame]:
    """Per member and head k: the fraction of real target positions t whose head-k attention α^(k)_t· peaks on
    source position t — the copied word (and ``<eos>`` on ``<eos>``) of the copy task."""
    alpha = model.run_with_cache(batch.src, batch.src_len, batch.tgt_in)[1]["attention.alpha"]   # [S,B,K,T,L]
    t = torch.arange(alpha.shape[3], device=alpha.device)
    hit = (alpha.argmax(-1) == t).float()                                           # [S,B,K,T]
    mask = batch.tgt_mask()[:, :, None].float()
    acc = (hit * mask).sum((1, 3)) / mask.sum((1, 3))                                             # [S,K]
    s, k = acc.shape
    return {"heads": pd.DataFrame({"member": np.repeat(np.arange(s), k), "head": np.tile(np.arange(k), s),
                                   "align_acc": acc.flatten().cpu().numpy()})}


def probe_table(df: pd.DataFrame | None, probes: list[str]) -> pa.Table:
    """Recorded probe rows (of one evaluation) as the Parquet table of docs/activations.md, in (member, step,
    example, t) order; an empty table of that schema for ``None``."""
    if df is None or not len(df):
        df = pd.DataFrame({k: pd.Series(dtype="int64") for k in KEYS} | {p: pd.Series(dtype=object) for p in probes})
    df = df.sort_values(["member", "step", "example", "t"], kind="stable")
    columns = {k: pa.array(df[k].to_numpy(), type=v) for k, v in KEYS.items()}
    columns.update({p: arrow_column(df[p]) for p in probes})
    return pa.Table.from_pydict(columns)


def padded(df: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    """One probe column of rows (already in (example, t) order) as an [N, L_max] array padded with 0, and the
    rows' lengths [N]."""
    lengths = df.src_len.to_numpy().astype(int)
    out = np.zeros((len(df), int(lengths.max()) if len(df) else 0), dtype=np.float32)
    for i, v in enumerate(df[column].to_numpy()):
        out[i, : len(v)] = v
    return out, lengths


def stacked(df: pd.DataFrame, column: str, member: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One member's probe over its evaluations: (steps [C], values [C, N, L_max], lengths [N])."""
    m = df[df.member == member].sort_values(["step", "example", "t"])
    steps = np.sort(m.step.unique())
    parts = [padded(m[m.step == s], column) for s in steps]
    return steps, np.stack([p[0] for p in parts]), parts[0][1]
