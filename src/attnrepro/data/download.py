"""Fetch one pinned file of a corpus: from its URL, or from a local mirror when the machine has no internet.

A file is streamed to a temporary name beside its destination and renamed into place only once its SHA-256
matches (``io.atomic_path``), so an HTTP error, a connection cut mid-file or a wrong checksum never leaves a file
under the final name. A destination that already holds the right bytes is reused without touching the network.

A file whose SHA-256 is not known (``sha256: null`` in the config) is checked against its publisher's MD5 when
one is given (``md5:``; some corpora publish only that), and its SHA-256 is printed to be pinned. A file with
neither digest is refused unless ``allow_unpinned`` is set; then it is fetched unverified and its digest printed.
"""

from __future__ import annotations

import hashlib
import http.client
import shutil
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from ..errors import AttnReproError
from ..io import atomic_path, move_aside, quarantine

CHUNK = 1 << 20
MIN_RATE = 1024  # bytes per second, averaged over each timeout's window


def digest_of(path: Path, algorithm: str = "sha256") -> str:
    digest = hashlib.new(algorithm)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def sha256_of(path: Path) -> str:
    return digest_of(path, "sha256")


def fetch(url: str, dest: str | Path, sha256: str | None, *, md5: str | None = None,
          local_dir: str | Path | None = None, local_name: str | None = None, allow_unpinned: bool = False,
          timeout: float = 60.0) -> Path:
    """Put the file of ``url`` at ``dest``, verified against ``sha256`` (lower-case hex), or against the
    publisher's ``md5`` when no SHA-256 is pinned.

    ``local_dir`` set: copy ``local_dir/local_name`` (default: ``dest``'s name) instead of downloading — the
    offline mode of a cluster whose compute nodes have no internet. Returns ``dest``.
    """
    dest = Path(dest)
    algorithm, expected = ("sha256", sha256) if sha256 is not None else ("md5", md5)
    if expected is None and not allow_unpinned:
        raise AttnReproError(f"{dest.name} ({url}) has no pinned sha256 (nor md5) in the config; pin it, or set "
                             f"downloads.allow_unpinned: true to fetch it unverified once and print its digest")
    if dest.exists():
        if expected is None:
            print(f"{dest}: reused, unverified (no pinned sha256)", file=sys.stderr)
            return dest
        if digest_of(dest, algorithm) == expected:
            print(f"{dest}: reused, {algorithm} verified", file=sys.stderr)
            return dest
        # kept, not deleted: a user may want to see what was there
        aside = move_aside(dest, ".corrupt")
        print(f"{dest}: wrong {algorithm}, moved aside to {aside.name}; fetching again", file=sys.stderr)
    with atomic_path(dest) as tmp:
        if local_dir is not None:
            source = Path(local_dir) / (local_name or dest.name)
            if source.is_dir():
                raise AttnReproError(f"{source}: a folder in the offline mirror downloads.local_dir, where the "
                                     f"file {source.name} is expected")
            if not source.is_file():
                raise AttnReproError(f"{source}: not found in the offline mirror downloads.local_dir "
                                     f"(pre-download it where there is internet; see the README)")
            shutil.copyfile(source, tmp)
            origin = str(source)
        else:
            _download(url, tmp, timeout)
            origin = url
        if expected is not None and (got := digest_of(tmp, algorithm)) != expected:
            raise AttnReproError(f"{origin}: {algorithm} mismatch for {dest.name}: expected {expected}, got {got}; "
                                 f"nothing was kept")
        got = sha256_of(tmp)
    if expected is None:
        print(f"{dest}: UNVERIFIED download; pin it in the config with  sha256: {got}", file=sys.stderr)
    elif algorithm == "md5":
        print(f"{dest}: md5 verified ({origin}); pin it in the config with  sha256: {got}", file=sys.stderr)
    else:
        print(f"{dest}: sha256 verified ({origin})", file=sys.stderr)
    return dest


