"""Kobayashi et al. 2020 §4 analyses (pure functions of the cache) on a synthetic cache with planted effects, the
figures drawn from it, and the pretrained-encoder rules end to end at smoke scale."""

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest

from attnrepro.kobayashi2020 import analysis as kb
from attnrepro.verdicts.claims import summarize
from attnrepro.verdicts.papers import CLAIMS
from attnrepro.kobayashi2020 import figures as kf
from attnrepro.figures import save

N_LAYERS, N_HEADS = 2, 3


@pytest.fixture(scope="module")
def cache():
    """Sequences [CLS] w.. [SEP] w.. [SEP] with commas; in every head the specials receive large α where their
    ‖f‖ is small (the paper's cancelling), other words random α; ‖f‖ grows with the word's rank."""
    rng = np.random.default_rng(0)
    tokens, heads, pairs, layers = [], [], [], []
    for seq in range(10):
        words = [f"w{int(r)}" for r in rng.integers(5, 2000, size=10)]
        toks = ["[CLS]", *words[:4], ",", *words[4:], "[SEP]", *words[:3], "[SEP]"]
        cat = ["[CLS]" if t == "[CLS]" else "[SEP]" if t == "[SEP]" else "punct" if t == "," else "other" for t in toks]
        rank = [4.0 if t == "[CLS]" else 3.0 if t == "[SEP]" else 1.0 if t == "," else float(t[1:]) for t in toks]
        n = len(toks)
        tokens.append(pd.DataFrame({"seq": seq, "pos": range(n), "token": toks, "category": cat, "rank": rank}))
        special = np.array([c != "other" for c in cat])
        for layer in range(1, N_LAYERS + 1):
            for head in range(1, N_HEADS + 1):
                raw = rng.uniform(0.5, 1.5, size=(n, n))
                f_norm = np.where(special, rng.uniform(0.1, 2.0, n), np.log(np.array(rank)) + rng.normal(0, .1, n))
                raw[:, special] *= 3.0 / f_norm[special]  # big α where ‖f‖ is small
                alpha = raw / raw.sum(1, keepdims=True)
                heads.append(pd.DataFrame({"seq": seq, "layer": layer, "head": head, "pos": range(n),
                                           "f_norm": f_norm, "alpha_mean": alpha.mean(0)}))
                if head == 1:  # ‖x‖ less dispersed than ‖f(x)‖ (App. A)
                    layers.append(pd.DataFrame({"seq": seq, "layer": layer, "pos": range(n),
                                                "x_norm": rng.normal(20.0, 1.0, n)}))
                q, k = np.nonzero(rng.random((n, n)) < 0.5)
                pairs.append(pd.DataFrame({"seq": seq, "layer": layer, "head": head, "query": q, "pos": k,
                                           "alpha": alpha[q, k], "f_norm": f_norm[k]}))
    return {"tokens": pd.concat(tokens, ignore_index=True), "heads": pd.concat(heads, ignore_index=True),
            "pairs": pd.concat(pairs, ignore_index=True), "layers": pd.concat(layers, ignore_index=True)}


def test_dispersion_by_hand():
    df = pd.DataFrame({"layer": [1, 1, 1, 2, 2], "v": [1.0, 2.0, 3.0, 4.0, 4.0]})
    d = kb.dispersion(df, "v", ["layer"]).set_index("layer")
    assert d.loc[1, "mean"] == 2 and d.loc[1, "sd"] == pytest.approx(1.0) and d.loc[1, "cv"] == pytest.approx(0.5)
    assert d.loc[2, "cv"] == 0 and d.loc[1, "max"] == 3 and d.loc[1, "min"] == 1
    tab = kb.extremes_table(d.reset_index(), "layer")
    assert tab.layer.tolist() == ["Layer 1 (max CV)", "Layer 2 (min CV)", "Average"]
    assert tab.cv.iloc[2] == pytest.approx(0.25)


def test_planted_cancelling_is_found(cache):
    tab = kb.alpha_fnorm_correlation(cache["pairs"], cache["tokens"], N_LAYERS, N_HEADS).set_index("category")
    for c in ("[CLS]", "[SEP]", "punct"):
        assert tab.loc[c, "spearman_rho"] < -0.5, c
    assert abs(tab.loc["other", "spearman_rho"]) < 0.1
    # every (layer, head, query, key) pair with the key in the category, whether sampled or not
    length = cache["tokens"].groupby("seq").size()
    assert tab.loc["[CLS]", "n_vectors"] == length.sum() * N_LAYERS * N_HEADS
    assert tab.n_sampled.sum() == len(cache["pairs"])


