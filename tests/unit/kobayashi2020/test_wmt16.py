"""The WMT16 De-En route of Kobayashi et al. §5: the RWTH gold set's parser on a local fixture in the
release's layout, the training archives' reader, the corpus as a ``wmt16`` task in a config, and the statistical
aligner's error without eflomal."""

import sys
from pathlib import Path

import pytest
import yaml

from attnrepro.run.config import check, task_spec
from attnrepro.data.corpora import FORMATS, has_gold, wmt16
from attnrepro.errors import AttnReproError
from attnrepro.kobayashi2020 import rwth

from tests.helpers import ROOT, with_change
from tests.helpers.corpora import sentences, tar_gz

FIXTURE = ROOT / "tests" / "fixtures" / "rwth_deen"
CORPUS = {"format": "wmt16", "src": "de", "tgt": "en", "vocab_size": 100, "max_len": 12, "n_train": 40,
          "n_valid": 5, "n_test": 5, "seed": 0}


def _gold_archive(raw: Path, talp: bytes | None = None) -> Path:
    members = {f"DeEn/{name}": (FIXTURE / "DeEn" / name).read_bytes() for name in ("de", "en", "alignmentDeEn.talp")}
    if talp is not None:
        members["DeEn/alignmentDeEn.talp"] = talp
    raw.mkdir(parents=True, exist_ok=True)
    (raw / wmt16.GOLD_FILE).write_bytes(tar_gz(members))
    return raw


def test_rwth_gold_set_parses_into_zero_based_sure_and_possible_links(tmp_path):
    gold = rwth.read_gold(CORPUS, _gold_archive(tmp_path))
    assert len(gold.src) == len(gold.tgt) == 3  # the trailing blank lines are not sentence pairs
    assert gold.src[0] == ["ich", "danke", "ihnen", "für", "die", "größe", "."]  # Latin-1 read, lower-cased
    assert gold.tgt[2] == ["we", "agree", "."]
    assert gold.sure[0] == {(k, k) for k in range(7)}
    assert gold.possible[0] == gold.sure[0] | {(2, 1)}
    assert gold.sure[2] == {(0, 0), (2, 1), (3, 2)} and gold.possible[2] - gold.sure[2] == {(1, 1)}
    flipped = rwth.read_gold({**CORPUS, "src": "en", "tgt": "de"}, tmp_path)
    assert flipped.src == gold.tgt and flipped.possible[2] == {(j, i) for i, j in gold.possible[2]}


def test_a_malformed_or_out_of_range_link_names_the_member_and_line(tmp_path):
    talp = (FIXTURE / "DeEn" / "alignmentDeEn.talp").read_bytes().replace(b"1-1 2-2 3-3 4-4\n", b"1-1 2:2\n")
    with pytest.raises(AttnReproError, match=r"DeEnGoldAlignment\.tar\.gz: DeEn/alignmentDeEn\.talp:2: not an "
                                             r"alignment link: '2:2'"):
        rwth.read_gold(CORPUS, _gold_archive(tmp_path / "a", talp))
    talp = (FIXTURE / "DeEn" / "alignmentDeEn.talp").read_bytes().replace(b"1-1 2-2 3-3 4-4\n", b"1-1 5-2\n")
    with pytest.raises(AttnReproError, match=r"alignmentDeEn\.talp:2: link 5-2 \(1-based\) is outside the pair"):
        rwth.read_gold(CORPUS, _gold_archive(tmp_path / "b", talp))
    with pytest.raises(AttnReproError, match=r"DeEnGoldAlignment\.tar\.gz: the RWTH gold alignment archive is not "
                                             r"there"):
        rwth.read_gold(CORPUS, tmp_path / "empty")


def test_the_prepared_gold_files_read_back_through_the_aer_code(tmp_path):
    from attnrepro.kobayashi2020.gold import read_gold_set

    gold = rwth.read_gold(CORPUS, _gold_archive(tmp_path / "raw"))
    paths = rwth.write_gold(gold, tmp_path / "data")
    again = read_gold_set(paths["source"], paths["target"], paths["alignment"], 0, "kobayashi2020_aer.gold.rwth")
    assert again == gold


