"""The artifact's parts that need no workflow run: CITATION.cff, the per-job record, deterministic packing, the
bag and crate checks, and unpacking that refuses a decompression bomb."""

import gzip
import io
import json
import os
import subprocess
import sys
import tarfile

import pytest
import yaml

import attnrepro
from attnrepro.archive.artifact import ROOT, pack, payload_oxum, unpack, verify
from attnrepro.errors import AttnReproError
from attnrepro.run.jobrecord import PREFIX, format_record, job_record, read_records

from tests.helpers import tiny_bag
from tests.helpers import ROOT as REPO, tool_env


def test_citation_cff_names_the_package_version_and_the_papers():
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["version"] == attnrepro.__version__
    assert cff["license"] == "MIT" and cff["authors"] and cff["message"]
    assert [r["authors"][0]["family-names"] for r in cff["references"]] == ["Aitken", "Snell", "Kobayashi"]


def test_a_job_records_where_it_ran_at_the_end_of_its_log(tmp_path):
    csv = tmp_path / "t.csv"
    csv.write_text("paper,x\naitken2021,1\n")
    proc = subprocess.run([sys.executable, "-m", "attnrepro.cli", "report-table", "--csv", str(csv), "--title", "t",
                           "--out", str(tmp_path / "t.html")], env=tool_env(), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    log = tmp_path / "job.log"
    log.write_text("some output\n" + proc.stderr)
    record = read_records(log)
    assert record["command"] == "report-table" and record["device"] == "cpu" and record["peak_rss_mb"] > 0
    assert record["start"] <= record["end"] and record["host"] and record["python"]
    # a rule that runs two commands: the first start, the last end, the larger peak
    first = {**record, "start": "2026-01-01T00:00:00+00:00", "peak_rss_mb": 1e6}
    log.write_text(format_record(first) + "\n" + PREFIX + "{cut short\n" + proc.stderr)
    merged = read_records(log)
    assert merged["start"] == first["start"] and merged["peak_rss_mb"] == 1e6 and merged["end"] == record["end"]
    log.write_text("no record\n")
    assert read_records(log) is None


def test_job_record_fields():
    import time

    record = job_record("train", time.time() - 5)
    assert set(record) == {"command", "host", "slurm_job", "device", "torch", "cuda", "python", "start", "end",
                           "peak_rss_mb", "peak_gpu_mb"}
    assert record["peak_gpu_mb"] is None  # torch never touched a GPU here
    assert json.loads(format_record(record)[len(PREFIX):]) == record


def test_packing_is_deterministic_whatever_the_files_mtimes(tmp_path):
    bag = tiny_bag(tmp_path)
    pack(bag, tmp_path / "a.tar.gz", 1_700_000_000)
    for path in bag.rglob("*"):
        os.utime(path, (1_800_000_000, 1_800_000_000))
    pack(bag, tmp_path / "b.tar.gz", 1_700_000_000)
    assert (tmp_path / "a.tar.gz").read_bytes() == (tmp_path / "b.tar.gz").read_bytes()
    with tarfile.open(tmp_path / "a.tar.gz") as tar:
        names = tar.getnames()
    assert names.index(f"{ROOT}/bag-info.txt") < min(i for i, n in enumerate(names) if n.startswith(f"{ROOT}/data/"))


def test_verify_checks_the_bag_and_the_crate(tmp_path):
    bag = tiny_bag(tmp_path)
    assert verify(bag) == []
    (bag / "data" / "results" / "extra.txt").write_text("x")
    problems = verify(bag)  # bagit's own validator: the payload's size first
    assert len(problems) == 1 and problems[0].startswith("Payload-Oxum validation failed. Expected 3 files"), problems
    (bag / "data" / "results" / "extra.txt").unlink()
    # a crate naming a file the payload lacks, with the manifest rewritten to match: the bag is valid, the crate not
    crate = json.loads((bag / "data" / "ro-crate-metadata.json").read_text())
    crate["@graph"].append({"@id": "results/ghost.csv", "@type": "File"})
    next(e for e in crate["@graph"] if e["@id"] == "./")["hasPart"].append({"@id": "results/ghost.csv"})
    (bag / "data" / "ro-crate-metadata.json").write_text(json.dumps(crate))
    import bagit

    bagit.Bag(str(bag)).save(manifests=True)
    assert verify(bag) == ["data/ro-crate-metadata.json: names data/results/ghost.csv, which the payload lacks"]
    with pytest.raises(AttnReproError, match="no bagit.txt"):
        verify(tmp_path)


def test_payload_oxum():
    assert payload_oxum("Bagging-Date: 2026-01-01\nPayload-Oxum: 1234.5\n", "x") == (1234, 5)
    with pytest.raises(AttnReproError, match="x: bag-info.txt has no valid Payload-Oxum"):
        payload_oxum("Payload-Oxum: many\n", "x")


def _bomb(path, members):
    """A tar.gz of ``members`` (name, size or bytes), each big one a run of zeros compressed to almost nothing."""
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1) as gz, \
            tarfile.open(fileobj=gz, mode="w") as tar:
        for name, content in members:
            info = tarfile.TarInfo(name)
            data = content if isinstance(content, bytes) else None
            info.size = len(data) if data is not None else content
            tar.addfile(info, io.BytesIO(data) if data is not None else _Zeros(content))
    return path


