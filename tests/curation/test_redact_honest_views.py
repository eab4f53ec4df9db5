"""Session 47 (fxsecFP): honest values seen through colour codes or a byte dump.

A false positive destroys a user's data. Three classes where a view of the text (ANSI colour, a
dump's rows) lost the context the plain text gives, each generated over carriers and split into a
development and a validation half (the validation forms were written first; the fixes were
developed on the development half):

- a digest or a commit id in colour under a column or a word that names it (a CSV/TSV/Markdown/
  ``psql`` column ``commit``, ``sha256``, ``checksum``; ``git log --color``): the colour view
  scanned its changed line alone, without the header or the word, and entropy replaced the run;
- a placeholder's lines dumped by ``xxd`` or ``hexdump -C``: the hex views read a row's codes beside
  its own character column, the ``wrapped`` view joined the rows (they are one width), a row's offset
  after ``PASSWORD`` read as prose, and the raw label rule read a value the column cut
  (``SECRET_KEY=REPLA|``);
- a placeholder cell of a table in colour (whole, or split by codes): the raw table rule read the
  codes as its value.

Controls: keys and passwords in the same carriers stay replaced.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"honest-views-salt"


def _xxd(text: str, width: int = 16) -> str:
    """``xxd``'s default layout: offset, groups of two bytes, the character column."""
    rows = []
    data = text.encode()
    for at in range(0, len(data), width):
        chunk = data[at : at + width]
        codes = " ".join(chunk[i : i + 2].hex() for i in range(0, len(chunk), 2))
        shown = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        rows.append(f"{at:08x}: {codes:<{width // 2 * 5 - 1}}  {shown}")
    return "\n".join(rows) + "\n"


def _hexdump_c(text: str) -> str:
    """``hexdump -C``'s layout: offset, two groups of eight bytes, ``|characters|``."""
    rows = []
    data = text.encode()
    for at in range(0, len(data), 16):
        chunk = data[at : at + 16]
        left = " ".join(f"{b:02x}" for b in chunk[:8])
        right = " ".join(f"{b:02x}" for b in chunk[8:])
        shown = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        rows.append(f"{at:08x}  {left:<23}  {right:<23}  |{shown}|")
    return "\n".join(rows) + "\n"


def _sha(seed: int, length: int) -> str:
    return hashlib.sha256(f"honest-{seed}".encode()).hexdigest()[:length]


GREEN, BOLD_YELLOW, ORANGE, RESET = "\x1b[32m", "\x1b[1;33m", "\x1b[38;5;208m", "\x1b[0m"

DIGEST_CARRIERS = {
    "validation": [
        lambda h, c: f"file\tchecksum\tsize\nbuild.tgz\t{c}{h}{RESET}\t2048\n",
        lambda h, c: f"| artifact | sha256 |\n|---|---|\n| app.whl | {c}{h}{RESET} |\n",
        lambda h, c: f"{c}commit {h}{RESET}\nAuthor: Dev <dev@example.com>\n\n    fix\n",
        lambda h, c: f" name | revision\n------+----------\n api  | {c}{h}{RESET}\n",
    ],
    "development": [
        lambda h, c: f"name,commit,size\napp,{c}{h}{RESET},12\n",
        lambda h, c: f"path,digest\nout.bin,{c}{h}{RESET}\n",
    ],
}
COLOURS = {"validation": [BOLD_YELLOW, ORANGE], "development": [GREEN]}
DIGEST_LENGTHS = {"validation": [64, 32], "development": [40]}

PLACEHOLDER_LINES = {
    "validation": [
        'password: "<your-password>"\nuser: admin\n',
        '{"api_key": "********", "region": "eu-west-1"}\n',
        "SECRET_KEY=REPLACE_ME\nDEBUG=false\n",
        "token = xxxxxxxxxxxxxxxx\nport = 8080\n",
    ],
    "development": [
        "API_TOKEN=<REDACTED>\nDB_PASSWORD=changeme\nSECRET=xxxxxxxx\nTOKEN=********\n",
        "DB_PASSWORD=${DB_PASSWORD}\nAPI_KEY=<your-api-key>\n",
    ],
}
DUMPERS: dict[str, list[Callable[[str], str]]] = {
    "validation": [_hexdump_c, lambda t: _xxd(t, 8)],
    "development": [_xxd],
}

