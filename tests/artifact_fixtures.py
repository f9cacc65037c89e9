"""A tiny valid artifact (a bag holding a crate of one job), for tests of verify/unpack that need no workflow run."""

import io
import tarfile
from pathlib import Path

from attnrepro.archive.artifact import ROOT, pack


def tiny_bag(directory: Path) -> Path:
    """``directory/artifact``: a BagIt bag whose payload is a Workflow Run RO-Crate of one job."""
    import bagit

    from attnrepro.archive.crate import run_crate

    bag = Path(directory) / ROOT
    (bag / "code").mkdir(parents=True)
    (bag / "code" / "Snakefile").write_text("rule all:\n    input: 'results/f.txt'\n")
    (bag / "results").mkdir()
    (bag / "results" / "f.txt").write_text("x\n")
    packed = {"code/Snakefile": 40, "results/f.txt": 2}
    job = {"rule": "make", "wildcards": {}, "input": [], "output": ["results/f.txt"], "log": [], "benchmark": None}
    crate = run_crate([job], packed, commit="0" * 40, created="2026-01-01T00:00:00+00:00",
                      snakemake_version="9", version="0", title="tiny")
    crate.metadata.write(bag)
    bagit.make_bag(str(bag), bag_info={"Bagging-Date": "2026-01-01"}, checksums=["sha256"])
    return bag


def tiny_artifact(directory: Path, extra=()) -> Path:
    """:func:`tiny_bag` packed into ``directory/a.tar.gz``, then ``extra`` members (name, bytes, "file"|"link")
    appended to the tar stream."""
    bag = tiny_bag(directory / "bag")
    good = directory / "good.tar.gz"
    pack(bag, good, 0)
    out = directory / "a.tar.gz"
    with tarfile.open(good) as src, tarfile.open(out, "w:gz") as tar:
        for m in src.getmembers():
            tar.addfile(m, src.extractfile(m) if m.isfile() else None)
        for name, data, kind in extra:
            info = tarfile.TarInfo(name)
            if kind == "link":
                info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            else:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if kind == "file" else None)
    return out
