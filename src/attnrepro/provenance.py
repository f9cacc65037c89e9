"""What an artefact is, written into it and checked by whoever reads it next.

Every file a later step trusts without recomputing it — a task's splits, a trained ``model.pt`` — carries a stamp:
what it is (``kind``), whose it is (experiment, task), the fingerprint of what made it, the file format's version
and the code's. The reader says what it expects; a field that differs is an error naming the file and the field.

Who is wrong, the file or the command, is decided here, once. The results layout (:data:`PLACES`) gives a file its
identity by where it is: ``models/EXP/CHUNK/model.pt`` is experiment EXP's, ``data/TASK/train.parquet`` task
TASK's. A file at a kind's place that is not what the place says — unreadable, unstamped (a checkpoint copied in
as ``model.pt``), of an older format, another experiment's model or another task's split copied into place — is
itself bad: it is moved aside (:func:`attnrepro.io.quarantine`) so the rerun rebuilds it. Anything else is the
command's error, named by the option and its value, and the file stays: a file that agrees with its place but not
with what the command asked for (a mistyped ``--experiment``, another task in ``--spec-json``), or a file away
from the kind's place (``metrics.csv`` or a checkpoint named as a model).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import __version__
from .errors import AttnReproError

FORMAT = 1  # raised whenever a stamped file's layout changes: older files are then rebuilt, not misread
KEY = "attnrepro"  # the stamp's key: a model's dict key, a Parquet file's schema metadata key


def fingerprint(obj: Any) -> str:
    """A short hash of JSON-able ``obj`` (a spec, a vocabulary): equal exactly when the content is."""
    import hashlib

    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def stamp(kind: str, **identity: Any) -> dict[str, Any]:
    return {"kind": kind, "format": FORMAT, "code": __version__, **identity}


@dataclass(frozen=True)
class Place:
    """Where the results layout keeps a kind of file: under ``top`` (folders below the results root), in a folder
    named by the stamp's ``field``, in a file called one of ``names``."""

    top: tuple[str, ...]
    field: str
    names: tuple[str, ...]

    def __str__(self) -> str:
        return f"{'/'.join(self.top)}/<{self.field}>/…/{' or '.join(self.names)}"


SNELL_RUN = "Snell et al. run"  # the kind of a Snell et al. 2021 run's model files (unstamped: they carry their spec)
PLACES = {"model": Place(("models",), "experiment", ("model.pt",)),
          "split": Place(("data",), "task", ("train.parquet", "valid.parquet", "test.parquet")),
          SNELL_RUN: Place(("models", "snell2021"), "run", ("model.pt", "model_best.pt"))}


def located(path: str | Path, kind: str) -> dict[str, str]:
    """The stamp field that ``path``'s place in the results layout gives a ``kind`` (``{"experiment": EXP}`` for
    ``models/EXP/CHUNK/model.pt``); empty for a file elsewhere, which its place says nothing about (a place inside
    this kind's, as Snell et al.'s runs inside ``models/``, is the other kind's)."""
    from .io import results_root

    place = PLACES[kind]
    try:
        parts = Path(path).resolve().relative_to(results_root()).parts
    except ValueError:
        return {}
    n = len(place.top)
    inner = [p.top for p in PLACES.values() if len(p.top) > n and p.top[:n] == place.top]
    if len(parts) < n + 2 or parts[:n] != place.top or parts[-1] not in place.names or \
            any(parts[:len(top)] == top for top in inner):
        return {}
    return {place.field: parts[n]}


def refuse(path: str | Path, kind: str, why: str, option: str) -> Exception:
    """The error for a file a reader of ``kind`` cannot use (``why``). At the kind's place (:func:`located`) the
    file is itself bad: moved aside when the workflow owns it (:func:`attnrepro.io.quarantine`). Anywhere else a
    command named it by mistake (``metrics.csv`` as a model): the error names ``option`` and the file stays."""
    from .io import quarantine

    path = Path(path)
    if path.is_dir() or located(path, kind):
        return quarantine(path, why)
    return AttnReproError(f"{option} {path}: {why}; not at a {kind}'s place ({PLACES[kind]}), so it was left "
                          f"where it is — check {option}")


def check(path: str | Path, found: dict[str, Any] | None, kind: str, *, option: str,
          **expected: tuple[Any, str]) -> dict[str, Any]:
    """``found`` (the file's stamp, None if it has none) against ``kind``, against the place of ``path``
    (:func:`located`) and against ``expected``: field -> (the value asked for, the option that asked; a value of
    None is not checked). A file that is not a ``kind`` or not the one of its place is refused (:func:`refuse`:
    moved aside at the kind's place; ``option`` named it); one that is the ``kind`` of its place but not the one
    asked for stays, and the error names the option that asked and the value."""
    path = Path(path)
    if not isinstance(found, dict) or found.get("kind") != kind:
        what = found.get("kind") if isinstance(found, dict) else None
        raise refuse(path, kind, f"not a {kind} written by attnrepro ({f'a {what}' if what else 'no stamp'})",
                     option)
    if found.get("format") != FORMAT:
        raise refuse(path, kind, f"written in format {found.get('format')} by attnrepro {found.get('code')}; this "
                                 f"version reads format {FORMAT}", option)
    for field, value in located(path, kind).items():
        if found.get(field) != value:
            raise refuse(path, kind, f"the {kind} of {field} {found.get(field)!r}, not of {value!r} whose folder "
                                     f"it is in", option)
    for field, (want, asked_by) in expected.items():
        if want is not None and found.get(field) != want:
            raise AttnReproError(f"{asked_by}: {field} {want!r} was asked for, but {path} is the {kind} of {field} "
                                 f"{found.get(field)!r}; the file was left as it is — check {asked_by}")
    return found


def parquet_stamp(path: str | Path) -> dict[str, Any] | None:
    import pyarrow.parquet as pq

    meta = pq.read_schema(path).metadata or {}
    raw = meta.get(KEY.encode())
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


def with_stamp(table, value: dict[str, Any]):
    """``table`` (a pyarrow Table) with ``value`` in its schema metadata."""
    meta = dict(table.schema.metadata or {})
    meta[KEY.encode()] = json.dumps(value, sort_keys=True).encode()
    return table.replace_schema_metadata(meta)
