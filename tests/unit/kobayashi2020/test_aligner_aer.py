"""Table 3's fast_align comparison measured (Kobayashi et al. 2020 §5): the aligner's links scored by the
project's AER on a hand case, the gap to each seed's best-layer norm AER read by the claim (fails when the aligner is
better by more than the margin, holds within it), the CLI steps with a fake aligner in eflomal's place, and the
rules' place in the paper config's DAG only (read from the committed output lists that test_layout_golden keeps
equal to each config's dry-run)."""

import sys

import pandas as pd
import pytest
import yaml

from tests.helpers import ROOT

from attnrepro.run import layout
from attnrepro.verdicts import papers
from attnrepro.verdicts.claims import merge_replicates, summarize
from attnrepro.cli import main
from attnrepro.data.vocab import Vocab, write_task
from attnrepro.errors import AttnReproError
from attnrepro.verdicts.intervals import NOT_REPRODUCED, REPRODUCED
from attnrepro.kobayashi2020 import statistical_aligner
from attnrepro.kobayashi2020.aligner_aer import aligner_aer_table, norm_minus_aligner
from attnrepro.verdicts.papers import CLAIMS

# two gold sentence pairs: sure links, and possible ones (⊇ sure)
SURE = [{(0, 0), (1, 1)}, {(0, 1)}]
POSSIBLE = [{(0, 0), (1, 1), (2, 2)}, {(0, 1), (1, 0)}]
LINKS = {"forward": [{(0, 0), (1, 2), (2, 2)}, {(0, 1), (1, 0)}],   # |A| 5, |A∩S| 2, |A∩P| 4
         "reverse": [{(0, 0), (1, 1)}, {(0, 1)}]}                   # the gold's sure links exactly
SEEDS = range(6)


def test_aligner_aer_is_och_and_ney_on_a_hand_case():
    table = aligner_aer_table(LINKS, SURE, POSSIBLE).set_index("direction")
    assert table.loc["forward", "aer"] == pytest.approx(1 - (2 + 4) / (5 + 3))  # 0.25
    assert table.loc["reverse", "aer"] == pytest.approx(0.0)
    assert table.loc["forward", "n_links"] == 5 and (table.n_sentences == 2).all()
    with pytest.raises(AttnReproError, match=r"forward.*3 sentence pairs, the gold set has 2"):
        aligner_aer_table({"forward": LINKS["forward"] + [set()]}, SURE, POSSIBLE)
    with pytest.raises(AttnReproError, match="no 'forward' direction"):
        aligner_aer_table({"reverse": LINKS["reverse"]}, SURE, POSSIBLE)


def _verdict(norm_best):
    """The fast_align claim's verdict on a WMT16 model whose seeds' best-layer norm AERs are ``norm_best``, against
    the hand case's aligner (forward AER 0.25), the two tables joined as the claims step joins them."""
    claim = next(c for c in CLAIMS if c.claim_id == "aer_norm_competitive_with_fast_align")
    summary = pd.DataFrame({"seed": SEEDS, "aer_norm_best": norm_best})
    gap = norm_minus_aligner(summary, aligner_aer_table(LINKS, SURE, POSSIBLE))
    assert gap.aer_aligner.eq(0.25).all()
    quality = pd.DataFrame({"seed": SEEDS, "bleu": 25.0})
    merged = merge_replicates("transformer_wmt16@rwth_de_en", [("e", quality), ("s", summary), ("g", gap)])
    table = summarize({"x": merged}, {"x": ("wmt16", "transformer")}, (claim,), checks=papers.model_check,
                      tested_on=papers.tested_on)
    assert len(table) == 1
    return table.iloc[0].verdict


def test_the_claim_fails_when_the_aligner_is_better_by_more_than_the_margin():
    assert _verdict([0.40, 0.41, 0.39, 0.42, 0.40, 0.41]) == NOT_REPRODUCED  # 15 points behind the aligner
    assert _verdict([0.25, 0.26, 0.27, 0.26, 0.25, 0.27]) == REPRODUCED      # within 2 points of it
    assert _verdict([0.20, 0.21, 0.19, 0.22, 0.20, 0.21]) == REPRODUCED      # better than the aligner


def test_gap_table_needs_the_summary_and_one_compared_row():
    with pytest.raises(AttnReproError, match=r"no column\(s\) \['aer_norm_best'\]"):
        norm_minus_aligner(pd.DataFrame({"seed": [0]}), aligner_aer_table(LINKS, SURE, POSSIBLE))
    with pytest.raises(AttnReproError, match="0 rows of direction 'forward'"):
        norm_minus_aligner(pd.DataFrame({"seed": [0], "aer_norm_best": [0.3]}),
                           pd.DataFrame({"direction": ["reverse"], "aer": [0.1], "n_links": [1], "n_sentences": [1]}))


def _gold_files(tmp_path):
    (tmp_path / "gold.src").write_text("das haus ist\nja gut\n")
    (tmp_path / "gold.tgt").write_text("the house is\nyes fine\n")
    (tmp_path / "gold.talp").write_text("0-0 1-1 2p2\n0-1 1p0\n")
    train = pd.DataFrame({"src": [["das", "<unk>"], ["ja"]], "tgt": [["the", "<unk>"], ["yes"]]})
    write_task({"train": train}, Vocab.from_words(["<unk>", "das", "ja"], ["<unk>", "the", "yes"]).to_dict(),
               tmp_path / "data")
    return ["--train", str(tmp_path / "data" / "train.parquet"), "--source", str(tmp_path / "gold.src"),
            "--target", str(tmp_path / "gold.tgt"), "--alignment", str(tmp_path / "gold.talp"), "--index-base", "0",
            "--key", "kobayashi2020_aer.gold.rwth_de_en", "--out-dir", str(tmp_path / "aligner")]


