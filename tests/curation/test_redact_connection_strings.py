"""A connection string's password read to where its format ends it (``;`` for ADO.NET, ODBC, OLE DB
and JDBC's SQL Server URL, an unescaped space for libpq): the labelled-value rules cut it at a
``,`` or a ``\\`` and the rest of the password stayed. Development half only here; the validation
half's figure is in docs/redaction.md."""

from __future__ import annotations

import pytest
from _leftover_cases import CONNECTION_CONTROLS, connection_strings

from trajectory_platform.curation.redact import redact_text

SALT = b"connection-strings-salt"
DEV = connection_strings("dev")


@pytest.mark.parametrize(("text", "pieces"), DEV, ids=[f"dev{i}" for i in range(len(DEV))])
def test_a_connection_strings_password_is_redacted_whole(text: str, pieces: tuple[str, ...]) -> None:
    redacted = redact_text(text, SALT)[0]
    assert not any(piece in redacted for piece in pieces)


@pytest.mark.parametrize(
    "text", CONNECTION_CONTROLS, ids=[f"control{i}" for i in range(len(CONNECTION_CONTROLS))]
)
def test_a_connection_string_without_a_password_stays(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


def test_the_pairs_after_the_password_stay() -> None:
    redacted = redact_text("Server=sql01;Uid=app;Pwd=Qm4,Zr8\\Lx2;Database=orders", SALT)[0]
    assert redacted.endswith(";Database=orders") and "Lx2" not in redacted
