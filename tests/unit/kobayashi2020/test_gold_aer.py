"""Kobayashi et al. 2020 §5 on real translation: AER against a gold alignment file given in the config
(``kobayashi2020_aer.gold``), and the test-split evaluation (token accuracy, BLEU) of translation models."""

import copy
import json

import numpy as np
import pandas as pd
import pytest
import torch

from attnrepro.kobayashi2020.alignment_readout import source_target_alignments
from attnrepro.kobayashi2020.aer import extract, format_pharaoh
from attnrepro.cli import main
from attnrepro.run.config import check
from attnrepro.data.vocab import Vocab, encode, write_task
from attnrepro.errors import AttnReproError
from attnrepro.seq2seq.bleu import sentences
from attnrepro.seq2seq.evaluation import scores
from attnrepro.seq2seq.model import ModelConfig
from attnrepro.seq2seq.train import build_model, save_model

SRC_WORDS = ["in", "the", "beginning", "god", "created", "heaven", "and", "earth", "<unk>"]
TGT_WORDS = ["au", "commencement", "dieu", "créa", "les", "cieux", "et", "la", "terre", "<unk>"]
PAIRS = [  # 'zebra' and 'zèbre' are outside the vocabulary: they must become <unk>
    ("in the beginning god created the heaven and the earth",
     "au commencement dieu créa les cieux et la terre"),
    ("god created the earth", "dieu créa la terre"),
    ("the zebra and the heaven", "la zèbre et les cieux"),
    ("god", "dieu"),
]


def _vocab():
    return Vocab.from_words(SRC_WORDS, TGT_WORDS)


@pytest.fixture(scope="module")
def gold_dir(tmp_path_factory):
    """Two model files (seeds 0-1 stacked, seed 2 alone) of a small untrained transformer, the vocabulary, and the
    sentence files; the alignment file is each test's own."""
    torch.manual_seed(0)
    d = tmp_path_factory.mktemp("gold")
    vocab = _vocab()
    (d / "vocab.json").write_text(json.dumps(vocab.to_dict()))
    mc = ModelConfig("transformer", "ff", 16, len(vocab.src), len(vocab.tgt), max_positions=16, layers=2, heads=2)
    save_model(build_model(mc, [0, 1]), vocab.to_dict(), d / "m01.pt")
    save_model(build_model(mc, [2]), vocab.to_dict(), d / "m2.pt")
    (d / "src.txt").write_text("".join(s + "\n" for s, _ in PAIRS))
    (d / "tgt.txt").write_text("".join(t + "\n" for _, t in PAIRS))
    return d


def _run(d, alignment, index_base=0, models=("m01.pt", "m2.pt"), source="src.txt", target="tgt.txt", out="out"):
    return main(["kobayashi2020", "aer-gold", "--models", *(str(d / m) for m in models),
                 "--vocab", str(d / "vocab.json"), "--source", str(d / source), "--target", str(d / target),
                 "--alignment", str(d / alignment), "--index-base", str(index_base), "--key",
                 "kobayashi2020_aer.gold.toy", "--out-dir", str(d / out)])


def _own_alignment(d):
    """The layer-1 attention-weight alignments of seed 0, as the model reads the pairs (unknown words -> <unk>)."""
    from attnrepro.seq2seq.train import load_model

    vocab = _vocab()
    known_s, known_t = set(vocab.src), set(vocab.tgt)
    df = pd.DataFrame({"src": [[w if w in known_s else "<unk>" for w in s.split()] for s, _ in PAIRS],
                       "tgt": [[w if w in known_t else "<unk>" for w in t.split()] for _, t in PAIRS]})
    data = encode(df, vocab)
    model, _ = load_model(d / "m01.pt")
    soft, _ = source_target_alignments(model, data.src, data.src_len, data.tgt_in)
    return extract(soft[0][0]["weight"], (data.src_len - 1).numpy(), (data.tgt_len - 1).numpy())


