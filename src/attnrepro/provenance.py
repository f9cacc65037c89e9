"""What an artefact is, written into it and checked by whoever reads it next.

Every file a later step trusts without recomputing it — a task's splits, a trained ``model.pt`` — carries a stamp:
what it is (``kind``), whose it is (experiment, task), the fingerprint of what made it, the file format's version
and the code's. The reader says what it expects; a field that differs is an error naming the file and the field.
A file another experiment or task wrote, copied into place, or a checkpoint copied in as a model, is then not the
output of this rule: under the results root it is moved aside (:func:`attnrepro.io.quarantine`) so the rerun
rebuilds it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import __version__

FORMAT = 1  # raised whenever a stamped file's layout changes: older files are then rebuilt, not misread
KEY = "attnrepro"  # the stamp's key: a model's dict key, a Parquet file's schema metadata key


def fingerprint(obj: Any) -> str:
    """A short hash of JSON-able ``obj`` (a spec, a vocabulary): equal exactly when the content is."""
    import hashlib

    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def stamp(kind: str, **identity: Any) -> dict[str, Any]:
    return {"kind": kind, "format": FORMAT, "code": __version__, **identity}


def check(path: str | Path, found: dict[str, Any] | None, kind: str, **expected: Any) -> dict[str, Any]:
    """``found`` (the file's stamp, None if it has none) against ``kind`` and ``expected`` (fields whose value is
    None are not checked). A mismatch moves the file aside when the workflow owns it, and raises."""
    from .io import quarantine

    path = Path(path)
    if not isinstance(found, dict) or found.get("kind") != kind:
        what = found.get("kind") if isinstance(found, dict) else None
        raise quarantine(path, f"not a {kind} written by attnrepro ({f'a {what}' if what else 'no stamp'})")
    if found.get("format") != FORMAT:
        raise quarantine(path, f"written in format {found.get('format')} by attnrepro {found.get('code')}; this "
                               f"version reads format {FORMAT}")
    for field, want in expected.items():
        if want is not None and found.get(field) != want:
            raise quarantine(path, f"the {kind} of {field} {found.get(field)!r}, not of {want!r}")
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
