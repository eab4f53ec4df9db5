"""Vendor tokens made of hex after a prefix (42 Intra's ``s-s4t2ud-`` / ``s-s4t2af-`` client secrets,
Sourcegraph's ``sgp_local_`` tokens) are known formats; a bare 40-hex Sourcegraph token counts under
a Sourcegraph name, while a commit id under a vendor's ``commit`` / ``sha`` / ``revision`` name, or
beside the vendor's name in a command, stays."""

from __future__ import annotations

import random

import pytest

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.credential_names import credential_class

SALT = b"vendor-hex-salt"
_RNG = random.Random(42)


def _hex(count: int, mixed: bool = False) -> str:
    digits = "0123456789abcdefABCDEF" if mixed else "0123456789abcdef"
    return "".join(_RNG.choice(digits) for _ in range(count))


TOKENS = [
    *(
        f"s-s4t2{kind}-{_hex(64, mixed)}"
        for kind in ("ud", "af")
        for mixed in (False, True)
        for _ in range(3)
    ),
    *(f"sgp_local_{_hex(40)}" for _ in range(4)),
    *(f"sgp_{_hex(16)}_{_hex(40)}" for _ in range(2)),
]
CONTEXTS = ("{value}", "export INTRA_UID={value}", "client_secret: {value}", "use {value} to log in")


@pytest.mark.parametrize("context", CONTEXTS)
@pytest.mark.parametrize("index", range(len(TOKENS)))
def test_a_prefixed_vendor_hex_token_is_replaced(index: int, context: str) -> None:
    value = TOKENS[index]
    assert value not in redact_text(context.format(value=value), SALT)[0]


NAMED = (
    "SOURCEGRAPH={value}",
    "sourcegraph: {value}",
    '{{"sourcegraph": "{value}"}}',
    "SRC_ACCESS_TOKEN={value}",
)


@pytest.mark.parametrize("form", NAMED)
def test_a_bare_sourcegraph_token_under_its_vendors_name_is_replaced(form: str) -> None:
    value = _hex(40)
    assert value not in redact_text(form.format(value=value), SALT)[0]


CONTROLS = (
    "github_commit: {value}",
    "GITHUB_SHA={value}",
    "sourcegraph_revision: {value}",
    "git clone https://github.com/sourcegraph/sourcegraph && git checkout {value}",
    "sourcegraph/sourcegraph@{value}",
)


@pytest.mark.parametrize("form", CONTROLS)
def test_a_commit_id_beside_a_vendors_name_stays(form: str) -> None:
    text = form.format(value=_hex(40))
    assert redact_text(text, SALT)[0] == text


@pytest.mark.parametrize("name", ["github_commit", "GITHUB_SHA", "gitlab_revision", "sourcegraph_rev"])
def test_a_vendors_commit_names_no_secret(name: str) -> None:
    assert credential_class(name) is None
