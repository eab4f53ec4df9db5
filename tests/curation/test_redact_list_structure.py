"""A key spelled as a list of characters under a credential's name is replaced inside its list: the
bracket, the quotes around the first and last element and the statement stay, so code still reads
as code after redaction (the list decoder's view once began the value at the opening bracket)."""

from __future__ import annotations

import itertools

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"list-structure-salt"
SECRET = "Q7v#kR2p!mZ9wL4x"
ASSIGNMENTS = ("password = ", "password: ", "char[] password = ", '"password": ', "secret_key = ")
BRACKETS = ("[]", "{}", "()")
QUOTES = ("'", '"', "")
SEPARATORS = (",", ", ")


def _cases() -> list[tuple[str, str, str]]:
    cases = []
    for label, (opener, closer), quote, separator in itertools.product(
        ASSIGNMENTS, BRACKETS, QUOTES, SEPARATORS
    ):
        if opener == "(" and not quote:
            continue  # a tuple of bare names is no code; the keyword rule reads its line (not this rule)
        chars = SECRET if quote else SECRET.replace("#", "h").replace("!", "x")
        listed = separator.join(f"{quote}{char}{quote}" for char in chars)
        cases.append((f"{label}{opener}", listed, f"{closer};"))
    return cases


@pytest.mark.parametrize(("before", "listed", "after"), _cases(), ids=range(len(_cases())))
def test_a_listed_key_is_replaced_inside_its_brackets(before: str, listed: str, after: str) -> None:
    redacted, findings = redact_text(before + listed + after, SALT)
    assert findings
    assert redacted.startswith(before) and redacted.endswith(after)
    middle = redacted[len(before) : len(redacted) - len(after)]
    assert middle.count("REDACTED_") == 1
    assert middle.strip(listed[0]).startswith("<REDACTED_") and middle.strip(listed[0]).endswith(">")


def test_a_listed_key_inside_json_keeps_the_array() -> None:
    text = '{"password": [' + ",".join(f'"{char}"' for char in SECRET) + '], "user": "ana"}'
    redacted, _ = redact_text(text, SALT)
    assert redacted.startswith('{"password": ["<REDACTED_') and redacted.endswith('"], "user": "ana"}')
