"""Atomic writes and checked reads.

Every output goes to a temporary name in the destination directory and is renamed into place, so a killed job
never leaves a half-written file under the final name (os.replace is atomic on one filesystem).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Iterator

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .errors import AttnReproError


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it to ``path`` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; results are shared like any other file
        with open(tmp, "rb") as f:  # on disk before the rename, so a node crash cannot leave an empty file
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_parquet(table: pa.Table | pd.DataFrame, path: str | os.PathLike, **options) -> None:
    """Write atomically; ``options`` go to ``pyarrow.parquet.write_table`` (row groups, dictionary encoding)."""
    if isinstance(table, pd.DataFrame):
        table = pa.Table.from_pandas(table, preserve_index=False)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, **options)


def move_aside(path: Path, suffix: str) -> Path:
    """Rename ``path`` to ``<name><suffix>`` beside it: out of the way of a rerun, and nothing is lost."""
    aside = path.with_name(path.name + suffix)
    os.replace(path, aside)
    return aside


def quarantine(path: Path, why: str) -> AttnReproError:
    """Move a corrupt workflow output aside (kept as ``<name>.corrupt``, never deleted) so that the rerun sees it
    missing and rebuilds it; returns the error to raise."""
    aside = move_aside(path, ".corrupt")
    return AttnReproError(f"{path}: {why}; moved aside to {aside.name}, rerun to rebuild it")


def read_parquet_table(path: str | os.PathLike, columns: list[str] | None = None) -> pa.Table:
    """Read a Parquet file; a missing, truncated or foreign file raises an error that names it."""
    path = Path(path)
    if not path.exists():
        raise AttnReproError(f"{path}: file not found")
    try:
        schema = pq.read_schema(path)
    except PermissionError as err:
        raise AttnReproError(f"{path}: not readable ({err})") from err
    except (pa.ArrowInvalid, OSError) as err:
        raise quarantine(path, f"not a readable Parquet file ({err})") from err
    missing = set(columns or ()) - set(schema.names)
    if missing:
        raise AttnReproError(f"{path}: missing columns {sorted(missing)}")
    try:
        return pq.read_table(path, columns=columns)
    except (pa.ArrowInvalid, OSError) as err:
        raise quarantine(path, f"not a readable Parquet file ({err})") from err


def read_parquet(path: str | os.PathLike, columns: list[str] | None = None) -> pd.DataFrame:
    return read_parquet_table(path, columns).to_pandas()


def read_csv_checked(path: str | os.PathLike) -> pd.DataFrame:
    """Read a CSV the workflow wrote; a missing or unreadable one raises an error that names it."""
    path = Path(path)
    if not path.exists():
        raise AttnReproError(f"{path}: file not found")
    try:
        return pd.read_csv(path)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as err:
        raise AttnReproError(f"{path}: not a readable CSV table ({err})") from err


def write_csv(df: pd.DataFrame, path: str | os.PathLike) -> None:
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False)


def write_json(obj, path: str | os.PathLike) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n")


def read_json(path: str | os.PathLike):
    path = Path(path)
    if not path.exists():
        raise AttnReproError(f"{path}: file not found")
    try:
        return json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise quarantine(path, f"not valid JSON ({err})") from err
