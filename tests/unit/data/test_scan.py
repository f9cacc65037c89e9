import subprocess
import sys

from attnrepro.data.tasks import scan


def test_counts():
    assert len(scan.v_phrases()) == 34
    assert len(scan.s_phrases()) == 102
    cmds = scan.commands()
    assert len(cmds) == 20_910 and len(set(cmds)) == 20_910


def test_tricky_commands():
    assert scan.interpret("turn opposite left") == ["I_TURN_LEFT", "I_TURN_LEFT"]
    assert scan.interpret("turn around right") == ["I_TURN_RIGHT"] * 4
    assert scan.interpret("jump around right thrice after walk") == (
        ["I_WALK"] + ["I_TURN_RIGHT", "I_JUMP"] * 12)
    assert scan.interpret("run left") == ["I_TURN_LEFT", "I_RUN"]
    assert scan.interpret("walk opposite right twice") == ["I_TURN_RIGHT", "I_TURN_RIGHT", "I_WALK"] * 2
    assert scan.interpret("look and turn left") == ["I_LOOK", "I_TURN_LEFT"]
    assert scan.interpret("look after turn left") == ["I_TURN_LEFT", "I_LOOK"]
    assert scan.interpret("jump thrice") == ["I_JUMP"] * 3


def test_longest_output_is_48_actions():
    # "x around dir thrice" gives 24 actions; two of them joined give the SCAN maximum of 48
    assert max(len(scan.interpret(c)) for c in scan.commands()) == 48


def test_command_line_prints_the_release_format():
    out = subprocess.run([sys.executable, "-m", "attnrepro.data.tasks.scan"], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert len(lines) == 20_910
    assert "IN: turn opposite left OUT: I_TURN_LEFT I_TURN_LEFT" in lines
    assert all(line.startswith("IN: ") and " OUT: " in line for line in lines)


def test_escan_lengths_words_and_alignment():
    from attnrepro.data.tasks import escan

    src, tgt = escan.escan(15, 20, 300, seed=4)
    assert len(src) == 300
    assert all(15 <= len(s) <= 20 for s in src)
    assert set(w for s in src for w in s) <= set(escan.DEFAULT_WORDS) | {"<.>"}
    for s, t in zip(src, tgt):
        # splitting at the separator gives commands whose interpretations are the output's pieces
        s_parts = " ".join(s).split(" <.> ")
        t_parts = " ".join(t).split(" <.> ")
        assert len(s_parts) == len(t_parts)
        for a, b in zip(s_parts, t_parts):
            assert scan.interpret(a) == b.split()
            assert "left twice" not in a


def test_escan_is_seeded():
    from attnrepro.data.tasks import escan

    assert escan.escan(15, 20, 5, seed=1) == escan.escan(15, 20, 5, seed=1)
    assert escan.escan(15, 20, 5, seed=1) != escan.escan(15, 20, 5, seed=2)


def test_escan_authors_generator_bounds_the_output_and_ends_every_command():
    """The authors' generator (window 'output', 10-15; inputs over 27 rejected; '<.>' after every command, the
    last included, on both sides) on the 90 commands of their word subset."""
    from attnrepro.data.tasks import escan

    assert len(escan.phrases()) == 90
    src, tgt = escan.escan(10, 15, 400, seed=4, window="output", max_in_len=27, trailing_separator=True)
    assert all(10 <= len(t) <= 15 for t in tgt) and all(len(s) <= 27 for s in src)
    # the last command brings a sequence from at most 9 words to 10 or more; the longest command + <.> is 5: 10-14
    assert {len(t) for t in tgt} == set(range(10, 15))
    for s, t in zip(src, tgt):
        assert s[-1] == "<.>" and t[-1] == "<.>" and s.count("<.>") == t.count("<.>")
        for a, b in zip(" ".join(s[:-1]).split(" <.> "), " ".join(t[:-1]).split(" <.> ")):
            assert scan.interpret(a) == b.split()
    tight = escan.escan(10, 15, 400, seed=4, window="output", max_in_len=12, trailing_separator=True)[0]
    assert max(map(len, tight)) <= 12
    # the default (the paper's text) is unchanged: the input in the window, separators between commands only
    src, _ = escan.escan(15, 20, 50, seed=4)
    assert all(15 <= len(s) <= 20 and s[-1] != "<.>" for s in src)
