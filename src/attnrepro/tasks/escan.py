"""Extended SCAN (eSCAN), Aitken et al. 2021 §4: SCAN commands over a subset of its words, concatenated at random
into inputs of ``min_len``–``max_len`` words.

Choices the paper leaves open, taken from the authors' code notes (``../shared/reference/authors-code.md``):

- the word subset is a config value; the default ``run walk jump left and twice`` is the example in the authors'
  code and covers every word the paper's figures discuss ('twice', 'and', 'left');
- commands containing 'left twice' are dropped, as in the authors' code;
- a separator word (default ``<.>``, null for none) is written between consecutive commands on both sides, input
  and output, so every command boundary is aligned;
- the length window applies to the input (the paper: "phrases of length 15 to 20"); the authors' code bounded the
  output instead. Commands are drawn uniformly from the filtered list and appended while the input stays within
  ``max_len``; a draw that would overflow is skipped, and a sequence is finished once it reaches ``min_len``.
"""

from __future__ import annotations

import numpy as np

from . import scan

DEFAULT_WORDS = ("run", "walk", "jump", "left", "and", "twice")


def phrases(words: tuple[str, ...] | list[str] = DEFAULT_WORDS) -> list[tuple[list[str], list[str]]]:
    """The SCAN commands made only of ``words`` (without 'left twice'), with their action sequences."""
    allowed = set(words)
    out = []
    for command in scan.commands():
        ws = command.split()
        if set(ws) <= allowed and "left twice" not in command:
            out.append((ws, scan.interpret(command)))
    if not out:
        raise ValueError(f"no SCAN command uses only the words {sorted(allowed)}")
    return out


def escan(min_len: int, max_len: int, n: int, seed: int, words=DEFAULT_WORDS,
          separator: str | None = "<.>") -> tuple[list[list[str]], list[list[str]]]:
    rng = np.random.default_rng(seed)
    pool = phrases(words)
    shortest = min(len(p[0]) for p in pool)
    if shortest > max_len:
        raise ValueError(f"the shortest eSCAN command has {shortest} words, more than max_len {max_len}")
    sep = [separator] if separator else []
    sources, targets = [], []
    attempts = 0
    while len(sources) < n:
        attempts += 1
        if attempts > 100 * n + 1000:  # a window no mix of commands can hit would otherwise loop forever
            raise ValueError(f"eSCAN: fewer than 1% of draws land in lengths {min_len}-{max_len} with words "
                             f"{sorted(set(words))}; widen the length window")
        src, tgt = [], []
        while len(src) < min_len:
            room = max_len - len(src) - (len(sep) if src else 0)
            if room < shortest:
                break
            ws, acts = pool[rng.integers(len(pool))]
            if len(ws) > room:
                continue
            if src:
                src, tgt = src + sep, tgt + sep
            src, tgt = src + ws, tgt + acts
        if min_len <= len(src) <= max_len:
            sources.append(src)
            targets.append(tgt)
    return sources, targets


def source_words(words=DEFAULT_WORDS, separator: str | None = "<.>") -> list[str]:
    return sorted(set(words)) + ([separator] if separator else [])


def target_words(words=DEFAULT_WORDS, separator: str | None = "<.>") -> list[str]:
    acts = sorted({a for _, actions in phrases(words) for a in actions})
    return acts + ([separator] if separator else [])


def dictionary(words=DEFAULT_WORDS, separator: str | None = "<.>") -> dict[str, str]:
    """Each action -> the input word that names it (I_RUN <- run, I_TURN_LEFT <- left); the separator to itself.
    'and', 'twice' and the like name no action of their own."""
    out = {}
    for action in target_words(words, separator):
        name = action.removeprefix("I_TURN_").removeprefix("I_").lower()
        if name in words:
            out[action] = name
    if separator:
        out[separator] = separator
    return out