def test_category_averages_sum_to_one(cache):
    per_layer = kb.per_layer_categories(kb.per_head_categories(cache["heads"], cache["tokens"]))
    np.testing.assert_allclose(per_layer.groupby("layer").alpha.sum(), 1.0, atol=1e-9)
    sep = per_layer[per_layer.category == "[SEP]"].iloc[0]
    other = per_layer[per_layer.category == "other"].iloc[0]
    # the planted specials get more weight per token than words but contribute less norm per unit weight
    assert sep.weighted_norm / sep.alpha < other.weighted_norm / other.alpha


def test_frequency_correlation(cache):
    pts = kb.frequency_points(cache["heads"], cache["tokens"])
    assert len(pts) == len(cache["tokens"])  # every synthetic token has a rank
    assert pts.alpha.between(0, 1).all()
    rho = kb.frequency_correlation(pts)
    assert rho["rho_rank_fnorm"] > 0.7 and rho["rho_rank_alpha"] < 0


def test_fold_summary_uses_disjoint_folds(cache):
    s = kb.fold_summary(cache["tokens"], cache["heads"], cache["pairs"], cache["layers"], 3, N_LAYERS, N_HEADS)
    assert s.fold.tolist() == [0, 1, 2] and s.n_sequences.tolist() == [4, 3, 3]
    # planted: specials get α where their ‖f‖ is small, across tokens and across heads; ‖x‖ barely varies
    assert (s.special_share_drop > 0).all() and s.rho_heads_alpha_fnorm_sep.mean() < -0.3  # 6 heads: noisy
    assert (s.cv_x_mean < 0.1).all() and (s.cv_fnorm_minus_x > 0).all()
    assert (s.rho_alpha_fnorm_sep < -0.3).all() and (s.rho_rank_fnorm > 0.5).all()
    assert not [c for c in s.columns if c.startswith("abs_")]  # signed ρ only: the claims judge its sign too
    # a fold's measures are those of its own sequences alone
    one = cache["tokens"][cache["tokens"].seq % 3 == 1]
    alone = kb.alpha_fnorm_correlation(cache["pairs"][cache["pairs"].seq.isin(one.seq)], one, N_LAYERS, N_HEADS)
    assert s.rho_alpha_fnorm_cls[1] == pytest.approx(alone.set_index("category").loc["[CLS]", "spearman_rho"])


def test_claims_read_the_fold_summary(cache):
    svals = pd.DataFrame([(layer, head, i, 3.0 / i) for layer in (1, 2) for head in (1, 2, 3) for i in range(1, 5)],
                         columns=["layer", "head", "index", "singular_value"])
    s = kb.fold_summary(cache["tokens"], cache["heads"], cache["pairs"], cache["layers"], 6, N_LAYERS, N_HEADS,
                        svals=svals)
    table = summarize({"minilm": s}, {"minilm": ("news", "pretrained")}, CLAIMS)
    mine = [c for c in CLAIMS if c.paper == "kobayashi2020" and c.applies_to("news", "pretrained")]
    assert len(table) == len(mine) >= 10
    assert (table.n == 6).all() and (table.unit == "fold").all()
    verdicts = table.set_index("claim_id").verdict
    assert verdicts["rho_alpha_fnorm_sep"] == "reproduced" and verdicts["rho_rank_fnorm"] == "reproduced"
    assert verdicts["special_tokens_large_alpha_small_norm"] == "reproduced"
    # planted: frequent specials take more α, so ρ(rank, α) is negative; a 'near zero' claim judges the signed value
    rows = table.set_index("claim_id")
    assert rows.loc["rho_rank_alpha", "measure"] == "rho_rank_alpha"
    assert rows.loc["rho_rank_alpha", "measured_mean"] == pytest.approx(s.rho_rank_alpha.median())


def test_special_share_drop_and_head_correlation_by_hand():
    # one layer, two heads: [SEP] takes ½ of α in both, but 1/10 and 1/3 of the norm
    per_head = pd.DataFrame({
        "layer": 1, "head": [1, 1, 2, 2], "category": ["[SEP]", "other"] * 2,
        "alpha": [0.5, 0.5, 0.5, 0.5], "weighted_norm": [1.0, 9.0, 1.0, 2.0], "f_norm": [2.0, 18.0, 2.0, 4.0]})
    assert kb.special_share_drop(per_head) == pytest.approx(np.mean([0.5 - 0.1, 0.5 - 1 / 3]))
    heads = pd.DataFrame({"layer": 1, "head": range(4), "category": "[SEP]", "alpha": [0.1, 0.2, 0.3, 0.4],
                          "f_norm": [4.0, 3.0, 2.0, 1.0], "weighted_norm": 1.0})
    assert kb.head_correlation(heads) == pytest.approx(-1.0)