PLACEHOLDER_CELLS = {
    "validation": ["<REDACTED>", "[hidden]", "********", "<not set>"],
    "development": ["<redacted>"],
}
CELL_CARRIERS = {
    "validation": [
        lambda v: f"| name | value |\n|---|---|\n| client_secret | {v} |\n",
        lambda v: f"key         value\npassword    {v}\nuser        admin\n",
        lambda v: f"| Field | Setting |\n|-------|---------|\n| API Token | {v} |\n| Region | eu |\n",
    ],
    "development": [lambda v: f"| key | value |\n|---|---|\n| api_key | {v} |\n"],
}
SPLITS = {
    "validation": [
        lambda v: f"{ORANGE}{v[:2]}{RESET}{ORANGE}{v[2:]}{RESET}",
        lambda v: f"{BOLD_YELLOW}{v}{RESET}",
    ],
    "development": [lambda v: f"{GREEN}{v[:4]}{RESET}{GREEN}{v[4:]}{RESET}"],
}


def _honest() -> dict[str, list[tuple[str, str, str]]]:
    """Each half's cases: (class, text, the honest text that must survive)."""
    halves: dict[str, list[tuple[str, str, str]]] = {}
    for half in ("validation", "development"):
        cases = []
        for n, digest_carrier in enumerate(DIGEST_CARRIERS[half]):
            for colour in COLOURS[half]:
                for length in DIGEST_LENGTHS[half]:
                    digest = _sha(n * 7 + length, length)
                    cases.append(("coloured_digest", digest_carrier(digest, colour), digest))
        for lines in PLACEHOLDER_LINES[half]:
            for dump in DUMPERS[half]:
                cases.append(("dumped_placeholder", dump(lines), dump(lines)))
        for carrier in CELL_CARRIERS[half]:
            for cell in PLACEHOLDER_CELLS[half]:
                for split in SPLITS[half]:
                    shown = split(cell)
                    cases.append(("coloured_placeholder_cell", carrier(shown), shown))
        halves[half] = cases
    return halves


HONEST = _honest()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        pytest.param(text, value, id=f"{half}-{kind}-{i}")
        for half, cases in HONEST.items()
        for i, (kind, text, value) in enumerate(cases)
    ],
)
def test_an_honest_value_seen_through_a_view_is_kept(text: str, value: str) -> None:
    redacted, findings = redact_text(text, SALT)
    assert value in redacted, [finding.detector for finding in findings]


_WORD_PASSWORD = "Harbor-lantern-7731!"
_RANDOM_KEY = "hK3vQ9zXw2LmP8rT5yNc"
_SESSION_UUID = "3f2c1a9e-8b7d-4c6e-9f1a-2b3c4d5e6f70"
CONTROLS = [
    pytest.param(
        f"name,api_token,size\napp,{GREEN}{_sha(1, 40)}{RESET},12\n", _sha(1, 40), id="coloured-token-column"
    ),
    pytest.param(f"note {ORANGE}{_sha(2, 40)}{RESET}\n", _sha(2, 40), id="coloured-bare-hex"),
    pytest.param(_xxd(f"DB_PASSWORD={_WORD_PASSWORD}\nDEBUG=false\n"), "Harbor-l", id="dumped-password"),
    pytest.param(_hexdump_c(f"api_key: {_RANDOM_KEY}\n"), "hK3vQ9zX", id="hexdumped-key"),
    pytest.param(_hexdump_c(f"SECRET_KEY={_WORD_PASSWORD}\n"), "Harbor-l", id="hexdumped-cut-password"),
    pytest.param(
        _xxd(f"> GET /dashboard HTTP/1.1\n> Cookie: theme=dark; session_id={_SESSION_UUID}; lang=en\n>\n"),
        _SESSION_UUID[5:18],  # the row that shows it in the column
        id="dumped-session-cookie",
    ),
    pytest.param(
        f"| key | value |\n|---|---|\n| api_key | {GREEN}{_RANDOM_KEY[:6]}{RESET}"
        f"{GREEN}{_RANDOM_KEY[6:]}{RESET} |\n",
        _RANDOM_KEY[6:],
        id="coloured-key-cell",
    ),
    pytest.param(
        f"key         value\npassword    {BOLD_YELLOW}{_WORD_PASSWORD}{RESET}\n",
        "Harbor-l",
        id="coloured-aligned",
    ),
    pytest.param(
        f'  + resource "aws_ssm_parameter" "app" {{\n      + name  = "/app/db_password"\n'
        f'      + value = "{GREEN}{_WORD_PASSWORD[:9]}{RESET}'
        f'{BOLD_YELLOW}{_WORD_PASSWORD[9:]}{RESET}"\n    }}',
        _WORD_PASSWORD[9:],
        id="coloured-hcl-value",
    ),
]


@pytest.mark.parametrize(("text", "secret"), CONTROLS)
def test_a_credential_seen_through_the_same_view_is_still_replaced(text: str, secret: str) -> None:
    redacted, _ = redact_text(text, SALT)
    assert secret not in redacted
