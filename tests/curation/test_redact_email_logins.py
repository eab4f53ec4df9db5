"""An e-mail login next to its password (red team rtsec11, class 16): ``ADDRESS:password`` in a
combo list, a log line or ``https -a``, and ``ADDRESS / password`` in prose after a log-in word. The
address was replaced as an e-mail and the password beside it stayed.

The values and wordings here are not the red team's (those are its generators)."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"email-login-salt"
PW = "Hq4vTn8Rwz"
"""Letters and digits, ten characters: under the entropy floor, only the pair says it is one."""
ADDRESS = "mira.sol@shop-test.example.dev"


@pytest.mark.parametrize(
    "text",
    [
        f"{ADDRESS}:{PW}",
        f"{ADDRESS}:{PW}\nleo@example.edu:Wd7kPz2Qm4\n",
        f"2026-03-01 WARN auth rejected {ADDRESS}:{PW} (locked)",
        f"https -a {ADDRESS}:{PW} POST api.example.dev/session",
        f"- qa viewer: `{ADDRESS}:{PW}`",
        f"To sign in, use {ADDRESS} / {PW}.",
        f"portal credentials -> {ADDRESS} / {PW}",
    ],
)
def test_the_password_beside_an_email_login_is_replaced(text: str) -> None:
    assert PW not in redact_text(text, SALT)[0]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("git clone git@github.com:acme/robots.git", "acme/robots.git"),
        ("rsync -av dist/ www@web1.example.com:htdocs", "htdocs"),
        ("scp notes.txt ops@files.example.com:Notes2024.txt", "Notes2024.txt"),
        ("The ratio was mira@example.dev / Quarterly2024 of the total", "Quarterly2024"),
        ("Maintainer: Mira Sol <mira@example.dev>:Lead7", "Lead7"),
    ],
)
def test_destinations_and_prose_without_a_login_word_keep_their_value(text: str, kept: str) -> None:
    assert kept in redact_text(text, SALT)[0]
