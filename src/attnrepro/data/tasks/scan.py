"""SCAN (Lake & Baroni 2018) generated from its grammar, and its interpretation into action sequences.

Grammar::

    C -> S and S | S after S | S
    S -> V twice | V thrice | V
    V -> D[1] opposite D[2] | D[1] around D[2] | D | U
    D -> U left | U right | turn left | turn right
    U -> walk | look | run | jump

34 V phrases, 102 S phrases and 102 + 2·102² = 20,910 commands, the size of the official ``tasks.txt``.
``python -m attnrepro.data.tasks.scan`` prints every command as ``IN: <command> OUT: <actions>``, the format of the
original release.
"""

from __future__ import annotations

import itertools
import sys

PRIMITIVES = ("walk", "look", "run", "jump")
DIRECTIONS = ("left", "right")


def _turn(direction: str) -> list[str]:
    return [f"I_TURN_{direction.upper()}"]


def _action(verb: str) -> list[str]:
    return [] if verb == "turn" else [f"I_{verb.upper()}"]


def v_phrases() -> list[str]:
    """The 34 V phrases."""
    verbs = PRIMITIVES + ("turn",)
    out = [f"{v} {m} {d}" for m in ("opposite", "around") for v in verbs for d in DIRECTIONS]
    out += [f"{v} {d}" for v in verbs for d in DIRECTIONS]
    out += list(PRIMITIVES)
    return out


def s_phrases() -> list[str]:
    """The 102 S phrases."""
    vs = v_phrases()
    return vs + [f"{v} twice" for v in vs] + [f"{v} thrice" for v in vs]


def commands() -> list[str]:
    """All 20,910 SCAN commands."""
    ss = s_phrases()
    pairs = list(itertools.product(ss, ss))
    return ss + [f"{a} and {b}" for a, b in pairs] + [f"{a} after {b}" for a, b in pairs]


def _interpret_v(words: list[str]) -> list[str]:
    verb = words[0]
    if len(words) == 1:
        return _action(verb)
    if len(words) == 2:  # U dir | turn dir
        return _turn(words[1]) + _action(verb)
    modifier, direction = words[1], words[2]
    if modifier == "opposite":
        return _turn(direction) * 2 + _action(verb)
    if modifier == "around":
        return (_turn(direction) + _action(verb)) * 4
    raise ValueError(f"not a SCAN V phrase: {' '.join(words)!r}")


def _interpret_s(words: list[str]) -> list[str]:
    repeat = {"twice": 2, "thrice": 3}.get(words[-1])
    if repeat:
        return _interpret_v(words[:-1]) * repeat
    return _interpret_v(words)


def interpret(command: str) -> list[str]:
    """The action sequence of a SCAN command: ``'jump around right thrice after walk'`` ->
    ``['I_WALK', 'I_TURN_RIGHT', 'I_JUMP', ...]``."""
    words = command.split()
    for conj in ("and", "after"):
        if conj in words:
            i = words.index(conj)
            first, second = _interpret_s(words[:i]), _interpret_s(words[i + 1 :])
            return first + second if conj == "and" else second + first
    return _interpret_s(words)


def main() -> None:
    out = sys.stdout
    for command in commands():
        out.write(f"IN: {command} OUT: {' '.join(interpret(command))}\n")


if __name__ == "__main__":
    main()
