"""A vendor prefix that is base64 itself (JFrog's reference token starts ``cmVmdGtu``, the base64
of ``reftkn``) followed by base64 of a sentence is a scanner's fixture, not a token: it is kept, as
the entropy rule keeps base64 of prose (``detectors._reads_as_prose``), where no label stands beside
it; a reference token (``reftkn:01:<expiry>:<random>``) is still replaced, and so is any value under
a token's label (the label rules judge it, not the format).

Cases are generated (sentences x carriers) and split in two: the exemption was written against the
development sentences; the validation sentences are held to the same standard. Controls: real-shaped
reference tokens, bare and labelled, and the fixtures under a token's label, must stay replaced."""

from __future__ import annotations

import base64
import itertools
import random
import string

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"prose-prefix-salt"

_DEVELOPMENT_SENTENCES = (
    "There are not the tokens you're looking for",
    "This is only an example of a reference token",
    "replace me with your own token before running",
)
_VALIDATION_SENTENCES = (
    "Nothing to see here, move along please",
    "sample value used in the unit tests only",
    "Do not commit real credentials to this file",
)
_CARRIERS = ("{v}", "- {v}\n- {v}", "see {v} in the docs", "# {v}")
_LABELLED = (
    "JFROG_TOKEN={v}",
    '{{"token": "{v}"}}',
    "curl -H 'Authorization: Bearer {v}' https://x.jfrog.io",
)


def _reference(payload: str) -> str:
    return base64.b64encode(f"reftkn:{payload}".encode()).decode().rstrip("=")


def _cases(sentences: tuple[str, ...], carriers: tuple[str, ...] = _CARRIERS) -> list[tuple[str, str]]:
    return [
        (carrier.format(v=(v := _reference(s))), v) for s, carrier in itertools.product(sentences, carriers)
    ]


DEVELOPMENT = _cases(_DEVELOPMENT_SENTENCES)
VALIDATION = _cases(_VALIDATION_SENTENCES)
_RANDOM = random.Random(46)
CONTROLS = [
    (
        carrier.format(
            v=(
                v := _reference(
                    f"01:{_RANDOM.randrange(10**9, 10**10)}:"
                    + "".join(_RANDOM.choice(string.ascii_letters + string.digits) for _ in range(32))
                )
            )
        ),
        v,
    )
    for _, carrier in itertools.product(range(2), _CARRIERS + _LABELLED)
] + _cases(_DEVELOPMENT_SENTENCES, _LABELLED)


@pytest.mark.parametrize(
    ("text", "value"), DEVELOPMENT + VALIDATION, ids=range(len(DEVELOPMENT) + len(VALIDATION))
)
def test_a_sentence_behind_a_base64_prefix_is_kept(text: str, value: str) -> None:
    assert value in redact_text(text, SALT)[0]


@pytest.mark.parametrize(("text", "value"), CONTROLS, ids=range(len(CONTROLS)))
def test_a_reference_token_is_still_replaced(text: str, value: str) -> None:
    assert value not in redact_text(text, SALT)[0]
