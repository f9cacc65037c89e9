"""The environment is the lock: requirements.txt (made from requirements.in by `make lock`) pins every package,
dependencies of dependencies too, at one version; requirements.in's direct pins agree with it; and the
environment the tests run in (what `make install` built) holds those packages at those versions and no others."""

import re
import sysconfig
from importlib.metadata import distributions

from tests.helpers import ROOT


def name(raw: str) -> str:
    return re.sub(r"[-_.]+", "-", raw).lower()


def pins(path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip().rstrip("\\").strip()
        if line and not line.startswith("-"):
            match = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", line)
            assert match, f"{path.name}: not an exact pin: {line!r}"
            out[name(match.group(1))] = match.group(2)
    return out


LOCK, DIRECT, DATA = (pins(ROOT / f) for f in ("requirements.txt", "requirements.in", "requirements-data.txt"))


def test_lock_pins_every_package_and_agrees_with_the_direct_pins():
    assert "torch" not in LOCK  # make install picks its build (CPU or CUDA) at requirements.in's version
    assert {n: v for n, v in DIRECT.items() if n != "torch"}.items() <= LOCK.items()
    # torch's own dependencies and those of the other direct ones are in it: the transitive closure
    for dependency in ("sympy", "networkx", "filelock", "jinja2", "fsspec", "tzdata", "regex", "urllib3"):
        assert dependency in LOCK, dependency
    text = (ROOT / "requirements.txt").read_text()
    assert "pip-compile" in text and "--unsafe-package=torch" in text  # made by `make lock`, as the README says


def test_environment_holds_exactly_the_lock():
    # the environment's own site-packages: another test may have put a fake wheel on sys.path for a while
    site = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    installed = {name(d.metadata["Name"]): d.version for d in distributions(path=site)}
    expected = {**LOCK, **DATA, "torch": DIRECT["torch"]}
    wrong = {n: (installed.get(n), v) for n, v in expected.items()
             if (installed.get(n) or "").split("+")[0] != v}  # torch 2.13.0+cpu is torch 2.13.0's CPU build
    assert not wrong, f"installed vs locked (rebuild the environment: rm -r .venv && make install): {wrong}"
    # what a venv brings by itself (setuptools with Python 3.11) and the project are the only extras
    extra = set(installed) - set(expected) - {"attnrepro", "setuptools"}
    assert not extra, f"installed but not in the lock: {sorted(extra)}"


def test_plugin_floor_is_what_the_profile_needs_and_no_unused_pin():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"snakemake-executor-plugin-slurm>=2.7.1"' in text  # slurm-partition-config and slurm-requeue
    assert "tqdm" not in DIRECT  # never imported; still in the lock as transformers' dependency


def test_envs_pin_exactly_the_lock():
    """envs/: the conda environment file pins every package of the lock at its version (and torch at
    requirements.in's); the CPU and CUDA variants are the lock plus torch from their index."""
    import yaml

    conda = yaml.safe_load((ROOT / "envs" / "attnrepro.yaml").read_text())
    deps = conda["dependencies"]
    pip_block = next(d["pip"] for d in deps if isinstance(d, dict))
    pinned = {name(p.split("==")[0]): p.split("==")[1] for p in pip_block if "==" in p}
    pinned["pip"] = next(d for d in deps if isinstance(d, str) and d.startswith("pip=")).split("=")[1]
    assert pinned == {**LOCK, "torch": DIRECT["torch"]}
    assert "python=3.11" in deps
    for variant, index in (("cpu", "whl/cpu"), ("cu128", "whl/cu128")):
        text = (ROOT / "envs" / f"requirements-{variant}.txt").read_text()
        lines = [line for line in text.splitlines() if line and not line.startswith("#")]
        assert lines == [f"--extra-index-url https://download.pytorch.org/{index}", "-r ../requirements.txt",
                         f"torch=={DIRECT['torch']}"], lines
