"""One reading of a code call's top-level arguments (``curation/call_arguments.py``) for redaction
and the action screen's argv lists.

The screen's own scanner ended a string at any quote not right after a backslash: a literal ending
in an escaped backslash never closed, the call ran on past its ``)``, and the strings of the code
that followed became words of the started program. Generated calls (starter, argv, a literal
ending in ``\\\\``, the code after) split into development and validation halves; calls without
such a literal are the controls.
"""

from __future__ import annotations

import random
import shlex

import pytest

from trajectory_platform.curation.call_arguments import call_arguments, closing_bracket
from trajectory_platform.curation.verify.argv_calls import argv_lines

STARTERS = ["subprocess.run", "subprocess.check_call", "os.execvp", "Popen", "sp.call"]
PROGRAMS = [["mkdir", "-p"], ["cp", "-r"], ["robocopy"], ["xcopy", "/E"], ["icacls"]]
FOLLOWING = [
    'log("rm", "-rf", "/srv/data")',
    'print("done", "ok")',
    'notes = ["a", "b"]',
    "x = f('y', 'z')",
]


def _case(seed: int, escaped: bool = True) -> tuple[str, str]:
    """``(code, line)``: a starting call whose argv has a Windows-style folder literal (ending in an
    escaped backslash when ``escaped``), then more code on the same line or the next. The line is
    the literals as written (escapes kept), as :func:`argv_lines` reads them."""
    rng = random.Random(seed)
    folder = rng.choice(["C:", "D:", "build", "out"]) + "\\\\" + rng.choice(["tmp", "cache", "dist"])
    folder += "\\\\" if escaped else ""
    program = rng.choice(PROGRAMS)
    literals = [*program, folder, rng.choice(["dest", "x", "E:\\\\bak"])]
    code = f"{rng.choice(STARTERS)}([{', '.join(f'{chr(34)}{w}{chr(34)}' for w in literals)}])"
    code += rng.choice(["; ", "\n"]) + rng.choice(FOLLOWING)
    return code, shlex.join(literals)


CASES = [_case(seed) for seed in range(40)]
DEV, VALIDATION = CASES[0::2], CASES[1::2]


@pytest.mark.parametrize(("code", "line"), DEV, ids=[f"dev{i}" for i in range(len(DEV))])
def test_an_argv_ends_at_its_calls_own_parenthesis(code, line):
    assert argv_lines(code) == [line]


def test_the_validation_half_too():
    assert [code for code, line in VALIDATION if argv_lines(code) != [line]] == []


@pytest.mark.parametrize(("code", "line"), [_case(seed, escaped=False) for seed in range(10)])
def test_calls_without_an_escaped_backslash_read_as_before(code, line):
    assert argv_lines(code) == [line]


def test_an_unclosed_call_gives_none_or_what_was_read():
    text = 'run(["rm", "-rf", "/srv/data"'
    assert call_arguments(text, 4) is None
    assert [text[a:b] for a, b in call_arguments(text, 4, unclosed=True) or []] == [text[4:]]
    assert argv_lines(text) == ["rm -rf /srv/data"]


def test_a_template_literals_comma_does_not_split():
    text = "hash(`a,b`, 'c')"
    assert [text[a:b] for a, b in call_arguments(text, 5) or []] == ["`a,b`", " 'c'"]


@pytest.mark.parametrize(
    ("text", "closing"),
    [
        ("[1, (2, 3), {'a': ']'}] tail", 22),
        ("{q: `a ] b`, answer: 'x'} tail", 24),
        ('["esc \\" ]", 2]', 14),
        ("[never closed", None),
    ],
)
def test_closing_bracket_reads_nesting_and_literals_as_call_arguments_do(text, closing):
    assert closing_bracket(text, 1, len(text)) == closing
