"""The real download code against a local HTTP server: verified fetch, reuse, wrong checksum, 404, a connection
cut mid-file, unpinned files, and the offline mirror."""

import hashlib
import subprocess
import sys

import pytest

from attnrepro.data.download import fetch
from attnrepro.errors import AttnReproError
from tests.helpers.corpora import Server, imdb, sha256

DATA = imdb()["aclImdb_v1.tar.gz"]
GOOD = sha256(DATA)


@pytest.fixture
def server():
    with Server({"aclImdb_v1.tar.gz": DATA}) as s:
        yield s


def leftovers(directory):
    return sorted(p.name for p in directory.iterdir())


def test_verified_download(server, tmp_path):
    dest = tmp_path / "imdb" / "aclImdb_v1.tar.gz"
    fetch(f"{server.url}/aclImdb_v1.tar.gz", dest, GOOD)
    assert dest.read_bytes() == DATA
    assert leftovers(dest.parent) == ["aclImdb_v1.tar.gz"]  # no temporary file left beside it


def test_existing_good_file_is_reused_without_a_request(server, tmp_path):
    dest = tmp_path / "aclImdb_v1.tar.gz"
    fetch(f"{server.url}/aclImdb_v1.tar.gz", dest, GOOD)
    fetch(f"{server.url}/aclImdb_v1.tar.gz", dest, GOOD)
    assert server.hits == {"aclImdb_v1.tar.gz": 1}


def test_existing_corrupt_file_is_moved_aside_and_fetched_again(server, tmp_path):
    dest = tmp_path / "aclImdb_v1.tar.gz"
    dest.write_bytes(DATA[:100])
    fetch(f"{server.url}/aclImdb_v1.tar.gz", dest, GOOD)
    assert dest.read_bytes() == DATA
    assert (tmp_path / "aclImdb_v1.tar.gz.corrupt").read_bytes() == DATA[:100]


def test_wrong_checksum_fails_and_keeps_nothing(server, tmp_path):
    dest = tmp_path / "aclImdb_v1.tar.gz"
    with pytest.raises(AttnReproError, match=r"sha256 mismatch for aclImdb_v1.tar.gz: expected 0{64}") as err:
        fetch(f"{server.url}/aclImdb_v1.tar.gz", dest, "0" * 64)
    assert server.url in str(err.value)
    assert leftovers(tmp_path) == []


def test_404_fails_and_keeps_nothing(server, tmp_path):
    with pytest.raises(AttnReproError, match=r"/missing.tgz: HTTP 404"):
        fetch(f"{server.url}/missing.tgz", tmp_path / "missing.tgz", GOOD)
    assert leftovers(tmp_path) == []


def test_connection_cut_mid_file_fails_and_keeps_nothing(server, tmp_path):
    with pytest.raises(AttnReproError, match=rf"connection closed after {len(DATA) // 2} of {len(DATA)} bytes"):
        fetch(f"{server.url}/cut/aclImdb_v1.tar.gz", tmp_path / "aclImdb_v1.tar.gz", GOOD)
    assert leftovers(tmp_path) == []


def test_server_down_fails_clearly(tmp_path):
    with Server({}) as s:
        url = s.url
    with pytest.raises(AttnReproError, match=r"download failed"):
        fetch(f"{url}/x.tgz", tmp_path / "x.tgz", GOOD, timeout=5)
    assert leftovers(tmp_path) == []


def test_unpinned_file_is_refused_unless_allowed(server, tmp_path, capsys):
    dest = tmp_path / "aclImdb_v1.tar.gz"
    with pytest.raises(AttnReproError, match="no pinned sha256.*allow_unpinned"):
        fetch(f"{server.url}/aclImdb_v1.tar.gz", dest, None)
    assert server.hits == {}
    fetch(f"{server.url}/aclImdb_v1.tar.gz", dest, None, allow_unpinned=True)
    assert dest.read_bytes() == DATA
    assert f"sha256: {GOOD}" in capsys.readouterr().err  # the digest to pin


def test_publisher_md5_verifies_a_file_without_sha256_and_prints_the_sha256_to_pin(server, tmp_path, capsys):
    dest = tmp_path / "aclImdb_v1.tar.gz"
    with pytest.raises(AttnReproError, match=r"md5 mismatch for aclImdb_v1.tar.gz: expected 0{32}"):
        fetch(f"{server.url}/aclImdb_v1.tar.gz", dest, None, md5="0" * 32)
    assert leftovers(tmp_path) == []
    md5 = hashlib.md5(DATA).hexdigest()
    fetch(f"{server.url}/aclImdb_v1.tar.gz", dest, None, md5=md5)
    assert dest.read_bytes() == DATA
    assert f"md5 verified ({server.url}/aclImdb_v1.tar.gz); pin it in the config with  sha256: {GOOD}" in \
        capsys.readouterr().err
    fetch(f"{server.url}/aclImdb_v1.tar.gz", dest, None, md5=md5)  # reused, checked by the same digest
    assert server.hits == {"aclImdb_v1.tar.gz": 2}
    assert "reused, md5 verified" in capsys.readouterr().err
    # the CLI passes --md5 through: a wrong one is refused with one line
    proc = subprocess.run([sys.executable, "-m", "attnrepro.cli", "download", "--url", f"{server.url}/aclImdb_v1.tar.gz",
                           "--sha256", "null", "--md5", "1" * 32, "--out", str(tmp_path / "cli.tgz")],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "md5 mismatch for cli.tgz: expected 1" in proc.stderr


def test_offline_mirror_is_used_instead_of_the_network(tmp_path):
    mirror = tmp_path / "mirror" / "imdb"
    mirror.mkdir(parents=True)
    (mirror / "aclImdb_v1.tar.gz").write_bytes(DATA)
    dest = tmp_path / "downloads" / "aclImdb_v1.tar.gz"
    # the URL is unreachable: only the mirror can satisfy this
    fetch("http://127.0.0.1:9/aclImdb_v1.tar.gz", dest, GOOD, local_dir=tmp_path / "mirror",
          local_name="imdb/aclImdb_v1.tar.gz")
    assert dest.read_bytes() == DATA


def test_offline_mirror_missing_or_wrong_file_fails(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    out = tmp_path / "out"
    with pytest.raises(AttnReproError, match=r"mirror/aclImdb_v1.tar.gz: not found in the offline mirror"):
        fetch("http://127.0.0.1:9/x", out / "aclImdb_v1.tar.gz", GOOD, local_dir=mirror)
    (mirror / "aclImdb_v1.tar.gz").write_bytes(DATA + b"x")
    with pytest.raises(AttnReproError, match="sha256 mismatch"):
        fetch("http://127.0.0.1:9/x", out / "aclImdb_v1.tar.gz", GOOD, local_dir=mirror)
    assert leftovers(out) == []


def test_cli_reports_one_line_and_exit_2(server, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "attnrepro.cli", "download", "--url", f"{server.url}/nope.tgz",
                           "--sha256", GOOD, "--out", str(tmp_path / "nope.tgz")], capture_output=True, text=True)
    assert proc.returncode == 2
    run_line, *rest = proc.stderr.strip().splitlines()  # a job's log opens with where it ran (attnrepro.run.runinfo)
    assert run_line.startswith("run: ") and rest == [f"attnrepro download: error: {server.url}/nope.tgz: HTTP 404 "
                                                f"Not Found; nothing was kept"]
