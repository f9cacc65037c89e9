"""Exact gold word alignments of the synthetic tasks, as (sure, possible) sets of (source, target) positions
(0-based, words only: no ``<eos>``/``<sos>``), for the AER of Kobayashi et al. 2020 §5.

- one-to-one: target s ↔ source s; reversed: target s ↔ source T−1−s.
- sort: the k-th copy of a word in the output ↔ the k-th copy in the input (sure: the stable sort); every other
  copy of the same word is a possible link, since copies are interchangeable.
- eSCAN: each action ↔ the word that produces it (the verb for I_RUN/I_WALK/I_JUMP, the direction for
  I_TURN_LEFT/RIGHT), separators ↔ separators (sure); the command's modifiers ('twice', 'thrice', 'and',
  'after') ↔ every action of the part they act on (possible). Commands with 'turn', 'opposite' or 'around' have
  actions that no single word produces; they raise.
"""

from __future__ import annotations

Links = set[tuple[int, int]]
_ACTION_OF = {"run": "I_RUN", "walk": "I_WALK", "jump": "I_JUMP", "look": "I_LOOK"}
_TURN = {"left": "I_TURN_LEFT", "right": "I_TURN_RIGHT"}


def one_to_one(src: list[str], tgt: list[str], reverse: bool = False) -> tuple[Links, Links]:
    n = len(src)
    sure = {(n - 1 - s if reverse else s, s) for s in range(len(tgt))}
    return sure, set(sure)


def sort(src: list[str], tgt: list[str]) -> tuple[Links, Links]:
    positions: dict[str, list[int]] = {}
    for i, w in enumerate(src):
        positions.setdefault(w, []).append(i)
    seen: dict[str, int] = {}
    sure, possible = set(), set()
    for j, w in enumerate(tgt):
        k = seen.get(w, 0)
        seen[w] = k + 1
        sure.add((positions[w][k], j))
        possible.update((i, j) for i in positions[w])
    return sure, possible


def _phrase(words: list[tuple[int, str]]) -> list[tuple[str, int, list[int]]]:
    """A SCAN command S [and|after S] as (action, producing position, modifier positions), in output order."""
    for conj in ("and", "after"):
        idx = [k for k, (_, w) in enumerate(words) if w == conj]
        if idx:
            k = idx[0]
            left, right = _phrase(words[:k]), _phrase(words[k + 1:])
            both = (left + right) if conj == "and" else (right + left)
            return [(a, p, mods + [words[k][0]]) for a, p, mods in both]
    times = 1
    mods = []
    if words and words[-1][1] in ("twice", "thrice"):
        times = 2 if words[-1][1] == "twice" else 3
        mods.append(words[-1][0])
        words = words[:-1]
    if not words or words[0][1] not in _ACTION_OF or any(w in ("turn", "opposite", "around") for _, w in words):
        raise ValueError(f"no word-level gold alignment for SCAN command {' '.join(w for _, w in words)!r}")
    verb = words[0]
    once = []
    if len(words) == 2 and words[1][1] in _TURN:
        once.append((_TURN[words[1][1]], words[1][0], []))
    elif len(words) != 1:
        raise ValueError(f"unexpected SCAN command {' '.join(w for _, w in words)!r}")
    once.append((_ACTION_OF[verb[1]], verb[0], []))
    return [(a, p, m + mods) for _ in range(times) for a, p, m in once]


def escan(src: list[str], tgt: list[str], separator: str | None = "<.>") -> tuple[Links, Links]:
    commands, current = [], []
    for i, w in enumerate(src):
        if separator is not None and w == separator:
            commands.append(current)
            commands.append([(i, w)])
            current = []
        else:
            current.append((i, w))
    commands.append(current)
    produced: list[tuple[str, int, list[int]]] = []
    for cmd in commands:
        if len(cmd) == 1 and cmd[0][1] == separator:
            produced.append((separator, cmd[0][0], []))
        else:
            produced += _phrase(cmd)
    if [a for a, _, _ in produced] != list(tgt):
        raise ValueError(f"the target {' '.join(tgt)!r} is not the interpretation of {' '.join(src)!r}")
    sure = {(p, j) for j, (_, p, _) in enumerate(produced)}
    possible = sure | {(m, j) for j, (_, _, mods) in enumerate(produced) for m in mods}
    return sure, possible


def gold(task: dict, src: list[str], tgt: list[str]) -> tuple[Links, Links]:
    """(sure, possible) for one example of a task given by its config block."""
    kind = task["kind"]
    if kind in ("one_to_one", "reversed"):
        return one_to_one(src, tgt, reverse=kind == "reversed")
    if kind == "sort":
        return sort(src, tgt)
    if kind == "escan":
        return escan(src, tgt, task.get("separator", "<.>"))
    raise ValueError(f"no gold alignment for task kind {kind!r}")
