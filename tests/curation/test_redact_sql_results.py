"""What a SELECT of a credential column printed (red team rtsec11, class 14): one-column psql and
MySQL tables, sqlite's bare rows, and a query a client ran from its command line.

The values and layouts here are not the red team's (those are its generators)."""

from __future__ import annotations

import json

import pytest
from redact_factory import SALT, secret_episode, with_shell_calls

from trajectory_platform.curation.redact import redact_episode, redact_text

VALUES = ["Kp7vRt2Wq9Lz4Ne", "Mx3Hd8Jf5Sb1Gy6"]


@pytest.mark.parametrize(
    "text",
    [
        "shop=> SELECT passwd FROM staff;\n     passwd\n-----------------\n "
        + "\n ".join(VALUES)
        + "\n(2 rows)\n",
        "mysql> select s.api_token from services s;\n+-----------------+\n| api_token       |\n"
        "+-----------------+\n| "
        + " |\n| ".join(VALUES)
        + " |\n+-----------------+\n2 rows in set (0.01 sec)",
        f"sqlite> SELECT login, client_secret FROM apps;\nweb|{VALUES[0]}\ncli|{VALUES[1]}\nsqlite> .quit",
    ],
)
def test_a_credential_column_a_prompt_selected_is_replaced(text: str) -> None:
    redacted = redact_text(text, SALT)[0]
    assert [value for value in VALUES if value in redacted] == []


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ('sqlite3 var/app.db "select refresh_token from sessions"', "\n".join(VALUES)),
        ("psql -At -c 'SELECT u.password FROM accounts u'", "\n".join(VALUES) + "\n"),
        ('mysql -N -B -e "SELECT id, secret_key AS sk FROM hooks" app', f"1\t{VALUES[0]}\n2\t{VALUES[1]}"),
    ],
)
def test_a_credential_column_a_command_selected_is_replaced_in_its_result(command: str, output: str) -> None:
    redacted, _ = redact_episode(with_shell_calls(secret_episode(), (command, output)), SALT)
    assert [value for value in VALUES if value in json.dumps(redacted.to_dict())] == []


@pytest.mark.parametrize(
    "text",
    [
        "app=> SELECT password_changed_at FROM users;\n password_changed_at\n---------------------\n"
        " 2026-01-02 10:00:00\n(1 row)\n",
        "sqlite> select count(password) from users;\n42\nsqlite> select name from users;\nBuild2024-Alpha",
        "mysql> SELECT id, email FROM users;\n+----+-----------------+\n| id | email           |\n"
        "+----+-----------------+\n|  1 | Build2024-Alpha |\n+----+-----------------+\n1 row in set",
    ],
)
def test_other_columns_and_expressions_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