@pytest.mark.parametrize("index_base", [0, 1])
def test_gold_from_the_models_own_alignment_scores_zero(gold_dir, index_base):
    links = _own_alignment(gold_dir)
    shifted = [{(i + index_base, j + index_base) for i, j in s} for s in links]
    (gold_dir / f"own{index_base}.txt").write_text("".join(format_pharaoh(s) + "\n" for s in shifted))
    assert _run(gold_dir, f"own{index_base}.txt", index_base, out=f"out{index_base}") == 0
    aer = pd.read_csv(gold_dir / f"out{index_base}" / "aer.csv")
    assert len(aer) == 3 * 2 * 2  # seeds x layers x methods
    assert set(aer.seed) == {0, 1, 2} and set(aer.layer) == {1, 2} and set(aer.method) == {"weight", "norm"}
    assert aer.aer.between(0, 1).all()
    own = aer[(aer.seed == 0) & (aer.layer == 1) & (aer.method == "weight")].aer
    assert own.tolist() == [0.0]
    assert (aer.aer > 0).any()  # other seeds and layers read other alignments: the zero is not vacuous
    summary = pd.read_csv(gold_dir / f"out{index_base}" / "aer_summary.csv")
    assert summary.seed.tolist() == [0, 1, 2] and summary.aer_weight_best[0] == 0.0
    assert summary.period_share_drop.isna().all()  # Fig. 8's measures: no period in this text
    assert summary.period_weight_excess.isna().all()


def test_periods_are_measured_where_the_text_has_them(gold_dir):
    """A period ending every source sentence (outside the vocabulary: read as <unk>, still the file's period)."""
    (gold_dir / "src_p.txt").write_text("".join(s + " .\n" for s, _ in PAIRS))
    (gold_dir / "one.txt").write_text("0-0\n" * len(PAIRS))
    assert _run(gold_dir, "one.txt", source="src_p.txt", out="out_periods") == 0
    summary = pd.read_csv(gold_dir / "out_periods" / "aer_summary.csv")
    for measure in ("period_share_drop", "period_weight_excess"):
        assert summary[measure].notna().all() and summary[measure].between(-1, 1).all()
    # Fig. 8's table: the first 3 pairs, both layers, seed 0 of the first model file, the file's words
    soft = pd.read_parquet(gold_dir / "out_periods" / "soft_alignments.parquet")
    assert set(soft.sentence) == {0, 1, 2} and set(soft.layer) == {1, 2} and set(soft.seed) == {0}
    words = [s.split() + ["."] for s, _ in PAIRS]
    assert soft[(soft.sentence == 1) & (soft.layer == 1) & (soft.target == 0)].source_word.tolist() == words[1]
    assert len(soft) == 2 * sum(len(w) * len(t.split()) for w, (_, t) in zip(words[:3], PAIRS[:3]))
    assert set(soft[soft.target == 0].gold) == {"sure", "none"} and (soft[soft.gold == "sure"].source == 0).all()


def test_possible_links_are_read(gold_dir):
    """The model's own links marked possible only (``ipj``): S is empty, every predicted link is in P, so
    AER = 1 − |A∩P| / |A| = 0; a reader that dropped possible links would give 1."""
    links = _own_alignment(gold_dir)
    (gold_dir / "possible.txt").write_text("".join(" ".join(f"{i}p{j}" for i, j in sorted(s)) + "\n" for s in links))
    assert _run(gold_dir, "possible.txt", out="out_p") == 0
    aer = pd.read_csv(gold_dir / "out_p" / "aer.csv")
    assert aer[(aer.seed == 0) & (aer.layer == 1) & (aer.method == "weight")].aer.tolist() == [0.0]


def _write(d, name, lines):
    (d / name).write_text("".join(line + "\n" for line in lines))
    return name


def test_missing_file_names_key_and_path(gold_dir, capsys):
    _write(gold_dir, "ok.txt", ["0-0"] * len(PAIRS))
    assert _run(gold_dir, "ok.txt", source="nope.txt") == 2
    err = capsys.readouterr().err
    assert "kobayashi2020_aer.gold.toy.source" in err and "nope.txt" in err and "not found" in err
    assert _run(gold_dir, "absent.txt") == 2
    err = capsys.readouterr().err
    assert "kobayashi2020_aer.gold.toy.alignment" in err and "absent.txt" in err


