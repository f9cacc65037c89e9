import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


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
SHARED_FILES = {f"tests/{name}.py" for name in ("test_artifact", "test_readme", "test_slurm", "test_snell_workflow",
                                                "test_workflow")}
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


def tool_env() -> dict:
    """The environment a rule sees: this interpreter's bin first, so ``attnrepro`` and ``snakemake`` resolve; the
    results root is the workflow's own (``results/`` of its directory)."""
    from attnrepro.io import RESULTS_ROOT_ENV

    env = dict(os.environ)
    env.pop(RESULTS_ROOT_ENV, None)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


def user_profile(directory: Path, gpu_request: str = "gpus") -> Path:
    """slurm/ copied to ``directory`` and edited where its comments say: the account (the test cluster's), the GPU
    request. Tests name it by its absolute path: the profile's partitions.yaml is found beside it whatever
    --directory says."""
    import shutil

    shutil.copytree(ROOT / "slurm", directory)
    text = (directory / "config.yaml").read_text()
    edited = (text.replace('slurm_account: "CHANGE_ME"', 'slurm_account: "testacct"')
              .replace('gpu_request: "gpus"', f'gpu_request: "{gpu_request}"'))
    assert edited.count("testacct") == 1 and edited.count(f'gpu_request: "{gpu_request}"') == 1
    (directory / "config.yaml").write_text(edited)
    return directory


def snakemake(*args, cwd, check=True, timeout=600, own_root=False) -> subprocess.CompletedProcess:
    """Snakemake in ``cwd`` (a fresh folder per test). Outputs go under ``cwd/results/`` whichever shipped config
    the test derives its own from (``--config results=results``), so tests name one layout; ``own_root``: the
    config's own results root (tests of the roots themselves, tests/test_results_root.py, and the golden lists)."""
    args = list(args)
    if not own_root:  # into the test's own --config list if it has one: a second --config would replace the first
        args = (args[:args.index("--config") + 1] + ["results=results"] + args[args.index("--config") + 1:]
                if "--config" in args else args + ["--config", "results=results"])
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(cwd), *args]
    proc = subprocess.run(cmd, cwd=cwd, env=tool_env(), capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


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


def job_counts(output: str) -> dict[str, int]:
    """The 'Job stats' table of a snakemake (dry-)run: rule -> number of jobs."""
    import re

    if "Job stats" not in output:
        return {}
    stats = output[output.index("Job stats"):]
    return {rule: int(n) for rule, n in re.findall(r"^(\w+)\s+(\d+)$", stats, flags=re.M) if rule != "total"}


def long_training_config(directory, steps):
    """The smoke config cut to one experiment and one seed, training long enough (``steps``, a checkpoint every
    25) to be killed mid-run; written to ``directory/long.yaml``, whose name is returned."""
    import yaml

    cfg = core_config()
    cfg["seeds"], cfg["seeds_per_job"] = [0], 1
    del cfg["experiments"]["ao_qkv_one_to_one"]
    cfg["figures"] = {"dpi": 60}
    cfg["train"].update(steps=steps, checkpoint_every=25, eval_every=500, batch_size=16)
    cfg["experiments"]["aed_gru_one_to_one"]["model"]["hidden"] = 8
    (directory / "long.yaml").write_text(yaml.safe_dump(cfg))
    return "long.yaml"


CORE_EXPERIMENTS = ("aed_gru_one_to_one", "ao_qkv_one_to_one")


def core_config(directory=None, name: str = "core.yaml"):
    """The smoke config cut to one task, two experiments (AED with dot, AO with query/key/value attention) and the
    Fig. 5 panels, which read both: every kind of rule in a fraction of the jobs. Returned as a dict, and written
    to ``directory/name`` when a directory is given."""
    import yaml

    cfg = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    cfg["results"] = "results"  # a test's own folder holds one config: one layout for every test to name
    cfg["tasks"] = {"one_to_one": cfg["tasks"]["one_to_one"]}
    cfg["experiments"] = {k: cfg["experiments"][k] for k in CORE_EXPERIMENTS}
    for block in ("snell2021", "kobayashi2020", "kobayashi2020_aer", "corpora", "downloads"):  # other papers' jobs
        cfg.pop(block, None)
    aed, ao = CORE_EXPERIMENTS
    cfg["figures"]["aitken2021"] = {"seed": 0, "fig5": {"shares": [aed, ao], "offsets": [ao], "variance": [aed, ao],
                                                        "readout": ao}}
    if directory is not None:
        (directory / name).write_text(yaml.safe_dump(cfg))
    return cfg


def kill_after_a_checkpoint(cmd, ckpt_dir, timeout=120) -> int:
    """Start ``cmd`` (a training command), SIGKILL it as soon as ``ckpt_dir`` holds a checkpoint, and return the
    step of the newest checkpoint left behind (the step a rerun resumes from)."""
    import signal
    import time

    proc = subprocess.Popen(cmd, env=tool_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + timeout
    while time.time() < deadline and not any(Path(ckpt_dir).glob("ckpt_*.pt")) and proc.poll() is None:
        time.sleep(0.02)
    assert proc.poll() is None, "training finished before it could be killed; raise the step count"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return int(sorted(Path(ckpt_dir).glob("ckpt_*.pt"))[-1].stem.split("_")[1])


class Interrupt(Exception):
    """Raised by :func:`stop_at` to stop a training run in its tracks, as a kill would (after its last checkpoint)."""


def stop_at(step):
    """An ``on_step`` hook that interrupts a run once ``step`` steps are done."""
    def hook(done):
        if done == step:
            raise Interrupt
    return hook


def assert_same_weights(a, b):
    """Two models' state bit for bit, naming each tensor that differs with its largest |difference|."""
    import torch

    sa, sb = a.state_dict(), b.state_dict()
    assert sa.keys() == sb.keys()
    differ = {k: float((sa[k].double() - sb[k].double()).abs().max()) if sa[k].shape == sb[k].shape else
              f"shape {tuple(sa[k].shape)} vs {tuple(sb[k].shape)}" for k in sa if not torch.equal(sa[k], sb[k])}
    assert not differ, f"weights differ (largest |difference| per tensor): {differ}"
