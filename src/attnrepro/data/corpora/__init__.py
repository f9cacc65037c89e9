"""The papers' own corpora: each raw release format (one module each) turned into the project's data layout,
``results/data/<corpus>/{train,valid,test}.parquet`` plus ``vocab.json``.

Three families, by what the experiments read:

- ``pieces`` (Snell et al.'s translation): columns ``src``, ``tgt`` hold sentencepiece pieces of one shared
  vocabulary (``pieces.py``); ``vocab.json`` is the project's ``Vocab`` over those pieces, and ``spm.model`` the
  sentencepiece model, for BLEU on detokenised text.
- ``words`` (Aitken et al.'s English-French): ``src``, ``tgt`` hold words; the ``vocab_size`` most frequent words
  of each side's training split are kept, the rest become ``<unk>``.
- ``classification`` (Snell et al.'s classifiers): ``text`` holds words, ``label`` the index of the class group;
  words seen fewer than ``min_count`` times in the training split become ``<unk>``; ``vocab.json`` is
  ``{"words": [...], "labels": [...]}``. Validation (and test) sets hold at most ``max_valid`` (``max_test``)
  examples, a seeded sample of the release's held-out set when it has no validation split.
"""

from __future__ import annotations

from typing import Any

from . import imdb, iwslt14, multi30k, news_commentary, newsgroups, paracrawl, sms_spam, sst, wmt16, zhang_csv

SPLITS = ("train", "valid", "test")
FORMATS = {m.__name__.rsplit(".", 1)[1]: m
           for m in (multi30k, iwslt14, news_commentary, paracrawl, wmt16, imdb, newsgroups, sst, zhang_csv,
                     sms_spam)}
FAMILIES = ("pieces", "words", "classification")
# what each family's preparation reads from the corpus's config block, beside format, files and seed
REQUIRED = {
    "pieces": ("src", "tgt", "vocab_size"),
    "words": ("src", "tgt", "vocab_size", "max_len", "n_train", "n_valid", "n_test"),
    "classification": ("classes",),
}


def has_gold(corpus: dict[str, Any]) -> bool:
    """Whether the corpus's release includes a gold word-alignment set (``GOLD_FILE``, e.g. wmt16's RWTH set)."""
    return hasattr(FORMATS[corpus["format"]], "GOLD_FILE")


def family(corpus: dict[str, Any]) -> str:
    return FORMATS[corpus["format"]].FAMILY


def expected_files(corpus: dict[str, Any]) -> list[str]:
    return FORMATS[corpus["format"]].files(corpus)