def test_cli_aligner_and_gap_write_the_tables_the_claim_reads(tmp_path, monkeypatch):
    seen = {}

    def fake(src, tgt, n_scored, seed_text=None, model=3, n_samplers=3):
        seen.update(src=src, n_scored=n_scored, seed_text=seed_text)
        return {**LINKS, "intersection": [f & r for f, r in zip(LINKS["forward"], LINKS["reverse"])]}

    monkeypatch.setattr(statistical_aligner, "align_directions", fake)
    assert main(["kobayashi2020", "aligner", *_gold_files(tmp_path)]) == 0
    # trained on the training text plus the gold pairs, which are the ones scored
    assert seen["src"] == [["das", "haus", "ist"], ["ja", "gut"]] and seen["n_scored"] == 2
    assert seen["seed_text"] == (["das <unk>", "ja"], ["the <unk>", "yes"])  # one line per training sentence
    table = pd.read_csv(tmp_path / "aligner" / "aligner_aer.csv").set_index("direction")
    assert table.loc["forward", "aer"] == pytest.approx(0.25) and set(table.index) == {"forward", "reverse",
                                                                                      "intersection"}
    assert (tmp_path / "aligner" / "links_forward.talp").read_text() == "0-0 1-2 2-2\n0-1 1-0\n"

    pd.DataFrame({"seed": [0, 1], "aer_norm_best": [0.30, 0.40]}).to_csv(tmp_path / "aer_summary.csv", index=False)
    assert main(["kobayashi2020", "aligner-gap", "--aer-summary", str(tmp_path / "aer_summary.csv"), "--aligner",
                 str(tmp_path / "aligner" / "aligner_aer.csv"), "--out", str(tmp_path / "gap.csv")]) == 0
    gap = pd.read_csv(tmp_path / "gap.csv")
    assert list(gap.columns) == ["seed", "aer_aligner", "aer_norm_best_minus_aligner"]
    assert gap.aer_norm_best_minus_aligner.tolist() == pytest.approx([0.05, 0.15])


def test_cli_aligner_without_eflomal_fails_with_the_install_command(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "eflomal", None)  # import eflomal now raises ImportError
    assert main(["kobayashi2020", "aligner", *_gold_files(tmp_path)]) == 2
    assert "pip install 'attnrepro[aligner]'" in capsys.readouterr().err
    assert not (tmp_path / "aligner" / "aligner_aer.csv").exists()


def test_the_aligner_rules_are_scheduled_by_the_paper_config_only():
    def rules(name):
        return {line.split("\t")[1] for line in (ROOT / "tests" / "golden" / f"{name}.tsv").read_text().splitlines()}

    assert {"kobayashi2020_aligner", "kobayashi2020_aligner_gap"} <= rules("paper")
    for name in ("config", "smoke"):
        assert not {r for r in rules(name) if r.startswith("kobayashi2020_aligner")}, name
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    assert layout.aligner_gold_sets(paper) == {"rwth_de_en": "wmt16_de_en"}
    gap = [s for s in layout.claim_sources(paper) if s.path.endswith("aligner_gap.csv")]
    assert [(s.experiment, s.task_kind) for s in gap] == [("transformer_wmt16@rwth_de_en", "wmt16")]


def test_the_wrapper_feeds_training_lines_then_gold_pairs_and_keeps_the_gold_links(monkeypatch):
    """eflomal's interface stood in for: lines in (training text first, token lists or joined lines), one Pharaoh
    line per pair out in each direction; only the last (gold) pairs' links come back."""
    import types

    fed = {}

    class Aligner:
        def __init__(self, model, n_samplers):
            fed["model"] = (model, n_samplers)

        def align(self, src, tgt, links_filename_fwd, links_filename_rev):
            fed.update(src=src, tgt=tgt)
            with open(links_filename_fwd, "w") as f:
                f.write("0-0\n0-0 1-1\n1-0\n")
            with open(links_filename_rev, "w") as f:
                f.write("0-0\n1-1\n1-0 0-1\n")

    monkeypatch.setitem(sys.modules, "eflomal", types.SimpleNamespace(Aligner=Aligner))
    links = statistical_aligner.align_directions([["das", "haus"], ["ja", "gut"]], [["the", "house"], ["yes", "ok"]],
                                                 2, seed_text=(["der mann"], [["the", "man"]]))
    assert fed["src"] == ["der mann\n", "das haus\n", "ja gut\n"] and fed["tgt"][0] == "the man\n"
    assert links == {"forward": [{(0, 0), (1, 1)}, {(1, 0)}], "reverse": [{(1, 1)}, {(1, 0), (0, 1)}],
                     "intersection": [{(1, 1)}, {(1, 0)}]}
    with pytest.raises(AttnReproError, match="training text: sentence pair 0 has an empty side"):
        statistical_aligner.align_directions([["a"]], [["b"]], 1, seed_text=([""], ["x"]))
