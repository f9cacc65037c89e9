"""Bad configs stop the run before any job starts, with a message that names the key."""

import copy

import pytest
import yaml

from attnrepro.config import check, experiment_spec, seed_chunks
from attnrepro.errors import AttnReproError

from conftest import snakemake


@pytest.fixture(scope="module")
def smoke(root):
    return yaml.safe_load((root / "config" / "smoke.yaml").read_text())


def with_change(cfg, path, value):
    cfg = copy.deepcopy(cfg)
    node = cfg
    for key in path[:-1]:
        node = node[key]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return cfg


DELETE = object()

BAD = [
    # (change, text the error must contain)
    ((("epochs",), 3), "epochs"),
    ((("train", "stpes"), 3), "stpes"),
    ((("train", "steps"), "many"), "many"),
    ((("train", "steps"), 0), "0"),
    ((("train", "batch_size"), -4), "-4"),
    ((("seeds",), []), "seeds"),
    ((("tasks", "one_to_one", "kind"), "copying"), "copying"),
    ((("experiments", "aed_gru_one_to_one", "model", "cell"), "lstm2"), "lstm2"),
    ((("experiments", "aed_gru_one_to_one", "model", "arch"), "rnn"), "rnn"),
    ((("experiments", "aed_gru_one_to_one", "task"), "nope"), "nope"),
    ((("tasks", "one_to_one", "min_len"), 30), "min_len"),
    ((("figures", "aitken2021_fig2", "seed"), 99), "seed"),
    ((("figures", "aitken2021_fig2", "experiment"), "ghost"), "ghost"),
    ((("export",), DELETE), "export"),
]


@pytest.mark.parametrize("change, needle", BAD, ids=[str(c[0][0]) + "=" + str(c[0][1]) for c in BAD])
def test_bad_config_stops_before_any_job(tmp_path, smoke, change, needle):
    cfg = with_change(smoke, *change)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake("-n", "--configfile", str(path), cwd=tmp_path, check=False)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert needle in out, out[-2000:]
    assert "Traceback" not in out, out[-3000:]
    assert not (tmp_path / "results").exists()


def test_check_names_the_key(smoke):
    cfg = with_change(smoke, ("tasks", "one_to_one", "min_len"), 25)
    with pytest.raises(AttnReproError, match=r"tasks\.one_to_one: min_len \(25\) is larger than max_len \(20\)"):
        check(cfg)


def test_ao_needs_enough_positions(smoke):
    cfg = with_change(smoke, ("experiments", "aed_gru_one_to_one", "model"),
                      {"arch": "ao", "cell": "gru", "hidden": 8, "input_dim": 16, "max_positions": 10})
    with pytest.raises(AttnReproError, match="max_positions"):
        check(cfg)


def test_every_config_is_valid(root):
    from snakemake.utils import validate

    for name in ("smoke", "config", "paper"):
        cfg = yaml.safe_load((root / "config" / f"{name}.yaml").read_text())
        validate(cfg, str(root / "workflow" / "schemas" / "config.schema.yaml"))
        check(cfg)


def test_schema_names_what_the_code_implements(root):
    from attnrepro.cells import CELLS
    from attnrepro.model import ARCHS
    from attnrepro.tasks import KINDS

    schema = yaml.safe_load((root / "workflow" / "schemas" / "config.schema.yaml").read_text())
    assert set(schema["$defs"]["task"]["properties"]["kind"]["enum"]) == set(KINDS)
    assert set(schema["$defs"]["model"]["properties"]["cell"]["enum"]) == set(CELLS)
    assert set(schema["$defs"]["model"]["properties"]["arch"]["enum"]) == set(ARCHS)


def test_experiment_spec_merges_training_overrides(smoke):
    cfg = with_change(smoke, ("experiments", "aed_gru_one_to_one", "train"), {"steps": 7})
    spec = experiment_spec(cfg, "aed_gru_one_to_one")
    assert spec["train"]["steps"] == 7 and spec["train"]["lr"] == smoke["train"]["lr"]


def test_seed_chunks():
    assert seed_chunks([0, 1, 2, 3, 4], 2) == [[0, 1], [2, 3], [4]]
