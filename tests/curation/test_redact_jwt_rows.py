"""Red team, round 15 (2026-12-07): a JSON Web Token cut across rows (an HTTP header folded under an
indent, a CRLF log, a YAML scalar folded at its width, a JSON string with ``\\n`` in it, a shell
line continued with a backslash). Only a terminal's cut at 60 columns or more, with two full rows,
was joined before; each other row was too short to read as a token, so the rows between the
pseudonyms stood (up to a whole signature). Signing algorithms and the ways of cutting are split
into a development and a validation half (none in both). Controls: a token's header alone,
prose and a host name opening with ``eyJ`` over rows, and the row after a whole token, stay as
they are. (A base64 JSON cursor cut across
rows is replaced row by row, as before this change: a false positive left for another round.)"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from collections.abc import Callable

import pytest

from trajectory_platform.curation.redact import decoders, redact_text

SALT = b"jwt-rows-salt"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _token(rng: random.Random, alg: str, signature_bytes: int) -> str:
    header = _b64(json.dumps({"alg": alg, "typ": "JWT"}).encode())
    subject = "".join(rng.choice(string.ascii_lowercase) for _ in range(8))
    claims = {"sub": subject, "iat": rng.randint(1, 2**31)}
    return f"{header}.{_b64(json.dumps(claims).encode())}.{_b64(rng.randbytes(signature_bytes))}"


def _rows(token: str, width: int, cut: str) -> str:
    return cut.join(token[i : i + width] for i in range(0, len(token), width))


ALGORITHMS = {
    "development": {"HS256": 32, "RS256": 256, "ES256": 64},
    "validation": {"HS512": 64, "PS384": 384, "ES384": 96, "EdDSA": 64},
}
"""Per half, a signing algorithm and its signature's length in bytes."""

CUTS: dict[str, dict[str, Callable[[str], str]]] = {
    "development": {
        "folded_header": lambda t: "Authorization: Bearer " + _rows(t, 40, "\n  "),
        "crlf_rows": lambda t: "token:\r\n" + _rows(t, 40, "\r\n"),
        "narrow_rows": lambda t: _rows(t, 32, "\n") + "\nexit 0",
    },
    "validation": {
        "yaml_folded": lambda t: "auth:\n  id_token: >-\n    " + _rows(t, 44, "\n    ") + "\n  user: bob",
        "tab_indented": lambda t: "export JWT=" + _rows(t, 48, "\n\t") + "\necho ok",
        "crlf_obs_fold": lambda t: "X-Id-Token: " + _rows(t, 28, "\r\n ") + "\r\nHost: api",
    },
}

_BREAKS = re.compile(r"\\?\r?\n[ \t]*")


def _cases() -> list[pytest.ParameterSet]:
    cases = []
    for half, cuts in CUTS.items():
        rng = random.Random(f"jwt-rows-{half}")
        for cut_name, cut in cuts.items():
            for alg, size in ALGORITHMS[half].items():
                token = _token(rng, alg, size)
                cases.append(pytest.param(token, cut(token), id=f"{half}-{cut_name}-{alg}"))
    return cases


def _readable(token: str, text: str) -> bool:
    """Does ``text``, its rows joined, show twelve characters of the token's signature in a row?"""
    signature = token.rsplit(".", 1)[1]
    joined = _BREAKS.sub("", text)
    return any(signature[i : i + 12] in joined for i in range(len(signature) - 11))


@pytest.mark.parametrize(("token", "text"), _cases())
def test_a_token_cut_across_rows_is_replaced_whole(token: str, text: str) -> None:
    assert _readable(token, text)
    redacted, _ = redact_text(text, SALT)
    assert not _readable(token, redacted)


def test_what_follows_a_token_cut_across_rows_is_kept() -> None:
    token = _token(random.Random(3), "HS256", 32)
    after = "\nContent-Type: application/json\nAccept: */*"
    redacted, _ = redact_text("Authorization: Bearer " + _rows(token, 50, "\n  ") + after, SALT)
    assert redacted.endswith(after)
    assert redacted.count("REDACTED") == 1


CONTROLS = [
    "Header: " + _b64(json.dumps({"alg": "HS256"}).encode()) + "\nBody follows\nDone",
    'A token opens with eyJ\n  since that is how base64 writes {"\n  (RFC 7519).',
    "eyJump.example.com\n  is a host name\n  of the build farm",
]


@pytest.mark.parametrize("text", CONTROLS)
def test_base64_json_cut_across_rows_that_is_no_token_is_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


def test_a_log_of_base64_rows_opening_like_a_token_reads_each_row_a_few_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A row that opens with ``eyJ`` and holds a whole JSON object (a cursor a line), or bytes that
    are no text, is no token cut short. Followed on from each of them, every row was read again
    for the 8 kB after it (120 kB of cursors: redaction took twice as long, 600 kB 16 s more). A
    count of rows read, not a time: the same on any machine."""
    rng = random.Random(11)
    cursors = [_b64(json.dumps({"page": n, "cursor": rng.random()}).encode()) for n in range(300)]
    noise = ["eyJ" + _b64(rng.randbytes(42)) for _ in range(300)]
    pattern = decoders._JWT_PIECE
    reads = []

    class Counted:
        def match(self, text: str, position: int) -> re.Match[str] | None:
            reads.append(position)
            return pattern.match(text, position)

    monkeypatch.setattr(decoders, "_JWT_PIECE", Counted())
    for rows in (cursors, noise):
        reads.clear()
        assert decoders._jwt_breaks("\n".join(rows)) == frozenset()
        assert len(reads) <= 3 * len(rows)
