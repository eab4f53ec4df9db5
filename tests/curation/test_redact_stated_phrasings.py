"""Credentials stated in English however the sentence is built: the orders, links, quote styles
and value shapes a person uses (a passphrase of plain words, letters no English word spells, a
user and password pair with no account word), and a reply that frames its answer ("it's X").
The sentences about credentials that give no value must come back unchanged. Values and
phrasings are made up here, apart from the fixer's and red teams' generators."""

from __future__ import annotations

import datetime as dt

import pytest

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.episode import redact_episode
from trajectory_platform.curation.redact.spelling import unspellable
from trajectory_platform.traces.record import Episode, Event, Outcome, TaskIdentity

SALT = b"stated-phrasings"
CHOSEN = "Fjord8841&"
LETTERS = "vtkrsqwnpl"  # lowercase, and no English word
PHRASE = "lilac ferry summit crane"
DASHED = "lilac-ferry-summit-62"


def _redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The vault passphrase is \u201c{v}\u201d.", PHRASE),
        ("their shared password's {v}, keep it quiet", CHOSEN),
        ("their shared password's {v}, keep it quiet", LETTERS),
        ("The wifi password, it is {v}.", DASHED),
        ("Password? {v}", CHOSEN),
        ("For the root password, type {v}", CHOSEN),
        ("Paste {v} into the password box.", CHOSEN),
        ("{v} ought to... no: {v} should work as the passphrase.", CHOSEN),
        ("Just use {v} to sign in.", CHOSEN),
        ("Please authenticate using {v}", CHOSEN),
        ("Rotated the signing key, the new value is {v}", DASHED),
        ("The session token we were issued is {v}", LETTERS),
        ("Temporary password: {v}", PHRASE),
        ("{v} is the password for the NAS", PHRASE),
        ("user: mkowal, pass: {v}", PHRASE),
        ("Default logon mkowal/{v}", CHOSEN),
        ("Credentials were mkowal and {v}.", LETTERS),
        ("Try mkowal:{v} on the bastion.", "Gq7#rTz2Lp"),
        ("It answers to mkowal:'{v}' now.", CHOSEN),
        ("Paste {v} as the password once it asks.", CHOSEN),
        ("the vault's passphrase is {v}", "Birch.Lantern4471"),
    ],
)
def test_a_statement_gives_its_value(text: str, value: str) -> None:
    redacted = _redacted(text.format(v=value))
    assert value not in redacted, redacted


@pytest.mark.parametrize(
    "text",
    [
        "Secret: stored in the vault",
        "The password is read from settings.DB_PASSWORD at startup.",
        "The passphrase is what protects the private key.",
        "the password is case-sensitive",
        "The token is long-lived.",
        "Password? Not set.",
        "The key's length is 32 bytes.",
        "The password's argon2id hash is stored.",
        "Use SSO to log in.",
        "Sign in with Google, then authenticate with WebAuthn.",
        "Use admin to log in.",
        "For the password, use the one from the vault.",
        "Type your name into the search box.",
        "The new value is applied on restart; the key is rotated weekly.",
        "The token, it is refreshed hourly.",
        "github.com/spf13/cobra v1.8.0/go.mod h1:wN+x4NVGpMsO7ErUn/mUI3vEoE6Jt13X2s0bqwp9tc8=",
        "episode swe-agent:SWE-agent__test-repo-i1 finished",
        "Use node:18-alpine and python:3.12-slim images.",
        "What is the password for? It unlocks the backup.",
    ],
)
def test_a_sentence_about_a_credential_is_kept(text: str) -> None:
    assert _redacted(text) == text


@pytest.mark.parametrize("answer", ["it's {v}", "Sure, it is {v}.", "use {v}"])
@pytest.mark.parametrize("value", ["maple417", "xqzrtvbnk", PHRASE])
def test_a_framed_reply_to_a_question_for_a_credential(answer: str, value: str) -> None:
    """The user answers the agent's question in a sentence; a question that names no credential
    ("What is it?") asks for the one its sentence before named."""
    episode = Episode(
        episode_id="e1",
        source_format="native",
        source_file="f",
        source_line=1,
        source_path=None,
        partition_date=dt.date(2026, 1, 1),
        task=TaskIdentity(fixture_id="t", prompt="p", license="MIT"),
        events=[
            Event(kind="user", content="deploy the backup job"),
            Event(kind="assistant", content="I need the storage access key to go on. What is it?"),
            Event(kind="user", content=answer.format(v=value)),
        ],
        outcome=Outcome(terminal_status="completed"),
    )
    redacted, _ = redact_episode(episode, SALT)
    assert all(value not in (event.content or "") for event in redacted.events)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("pfhqgtqkpzn", True), ("xqzrtvbnk", True), ("strength", False), ("rhythms", False), ("hmac", False)]
    + [("Maple417", False), ("lantern", False)],
)
def test_unspellable_reads_english_spelling(value: str, expected: bool) -> None:
    assert unspellable(value) is expected
