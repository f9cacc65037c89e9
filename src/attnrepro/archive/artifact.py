"""The paper artifact: a BagIt bag (RFC 8493) whose payload is a Workflow Run RO-Crate, packed byte for byte
reproducibly into ``results/artifact.tar.gz``; and its verification. docs/artifact.md is the reader's guide.

Layout inside the tarball (one top-level folder ``artifact/``, the bag)::

    README.md, LICENSE, CITATION.cff   the front page: what each folder is, how to verify, redraw, rerun, cite
    bagit.txt, bag-info.txt            the bag's declaration; bag-info names the commit and the payload's size
    manifest-sha256.txt                SHA-256 of every payload file; tagmanifest-sha256.txt: of the files above
    data/ro-crate-metadata.json        the run's provenance (:mod:`attnrepro.archive.crate`)
    data/code/                         ``git archive`` of the commit that ran (bag-info says if the tree was dirty)
    data/config.yaml                   the resolved config the workflow ran with
    data/environment.txt               ``pip freeze`` of the environment that packed it (the lock: code/requirements.txt)
    data/results/...                   the products of the jobs the config runs (:func:`selected`)

``bagit.py --validate artifact`` checks it with nothing of this project installed. The manifests detect corruption
and accidental edits, not a deliberate one (whoever changes a file can rewrite the manifests too): to vouch for an
artifact, publish its SHA-256 where readers fetch it. Packing is deterministic — members in a fixed order, owner
root, mtime the commit's time, no timestamp in the gzip header — so the same results give the same SHA-256.
:func:`unpack` refuses a member outside ``artifact/``, a link or a special file, and stops a decompression bomb
before it writes more than the archive's own size allows, or more than bag-info's ``Payload-Oxum`` announces.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from fnmatch import fnmatchcase
from pathlib import Path

from ..errors import AttnReproError
from ..io import atomic_path

ROOT = "artifact"
FRONT = ("README.md", "LICENSE", "CITATION.cff")
# fnmatch patterns relative to results/ ('*' spans folders)
RESULT_PATTERNS = ("figures/*", "claims.csv", "claims.md", "claims_by_claim.csv", "report.zip", "report/*", "models/*metrics.csv",
                   "analysis/*.csv", "data/*/vocab.json", "benchmarks/*.tsv", "logs/*.log")
MODEL_PATTERNS = ("models/*",)
ANALYSIS_PATTERNS = ("analysis/*",)
ACTIVATION_PATTERNS = ("activations/*",)
# a bag's tag files (manifests, README, bag-info) beside the payload that Payload-Oxum counts
TAG_BYTES = 64 << 20
BEFORE_INFO_BYTES = 4 << 20
# what an archive may unpack to, whatever it announces: MAX_RATIO times its own size, plus SLACK for a small one.
# The smoke artifacts unpack to 2-2.6 times their size (figures, report.zip and Parquet hardly compress); deflate
# reaches about 1000 : 1 on a run of one byte, which is what a decompression bomb is.
MAX_RATIO = 32
SLACK = 16 << 20


def selected(jobs: list[dict], results: str = "results", *, activations: bool = False, models: bool = False,
             analysis: bool = False) -> list[str]:
    """The products (paths under ``results``) of ``jobs`` that the artifact packs, sorted. With ``analysis``, also
    every file a figure job reads, so that a figure can be redrawn from the artifact without training."""
    patterns = (RESULT_PATTERNS + (ACTIVATION_PATTERNS if activations else ()) + (MODEL_PATTERNS if models else ())
                + (ANALYSIS_PATTERNS if analysis else ()))
    prefix = results.rstrip("/") + "/"
    products = {p for j in jobs for p in j["output"] + j["log"] + ([j["benchmark"]] if j["benchmark"] else [])}
    keep = {p for p in products if p.startswith(prefix) and any(fnmatchcase(p[len(prefix):], pat) for pat in patterns)}
    if analysis:
        keep |= {p for j in jobs if any(o.startswith(prefix + "figures/") for o in j["output"])
                 for p in j["input"] if p in products}
    return sorted(keep)


def _git(repo: Path, *args: str, text: bool = True):
    try:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=text, check=True).stdout
    except (subprocess.CalledProcessError, FileNotFoundError) as err:
        raise AttnReproError(f"{repo}: git {' '.join(args)} failed; the archive needs a git checkout ({err})") from err


def _place(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)  # no copy of a model's gigabytes; the bag is only read, then removed
    except OSError:
        shutil.copy2(src, dst)


def build(repo: Path, config_yaml: str, out: Path, jobs: list[dict], results: str = "results", *,
          activations: bool = False, models: bool = False, analysis: bool = False) -> int:
    """Write ``out`` (a .tar.gz) for ``jobs`` (the workflow's ``workflow_jobs``); returns the number of payload
    files. Outputs are read relative to the working directory, as the rules name them."""
    import bagit

    from .. import __version__
    from .readme import readme
    from .crate import CRATE_FILE, run_crate
    from ..run.jobrecord import iso_utc

    repo = Path(repo)
    # git first: outside a checkout this ends with a clear error before anything is packed
    commit = _git(repo, "rev-parse", "HEAD").strip()
    commit_time = int(_git(repo, "show", "-s", "--format=%ct", "HEAD").strip())
    dirty = bool(_git(repo, "status", "--porcelain", "--untracked-files=no").strip())
    names = selected(jobs, results, activations=activations, models=models, analysis=analysis)
    missing = [p for p in names if not Path(p).is_file() and not p.endswith((".log", ".tsv"))]
    if missing:
        raise AttnReproError(f"{missing[0]}: an output of this config's jobs is missing ({len(missing)} in all); "
                             f"rerun the workflow first")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".artifact-", dir=out.parent))
    try:
        bag = staging / ROOT
        with tarfile.open(fileobj=io.BytesIO(_git(repo, "archive", "--format=tar", "HEAD", text=False))) as code:
            code.extractall(bag / "code", filter="data")
        (bag / "config.yaml").write_text(config_yaml)
        freeze = subprocess.run([sys.executable, "-m", "pip", "freeze", "--exclude-editable"], capture_output=True,
                                text=True).stdout
        (bag / "environment.txt").write_text(f"# python {sys.version.split()[0]}\n{freeze}")
        for name in names:
            if Path(name).is_file():  # a log or benchmark of a job made by `--touch` was never written
                _place(Path(name), bag / name)
        packed = {p.relative_to(bag).as_posix(): p.stat().st_size for p in bag.rglob("*") if p.is_file()}
        created = iso_utc(commit_time)
        import snakemake

        crate = run_crate(jobs, packed, commit=commit, created=created, snakemake_version=snakemake.__version__,
                          version=__version__, title=f"attnrepro {__version__}: a reproduction run",
                          results=results.rstrip("/"))
        crate.metadata.write(bag)
        info = {"Bagging-Date": created[:10], "External-Identifier": f"git:{commit}",
                "External-Description": "attnrepro paper artifact: a Workflow Run RO-Crate "
                                        f"(data/{CRATE_FILE}) of one run of the workflow",
                "Attnrepro-Version": __version__, "Attnrepro-Tree-Dirty": str(dirty).lower()}
        bagit.make_bag(str(bag), bag_info=info, checksums=["sha256"])
        (bag / "README.md").write_text(readme(jobs, packed, commit=commit, version=__version__, dirty=dirty,
                                              models=models, analysis=analysis, results=results.rstrip("/")))
        for name in FRONT[1:]:
            shutil.copyfile(bag / "data" / "code" / name, bag / name)
        bagit.Bag(str(bag)).save()  # the tag manifest now covers the front page
        with atomic_path(out) as tmp:
            pack(bag, tmp, commit_time)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return len(packed) + 1


def members(bag: Path) -> list[Path]:
    """The bag's folders and files in packing order: the top level (tag files, bag-info.txt before the payload,
    which :func:`unpack` relies on), then ``data/`` depth first, each folder before its contents, names sorted."""
    top = sorted(p for p in bag.iterdir() if p.is_file())
    tree = []
    for folder, dirs, files in os.walk(bag / "data"):
        dirs.sort()
        tree.append(Path(folder))
        tree += [Path(folder) / f for f in sorted(files)]
    return [bag] + top + tree


def pack(bag: Path, out: Path, mtime: int) -> None:
    """Tar and gzip ``bag`` under ``artifact/`` so that the same files give the same bytes."""
    with open(out, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in members(bag):
            info = tarfile.TarInfo("/".join([ROOT, *path.relative_to(bag).parts]))
            info.mtime, info.uid, info.gid, info.uname, info.gname = mtime, 0, 0, "", ""
            if path.is_dir():
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size, info.mode = path.stat().st_size, 0o755 if os.access(path, os.X_OK) else 0o644
                with open(path, "rb") as f:
                    tar.addfile(info, f)


def payload_oxum(text: str, source: str) -> tuple[int, int]:
    """(octets, files) from a bag-info.txt's ``Payload-Oxum: <octets>.<count>``."""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "Payload-Oxum":
            octets, _, count = value.strip().partition(".")
            if octets.isdigit() and count.isdigit():
                return int(octets), int(count)
    raise AttnReproError(f"{source}: bag-info.txt has no valid Payload-Oxum; not an artifact this workflow wrote")


