"""What the tests share that is not a fixture: the repository root, the workflow run from a test's own folder, a
tiny artifact, hand-made inputs for the command line and the models, and the scripts outside the package imported
by path. The corpus archives and their HTTP server are :mod:`tests.helpers.corpora`, the headless browser
:mod:`tests.helpers.browser`."""

from __future__ import annotations

import contextlib
import copy
import importlib
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def import_script(path: str):
    """The script at ``path`` (relative to the repository root) as a module. Its folder goes first on ``sys.path``
    and stays there: the script imports the scripts beside it by their bare names."""
    script = ROOT / path
    if str(script.parent) not in sys.path:
        sys.path.insert(0, str(script.parent))
    return importlib.import_module(script.stem)


def checkout_files() -> list[str]:
    """The files of this checkout that git tracks or would track (what a clone plus the work in progress has),
    relative to the repository root."""
    out = subprocess.run(["git", "ls-files", "-z", "-c", "-o", "--exclude-standard"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.split("\0")
    return [name for name in out if name and (ROOT / name).is_file()]


# -- the workflow, run from a test's own folder ----------------------------------------------------------------
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
    config's own results root (tests of the roots themselves, tests/workflow/test_results_root.py, and the golden
    lists)."""
    args = list(args)
    if not own_root:  # into the test's own --config list if it has one: a second --config would replace the first
        args = (args[:args.index("--config") + 1] + ["results=results"] + args[args.index("--config") + 1:]
                if "--config" in args else args + ["--config", "results=results"])
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(cwd), *args]
    proc = subprocess.run(cmd, cwd=cwd, env=tool_env(), capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


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


# -- a tiny artifact, for tests of verify/unpack that need no workflow run -------------------------------------
def tiny_bag(directory: Path) -> Path:
    """``directory/artifact``: a BagIt bag whose payload is a Workflow Run RO-Crate of one job."""
    import bagit

    from attnrepro.archive.artifact import ROOT as BAG
    from attnrepro.archive.crate import run_crate

    bag = Path(directory) / BAG
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
    from attnrepro.archive.artifact import pack

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


# -- hand-made inputs: a config edited key by key, a task and a training spec for the command line --------------
class _Delete:
    """The value that removes the key. Its repr is in a test ID, which must not change from process to process
    (an object()'s holds its address): each pytest-xdist worker collects the tests, and they must agree."""

    def __repr__(self):
        return "DELETE"


DELETE = _Delete()


def with_change(cfg, path, value):
    """A deep copy of ``cfg`` with the key at ``path`` set to ``value`` (removed if ``value`` is DELETE)."""
    cfg = copy.deepcopy(cfg)
    node = cfg
    for key in path[:-1]:
        node = node[key]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return cfg


SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


def edge(cfg):
    """What common.smk runs on a config before any job: strict YAML was read, then schema, then check."""
    from attnrepro.run import config as cfglib, validation

    validation.validate(cfg, SCHEMA)
    cfglib.check(cfg)


TASK = dict(kind="one_to_one", n_words=3, min_len=4, max_len=6, n_train=50, n_valid=8, n_test=8, seed=0)
SPEC = {"task": "data", "model": {"arch": "aed", "cell": "gru", "hidden": 8},
        "train": {"steps": 4, "batch_size": 4, "lr": 0.01, "lr_decay": 1.0, "betas": [0.9, 0.99], "eps": 1e-8,
                  "grad_clip": 1.0, "l2": 0.0, "checkpoint_every": 2, "eval_every": 2, "n_eval": 8}}


def task_data(tmp_path):
    """TASK's splits and vocabulary made by `attnrepro data` in ``tmp_path/data``."""
    from attnrepro.cli import main

    d = tmp_path / "data"
    assert main(["data", "--task-json", json.dumps(TASK), "--out-dir", str(d)]) == 0
    return d


# -- the same under a results root (the workflow's layout), and a folder outside it that no case may change -----
RESULTS_SPEC = {"task": "t", "model": {"arch": "aed", "cell": "gru", "hidden": 8},
                "train": {"steps": 4, "batch_size": 4, "lr": 0.01, "lr_decay": 1.0, "betas": [0.9, 0.99],
                          "eps": 1e-8, "grad_clip": 1.0, "l2": 0.0, "checkpoint_every": 2, "eval_every": 2,
                          "n_eval": 8}}


def tree_of(folder):
    """Every path under ``folder``: whether it is a folder, and a file's bytes."""
    return {p.relative_to(folder): (p.is_dir(), p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


@contextlib.contextmanager
def untouched(outside):
    before = tree_of(outside)
    yield
    assert tree_of(outside) == before, "a file outside the results root changed"


def one_line(err: str, *needles: str) -> str:
    """The one error line of ``err`` (no traceback), which holds every needle."""
    lines = [line for line in err.strip().splitlines() if "error" in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def results_data(results, task="t"):
    from attnrepro.cli import main

    d = results / "data" / task
    assert main(["data", "--task-json", json.dumps(TASK), "--out-dir", str(d)]) == 0
    return d


def results_train(results, data_dir, spec=RESULTS_SPEC, name="aed_x", extra=()):
    from attnrepro.cli import main

    out = results / "models" / name / "s0"
    rc = main(["train", "--spec-json", json.dumps(spec), "--seeds", "0", "--data-dir", str(data_dir),
               "--ckpt-dir", str(results / "checkpoints" / name / "s0"), "--model-out", str(out / "model.pt"),
               "--metrics-out", str(out / "metrics.csv"), "--name", name, "--device", "cpu", *extra])
    return rc, out


# -- a batch for the encoder-decoder's tests ---------------------------------------------------------------------
V_SRC, V_TGT = 5, 6


def batch(n_seeds=1, b=4, t=7, s=7, seed=0):
    """(src, src_len, tgt_in) of ``b`` sequences per seed, ended by <eos> then padding, over V_SRC/V_TGT words."""
    import torch

    g = torch.Generator().manual_seed(seed)
    src = torch.randint(2, V_SRC, (n_seeds, b, t), generator=g)
    src_len = torch.tensor([t, t - 2, 3, t - 1])[:b].expand(n_seeds, b).clone()
    for k in range(b):
        src[:, k, src_len[0, k] - 1] = 1  # <eos>
        src[:, k, src_len[0, k]:] = 0
    tgt_in = torch.randint(1, V_TGT, (n_seeds, b, s), generator=g)
    return src, src_len, tgt_in
