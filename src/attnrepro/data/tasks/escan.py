"""Extended SCAN (eSCAN), Aitken et al. 2021 §4: SCAN commands over a subset of its words, concatenated at random
until the input (or, as in the authors' code, the output) has ``min_len``–``max_len`` words.

Choices the paper leaves open, taken from the authors' code (kaitken17/colab_based_projects, ``rnn_seq2seq/``):

- the word subset is a config value; the default ``run walk jump left and twice`` is the example in the authors'
  code and covers every word the paper's figures discuss ('twice', 'and', 'left');
- commands containing 'left twice' are dropped, as in the authors' code;
- a separator word (default ``<.>``, null for none) is written on both sides, input and output, so every command
  boundary is aligned: between consecutive commands, or (``trailing_separator``, the authors') after every
  command, the last one included;
- the length window applies to the input (``window: input``, the paper's "phrases of length 15 to 20") or, as in
  the authors' code, to the output (``window: output``; their analysed networks: 10–15 output words, inputs over
  ``max_in_len`` = 27 words rejected). Commands are drawn uniformly from the filtered list and appended while the
  windowed side stays within ``max_len``; a draw that would overflow is skipped, and a sequence is finished once
  it reaches ``min_len``.

With the default words the filtered list has 90 commands, the same 90 as the authors' subset (run, walk, jump,
left, and, twice without 'left twice').
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


def escan(min_len: int, max_len: int, n: int, seed: int, words=DEFAULT_WORDS, separator: str | None = "<.>",
          window: str = "input", max_in_len: int | None = None, trailing_separator: bool = False
          ) -> tuple[list[list[str]], list[list[str]]]:
    """``n`` (commands, actions) pairs. ``window`` names the side whose length must land in [min_len, max_len]
    (``input``: the paper's "phrases of length 15 to 20"; ``output``: the authors' code, 10–15 in the networks
    the paper analyses); ``max_in_len`` rejects longer inputs (the authors: 27); with ``trailing_separator`` the
    separator follows every command, the last one included (the authors'), else it sits between commands."""
    if window not in ("input", "output"):
        raise ValueError(f"eSCAN window {window!r}: choose 'input' or 'output'")
    rng = np.random.default_rng(seed)
    pool = phrases(words)
    side = 0 if window == "input" else 1
    sep = [separator] if separator else []
    shortest = min(len(p[side]) for p in pool) + (len(sep) if trailing_separator else 0)
    if shortest > max_len:
        raise ValueError(f"the shortest eSCAN command has {shortest} {window} words, more than max_len {max_len}")
    sources, targets = [], []
    attempts = 0
    while len(sources) < n:
        attempts += 1
        if attempts > 100 * n + 1000:  # a window no mix of commands can hit would otherwise loop forever
            raise ValueError(f"eSCAN: fewer than 1% of draws land in {window} lengths {min_len}-{max_len} with words "
                             f"{sorted(set(words))}; widen the length window")
        pair: tuple[list[str], list[str]] = ([], [])
        while len(pair[side]) < min_len:
            lead = sep if pair[0] and not trailing_separator else []
            tail = sep if trailing_separator else []
            if len(pair[side]) + len(lead) + shortest > max_len:
                break
            command = pool[rng.integers(len(pool))]
            if len(pair[side]) + len(lead) + len(command[side]) + len(tail) > max_len:
                continue
            pair = (pair[0] + lead + command[0] + tail, pair[1] + lead + command[1] + tail)
        src, tgt = pair
        if min_len <= len(pair[side]) <= max_len and (max_in_len is None or len(src) <= max_in_len):
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
