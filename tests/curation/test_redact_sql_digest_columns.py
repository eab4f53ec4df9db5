"""A digest in a SQL column that names it (sql_columns.column_at, read by detectors'
digest evidence; one reader of INSERT and COPY column lists, below positional and detectors).

``INSERT INTO artifacts (name, sha256) VALUES ('a.tgz', '<hex>')`` and ``COPY t (tag, checksum)
FROM stdin;`` rows: the column says the run is a digest, as a CSV header's does, but only the
positional rules read the column list, and entropy replaced every artifact's and migration's
checksum. A raw JSON text's entropy finding inside one string literal also stood although the
literal's own scan, which sees the statement's lines, cleared it. Generated: sha256/sha1/md5 x
statements x plain or as a JSON string; development and validation differ by statement and
column. Controls: a credential column's value and a random run under a column that names no
digest are still replaced."""

from __future__ import annotations

import hashlib
import json

import pytest

from trajectory_platform.curation.redact.engine import redact_text

SALT = b"sql-digest-columns-salt-01234567"
DIGESTS = {"sha256": hashlib.sha256, "sha1": hashlib.sha1, "md5": hashlib.md5}

DEVELOPMENT = {
    "insert": lambda c, h: (
        f"INSERT INTO artifacts (id, name, {c}, size) VALUES (1, 'app.tgz', '{h}', 20480);"
    ),
    "copy": lambda c, h: f"COPY public.releases (id, tag, {c}) FROM stdin;\n1\tv1.2.0\t{h}\n\\.",
    "insert_rows_on_lines": lambda c, h: (
        f"INSERT INTO builds (build_id, {c}, status) VALUES\n  (42, '{h}', 'passed'),\n  (43, NULL, 'no');"
    ),
}
DEV_COLUMNS = ["sha256", "checksum"]
VALIDATION = {
    "insert_lowercase_quoted_names": lambda c, h: (
        f"insert into public.blobs (\"{c}\", bytes, mime) values ('{h}', 512, 'image/png');"
    ),
    "insert_backticks": lambda c, h: (
        f"INSERT INTO `packages` (`name`, `version`, `{c}`) VALUES ('x', '1.3', '{h}');"
    ),
    "copy_in_a_prompt": lambda c, h: f"db=# COPY files (path, {c}) FROM stdin;\n/srv/a.bin\t{h}\n\\.\n",
}
VAL_COLUMNS = ["commit_sha", "digest", "md5sum"]
WRAPPERS = {
    "plain": lambda t: t,
    "json_string": lambda t: json.dumps({"tool": "psql", "stdout": t}),
    "json_in_prose": lambda t: "The dump was:\n" + json.dumps({"stdout": t}) + "\nas expected.",
}


def _cases(table: dict, columns: list[str], half: str) -> list:
    cases = []
    for name, statement in sorted(table.items()):
        for index, column in enumerate(columns):
            algorithm = sorted(DIGESTS)[(index + len(name)) % len(DIGESTS)]
            digest = DIGESTS[algorithm](f"{half}{name}{column}".encode()).hexdigest()
            for wrapper, wrap in sorted(WRAPPERS.items()):
                cases.append(
                    pytest.param(
                        wrap(statement(column, digest)), digest, id=f"{half}-{name}-{column}-{wrapper}"
                    )
                )
    return cases


@pytest.mark.parametrize(
    ("text", "digest"), _cases(DEVELOPMENT, DEV_COLUMNS, "dev") + _cases(VALIDATION, VAL_COLUMNS, "val")
)
def test_a_digest_under_a_column_naming_it_is_kept(text: str, digest: str) -> None:
    redacted, _ = redact_text(text, SALT)
    assert digest in redacted


KEY = "f3a9c1e07b5d42e8a6c9d0b1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1"
CONTROLS = {
    "password_column_insert": (
        "INSERT INTO users (id, login, password) VALUES (1, 'ops', 'Harborfalcon417!');",
        "Harborfalcon417!",
    ),
    "secret_column_copy": (
        "COPY accounts (id, api_secret, sha256) FROM stdin;\n1\tMeadowcopper92#x\tabc\n\\.",
        "Meadowcopper92#x",
    ),
    "hex_under_a_token_column": (f"INSERT INTO sessions (user_id, api_token) VALUES (7, '{KEY}');", KEY),
    "hex_under_a_neutral_column_in_json": (
        json.dumps({"stdout": f"COPY t (id, payload) FROM stdin;\n1\t{KEY}\n\\."}),
        KEY,
    ),
}


@pytest.mark.parametrize("name", sorted(CONTROLS))
def test_a_value_no_digest_column_names_is_still_replaced(name: str) -> None:
    text, value = CONTROLS[name]
    redacted, _ = redact_text(text, SALT)
    assert value not in redacted
