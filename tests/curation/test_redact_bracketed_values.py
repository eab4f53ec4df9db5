"""A secret inside brackets is replaced without its brackets: the text around it keeps its syntax.

A rule reads a value up to a space or a line's end; when brackets stood around the value
(``password [KEY]``, ``api_key=(KEY)``, ``secret: {KEY}``, a directive's ``requirepass (KEY)``),
one or both went into the value and out with the pseudonym: a tuple lost its ``)``, a command
substitution its ``)``, a list its ``]``, and the line was no longer code. Now the brackets at a
value's edges whose partner lies outside it, or that wrap it whole, stay in the text
(``engine._inside_brackets``).

Generated lines (a credential's context, brackets around the value, a wrapper around the line)
split into a development half and a validation half written after development (contexts never
looked at while the rule was written). A line must keep every bracket, quote and backquote it had
(pseudonyms aside) wherever a secret was found in it.
"""

from __future__ import annotations

import random
import string

import pytest
from redact_factory import SALT

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.pseudonym import PSEUDONYM_RE

DEV_CONTEXTS = [
    "password [{s}]",
    "password ({s})",
    "password {{{s}}}",
    "requirepass ({s})",
    "token: [{s}]",
    "api_key=({s})",
    "secret: {{{s}}}",
    "password=[{s}]",
    "--password=({s})",
    "pw ({s})",
    "Password: ({s})",
    "passwd=({s}),",
    "AUTH ({s})",
]
VALIDATION_CONTEXTS = [
    "db_password: ({s})",
    "client_secret=[{s}]",
    "masterauth [{s}]",
    "API_TOKEN={{{s}}}",
    "--token=[{s}]",
    "password = ({s}),",
    "access_key: {{{s}}}",
    "passphrase [{s}]",
]
WRAPPERS = ["{c}", "f({c})", "x = {c}\n", "[{c}]", "$({c})", "conf({c}); next()", "`{c}`"]


def _cases(contexts: list[str], seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    cases = []
    for context in contexts:
        for wrapper in WRAPPERS:
            secret = "".join(
                rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(14, 20))
            )
            cases.append((wrapper.format(c=context.format(s=secret)), secret))
    return cases


DEV = _cases(DEV_CONTEXTS, 51)
VALIDATION = _cases(VALIDATION_CONTEXTS, 52)


def _syntax(text: str) -> list[int]:
    bare = PSEUDONYM_RE.sub("P", text)
    return [bare.count(mark) for mark in "()[]{}`\"'"]


def _corrupted(line: str) -> bool:
    """Whether redaction found something in ``line`` and lost a bracket or a quote of it."""
    out, findings = redact_text(line, SALT)
    return bool(findings) and _syntax(out) != _syntax(line)


@pytest.mark.parametrize(("line", "secret"), DEV, ids=[f"dev{i}" for i, _ in enumerate(DEV)])
def test_the_brackets_around_a_replaced_value_stay(line, secret):
    assert not _corrupted(line)


def test_the_validation_contexts_too():
    assert [line for line, _ in VALIDATION if _corrupted(line)] == []


def test_a_value_with_brackets_of_its_own_keeps_them_inside_the_pseudonym():
    line = 'password = "k7(Qz)pW2m[Xr9]Lc4"'
    out, _ = redact_text(line, SALT)
    assert "k7(Qz)pW2m" not in out and _syntax(out) == _syntax('password = ""')
