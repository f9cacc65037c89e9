"""Fetch one pinned file of a corpus: from its URL, or from a local mirror when the machine has no internet.

A file is streamed to a temporary name beside its destination and renamed into place only once its SHA-256
matches (``io.atomic_path``), so an HTTP error, a connection cut mid-file or a wrong checksum never leaves a file
under the final name. A destination that already holds the right bytes is reused without touching the network.

A file whose checksum is not known (``sha256: null`` in the config) is refused unless ``allow_unpinned`` is set;
then it is fetched unverified and its digest is printed, to be pinned in the config.
"""

from __future__ import annotations

import hashlib
import http.client
import shutil
import sys
import urllib.error
import urllib.request
from pathlib import Path

from .errors import AttnReproError
from .io import atomic_path, move_aside

CHUNK = 1 << 20


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch(url: str, dest: str | Path, sha256: str | None, *, local_dir: str | Path | None = None,
          local_name: str | None = None, allow_unpinned: bool = False, timeout: float = 60.0) -> Path:
    """Put the file of ``url`` at ``dest``, verified against ``sha256`` (lower-case hex).

    ``local_dir`` set: copy ``local_dir/local_name`` (default: ``dest``'s name) instead of downloading — the
    offline mode of a cluster whose compute nodes have no internet. Returns ``dest``.
    """
    dest = Path(dest)
    if sha256 is None and not allow_unpinned:
        raise AttnReproError(f"{dest.name} ({url}) has no pinned sha256 in the config; pin it, or set "
                             f"downloads.allow_unpinned: true to fetch it unverified once and print its digest")
    if dest.exists():
        if sha256 is None:
            print(f"{dest}: reused, unverified (no pinned sha256)", file=sys.stderr)
            return dest
        if sha256_of(dest) == sha256:
            print(f"{dest}: reused, sha256 verified", file=sys.stderr)
            return dest
        # kept, not deleted: a user may want to see what was there
        aside = move_aside(dest, ".corrupt")
        print(f"{dest}: wrong sha256, moved aside to {aside.name}; fetching again", file=sys.stderr)
    with atomic_path(dest) as tmp:
        if local_dir is not None:
            source = Path(local_dir) / (local_name or dest.name)
            if not source.is_file():
                raise AttnReproError(f"{source}: not found in the offline mirror downloads.local_dir "
                                     f"(pre-download it where there is internet; see the README)")
            shutil.copyfile(source, tmp)
            origin = str(source)
        else:
            _download(url, tmp, timeout)
            origin = url
        got = sha256_of(tmp)
        if sha256 is not None and got != sha256:
            raise AttnReproError(f"{origin}: sha256 mismatch for {dest.name}: expected {sha256}, got {got}; "
                                 f"nothing was kept")
    if sha256 is None:
        print(f"{dest}: UNVERIFIED download; pin it in the config with  sha256: {got}", file=sys.stderr)
    else:
        print(f"{dest}: sha256 verified ({origin})", file=sys.stderr)
    return dest


def _download(url: str, tmp: Path, timeout: float) -> None:
    """Stream ``url`` into ``tmp``; an HTTP error or a body shorter than its Content-Length raises."""
    request = urllib.request.Request(url, headers={"User-Agent": "attnrepro"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response, open(tmp, "wb") as out:
            expected = response.headers.get("Content-Length")
            received = 0
            while block := response.read(CHUNK):
                out.write(block)
                received += len(block)
    except urllib.error.HTTPError as err:
        raise AttnReproError(f"{url}: HTTP {err.code} {err.reason}; nothing was kept") from None
    except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
        reason = getattr(err, "reason", err)
        raise AttnReproError(f"{url}: download failed ({reason}); nothing was kept") from None
    # http.client returns a short body without complaint when the server closes early; the length tells
    if expected is not None and received != int(expected):
        raise AttnReproError(f"{url}: connection closed after {received} of {expected} bytes; nothing was kept")