def test_line_counts_must_agree(gold_dir, capsys):
    _write(gold_dir, "short.txt", ["0-0"] * (len(PAIRS) - 1))
    assert _run(gold_dir, "short.txt") == 2
    err = capsys.readouterr().err
    assert "src.txt has 4 lines" in err and "tgt.txt has 4" in err and "short.txt has 3" in err
    assert not (gold_dir / "out" / "aer.csv").exists()  # nothing computed, nothing written


def test_link_outside_its_sentence_names_file_line_and_pair(gold_dir, capsys):
    # line 4 is 'god' / 'dieu': one word each, so 0-1 points past the target
    _write(gold_dir, "range.txt", ["0-0", "0-0", "0-0", "0-0 0-1p"])
    assert _run(gold_dir, "range.txt") == 2
    err = capsys.readouterr().err
    assert "range.txt:4" in err and "pair 0-1" in err and "1 target words" in err
    # 1-based: the same file's 0 is out of range at once
    assert _run(gold_dir, "range.txt", index_base=1) == 2
    assert "negative position" in capsys.readouterr().err


def test_empty_sentence_and_unknown_word_without_unk(gold_dir, tmp_path, capsys):
    _write(gold_dir, "ok.txt", ["0-0"] * len(PAIRS))
    _write(gold_dir, "src_gap.txt", [PAIRS[0][0], "", PAIRS[2][0], PAIRS[3][0]])
    assert _run(gold_dir, "ok.txt", source="src_gap.txt") == 2
    assert "src_gap.txt:2: empty sentence" in capsys.readouterr().err
    # a synthetic task's vocabulary has no <unk>: an unknown word is an error, not a silent substitution
    vocab = Vocab.from_words(["a", "b"], ["A", "B"])
    mc = ModelConfig("transformer", "ff", 8, len(vocab.src), len(vocab.tgt), max_positions=8, layers=1, heads=2)
    save_model(build_model(mc, [0]), vocab.to_dict(), tmp_path / "m.pt")
    (tmp_path / "vocab.json").write_text(json.dumps(vocab.to_dict()))
    _write(tmp_path, "s.txt", ["a b", "b c"])
    _write(tmp_path, "t.txt", ["A B", "B A"])
    _write(tmp_path, "al.txt", ["0-0 1-1", "0-0 1-1"])
    assert main(["kobayashi2020", "aer-gold", "--models", str(tmp_path / "m.pt"), "--vocab",
                 str(tmp_path / "vocab.json"), "--source", str(tmp_path / "s.txt"), "--target",
                 str(tmp_path / "t.txt"), "--alignment", str(tmp_path / "al.txt"), "--index-base", "0",
                 "--key", "kobayashi2020_aer.gold.syn", "--out-dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "s.txt:2" in err and "'c'" in err and "<unk>" in err
    # and a sentence longer than the position table
    _write(tmp_path, "s.txt", ["a b", " ".join(["a"] * 8)])
    _write(tmp_path, "al.txt", ["0-0 1-1", "0-0"])
    assert main(["kobayashi2020", "aer-gold", "--models", str(tmp_path / "m.pt"), "--vocab",
                 str(tmp_path / "vocab.json"), "--source", str(tmp_path / "s.txt"), "--target",
                 str(tmp_path / "t.txt"), "--alignment", str(tmp_path / "al.txt"), "--index-base", "0",
                 "--key", "kobayashi2020_aer.gold.syn", "--out-dir", str(tmp_path / "o")]) == 2
    assert "s.txt:2" in capsys.readouterr().err


def _config(tmp_path):
    for name in ("s.txt", "t.txt", "a.txt"):
        (tmp_path / name).write_text("x\n")
    return {"tasks": {"t": {"kind": "one_to_one", "min_len": 3, "max_len": 5}}, "seeds": [0],
            "experiments": {"tr": {"task": "t", "model": {"arch": "transformer", "cell": "ff", "hidden": 8}},
                            "v": {"task": "t", "model": {"arch": "ved", "cell": "gru", "hidden": 8}}},
            "train": {"eval_every": 1, "steps": 2},
            "kobayashi2020_aer": {"gold": {"g": {"experiment": "tr", "source": str(tmp_path / "s.txt"),
                                                 "target": str(tmp_path / "t.txt"),
                                                 "alignment": str(tmp_path / "a.txt")}}}}


@pytest.mark.parametrize("field, value, message", [
    ("experiment", "ghost", r"kobayashi2020_aer\.gold\.g\.experiment: unknown experiment 'ghost'"),
    ("experiment", "v", r"kobayashi2020_aer\.gold\.g\.experiment: 'v' is a VED"),
    ("source", "no/such/src.txt", r"kobayashi2020_aer\.gold\.g\.source: file not found: no/such/src.txt"),
    ("alignment", "no/such/al.txt", r"kobayashi2020_aer\.gold\.g\.alignment: file not found: no/such/al.txt"),
    ("index_base", 2, r"kobayashi2020_aer\.gold\.g\.index_base"),
])
def test_config_check_of_gold_sets(tmp_path, field, value, message):
    cfg = _config(tmp_path)
    check(copy.deepcopy(cfg))  # the good one passes
    cfg["kobayashi2020_aer"]["gold"]["g"][field] = value
    with pytest.raises(AttnReproError, match=message):
        check(cfg)


# -- the test-split evaluation ---------------------------------------------------------------------------------
def test_bleu_is_100_when_the_decodes_are_the_references():
    vocab = _vocab()
    df = pd.DataFrame({"src": [s.split() for s, _ in PAIRS[:2] + PAIRS[3:]],
                       "tgt": [t.split() for _, t in PAIRS[:2] + PAIRS[3:]]})
    data = encode(df, vocab)
    pred = data.tgt_out.unsqueeze(0).repeat(2, 1, 1)
    pred[1, :, 0] = vocab.tgt.index("<unk>")   # seed 1 gets every first word wrong
    pred[0][data.tgt_out == 0] = vocab.tgt.index("la")  # words after <eos> are no part of the decode
    out = scores(pred, data.tgt_out, vocab.tgt, [7, 8])
    assert out.seed.tolist() == [7, 8] and out.n.tolist() == [3, 3]
    assert out.bleu[0] == pytest.approx(100.0) and out.token_acc[0] == 1.0 and out.seq_acc[0] == 1.0
    assert out.bleu[1] < 100 and out.token_acc[1] < 1 and out.seq_acc[1] == 0.0
    assert sentences([pred[0, 1]], vocab.tgt, "hypothesis") == ["dieu créa la terre"]


def test_source_gain_is_what_the_source_earns():
    """Outputs that are their own references keep nothing when dealt to other sentences; one sentence said to
    every input earns nothing from the source; outputs matched to the wrong inputs earn less than nothing."""
    from attnrepro.seq2seq.bleu import source_gain

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(200)]
    refs = [" ".join(rng.choice(words, size=10)) for _ in range(60)]
    assert source_gain(refs, refs) > 90
    assert source_gain(["w1 w2 w3 w4"] * 60, refs) == pytest.approx(0.0)
    assert source_gain(refs[1:] + refs[:1], refs) < 0
    assert source_gain(refs, refs, seed=1) == source_gain(refs, refs, seed=1)  # seeded
    assert np.isnan(source_gain(refs[:1], refs[:1]))  # no other sentence to deal it


def test_unk_never_counts_as_a_bleu_match():
    """An <unk> stands for an unknown real word on each side: token accuracy (as in training) takes it as right,
    BLEU as a miss; written as '<unk>' it would have been three matching 13a tokens."""
    vocab = _vocab()
    data = encode(pd.DataFrame({"src": [["god"]], "tgt": [["dieu", "<unk>", "la", "terre"]]}), vocab)
    out = scores(data.tgt_out.unsqueeze(0), data.tgt_out, vocab.tgt, [0])
    assert out.token_acc[0] == 1.0 and out.bleu[0] < 100


def test_evaluate_cli_writes_bleu_beside_accuracy(gold_dir, tmp_path):
    vocab = _vocab()
    df = pd.DataFrame({"src": [s.split() for s, _ in PAIRS[:2]], "tgt": [t.split() for _, t in PAIRS[:2]]})
    write_task({"test": df}, vocab.to_dict(), tmp_path)
    assert main(["evaluate", "--models", str(gold_dir / "m01.pt"), str(gold_dir / "m2.pt"), "--data-dir",
                 str(tmp_path), "--out", str(tmp_path / "evaluation.csv"), "--device", "cpu"]) == 0
    ev = pd.read_csv(tmp_path / "evaluation.csv")
    assert list(ev.columns) == ["seed", "split", "n", "token_acc", "seq_acc", "bleu", "bleu_source_gain"]
    assert ev.seed.tolist() == [0, 1, 2] and (ev.split == "test").all() and ev.bleu.between(0, 100).all()


# -- the rules, end to end at the smoke scale --------------------------------------------------------------------
@pytest.fixture(scope="module")
def bible_run(root, tmp_path_factory):
    """The smoke Bible task, one tiny transformer on it and a three-pair gold set (paths relative to the working
    directory, as a user would write them): training, evaluation, gold AER, Fig. 7 / Table 3 and the claims."""
    import yaml

    from tests.helpers import snakemake

    work = tmp_path_factory.mktemp("bible_gold")
    cfg = yaml.safe_load((root / "config" / "smoke.yaml").read_text())
    for block in ("snell2021", "kobayashi2020", "corpora", "downloads"):
        cfg.pop(block, None)
    cfg["tasks"] = {"bible": cfg["tasks"]["bible"]}
    cfg["experiments"] = {"transformer_bible": {
        "task": "bible", "model": {"arch": "transformer", "cell": "ff", "hidden": 16, "layers": 2, "heads": 2,
                                   "max_positions": 16},
        "train": {"lr": 0.003, "betas": [0.9, 0.98], "l2": 0.0}}}
    cfg["figures"] = {"dpi": 60}
    gold = work / "gold"
    gold.mkdir()
    _write(gold, "en.txt", ["in the beginning god created the heaven and the earth", "jesus wept", "amen"])
    _write(gold, "fr.txt", ["au commencement , dieu créa les cieux et la terre", "jésus pleura", "amen"])
    _write(gold, "en-fr.txt", ["0-0 1-0p 2-1 3-3 4-4 5-5 6-6 7-7 8-8 9-9", "0-0 1-1", "0-0"])
    cfg["kobayashi2020_aer"] = {"gold": {"toy": {"experiment": "transformer_bible", "source": "gold/en.txt",
                                                 "target": "gold/fr.txt", "alignment": "gold/en-fr.txt"}}}
    (work / "bible.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    snakemake("--cores", "2", "--configfile", "bible.yaml", cwd=work, timeout=600)
    return work


@pytest.mark.slow
def test_bible_transformer_evaluation_and_gold_aer_from_the_rules(bible_run):
    analysis = bible_run / "results" / "analysis" / "transformer_bible"
    ev = pd.read_csv(analysis / "evaluation.csv")
    assert ev.seed.tolist() == [0, 1] and (ev.split == "test").all()
    assert ev.bleu.between(0, 100).all() and ev.token_acc.between(0, 1).all()
    aer = pd.read_csv(analysis / "gold_toy" / "aer.csv")
    assert len(aer) == 2 * 2 * 2 and aer.aer.between(0, 1).all()  # seeds x layers x methods
    table3 = pd.read_csv(bible_run / "results" / "figures" / "kobayashi2020" / "table3.csv")
    assert table3.experiment.tolist() == ["transformer_bible@toy"]
    claims = pd.read_csv(bible_run / "results" / "claims.csv")
    assert claims[claims.experiment == "transformer_bible@toy"].claim_id.tolist() == [
        "aer_norm_below_weight", "aer_mean_layer_norm_below_weight", "aer_gain_in_lower_layers"]


@pytest.mark.slow
def test_a_missing_gold_file_stops_the_workflow_before_any_job(bible_run):
    import yaml

    from tests.helpers import snakemake

    cfg = yaml.safe_load((bible_run / "bible.yaml").read_text())
    cfg["kobayashi2020_aer"]["gold"]["toy"]["target"] = "gold/missing.txt"
    (bible_run / "bad.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake("-n", "--configfile", "bad.yaml", cwd=bible_run, check=False)
    assert proc.returncode != 0
    assert "kobayashi2020_aer.gold.toy.target: file not found: gold/missing.txt" in proc.stdout + proc.stderr
