import os
from pathlib import Path

import pytest

from tests.helpers import ROOT, snakemake


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(autouse=True, scope="session")
def results_root_is_the_temporary_folder(tmp_path_factory):
    """Unit tests write the workflow's files under pytest's temporary folder: that is their results root, where
    the quarantine may move a bad file aside (attnrepro.io.results_root); a workflow run keeps its own."""
    from attnrepro.io import RESULTS_ROOT_ENV

    os.environ[RESULTS_ROOT_ENV] = str(tmp_path_factory.getbasetemp())
    yield
    os.environ.pop(RESULTS_ROOT_ENV, None)


# The tests run on two pytest-xdist workers (pyproject.toml: -n 2 --dist loadfile), each a session of its own: a
# session fixture is built once per worker that asks for it, a module fixture once per worker that runs a test of
# its module. Every file goes whole to one worker (its module fixtures are built once, its tests run in order), and
# the files that use the smoke run or the private Slurm cluster go together, to one worker, in their usual order:
# the smoke run (minutes) is too costly to build twice and several tests rerun rules in its folder; the cluster is
# one per machine and its test compares its results with the smoke run's.
SHARED_FILES = {f"tests/workflow/{name}.py" for name in ("test_artifact", "test_readme", "test_slurm",
                                                         "test_snell_workflow", "test_workflow")}
SHARED_FIXTURES = {"smoke_run", "cluster"}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """loadfile with SHARED_FILES as one unit. Not `--dist loadgroup` with xdist_group marks: with pytest 9.2 and
    pytest-xdist 3.8 the marks are silently ignored (xdist still writes the group into the test's old ``_nodeid``
    field, which pytest no longer reads; pytest-dev/pytest-xdist#1386)."""
    from xdist.scheduler import LoadFileScheduling

    class SharedFilesTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "shared: smoke run and Slurm cluster" if path in SHARED_FILES else path

    return SharedFilesTogether(config, log)


def pytest_collection_modifyitems(items):
    """A test elsewhere that uses the smoke run or the cluster would get one of its own on the other worker."""
    stray = [item.nodeid for item in items if SHARED_FIXTURES & set(getattr(item, "fixturenames", ()))
             and item.nodeid.split("::", 1)[0] not in SHARED_FILES]
    if stray:
        raise pytest.UsageError(f"tests/conftest.py: add these tests' files to SHARED_FILES: {stray}")


@pytest.fixture
def tiny_task():
    return dict(kind="one_to_one", n_words=3, min_len=4, max_len=7, n_train=200, n_valid=16, n_test=16, seed=3)


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory):
    """The smoke config run once end to end in a temporary directory; returns (directory, dry-run output)."""
    import shutil

    work = tmp_path_factory.mktemp("smoke")
    shutil.copy(ROOT / "config" / "smoke.yaml", work / "smoke.yaml")
    dry = snakemake("-n", "--configfile", "smoke.yaml", cwd=work)
    snakemake("--cores", "2", "--configfile", "smoke.yaml", cwd=work, timeout=900)  # Snell et al. adds ~15 small jobs
    return work, dry.stdout


@pytest.fixture(scope="module")
def smoke():
    """config/smoke.yaml as a dict, read once per module."""
    import yaml

    return yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())


@pytest.fixture
def world(tmp_path, monkeypatch):
    """(results root, outside folder); the outside folder holds a file, a table and a folder from the start."""
    from attnrepro.io import RESULTS_ROOT_ENV

    results, outside = tmp_path / "results", tmp_path / "outside"
    results.mkdir()
    (outside / "folder").mkdir(parents=True)
    (outside / "notes.txt").write_text("mine\n")
    monkeypatch.setenv(RESULTS_ROOT_ENV, str(results))
    return results, outside
