"""A bare query string (``?q=Select*From&Limit=2``) read whole as a generated password, and an
OAuth redirect's authorization code (``/callback?code=...&state=...``) that no credential name
marks. Development half only here; the validation half's figure is in docs/redaction.md."""

from __future__ import annotations

import pytest
from _leftover_cases import OAUTH_CONTROLS, oauth_redirects, query_strings

from trajectory_platform.curation.redact import redact_text

SALT = b"query-strings-salt"
QUERIES = query_strings("dev")
GRANTS = oauth_redirects("dev")


@pytest.mark.parametrize("text", QUERIES, ids=[f"query{i}" for i in range(len(QUERIES))])
def test_a_bare_query_string_stays(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


@pytest.mark.parametrize(("text", "pieces"), GRANTS, ids=[f"grant{i}" for i in range(len(GRANTS))])
def test_a_redirects_grant_is_redacted(text: str, pieces: tuple[str, ...]) -> None:
    redacted = redact_text(text, SALT)[0]
    assert not any(piece in redacted for piece in pieces)


@pytest.mark.parametrize("text", OAUTH_CONTROLS, ids=["promotion", "status", "country"])
def test_a_code_outside_a_redirect_stays(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