@pytest.mark.parametrize("name", ["table1", "fig3", "table2", "fig4", "fig5", "fig6"])
def test_figures_draw(cache, name, tmp_path):
    t = cache
    fig, data = {
        "table1": lambda: kf.table1(t["heads"]),
        "fig3": lambda: kf.fig3(t["heads"], t["tokens"]),
        "table2": lambda: kf.table2(t["pairs"], t["tokens"], N_LAYERS, N_HEADS, 0.5),
        "fig4": lambda: kf.fig4(t["heads"], t["tokens"]),
        "fig5": lambda: kf.fig5(t["pairs"], t["tokens"], max_points=500, seed=0),
        "fig6": lambda: kf.fig6(t["heads"], t["tokens"]),
    }[name]()
    assert len(data) > 0
    save(fig, tmp_path / "f.png", tmp_path / "f.pdf", dpi=60)
    img = mpimg.imread(tmp_path / "f.png")
    assert img[..., :3].std() > 0.05 and (tmp_path / "f.pdf").stat().st_size > 2000


@pytest.mark.parametrize("name, category", [("fig10", "[CLS]"), ("fig11", "punct"), ("fig12", "other")])
def test_appendix_c_figures_draw_their_category(cache, name, category, tmp_path):
    """App. C, Figs. 10-12 through the registry: one heatmap pair per category, its per-head numbers in the CSV."""
    from attnrepro.kobayashi2020.panels import FIGURES

    fig, data = FIGURES[name].draw(cache, {})
    expected = kb.per_head_categories(cache["heads"], cache["tokens"])
    expected = expected[expected.category == category].reset_index(drop=True)
    assert len(data) == N_LAYERS * N_HEADS
    np.testing.assert_allclose(data.alpha, expected.alpha)
    np.testing.assert_allclose(data.f_norm, expected.f_norm)
    save(fig, tmp_path / "f.png", dpi=60)
    assert mpimg.imread(tmp_path / "f.png")[..., :3].std() > 0.05


def test_appendix_c_figures_name_what_is_missing(cache):
    from attnrepro.errors import AttnReproError

    with pytest.raises(AttnReproError, match=r"heads table: missing columns \['alpha_mean'\]"):
        kf.fig4(cache["heads"].drop(columns="alpha_mean"), cache["tokens"], category="punct")
    with pytest.raises(AttnReproError, match=r"token table: missing columns \['category'\]"):
        kf.fig4(cache["heads"], cache["tokens"].drop(columns="category"), category="other")
    with pytest.raises(AttnReproError, match="no token of category 'punct'"):
        kf.fig4(cache["heads"], cache["tokens"][cache["tokens"].category != "punct"], category="punct")
    with pytest.raises(AttnReproError, match="unknown token category 'comma'"):
        kf.fig4(cache["heads"], cache["tokens"], category="comma")


def test_fig9_and_table4(tmp_path):
    svals = pd.DataFrame([(layer, head, i, 3.0 / i) for layer in (1, 2) for head in (1, 2) for i in range(1, 5)],
                         columns=["layer", "head", "index", "singular_value"])
    fig, data = kf.fig9(svals)
    save(fig, tmp_path / "f9.png", dpi=60)
    layers = pd.DataFrame({"seq": 0, "layer": [1, 1, 2, 2], "pos": [0, 1, 0, 1], "x_norm": [1.0, 3.0, 2.0, 2.2]})
    fig, disp = kf.table4(layers)
    save(fig, tmp_path / "t4.png", dpi=60)
    assert disp.set_index("layer").loc[1, "cv"] == pytest.approx(np.std([1, 3], ddof=1) / 2)


# The Kobayashi part of the workflow at smoke scale, alone: the shared smoke config stays as the other tests count
# its jobs. The smoke config's data, training and claims blocks, one tiny Transformer experiment (§5) and the
# pretrained-encoder block (§4) at a dozen short sequences.
KOBAYASHI_SMOKE = {
    "experiments": {"transformer_one_to_one": {
        "task": "one_to_one",
        "model": {"arch": "transformer", "cell": "ff", "hidden": 16, "layers": 2, "heads": 2, "max_positions": 32},
        "train": {"lr": 0.003, "betas": [0.9, 0.98], "l2": 0.0}}},
    "figures": {"dpi": 60},
    "kobayashi2020": {"n_sequences": 12, "max_len": 48, "batch_size": 6, "pair_fraction": 0.05, "seed": 0,
                      "folds": 3, "max_points": 5000, "dpi": 60},
}


