"""Config validation: every shipped config is valid; cross-field rules; the schema matches the code."""


import pytest
import yaml

from attnrepro.run.config import attention, check, experiment_chunks, experiment_seeds, experiment_spec, seed_chunks
from attnrepro.errors import AttnReproError

from tests.helpers import with_change


def test_check_names_the_key(smoke):
    cfg = with_change(smoke, ("tasks", "one_to_one", "min_len"), 25)
    with pytest.raises(AttnReproError, match=r"tasks\.one_to_one: min_len \(25\) is larger than max_len \(20\)"):
        check(cfg)


def test_ao_needs_enough_positions(smoke):
    cfg = with_change(smoke, ("experiments", "aed_gru_one_to_one", "model"),
                      {"arch": "ao", "cell": "gru", "hidden": 8, "input_dim": 16, "max_positions": 10})
    with pytest.raises(AttnReproError, match="max_positions"):
        check(cfg)


def test_pe_norm_is_for_ao_and_sort_needs_enough_letters(smoke):
    cfg = with_change(smoke, ("experiments", "aed_gru_one_to_one", "model", "pe_norm"), 1.0)
    with pytest.raises(AttnReproError, match=r"experiments\.aed_gru_one_to_one\.model\.pe_norm: only AO"):
        check(cfg)
    for key, value in (("time_scale", 20.0), ("pe_shared", True)):
        cfg = with_change(smoke, ("experiments", "aed_gru_one_to_one", "model", key), value)
        with pytest.raises(AttnReproError, match=rf"experiments\.aed_gru_one_to_one\.model\.{key}: only AO"):
            check(cfg)
    cfg = with_change(smoke, ("tasks", "sort", "n_words"), 5)
    with pytest.raises(AttnReproError, match=r"tasks\.sort: distinct letters need n_words \(5\) >= max_len \(8\)"):
        check(cfg)
    check(with_change(cfg, ("tasks", "sort", "distinct"), False))  # with repetition any number of letters will do


def test_every_config_is_valid(root):
    from snakemake.utils import validate

    for name in ("smoke", "config", "paper", "paper_slice"):
        cfg = yaml.safe_load((root / "config" / f"{name}.yaml").read_text())
        validate(cfg, str(root / "workflow" / "schemas" / "config.schema.yaml"))
        check(cfg)


def test_schema_names_what_the_code_implements(root):
    from attnrepro.nn.cells import CELLS
    from attnrepro.nn.attention import ATTENTIONS
    from attnrepro.seq2seq.model import ARCHS
    from attnrepro.data.tasks import KINDS

    schema = yaml.safe_load((root / "workflow" / "schemas" / "config.schema.yaml").read_text())
    assert set(schema["$defs"]["task"]["properties"]["kind"]["enum"]) == set(KINDS)
    assert set(schema["$defs"]["model"]["properties"]["cell"]["enum"]) == set(CELLS)
    assert set(schema["$defs"]["model"]["properties"]["arch"]["enum"]) == set(ARCHS)
    assert set(schema["$defs"]["model"]["properties"]["attention"]["enum"]) == set(ATTENTIONS)


def test_experiment_spec_merges_training_overrides(smoke):
    cfg = with_change(smoke, ("experiments", "aed_gru_one_to_one", "train"), {"steps": 7})
    spec = experiment_spec(cfg, "aed_gru_one_to_one")
    assert spec["train"]["steps"] == 7 and spec["train"]["lr"] == smoke["train"]["lr"]


def test_seed_chunks():
    assert seed_chunks([0, 1, 2, 3, 4], 2) == [[0, 1], [2, 3], [4]]


def test_an_experiment_trains_its_own_seeds_or_the_configs(smoke):
    cfg = with_change(smoke, ("seeds_per_job",), 2)
    cfg = with_change(cfg, ("seeds",), [0, 1, 2, 3, 4])
    cfg = with_change(cfg, ("experiments", "aed_gru_one_to_one", "seeds"), [0, 1, 2])
    assert experiment_seeds(cfg, "aed_gru_one_to_one") == [0, 1, 2]
    assert experiment_chunks(cfg, "aed_gru_one_to_one") == [[0, 1], [2]]
    other = next(n for n in cfg["experiments"] if n != "aed_gru_one_to_one")
    assert experiment_chunks(cfg, other) == [[0, 1], [2, 3], [4]]
    check(cfg)
    with pytest.raises(AttnReproError, match=r"experiments\.aed_gru_one_to_one\.seeds: repeated seed"):
        check(with_change(cfg, ("experiments", "aed_gru_one_to_one", "seeds"), [0, 1, 1]))
    # the single-model panels draw one seed: every experiment a figure draws must train it
    seed = cfg["figures"]["aitken2021"]["seed"]
    with pytest.raises(AttnReproError, match=rf"figures\.aitken2021\.fig2\.aed: 'aed_gru_one_to_one' does not "
                                             rf"train figures\.aitken2021\.seed {seed}"):
        check(with_change(cfg, ("experiments", "aed_gru_one_to_one", "seeds"), [s for s in [0, 1, 2] if s != seed]))


def test_ved_has_no_attention_to_choose(smoke):
    cfg = with_change(smoke, ("experiments", "aed_gru_one_to_one", "model"),
                      {"arch": "ved", "cell": "gru", "hidden": 8, "attention": "qkv"})
    with pytest.raises(AttnReproError, match=r"aed_gru_one_to_one\.model\.attention"):
        check(cfg)


def test_pinned_encoder_and_ranks_have_folders_of_their_own(root):
    paper = yaml.safe_load((root / "config" / "paper.yaml").read_text())
    check(paper)
    k = paper["kobayashi2020"]
    assert k["encoder"]["name"] == "bert_base_uncased" and k["ranks"]["name"] == "bert_pretraining_ranks"
    assert all(f["sha256"] for s in (k["encoder"], k["ranks"]) for f in s["files"].values())  # every file pinned
    with pytest.raises(AttnReproError, match=r"kobayashi2020\.ranks\.name: 'imdb' is already the download folder "
                                             r"of corpora\.imdb"):
        check(with_change(paper, ("kobayashi2020", "ranks", "name"), "imdb"))
    with pytest.raises(AttnReproError, match=r"kobayashi2020\.ranks\.name: 'bert_base_uncased' is already the "
                                             r"download folder of kobayashi2020\.encoder"):
        check(with_change(paper, ("kobayashi2020", "ranks", "name"), "bert_base_uncased"))
    two = {**k["ranks"]["files"], "more.txt": k["ranks"]["files"]["rank_count_ids.txt"]}
    with pytest.raises(AttnReproError, match=r"kobayashi2020\.ranks\.files: one 'rank count id' file, not 2"):
        check(with_change(paper, ("kobayashi2020", "ranks", "files"), two))


def test_an_aed_or_ao_without_an_attention_key_has_the_papers_dot_product():
    assert attention({"arch": "ao", "cell": "gru"}) == "dot" and attention({"arch": "aed", "attention": "qkv"}) == "qkv"
    assert attention({"arch": "ved", "cell": "gru"}) == "" and attention({"arch": "transformer", "cell": "ff"}) == ""
