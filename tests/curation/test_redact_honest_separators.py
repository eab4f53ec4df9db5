"""Session 47 (fxsecFP, from the red team's negatives of session 46): honest values that a
separator stood between from the word naming them.

- a NUL (``/proc/PID/environ``, ``/proc/PID/cmdline``, or JSON's ``\\u0000``) after a placeholder:
  the label rule read the value on past the NUL (``********\\x00HOME=/root``), and past a flag's
  NUL a digest had no word before it (``--git-commit``, NUL, a sha);
- a ``key`` attribute beside its ``value`` (.NET's ``<add key="SHA256SUM" value="..." />``): the
  label rule read the entry's name as a key's value, and the digest had no word before it;
- a digest in a table that opens a message right after another message: the pass over values split
  across messages joined the two, the header's line then began with the other message's words, and
  entropy replaced the digest the message alone keeps.

Generated, split into a development and a validation half (the validation forms written before the
first measurement). Controls: credentials in the same carriers stay replaced.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest

from tests.curation.redact_factory import secret_episode
from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.episode import split_across_messages
from trajectory_platform.curation.redact.model import RedactionConfig
from trajectory_platform.traces.record import Event

SALT = b"honest-separators-salt"


def _sha(seed: int, length: int) -> str:
    return hashlib.sha256(f"separators-{seed}".encode()).hexdigest()[:length]


NUL_TEXTS = {
    "validation": [
        lambda v: f"$ cat /proc/77/environ\nLANG=C\x00DB_PASSWORD={v}\x00PATH=/usr/bin\x00",
        lambda v: json.dumps({"stdout": f"SECRET_KEY={v}\x00HOME=/root\x00"}),
        lambda v: f"PORT=80^@CLIENT_SECRET={v}^@USER=app^@",
    ],
    "development": [lambda v: f"$ cat /proc/1/environ\nHOSTNAME=web-1\x00API_TOKEN={v}\x00HOME=/root\x00"],
}
NUL_PLACEHOLDERS = {"validation": ["${DB_PASSWORD}", "<set-me>", "xxxxxxxx"], "development": ["********"]}
NUL_FLAGS = {
    "validation": [
        lambda h: f"$ cat /proc/9/cmdline\nworker\x00--commit-sha\x00{h}\x00--queue\x00jobs\x00",
        lambda h: json.dumps({"cmdline": f"app\x00--checksum\x00{h}\x00"}),
    ],
    "development": [lambda h: f"node\x00server.js\x00--git-commit\x00{h}\x00--port\x008080\x00"],
}
KEYED_ENTRIES = {
    "validation": [
        lambda h: f'<appSettings>\n  <add key="ReleaseCommit" value="{h}" />\n</appSettings>',
        lambda h: f"<entry key='build.hash' value='{h}'/>",
        lambda h: f'<setting key="PackageChecksum" value="{h}"/>',
    ],
    "development": [lambda h: f'<configuration>\n    <add key="SHA256SUM" value="{h}" />\n</configuration>'],
}


def _honest_texts() -> dict[str, list[tuple[str, str]]]:
    halves: dict[str, list[tuple[str, str]]] = {}
    for half in ("validation", "development"):
        cases = [(text(v), v) for text in NUL_TEXTS[half] for v in NUL_PLACEHOLDERS[half]]
        for n, flag in enumerate(NUL_FLAGS[half]):
            for length in (40, 64):
                cases.append((flag(_sha(n + length, length)), _sha(n + length, length)))
        for n, entry in enumerate(KEYED_ENTRIES[half]):
            for length in (40, 64):
                digest = _sha(100 + n + length, length)
                cases.append((entry(digest), digest))
        halves[half] = cases
    return halves


HONEST_TEXTS = _honest_texts()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        pytest.param(text, value, id=f"{half}-{i}")
        for half, cases in HONEST_TEXTS.items()
        for i, (text, value) in enumerate(cases)
    ],
)
def test_a_value_apart_from_its_name_by_a_separator_is_kept(text: str, value: str) -> None:
    redacted, findings = redact_text(text, SALT)
    assert value in redacted, [finding.detector for finding in findings]


TABLES = {
    "validation": [
        lambda h: f"file\tchecksum\nbuild.tgz\t{h}\nsrc.tgz\t-",
        lambda h: f"| artifact | sha256 |\n|---|---|\n| app.whl | {h} |",
        lambda h: f"name,revision,size\napi,{h},12",
    ],
    "development": [
        lambda h: f"service,owner,git_commit,rotated\nbilling,ops,{h},2024-03-01\nsearch,dev,,2024-01-01"
    ],
}
BEFORE = {
    "validation": ["Listing them, sorted by name, newest first", "ok, checking"],
    "development": ["Here are the rows, one per service"],
}


def _table_cases() -> list[tuple[str, str, str, str]]:
    return [
        (half, before, table(_sha(200 + n + length, length)), _sha(200 + n + length, length))
        for half in ("validation", "development")
        for n, table in enumerate(TABLES[half])
        for before in BEFORE[half]
        for length in (40, 64)
    ]


def _two_messages(before: str, after: str) -> object:
    episode = secret_episode()
    events = [Event(kind="user", content="show the table"), Event(kind="assistant", content=before)]
    return dataclasses.replace(episode, events=[*events, Event(kind="user", content=after)])


@pytest.mark.parametrize(
    ("before", "table", "digest"),
    [pytest.param(b, t, d, id=f"{half}-{i}") for i, (half, b, t, d) in enumerate(_table_cases())],
)
def test_a_digest_in_a_table_that_opens_a_message_is_no_split_value(
    before: str, table: str, digest: str
) -> None:
    found = split_across_messages(_two_messages(before, table), RedactionConfig())  # type: ignore[arg-type]
    assert digest not in {finding.value for finding in found}


_WORD = "Harbor-lantern-7731!"
_KEY = "hK3vQ9zXw2LmP8rT5yNc"
CONTROLS = [
    pytest.param(f"HOSTNAME=web-1\x00API_TOKEN={_KEY}\x00HOME=/root\x00", _KEY, id="environ-token"),
    pytest.param(
        f"node\x00app.js\x00--db-password\x00{_WORD}\x00--port\x0080\x00", _WORD, id="cmdline-password"
    ),
    pytest.param(json.dumps({"stdout": f"SECRET_KEY={_KEY}\x00HOME=/root\x00"}), _KEY, id="json-environ-key"),
    pytest.param(f'<add key="ApiKey" value="{_KEY}" />', _KEY, id="keyed-api-key"),
    pytest.param(f'<add key="ClientSecret" value="{_WORD}" />', _WORD, id="keyed-client-secret"),
    pytest.param(f"node\x00app.js\x00--note\x00{_sha(5, 40)}\x00", _sha(5, 40), id="cmdline-bare-hex"),
]


@pytest.mark.parametrize(("text", "secret"), CONTROLS)
def test_a_credential_in_the_same_carrier_is_still_replaced(text: str, secret: str) -> None:
    redacted, _ = redact_text(text, SALT)
    assert secret not in redacted


def test_a_key_split_across_two_messages_is_still_found() -> None:
    found = split_across_messages(_two_messages(f"export API_KEY={_KEY[:10]}", _KEY[10:]), RedactionConfig())  # type: ignore[arg-type]
    assert {_KEY[:10], _KEY[10:]} <= {finding.value for finding in found}