def unpack(archive: Path, into: Path) -> Path:
    """Extract an artifact tarball into ``into`` and return its ``artifact/`` folder. A member outside
    ``artifact/`` (another folder, an absolute path, ``..``), a link or a special file is refused before it is
    written, naming it. Extraction stops before the files written exceed what the archive's own size allows
    (:data:`MAX_RATIO`) or, if less, bag-info.txt's Payload-Oxum plus room for the tag files (a few MiB until
    bag-info.txt is read), so a decompression bomb ends with one line instead of filling the disk, however much
    its bag-info.txt announces."""
    archive = Path(archive)
    try:
        size = archive.stat().st_size
    except OSError as err:
        raise AttnReproError(f"{archive}: not a readable artifact archive ({err})") from err
    # members too: an empty one's header compresses to about 10 bytes, a real artifact's member to kilobytes
    ceiling, ceiling_members = MAX_RATIO * size + SLACK, size // 16 + 64
    written, count, bound, max_members = 0, 0, BEFORE_INFO_BYTES, 64
    try:
        with tarfile.open(archive, mode="r|gz") as tar:  # a stream: each member is checked before it is written
            for m in tar:
                parts = Path(m.name).parts
                if m.name.startswith("/") or ".." in parts or not parts or parts[0] != ROOT:
                    raise AttnReproError(f"{archive}: member {m.name!r} lies outside {ROOT}/; not an artifact "
                                         f"this workflow wrote")
                if not (m.type in (tarfile.REGTYPE, tarfile.AREGTYPE) or m.isdir()):
                    raise AttnReproError(f"{archive}: member {m.name!r} is a link or special file; an artifact holds "
                                         f"plain files only")
                written, count = written + m.size, count + 1
                if written > ceiling or count > ceiling_members:
                    raise AttnReproError(
                        f"{archive}: unpacks to more than {ceiling} bytes or {ceiling_members} members, more than "
                        f"{MAX_RATIO} times its own {size} bytes allow (a decompression bomb); stopped before "
                        f"writing {m.name!r}")
                if written > bound or count > max_members:
                    raise AttnReproError(
                        f"{archive}: unpacks to more than {bound} bytes or {max_members} members, more than its "
                        f"bag-info.txt announces (or bag-info.txt does not come first); stopped before writing it")
                tar.extract(m, into, filter="data")
                if parts[1:] == ("bag-info.txt",):
                    text = (Path(into) / m.name).read_text(encoding="utf-8", errors="replace")
                    octets, files = payload_oxum(text, str(archive))
                    bound, max_members = octets + TAG_BYTES, 2 * files + 64
    except (tarfile.TarError, OSError, EOFError) as err:
        raise AttnReproError(f"{archive}: not a readable artifact archive ({err})") from err
    return Path(into) / ROOT


def verify(root: Path) -> list[str]:
    """What is wrong with the unpacked artifact ``root``: bagit's own validation (missing, changed and unlisted
    files, the payload's size), links, and the RO-Crate (readable, a workflow run, every file it names present)."""
    import logging

    import bagit

    from .crate import crate_problems

    root = Path(root)
    if not (root / "bagit.txt").is_file():
        raise AttnReproError(f"{root}: no bagit.txt; is it an unpacked artifact (the artifact/ folder)?")
    problems = [f"link: {p.relative_to(root).as_posix()}" for p in sorted(root.rglob("*")) if p.is_symlink()]
    logging.getLogger("bagit").setLevel(logging.ERROR)  # its per-file progress is not news
    try:
        bagit.Bag(str(root)).validate(processes=1)
    except bagit.BagValidationError as err:
        problems += [str(d) for d in err.details] or [str(err)]
    except bagit.BagError as err:
        problems.append(str(err))
    return problems + crate_problems(root / "data")
