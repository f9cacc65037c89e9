"""The paper artifact: one tarball with the code at its commit, the resolved config, the exact package versions,
the results, provenance, and a SHA-256 manifest of every file; and its verification.

Layout inside ``artifact.tar.gz`` (one top-level folder ``artifact/``)::

    code.tar            ``git archive`` of the commit that ran (the working tree's changes are not in it;
                        provenance.json says whether there were any)
    config.yaml         the resolved config the workflow ran with
    environment.txt     ``pip freeze`` of the environment that ran, and the Python version
    provenance.json     git commit and dirty flag, hardware, torch/CUDA, and each job's start/end/seconds/max RSS
                        from Snakemake's benchmark files
    results/...         figures, tables, metrics, claims, logs and benchmarks of the jobs the current config runs
                        (activations only when ``archive.activations`` is true)
    MANIFEST.sha256     ``<sha256>  <path>`` for every other file, sorted by path

Which results: the workflow walks its own rules from ``rule all``'s targets (``workflow/rules/archive.smk``) and
lists every output, log and benchmark of those jobs; :func:`selected` keeps the kinds above. A file an earlier
config left in ``results/`` (a removed experiment, another seed group) is not a product of any current job, so
it is not packed.

The manifest detects corruption and accidental edits, not a deliberate one: whoever changes a file can rewrite
its line in ``MANIFEST.sha256`` too. To vouch for an artifact, publish its own SHA-256 (or sign it, e.g.
``gpg --detach-sign artifact.tar.gz``) where readers fetch it. :func:`verify` also refuses an archive with a member
outside ``artifact/``, a link, or anything but plain files and folders.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import os
import platform
import subprocess
import sys
import tarfile
from pathlib import Path

import pandas as pd

from .errors import AttnReproError
from .io import atomic_path

MANIFEST = "MANIFEST.sha256"
ROOT = "artifact"
# fnmatch patterns relative to results/ ('*' spans folders)
RESULT_PATTERNS = ("figures/*", "claims.csv", "claims.md", "claims_by_claim.csv", "models/*/metrics.csv",
                   "analysis/*.csv", "snell2021/*.csv", "data/*/vocab.json", "benchmarks/*.tsv", "logs/*.log")
ACTIVATION_PATTERNS = ("activations/*.parquet",)


def selected(products, results: str = "results", activations: bool = False) -> list[str]:
    """The job products (paths under ``results``) that the artifact packs, sorted."""
    from fnmatch import fnmatchcase

    patterns = RESULT_PATTERNS + (ACTIVATION_PATTERNS if activations else ())
    prefix = results.rstrip("/") + "/"
    rel = {p[len(prefix):] for p in map(str, products) if p.startswith(prefix)}
    return sorted(prefix + p for p in rel if any(fnmatchcase(p, pat) for pat in patterns))


def sha256(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def manifest(root: Path) -> dict[str, str]:
    """``{relative path: sha256}`` of every file under ``root`` except the manifest itself."""
    root = Path(root)
    return {p.relative_to(root).as_posix(): sha256(p) for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != MANIFEST}


def format_manifest(entries: dict[str, str]) -> str:
    return "".join(f"{digest}  {path}\n" for path, digest in sorted(entries.items()))


def parse_manifest(text: str, source: Path) -> dict[str, str]:
    out = {}
    for i, line in enumerate(text.splitlines(), 1):
        digest, sep, path = line.partition("  ")
        if not sep or len(digest) != 64:
            raise AttnReproError(f"{source}: line {i} is not '<sha256>  <path>'")
        out[path] = digest
    return out


def verify(root: Path) -> list[str]:
    """Differences between ``root``'s files and its manifest: missing, changed and unlisted files."""
    root = Path(root)
    listed_path = root / MANIFEST
    if not listed_path.exists():
        raise AttnReproError(f"{listed_path}: no manifest; is {root} an unpacked artifact?")
    listed = parse_manifest(listed_path.read_text(), listed_path)
    actual = manifest(root)
    problems = [f"missing: {p}" for p in sorted(set(listed) - set(actual))]
    problems += [f"changed: {p}" for p in sorted(set(listed) & set(actual)) if listed[p] != actual[p]]
    problems += [f"not in manifest: {p}" for p in sorted(set(actual) - set(listed))]
    return problems


