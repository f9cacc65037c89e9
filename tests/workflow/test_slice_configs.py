"""The paper slice's companion configs: config/paper_slice_lstm.yaml and config/paper_slice_ugrnn.yaml are the
slice on LSTM and on UGRNN, and config/paper_slice_options.yaml the slice's AED eSCAN with the authors' options
switched one at a time; each keeps every other key of config/paper_slice.yaml, validates, and builds its DAG (a
dry run: nothing trains)."""

import pytest
import yaml

from tests.helpers import ROOT, job_counts, snakemake

from attnrepro.run import config as cfglib
from attnrepro.run import layout, validation
from attnrepro.seq2seq.options import AITKEN_CODE_OPTIONS

CELLS = ("lstm", "ugrnn")
CONFIGS = (*(f"paper_slice_{c}" for c in CELLS), "paper_slice_options")
SLICE = yaml.safe_load((ROOT / "config" / "paper_slice.yaml").read_text())
SHARED = ("seeds", "seeds_per_job", "device", "threads", "train", "export", "archive")
# the options of the authors' code the arms switch: the model's, and the training loss
OPTIONS = {**{k: v[0] for k, v in AITKEN_CODE_OPTIONS.items()}, "loss": "real"}


def load(name):
    return yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())


def options_of(cfg, name):
    """The five options as an experiment's resolved spec sets them (absent keys at their defaults)."""
    spec = cfglib.experiment_spec(cfg, name)
    merged = {**spec["model"], **spec["train"]}
    return {k: merged.get(k, default) for k, default in OPTIONS.items()}


@pytest.mark.parametrize("name", CONFIGS)
def test_the_companions_keep_the_slices_recipe(name):
    cfg = load(name)
    assert {k: cfg[k] for k in SHARED} == {k: SLICE[k] for k in SHARED}
    assert cfg["claims"]["confidence"] == SLICE["claims"]["confidence"]
    assert all(cfg["tasks"][t] == SLICE["tasks"][t] for t in cfg["tasks"])
    assert cfg["results"] not in (SLICE["results"], "results")
    validation.validate(cfg, ROOT / "workflow" / "schemas" / "config.schema.yaml")
    cfglib.check(cfg)


@pytest.mark.parametrize("cell", CELLS)
def test_each_cell_config_is_the_slice_on_its_cell(cell):
    cfg = load(f"paper_slice_{cell}")
    expected = {}
    for name, exp in SLICE["experiments"].items():
        assert exp["model"]["cell"] == "gru" and "_gru_" in name
        expected[name.replace("_gru_", f"_{cell}_")] = {**exp, "model": {**exp["model"], "cell": cell}}
    assert cfg["experiments"] == expected
    # each model is its own claims experiment, keyed by its cell: the by-cell table reads the cell from the sources
    sources = {s.experiment: s.cell for s in layout.claim_sources(cfg)}
    assert sources == dict.fromkeys(expected, cell)


def test_the_options_config_switches_one_option_per_arm():
    cfg = load("paper_slice_options")
    on = options_of(SLICE, "aed_gru_escan")
    assert on == {"initial_state": "learned", "init": "aitken", "readout_bias": False, "first_input": "uniform",
                  "loss": "padded"}
    arms = {n: options_of(cfg, n) for n in cfg["experiments"]}
    assert cfg["experiments"]["aed_gru_escan"] == SLICE["experiments"]["aed_gru_escan"]
    assert arms.pop("aed_gru_escan_default_all") == OPTIONS
    assert arms.pop("aed_gru_escan") == on
    switched = {}
    for name, opts in arms.items():
        diff = [k for k in OPTIONS if opts[k] != on[k]]
        assert len(diff) == 1 and opts[diff[0]] == OPTIONS[diff[0]], (name, diff)
        assert name == f"aed_gru_escan_default_{diff[0]}"
        switched[diff[0]] = name
    assert sorted(switched) == sorted(OPTIONS)
    # everything else of every arm is the slice's AED eSCAN
    base = cfglib.experiment_spec(SLICE, "aed_gru_escan")
    for name in cfg["experiments"]:
        spec = cfglib.experiment_spec(cfg, name)
        strip = lambda d: {k: v for k, v in d.items() if k not in OPTIONS}  # noqa: E731
        assert strip(spec["model"]) == strip(base["model"]) and strip(spec["train"]) == strip(base["train"]), name


@pytest.mark.parametrize("name", CONFIGS)
def test_the_dag_trains_each_experiment_once(name, tmp_path):
    cfg = load(name)
    proc = snakemake("-n", "--configfile", str(ROOT / "config" / f"{name}.yaml"), cwd=tmp_path)
    jobs = job_counts(proc.stdout)
    n = len(cfg["experiments"])
    assert jobs["train"] == jobs["export"] == jobs["analyze"] == n, jobs
    assert jobs["data"] == len(cfg["tasks"]) and jobs["claims"] == 1, jobs
    assert "kobayashi2020_cache" not in jobs and "ladder" not in jobs
