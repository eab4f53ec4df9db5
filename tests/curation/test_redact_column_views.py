"""A value named by a column header on another line, seen through a decoded view (engine._column_findings).

Generated: word passwords x tables x encodings. Development: a CSV or TSV export whose credential
cell carries ANSI colour; validation: other tables (SQL ``INSERT``, ``COPY``, a ``|`` table) and
other views (an ``xxd`` dump, colour over the whole row). Controls: ids, placeholders, variables and
plain settings in the same columns and views stay byte for byte (a digest coloured in a cell and a
placeholder's ``xxd`` rows were replaced before this rule too: not covered here)."""

from __future__ import annotations

import pytest

from tests.curation._encodings import xxd
from tests.curation._labelled_word_cases import labelled_word_cases
from trajectory_platform.curation.redact.engine import redact_text

SALT = b"column-views-salt"


def _ansi_cell(v: str) -> str:
    return f"\x1b[1;32m{v[:6]}\x1b[0m\x1b[33m{v[6:]}\x1b[0m"


CSV = "service,owner,{n},rotated\nbilling,ops,{v},2024-03-01\nsearch,dev,,2024-01-01"
TSV = "name\tenv\t{n}\nbilling\tprod\t{v}\nsearch\tstaging\t-"
INSERT = "INSERT INTO `accounts` (`id`, `name`, `{n}`) VALUES (1,'billing','{v}'),(2,'ops','x');"
COPY = "COPY public.integrations (id, provider, {n}, enabled) FROM stdin;\n1\tstripe\t{v}\tt\n\\."
PIPES = "| service | {n} |\n|---|---|\n| billing | {v} |"
DEVELOPMENT = {
    "csv_ansi_cell": lambda n, v: CSV.format(n=n, v=_ansi_cell(v)),
    "tsv_ansi_cell": lambda n, v: TSV.format(n=n, v=_ansi_cell(v)),
}
DEV_NAMES = ["db_password", "api_secret"]
VALIDATION = {
    "csv_xxd": lambda n, v: xxd(CSV.format(n=n, v=v)),
    "tsv_xxd": lambda n, v: xxd(TSV.format(n=n, v=v)),
    "copy_ansi_row": lambda n, v: COPY.format(n=n, v=v).replace("1\tstripe", "\x1b[2m1\tstripe", 1),
    "pipes_ansi_cell": lambda n, v: PIPES.format(n=n, v=_ansi_cell(v)),
    "insert_ansi_cell": lambda n, v: INSERT.format(n=n, v=_ansi_cell(v)),
}
VAL_NAMES = ["password", "client_secret", "smtp_pass"]
CONTROLS = [
    CSV.format(n="request_id", v=_ansi_cell("3f1c2d4e-5a6b-4c8d-9e0f-1a2b3c4d5e6f")),
    CSV.format(n="password", v=_ansi_cell("********")),
    TSV.format(n="password", v=_ansi_cell("${DB_PASSWORD}")),
    xxd(TSV.format(n="region", v="eu-west-1")),
    PIPES.format(n="owner", v=_ansi_cell("platform-team")),
]


def _readable(text: str, value: str) -> bool:
    plain = text.replace("\x1b[0m\x1b[33m", "").replace("\x1b[1;32m", "")
    return value in plain or value[:6] in text or value.encode().hex()[:12] in text.replace(" ", "")


@pytest.mark.parametrize(
    ("text", "value"),
    labelled_word_cases(DEVELOPMENT, DEV_NAMES) + labelled_word_cases(VALIDATION, VAL_NAMES),
)
def test_a_column_value_seen_through_a_view_is_replaced(text: str, value: str) -> None:
    assert not _readable(redact_text(text, SALT)[0], value)


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_ids_digests_and_placeholders_in_a_viewed_column_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