@pytest.fixture(scope="module")
def kobayashi_run(root, tmp_path_factory):
    import yaml

    from tests.helpers import snakemake

    work = tmp_path_factory.mktemp("kobayashi_smoke")
    cfg = {**yaml.safe_load((root / "config" / "smoke.yaml").read_text()), **KOBAYASHI_SMOKE}
    cfg["tasks"] = {"one_to_one": cfg["tasks"]["one_to_one"]}
    for block in ("snell2021", "kobayashi2020_aer"):  # the other papers' blocks and the smoke's AER of AED runs
        cfg.pop(block, None)
    (work / "kob.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    snakemake("--cores", "2", "--configfile", "kob.yaml", cwd=work, timeout=900)
    return work


@pytest.mark.slow
def test_kobayashi_rules_end_to_end(kobayashi_run):
    """Every Kobayashi table and figure, the fold summary, the AER tables and their claims rows, from the rules."""
    work = kobayashi_run
    fig_dir = work / "results" / "figures" / "kobayashi2020"
    for name in ("table1", "fig3", "table2", "fig4", "fig5", "fig6", "fig9", "fig10", "fig11", "fig12", "table4", "fig7",
                 "table3"):
        for ext in ("png", "pdf", "csv"):
            assert (fig_dir / f"{name}.{ext}").stat().st_size > 100, (name, ext)
        img = mpimg.imread(fig_dir / f"{name}.png")
        assert img[..., :3].std() > 0.05, name
    err = pd.read_parquet(work / "results" / "activations" / "kobayashi2020_minilm" / "error.parquet")
    assert len(err) == 6 and (err.max_abs_error < 1e-5).all()
    table2 = pd.read_csv(fig_dir / "table2.csv").set_index("category")
    assert table2.loc["[CLS]", "spearman_rho"] < 0  # MiniLM's [CLS] sink: large α on a short f(x)
    aer = pd.read_csv(work / "results" / "analysis" / "transformer_one_to_one" / "aer.csv")
    assert set(aer.seed) == {0, 1} and set(aer.layer) == {1, 2} and set(aer.method) == {"weight", "norm"}
    claims = pd.read_csv(work / "results" / "claims.csv")
    mine = claims[claims.experiment == "kobayashi2020_minilm"]
    assert len(mine) == 16 and (mine.n == 3).all()  # every §4 / App. A / App. C claim gets its row
    assert {"other_heads_do_not_negate", "cls_heads_negate", "fnorm_dispersion_heads_differ"} <= set(mine.claim_id)
    synthetic = claims[claims.experiment == "transformer_one_to_one"]
    assert synthetic.claim_id.tolist() == ["aer_norm_below_weight_synthetic", "aer_mean_layer_norm_below_weight_synthetic",
                                           "aer_gain_in_lower_layers_synthetic"]
    assert (synthetic.origin == "extension").all()  # AER on synthetic tasks is the project's own check
    assert claims.verdict.isin({"reproduced", "not reproduced", "inconclusive", "undecidable at this n",
                                "not tested"}).all()
    assert mine.tested_on.str.contains("MiniLM").all()


@pytest.mark.slow
def test_one_kobayashi_figure_reruns_alone(kobayashi_run):
    from tests.helpers import job_counts, snakemake

    proc = snakemake("-n", "results/figures/kobayashi2020/fig6.png", "--forcerun",
                     "results/figures/kobayashi2020/fig6.png", "--configfile", "kob.yaml", cwd=kobayashi_run)
    assert job_counts(proc.stdout) == {"kobayashi2020_figure": 1}


@pytest.mark.slow
def test_a_kobayashi_figure_redraws_from_the_artifact_without_training(kobayashi_run, tmp_path):
    """An artifact packed with the models and analyses redraws a figure with no other job."""
    import yaml

    from attnrepro.archive.artifact import unpack, verify
    from tests.helpers import job_counts, snakemake

    cfg = yaml.safe_load((kobayashi_run / "kob.yaml").read_text())
    cfg["archive"].update(models=True, analysis=True)
    (kobayashi_run / "kob_archive.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    snakemake("results/artifact.tar.gz", "--cores", "1", "--configfile", "kob_archive.yaml", cwd=kobayashi_run,
              timeout=600)
    root = unpack(kobayashi_run / "results" / "artifact.tar.gz", tmp_path)
    assert verify(root) == []
    proc = snakemake("--snakefile", "code/Snakefile", "--configfile", "config.yaml", "-n", "-f",
                     "results/figures/kobayashi2020/fig6.png", cwd=root / "data")
    assert job_counts(proc.stdout) == {"kobayashi2020_figure": 1}