def unpack(archive: Path, into: Path) -> Path:
    """Extract an artifact tarball into ``into`` and return its ``artifact/`` folder; a member outside
    ``artifact/`` (another folder, an absolute path, ``..``), a link or a device is refused before anything is
    written, naming the member."""
    archive = Path(archive)
    try:
        with tarfile.open(archive) as tar:
            for m in tar.getmembers():
                parts = Path(m.name).parts
                if m.name.startswith("/") or ".." in parts or not parts or parts[0] != ROOT:
                    raise AttnReproError(f"{archive}: member {m.name!r} lies outside {ROOT}/; not an artifact "
                                         f"this workflow wrote")
                if not (m.isfile() or m.isdir()):
                    raise AttnReproError(f"{archive}: member {m.name!r} is a link or special file; an artifact holds "
                                         f"plain files only")
            tar.extractall(into, filter="data")
    except (tarfile.TarError, OSError, EOFError) as err:
        raise AttnReproError(f"{archive}: not a readable artifact archive ({err})") from err
    return Path(into) / ROOT


def job_times(benchmarks: Path) -> pd.DataFrame:
    """One row per job from Snakemake's benchmark files: its end time is the file's mtime."""
    rows = []
    for path in sorted(Path(benchmarks).rglob("*.tsv")):
        try:
            b = pd.read_csv(path, sep="\t").iloc[-1]
        except (pd.errors.ParserError, pd.errors.EmptyDataError, IndexError):
            continue  # a benchmark still being written (this job's own) has no row yet
        end = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.timezone.utc)
        rows.append({"job": path.relative_to(benchmarks).with_suffix("").as_posix(), "seconds": float(b["s"]),
                     "start": (end - dt.timedelta(seconds=float(b["s"]))).isoformat(timespec="seconds"),
                     "end": end.isoformat(timespec="seconds"), "max_rss_mb": float(b["max_rss"])})
    return pd.DataFrame(rows, columns=["job", "seconds", "start", "end", "max_rss_mb"])


def _git(repo: Path, *args: str) -> str:
    try:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout
    except (subprocess.CalledProcessError, FileNotFoundError) as err:
        raise AttnReproError(f"{repo}: git {' '.join(args)} failed; the archive needs a git checkout ({err})") from err


def provenance(repo: Path, benchmarks: Path) -> dict:
    import torch

    commit = _git(repo, "rev-parse", "HEAD").strip()
    dirty = bool(_git(repo, "status", "--porcelain", "--untracked-files=no").strip())
    return {
        "git_commit": commit, "git_dirty": dirty,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "hardware": {"machine": platform.machine(), "processor": platform.processor(), "cpus": os.cpu_count(),
                     "system": platform.platform(),
                     "cuda": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None},
        "python": sys.version.split()[0], "torch": torch.__version__,
        "jobs": job_times(benchmarks).to_dict("records"),
    }


def build(repo: Path, results: Path, config_yaml: str, out: Path, products: list[str],
          activations: bool = False) -> dict[str, str]:
    """Write ``out`` (a .tar.gz) with the :func:`selected` ``products`` (paths under ``results``, as listed by the
    workflow); returns its manifest."""
    repo, results = Path(repo), Path(results)
    files: dict[str, bytes | Path] = {}
    # provenance first: outside a git checkout its git calls end with a clear error before anything is packed
    files["provenance.json"] = (json.dumps(provenance(repo, results / "benchmarks"), indent=2) + "\n").encode()
    files["code.tar"] = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", "HEAD"],
                                       capture_output=True, check=True).stdout
    files["config.yaml"] = config_yaml.encode()
    freeze = subprocess.run([sys.executable, "-m", "pip", "freeze"], capture_output=True, text=True).stdout
    files["environment.txt"] = f"# python {sys.version.split()[0]}\n{freeze}".encode()
    for name in selected(products, results.as_posix(), activations):
        p = Path(name)
        if not p.is_file():
            if p.suffix in (".log", ".tsv"):  # e.g. a job's output made by `--touch`: its log was never written
                print(f"{p}: not found, not packed", file=sys.stderr)
                continue
            raise AttnReproError(f"{p}: an output of this config's jobs is missing; rerun the workflow first")
        files[f"results/{p.relative_to(results).as_posix()}"] = p
    entries = {}
    for name, content in files.items():
        entries[name] = hashlib.sha256(content).hexdigest() if isinstance(content, bytes) else sha256(content)
    files[MANIFEST] = format_manifest(entries).encode()
    with atomic_path(out) as tmp:
        with tarfile.open(tmp, "w:gz") as tar:
            for name, content in sorted(files.items()):
                arcname = f"{ROOT}/{name}"
                if isinstance(content, bytes):
                    info = tarfile.TarInfo(arcname)
                    info.size = len(content)
                    info.mtime = int(dt.datetime.now().timestamp())
                    tar.addfile(info, io.BytesIO(content))
                else:
                    tar.add(content, arcname=arcname)
    return entries
