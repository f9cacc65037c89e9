"""Kobayashi et al. 2020's figures and tables, as entries of the figure registry
(:mod:`attnrepro.figures.registry`): per name, what it reads (:class:`Reads`), the function that draws it
(:mod:`.figures`, each returning ``(figure, data)``) and its caption. Light on imports: the Snakefile reads it to
wire the figure rules. Adding a figure: a function in :mod:`.figures` and one entry here (docs/architecture.md)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import AttnReproError
from ..figures.registry import Figure, declare, need

# what `kobayashi2020 cache` writes, and the columns of every table it and `kobayashi2020 data` write
# (news.sequence_table, pretrained.norm_cache)
CACHE_TABLES = ("heads", "layers", "pairs", "error", "svals")
COLUMNS = {
    "tokens": ["seq", "article", "pos", "token_id", "token", "segment", "category", "rank"],
    "heads": ["seq", "layer", "head", "pos", "f_norm", "alpha_mean"],
    "layers": ["seq", "layer", "pos", "x_norm"],
    "pairs": ["seq", "layer", "head", "query", "pos", "alpha", "f_norm"],
    "error": ["layer", "max_abs_error"],
    "svals": ["layer", "head", "index", "singular_value"],
}


@dataclass(frozen=True)
class Reads:
    """What a figure reads: the pretrained encoder's token table and the ``tables`` of its norm cache (§4), or,
    for §5, one ``file`` (``aer.csv``, ``soft_alignments.parquet``) of every scored experiment and gold set."""
    tables: tuple[str, ...] = ()
    file: str = ""


def cache_tables(tokens: str, cache_dir: str, names) -> dict:
    """Name -> DataFrame: the token table (``tokens``) and the cache tables ``names`` of ``cache_dir``, each checked
    for its columns and rows."""
    from pathlib import Path

    from ..io import read_parquet

    tables = {"tokens": read_parquet(tokens, require=COLUMNS["tokens"], nonempty=True)}
    tables.update({n: read_parquet(Path(cache_dir) / f"{n}.parquet", require=COLUMNS[n], nonempty=True)
                   for n in names})
    return tables


def read_cache(figure: Figure, inputs: dict) -> tuple[dict, dict]:
    """``(tables, options)`` from the rule's ``{"tokens": token table, "cache_dir": the cache's folder,
    "pair_fraction", "max_points", "seed"}``: :func:`cache_tables` of the figure, and the sampling options."""
    need(figure, inputs, "tokens", "cache_dir")
    options = {"pair_fraction": inputs.get("pair_fraction", 0.01), "max_points": inputs.get("max_points", 200000),
               "seed": inputs.get("seed", 0)}
    return cache_tables(inputs["tokens"], inputs["cache_dir"], figure.inputs.tables), options


def read_scored(figure: Figure, inputs: dict) -> tuple:
    """The figure's file of every scored experiment, stacked with a column ``experiment`` (its label), from the
    rule's ``{"tables": LABEL -> path}`` in the figure's order."""
    import pandas as pd

    from ..io import read_csv_checked, read_parquet
    from .soft_examples import COLUMNS as SOFT_COLUMNS

    need(figure, inputs, "tables")
    tables = inputs["tables"]
    if not isinstance(tables, dict) or not all(isinstance(p, str) for p in tables.values()):
        raise AttnReproError(f"--inputs-json: tables: expected an object LABEL -> {figure.inputs.file}")
    if figure.inputs.file.endswith(".csv"):
        frames = [read_csv_checked(path, ["seed", "layer", "method", "aer"], nonempty=True).assign(experiment=name)
                  for name, path in tables.items()]
    else:
        frames = [read_parquet(path, require=SOFT_COLUMNS, nonempty=True).assign(experiment=name)
                  for name, path in tables.items()]
    return (pd.concat(frames, ignore_index=True),)


def _f():
    from . import figures  # matplotlib only when a figure is drawn: the Snakefile reads FIGURES at every start

    return figures


def _size(t) -> tuple[int, int]:
    return int(t["heads"].layer.max()), int(t["heads"]["head"].max())


def _encoder(name: str, tables: tuple[str, ...], draw, caption: str) -> Figure:
    return Figure(name, "kobayashi2020", Reads(tables), read_cache, draw, caption)


def _scored(name: str, file: str, draw, caption: str) -> Figure:
    return Figure(name, "kobayashi2020", Reads(file=file), read_scored, draw, caption, rule="scored")


FIGURES: dict[str, Figure] = declare(
    _encoder("table1", ("heads",), lambda t, o: _f().table1(t["heads"]),
             "Table 1 — mean, SD, CV, max, min of ‖f(x)‖ per head (max-CV head, min-CV head, average); CSV per "
             "head."),
    _encoder("fig3", ("heads",), lambda t, o: _f().fig3(t["heads"], t["tokens"]),
             "Fig. 3 — α (a) and ‖αf(x)‖ (b) summed over the keys of each category ([CLS], [SEP], commas and "
             "periods, others), averaged over queries, heads and sequences, per layer."),
    _encoder("table2", ("heads", "pairs"),
             lambda t, o: _f().table2(t["pairs"], t["tokens"], *_size(t), o["pair_fraction"]),
             "Table 2 — Spearman ρ between α_ij and ‖f(x_j)‖ per category of x_j, on the cache's uniform sample of "
             "all (layer, head, query, key) pairs."),
    _encoder("fig4", ("heads",), lambda t, o: _f().fig4(t["heads"], t["tokens"]),
             "Fig. 4 — α and ‖f(x)‖ of [SEP] per head (α and ‖f(x)‖ summed resp. averaged over the category's "
             "keys, averaged over queries and sequences; each colour scale from 0 to its largest head)."),
    _encoder("fig5", ("pairs",), lambda t, o: _f().fig5(t["pairs"], t["tokens"], o["max_points"], o["seed"]),
             "Fig. 5 — α against ‖f(x)‖ of sampled pairs by category."),
    _encoder("fig6", ("heads",), lambda t, o: _f().fig6(t["heads"], t["tokens"]),
             "Fig. 6 — frequency rank r of every token occurrence (word pieces, single characters and special "
             "tokens included; ids without a count ranked last), from the authors' BERT pre-training counts where "
             "``kobayashi2020.ranks`` downloads them, else word-piece counts over the news corpus, against "
             "α^(r,o) and ‖f(x^(r,o))‖, each averaged over all heads, with the signed Spearman ρ."),
    _encoder("fig9", ("svals",), lambda t, o: _f().fig9(t["svals"]),
             "Fig. 9 (Appendix A) — singular values of the affine map f per head."),
    # Appendix C: Fig. 4 for [CLS] (MiniLM's main sink), commas & periods, and the other tokens (no negation)
    _encoder("fig10", ("heads",), lambda t, o: _f().fig4(t["heads"], t["tokens"], category="[CLS]"),
             "Fig. 10 (Appendix C) — Fig. 4 for [CLS]; paper: large α where ‖f(x)‖ is small in most heads."),
    _encoder("fig11", ("heads",), lambda t, o: _f().fig4(t["heads"], t["tokens"], category="punct"),
             "Fig. 11 (Appendix C) — Fig. 4 for commas and periods; paper: large α where ‖f(x)‖ is small in most "
             "heads."),
    _encoder("fig12", ("heads",), lambda t, o: _f().fig4(t["heads"], t["tokens"], category="other"),
             "Fig. 12 (Appendix C) — Fig. 4 for the other tokens; paper: no such trend as for [SEP], [CLS], commas "
             "and periods."),
    _encoder("table4", ("layers",), lambda t, o: _f().table4(t["layers"]),
             "Table 4 (Appendix A) — dispersion of ‖x‖ per layer."),
    # §5: drawn from the aer.csv of every scored experiment
    _scored("fig7", "aer.csv", lambda per_layer: _f().fig7(per_layer),
            "Fig. 7 — the AER per decoder layer of alignments read from Attention-weights and from Vector-norms, "
            "per scored experiment and gold set."),
    _scored("table3", "aer.csv", lambda per_layer: _f().table3(per_layer),
            "Table 3 — per scored experiment and gold set, the best layer's AER and the mean over layers, "
            "Attention-weights vs Vector-norms."),
    # §5, Fig. 8: drawn from the soft_alignments.parquet of every scored experiment
    _scored("fig8", "soft_alignments.parquet", lambda soft: _f().fig8(soft),
            "Fig. 8 — per scored experiment (one row each, in Fig. 7's order), one example sentence pair's soft "
            "alignments: Attention-weights, Vector-norms (each on its own colour scale from 0) and the gold "
            "alignment (sure links dark, possible ones light); green frames mark the links each score extracts. "
            "It is drawn from the ``soft_alignments.parquet`` each AER job writes beside ``aer.csv``: the first 3 "
            "sentence pairs of the scored set (the gold file's first lines, or the task's first test examples), "
            "every layer, the first seed of the experiment. Drawn: layer 2 as in the paper where the model has it, "
            "else its last layer (a recurrent AED has one attention layer with one head, so its weights are α and "
            "its norms ‖αf(x)‖), and the first kept pair whose source has a period, else the first pair. The "
            "paper's point, periods with large weights but small norms, can only show on real text (a "
            "``kobayashi2020_aer.gold`` set, as config/paper.yaml's RWTH De-En on ``transformer_wmt16``); the "
            "synthetic tasks' words (the default config's) have no period, so there the figure shows only whether "
            "weights and norms pick the same source word as the exact gold alignment."),
)
ENCODER_FIGURES = [n for n, f in FIGURES.items() if not f.rule]  # from the norm cache (§4, Appendix A, C)
SCORED_FIGURES = [n for n, f in FIGURES.items() if f.rule == "scored"]  # from the scored experiments (§5)
