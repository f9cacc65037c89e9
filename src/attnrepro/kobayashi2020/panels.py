"""The registry of Kobayashi et al. 2020's figures and tables: per name, the cached tables it reads and the
function that draws it (:mod:`.figures`, each returning ``(figure, data)``). Light on imports: the Snakefile reads
it to wire the figure rules. Adding a figure: a function in :mod:`.figures`, one line here, one caption in
workflow/report/ (docs/architecture.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

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
class Figure:
    needs: tuple[str, ...]              # cached tables read besides the token table
    draw: Callable = field(repr=False)  # (tables, options) -> (figure, data); options: pair_fraction, max_points, seed


def _f():
    from . import figures  # matplotlib only when a figure is drawn: the Snakefile reads FIGURES at every start

    return figures


def _size(t) -> tuple[int, int]:
    return int(t["heads"].layer.max()), int(t["heads"]["head"].max())


FIGURES: dict[str, Figure] = {
    "table1": Figure(("heads",), lambda t, o: _f().table1(t["heads"])),
    "fig3": Figure(("heads",), lambda t, o: _f().fig3(t["heads"], t["tokens"])),
    "table2": Figure(("heads", "pairs"), lambda t, o: _f().table2(t["pairs"], t["tokens"], *_size(t),
                                                                   o["pair_fraction"])),
    "fig4": Figure(("heads",), lambda t, o: _f().fig4(t["heads"], t["tokens"])),
    "fig5": Figure(("pairs",), lambda t, o: _f().fig5(t["pairs"], t["tokens"], o["max_points"], o["seed"])),
    "fig6": Figure(("heads",), lambda t, o: _f().fig6(t["heads"], t["tokens"])),
    "fig9": Figure(("svals",), lambda t, o: _f().fig9(t["svals"])),
    # Appendix C: Fig. 4 for [CLS] (MiniLM's main sink), commas & periods, and the other tokens (no negation)
    "fig10": Figure(("heads",), lambda t, o: _f().fig4(t["heads"], t["tokens"], category="[CLS]")),
    "fig11": Figure(("heads",), lambda t, o: _f().fig4(t["heads"], t["tokens"], category="punct")),
    "fig12": Figure(("heads",), lambda t, o: _f().fig4(t["heads"], t["tokens"], category="other")),
    "table4": Figure(("layers",), lambda t, o: _f().table4(t["layers"])),
}

# §5: drawn from the aer.csv of every scored experiment (column ``experiment`` added)
NMT_FIGURES: dict[str, Callable] = {
    "fig7": lambda per_layer: _f().fig7(per_layer),
    "table3": lambda per_layer: _f().table3(per_layer),
}

# §5, Fig. 8: drawn from the soft_alignments.parquet of every scored experiment (column ``experiment`` added)
SOFT_FIGURES: dict[str, Callable] = {
    "fig8": lambda soft: _f().fig8(soft),
}
