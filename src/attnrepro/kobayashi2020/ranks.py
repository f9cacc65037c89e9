"""Frequency ranks of word pieces (Kobayashi et al. 2020, §4.3, Fig. 6), by token id, for every token.

A rank table has one row per word-piece id: ``rank`` (1 = most frequent), ``count`` and ``token_id`` — the layout
of the authors' ``rank_count_ids.txt`` (BERT pre-training counts; ``rank count id`` per line), which keeps ``##``
pieces, single characters and the special tokens ([SEP] is rank 28, [CLS] 50). As in their code, an id the table
lacks is ranked last (the table's largest rank + 1) and kept, never dropped.

Where that file is not downloaded, :func:`count_ranks` builds a table of the same layout from the word pieces of
a stated corpus (the news paragraphs, :mod:`.news`): a substitute, named as such in docs/deviations.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import AttnReproError

RANK_COLUMNS = ["rank", "count", "token_id"]


def read_rank_file(path: str | Path) -> pd.DataFrame:
    """The authors' ``rank count id`` file as a rank table; a malformed line or a repeated id names the line."""
    path = Path(path)
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                fields = line.split()
                if len(fields) != 3 or not all(x.lstrip("-").isdigit() for x in fields):
                    raise AttnReproError(f"{path}, line {n}: expected 'rank count id' (three integers), "
                                         f"got {line.strip()[:60]!r}")
                rows.append(tuple(int(x) for x in fields))
    except (OSError, UnicodeDecodeError) as err:
        raise AttnReproError(f"{path}: cannot read the rank file ({err})") from err
    table = pd.DataFrame(rows, columns=RANK_COLUMNS)
    if table.empty:
        raise AttnReproError(f"{path}: the rank file has no rows")
    repeated = table.token_id[table.token_id.duplicated()]
    if len(repeated):
        raise AttnReproError(f"{path}: token id {int(repeated.iloc[0])} is ranked twice")
    if (table["rank"] < 1).any():
        raise AttnReproError(f"{path}: ranks start at 1 (found {int(table['rank'].min())})")
    return table


def count_ranks(token_ids: Iterable[int]) -> pd.DataFrame:
    """A rank table from word-piece occurrences: the most frequent id is rank 1; ids of equal count are ranked by
    id (every rank distinct, like a sorted count file)."""
    counts = Counter(int(i) for i in token_ids)
    table = pd.DataFrame(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])), columns=["token_id", "count"])
    table["rank"] = np.arange(1, len(table) + 1)
    return table[RANK_COLUMNS]


def rank_tokens(token_ids, table: pd.DataFrame) -> np.ndarray:
    """The rank of each id in ``token_ids``; an id the table lacks gets the table's largest rank + 1."""
    last = int(table["rank"].max()) + 1
    ranks = pd.Series(table["rank"].to_numpy(), index=table.token_id.to_numpy())
    return pd.Series(np.asarray(token_ids)).map(ranks).fillna(last).to_numpy(dtype=np.int64)