def test_training_archives_are_read_without_the_gold_pairs(tmp_path):
    raw = _gold_archive(tmp_path)
    de, en = sentences(30, 1), sentences(30, 2)
    for k, (name, (de_member, en_member)) in enumerate(wmt16._MEMBERS.items()):
        d, e = de[10 * k: 10 * k + 10], en[10 * k: 10 * k + 10]
        if k == 0:  # a copy of gold pair 2 in Europarl, as the real set's sentences are
            d, e = d + ["Das ist gut ."], e + ["That is good ."]
        members = {f"training/{de_member}": ("\n".join(d) + "\n").encode(),
                   f"training/{en_member}": ("\n".join(e) + "\n").encode()}
        (raw / name).write_bytes(tar_gz(members))
    splits = wmt16.read({**CORPUS, "n_train": 20}, raw)
    pairs = [p for split in splits.values() for p in split]
    assert len(pairs) == 30 and (["das", "ist", "gut", "."], ["that", "is", "good", "."]) not in pairs
    assert len(splits["train"]) == 20 and len(splits["valid"]) == len(splits["test"]) == 5


def test_paper_config_declares_the_wmt16_route(root):
    paper = yaml.safe_load((root / "config" / "paper.yaml").read_text())
    corpus = paper["corpora"]["wmt16_de_en"]
    assert {name: f["url"] for name, f in corpus["files"].items()} == wmt16.URLS  # the module's URLs, as data
    assert has_gold(corpus) and FORMATS["wmt16"] is wmt16
    exp = paper["experiments"]["transformer_wmt16"]
    assert task_spec(paper, exp["task"])["kind"] == "wmt16"
    assert {k: exp["model"][k] for k in ("hidden", "layers", "heads")} == {"hidden": 512, "layers": 6, "heads": 8}
    assert paper["kobayashi2020_aer"]["gold"]["rwth_de_en"] == {"experiment": "transformer_wmt16",
                                                                "corpus": "wmt16_de_en"}
    check(paper)  # the schema is checked for every config by tests/unit/run/test_config.py


def test_a_gold_set_from_a_corpus_needs_a_corpus_with_gold(root):
    paper = yaml.safe_load((root / "config" / "paper.yaml").read_text())
    key = ("kobayashi2020_aer", "gold", "rwth_de_en", "corpus")
    with pytest.raises(AttnReproError, match=r"kobayashi2020_aer\.gold\.rwth_de_en\.corpus: 'multi30k' is not a "
                                             r"corpus of corpora whose release has a gold alignment set"):
        check(with_change(paper, key, "multi30k"))
    both = with_change(paper, ("kobayashi2020_aer", "gold", "rwth_de_en", "source"), "x.de")
    with pytest.raises(AttnReproError, match=r"give either corpus .* not both"):
        check(both)


def test_the_aligner_without_eflomal_names_the_package_and_the_install_command(monkeypatch):
    from attnrepro.kobayashi2020 import statistical_aligner

    monkeypatch.setitem(sys.modules, "eflomal", None)  # import eflomal now raises ImportError
    with pytest.raises(AttnReproError, match=r"needs the package 'eflomal'.*pip install 'attnrepro\[aligner\]'"):
        statistical_aligner.align([["das", "haus"]], [["the", "house"]], 1)
    with pytest.raises(AttnReproError, match="direction 'both'"):
        statistical_aligner.align([["das"]], [["the"]], 1, direction="both")


def test_a_download_that_fails_its_digest_or_has_none_names_the_file(tmp_path):
    from attnrepro.data.download import fetch

    mirror = _gold_archive(tmp_path / "mirror")
    dest = tmp_path / "downloads" / wmt16.GOLD_FILE
    with pytest.raises(AttnReproError, match=r"sha256 mismatch for DeEnGoldAlignment\.tar\.gz"):
        fetch(wmt16.URLS[wmt16.GOLD_FILE], dest, "0" * 64, local_dir=mirror)
    with pytest.raises(AttnReproError, match=r"DeEnGoldAlignment\.tar\.gz \(https://www-i6\..*\) has no pinned "
                                             r"sha256"):
        fetch(wmt16.URLS[wmt16.GOLD_FILE], dest, None, local_dir=mirror)
    fetch(wmt16.URLS[wmt16.GOLD_FILE], dest, None, local_dir=mirror, allow_unpinned=True)  # prints the digest to pin
    assert dest.read_bytes() == (mirror / wmt16.GOLD_FILE).read_bytes() and not any(dest.parent.glob("*.tmp*"))