class _Zeros(io.RawIOBase):
    def __init__(self, n):
        self.left = n

    def read(self, size=-1):
        size = self.left if size < 0 else min(size, self.left)
        self.left -= size
        return bytes(size)


def test_unpack_stops_a_decompression_bomb_before_writing_it(tmp_path):
    big = 80 << 20  # beyond the tag files' allowance (64 MiB) over a 10-byte payload
    bomb = _bomb(tmp_path / "bomb.tar.gz", [(f"{ROOT}/bag-info.txt", b"Payload-Oxum: 10.1\n"),
                                             (f"{ROOT}/data/zeros", big)])
    assert bomb.stat().st_size < big // 100
    with pytest.raises(AttnReproError, match=r"bomb.tar.gz: unpacks to more than \d+ bytes") as err:
        unpack(bomb, tmp_path / "out")
    assert "\n" not in str(err.value)
    assert not (tmp_path / "out" / ROOT / "data" / "zeros").exists()
    # a payload ahead of bag-info.txt gets only a few MiB
    early = _bomb(tmp_path / "early.tar.gz", [(f"{ROOT}/data/zeros", 8 << 20),
                                              (f"{ROOT}/bag-info.txt", b"Payload-Oxum: 10.1\n")])
    with pytest.raises(AttnReproError, match="bag-info.txt does not come first"):
        unpack(early, tmp_path / "out2")


def test_unpack_bounds_what_it_writes_by_the_archives_own_size_not_by_bag_info(tmp_path):
    """A bag-info.txt announcing 1 GB let a small archive of zeros unpack to that much before the bound stopped it:
    the bound is now also MAX_RATIO times the archive's real size."""
    from attnrepro.archive.artifact import MAX_RATIO, SLACK

    big = 96 << 20
    bomb = _bomb(tmp_path / "liar.tar.gz", [(f"{ROOT}/bag-info.txt", b"Payload-Oxum: 1000000000.1\n"),
                                             (f"{ROOT}/data/zeros", big)])
    size = bomb.stat().st_size
    assert MAX_RATIO * size + SLACK < big < 1_000_000_000
    with pytest.raises(AttnReproError, match=rf"liar\.tar\.gz: unpacks to more than {MAX_RATIO * size + SLACK} bytes "
                                             rf"or \d+ members, more than {MAX_RATIO} times its own {size} bytes allow "
                                             r"\(a decompression bomb\); stopped before writing 'artifact/data/zeros'"):
        unpack(bomb, tmp_path / "out")
    written = sum(f.stat().st_size for f in (tmp_path / "out").rglob("*") if f.is_file())
    assert written < 1000, written  # bag-info.txt only
    for doc in ("failures.md", "artifact.md"):  # the bound the docs quote is this one
        assert f"{MAX_RATIO} times the archive's own size (plus {SLACK >> 20} MiB)" in \
            " ".join((REPO / "docs" / doc).read_text().split()), doc
    # many empty members, each a 512-byte header that compresses to a few bytes, are bounded the same way
    many = _bomb(tmp_path / "many.tar.gz", [(f"{ROOT}/bag-info.txt", b"Payload-Oxum: 0.1000000\n")]
                 + [(f"{ROOT}/data/{i}", b"") for i in range(4000)])
    with pytest.raises(AttnReproError, match=r"many\.tar\.gz: .* members, more than 32 times its own"):
        unpack(many, tmp_path / "out2")
    assert len(list((tmp_path / "out2" / ROOT / "data").iterdir())) < many.stat().st_size // 16 + 64


def test_a_job_without_its_own_record_takes_times_and_memory_from_its_benchmark(tmp_path):
    from attnrepro.archive.crate import job_provenance

    bench = tmp_path / "b.tsv"
    bench.write_text("s\th:m:s\tmax_rss\tmax_vms\n2.5\t0:00:02\t120.5\t300\n")
    os.utime(bench, (1_700_000_000, 1_700_000_000))
    log = tmp_path / "job.log"
    log.write_text("snakemake's own output\n")
    job = {"log": [str(log)], "benchmark": str(bench)}
    assert job_provenance(job) == {"start": "2023-11-14T22:13:17+00:00", "end": "2023-11-14T22:13:20+00:00",
                                   "peak_rss_mb": 120.5}
    bench.write_text("s\th:m:s\tmax_rss\tmax_vms\n0.1\t0:00:00\t-\t-\n")  # too short for Snakemake to sample
    assert "peak_rss_mb" not in job_provenance(job)
    log.write_text(format_record({"command": "train", "start": "2023-11-14T22:00:00+00:00", "end": "2023-11-14T22:13:20+00:00",
                                  "host": "gpu07", "device": "NVIDIA H100", "peak_rss_mb": 9000.0}) + "\n")
    assert job_provenance(job)["host"] == "gpu07" and job_provenance(job)["peak_rss_mb"] == 9000.0