def _download(url: str, tmp: Path, timeout: float) -> None:
    """Stream ``url`` into ``tmp``; an HTTP error or a body shorter than its Content-Length raises. ``timeout``
    bounds the whole exchange's progress, not one read: the response's status and headers must have arrived
    ``timeout`` seconds after the request went out (redirects included), then every ``timeout`` seconds at least
    :data:`MIN_RATE` bytes per second of the body (curl's --speed-limit), so a server trickling a byte now and
    then, in the headers or in the body, is given up."""
    request = urllib.request.Request(url, headers={"User-Agent": "attnrepro"})
    connections: list[http.client.HTTPConnection] = []
    state, lock = {"headers": False, "late": False}, threading.Lock()

    def give_up():  # the watchdog's thread: cut the exchange's sockets, so that the blocked read returns
        with lock:
            if state["headers"]:
                return
            state["late"] = True
        for conn in connections:
            if conn.sock is not None:
                try:  # the plain socket's shutdown, also under TLS: it leaves the SSL object to the reading thread
                    socket.socket.shutdown(conn.sock, socket.SHUT_RDWR)
                except OSError:
                    pass

    watchdog = threading.Timer(timeout, give_up)
    watchdog.daemon = True
    try:
        watchdog.start()
        try:
            response = _opener(connections).open(request, timeout=timeout)
        finally:
            with lock:
                state["headers"] = True
            watchdog.cancel()
        if state["late"]:  # cut mid-headers, http.client may still have returned what had arrived
            response.close()
            raise _late(url, timeout)
        with response, open(tmp, "wb") as out:
            expected = response.headers.get("Content-Length")
            received, window_start, window_bytes = 0, time.monotonic(), 0
            while block := response.read1(CHUNK):
                out.write(block)
                received += len(block)
                window_bytes += len(block)
                elapsed = time.monotonic() - window_start
                if elapsed >= timeout:
                    if window_bytes < MIN_RATE * elapsed:
                        raise AttnReproError(f"{url}: stalled, {window_bytes} bytes in the last {elapsed:.0f} s "
                                             f"({received} in all); nothing was kept")
                    window_start, window_bytes = time.monotonic(), 0
    except urllib.error.HTTPError as err:
        raise AttnReproError(f"{url}: HTTP {err.code} {err.reason}; nothing was kept") from None
    except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
        if state["late"]:
            raise _late(url, timeout) from None
        reason = getattr(err, "reason", err)
        raise AttnReproError(f"{url}: download failed ({reason}); nothing was kept") from None
    # http.client returns a short body without complaint when the server closes early; the length tells
    if expected is not None and received != int(expected):
        raise AttnReproError(f"{url}: connection closed after {received} of {expected} bytes; nothing was kept")


def _late(url: str, timeout: float) -> AttnReproError:
    return AttnReproError(f"{url}: stalled, no complete response headers within {timeout:.0f} s of the request; "
                          f"nothing was kept")


def _opener(connections: list) -> urllib.request.OpenerDirector:
    """urllib's opener (redirects, proxies, TLS as usual) whose HTTP and HTTPS connections are appended to
    ``connections`` as they are made, for :func:`_download`'s watchdog to cut."""
    def recorded(cls):
        def make(*args, **kwargs):
            conn = cls(*args, **kwargs)
            connections.append(conn)
            return conn
        return make

    class HTTP(urllib.request.HTTPHandler):
        def http_open(self, req):
            return self.do_open(recorded(http.client.HTTPConnection), req)

    class HTTPS(urllib.request.HTTPSHandler):
        def https_open(self, req):
            return self.do_open(recorded(http.client.HTTPSConnection), req, context=self._context)

    return urllib.request.build_opener(HTTP, HTTPS)


def verify_download(path: str | Path, sha256: str | None, md5: str | None = None) -> Path:
    """Check a downloaded file again before it is read: a file truncated or changed after its download finished
    (Snakemake takes any file present as done) fails its pinned digest; an unpinned archive is decompressed to
    the end (gzip, zip and bz2 carry checksums). A bad file is moved aside to ``<name>.corrupt``, so the rerun
    downloads it again."""
    path = Path(path)
    if not path.is_file():
        raise AttnReproError(f"{path}: downloaded file not found")
    algorithm, expected = ("sha256", sha256) if sha256 else ("md5", md5)
    if expected:
        got = digest_of(path, algorithm)
        if got != expected.lower():
            raise quarantine(path, f"{algorithm} {got} is not the pinned {expected} (truncated or changed since "
                                   f"its download); the rerun fetches it again")
        return path
    problem = _archive_problem(path)
    if problem:
        raise quarantine(path, f"damaged archive ({problem}); the rerun fetches it again")
    return path


def _archive_problem(path: Path) -> str | None:
    import bz2
    import gzip
    import zipfile
    import zlib

    name = path.name.lower()
    try:
        if name.endswith((".gz", ".tgz")):
            with gzip.open(path, "rb") as f:
                while f.read(CHUNK):
                    pass
        elif name.endswith(".bz2"):
            with bz2.open(path, "rb") as f:
                while f.read(CHUNK):
                    pass
        elif name.endswith(".zip"):
            with zipfile.ZipFile(path) as z:
                bad = z.testzip()
                if bad:
                    return f"member {bad} fails its CRC"
    except (OSError, EOFError, zlib.error, zipfile.BadZipFile) as err:
        return f"{type(err).__name__}: {err}"
    return None


def verified_files(directory: str | Path, files: dict[str, dict]) -> Path:
    """``directory`` once every file of ``files`` (name -> {sha256, md5}, a config's pinned set) in it passes
    :func:`verify_download`: a set of files read together (a model's weights, tokenizer and config) is read only
    when all of them are the pinned bytes."""
    directory = Path(directory)
    for name, spec in files.items():
        verify_download(directory / name, spec.get("sha256"), spec.get("md5"))
    return directory
