"""A file written in pieces is rebuilt from the pieces' words as bash splits them.

Redaction's file writes once split a command with a lexer of its own (``shlex`` without
``whitespace_split``): an unquoted piece holding a character outside its word set (``:``, ``@``,
``,``, ``+``, ``%``) became several words, joined again with spaces that were never in the file
(``app:`` was ``app :``), so a credential written as ``user:`` then the password in pieces, or a
URL's ``user:password@host`` cut across commands, was never seen whole. It now reads the words of
:func:`curation.shell_split.bash_words`, the verifier's.

The cases are generated (values, wrappers, cuts and write syntaxes drawn from a seed), split into a
development half and a validation half; honest files written in pieces are the controls.
"""

from __future__ import annotations

import json
import random
import string

import pytest
from redact_factory import SALT
from test_redact_file_writes import _with_calls

from trajectory_platform.curation.redact import redact_episode

WRAPPERS = [
    ("{user}:{pw}", "curl -u $(cat {f}) https://api.{host}/v1/me"),
    ("https://{user}:{pw}@{host}", "git clone $(cat {f})/repo.git"),
    ("postgres://{user}:{pw}@{host}:5432/app", 'psql "$(cat {f})" -c "select 1"'),
    ("redis://:{pw}@{host}:6379", "redis-cli -u $(cat {f}) ping"),
    ("amqp://{user}:{pw}@{host}/vhost", "AMQP_URL=$(cat {f}) ./worker"),
    ("mysql://{user}:{pw}@{host}/db", "DATABASE_URL=$(< {f}) ./migrate"),
]
WRITES = [
    ("echo -n {piece} > {f}", "echo -n {piece} >> {f}"),
    ("printf %s {piece} > {f}", "printf %s {piece} >> {f}"),
    ("echo -n {piece} | tee {f} >/dev/null", "echo -n {piece} | tee -a {f} >/dev/null"),
]


def _password(rng: random.Random) -> str:
    """Letters and digits under the entropy floor: only its use says it is a password."""
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(14, 20)))


def _case(seed: int) -> tuple[list[str], str, str]:
    """``(commands, password, wrapper)``: a credential-bearing value written to a file in 2-3 pieces
    (cut inside the password, so no piece holds it whole), then read back where it is used."""
    rng = random.Random(seed)
    form, use = rng.choice(WRAPPERS)
    password = _password(rng)
    user = rng.choice(["app", "deploy", "svc_ci", "admin"])
    host = rng.choice(["db.internal", "cache.example.net", "10.2.0.7", "mq.corp.example.org"])
    value = form.format(user=user, pw=password, host=host)
    start = value.index(password)
    cuts = sorted(rng.sample(range(start + 4, start + len(password) - 3), rng.randint(1, 2)))
    cuts = [cut for index, cut in enumerate(cuts) if index == 0 or cut - cuts[index - 1] >= 4]
    bounds = [0, *cuts, len(value)]
    pieces = [value[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    first, more = rng.choice(WRITES)
    target = rng.choice([".k", "/tmp/.c", "~/.cache/u"])
    commands = [first.format(piece=pieces[0], f=target)]
    commands += [more.format(piece=piece, f=target) for piece in pieces[1:]]
    commands.append(use.format(f=target, host=host))
    return commands, password, form


CASES = [_case(seed) for seed in range(60)]
DEV, VALIDATION = CASES[0::2], CASES[1::2]


def _password_left(commands: list[str], password: str) -> list[str]:
    """The parts of ``password`` (4 characters or more, as the pieces cut it) the redacted episode
    still shows."""
    redacted, _ = redact_episode(_with_calls(*commands), SALT)
    text = json.dumps(redacted.to_dict())
    return [part for command in commands for part in _parts(command, password) if part in text]


def _parts(command: str, password: str) -> list[str]:
    """The run of ``password`` that ``command`` writes (its longest prefix or suffix it holds)."""
    for size in range(len(password), 3, -1):
        for part in (
            password[:size],
            password[-size:],
            *(password[i : i + size] for i in range(len(password))),
        ):
            if len(part) == size and part in command:
                return [part]
    return []


@pytest.mark.parametrize(("commands", "password", "form"), DEV, ids=[f"dev{i}" for i in range(len(DEV))])
def test_a_credential_written_in_pieces_with_punctuation_is_replaced_in_every_piece(commands, password, form):
    assert _password_left(commands, password) == []


def test_the_validation_half_is_replaced_too():
    left = [form for commands, password, form in VALIDATION if _password_left(commands, password)]
    assert left == []


@pytest.mark.parametrize(
    "commands",
    [
        ["echo -n localhost: > host.txt", "echo -n 5432 >> host.txt", "nc -z $(cat host.txt)"],
        ["echo -n id,name, > cols", "echo -n email >> cols", "cut -d, -f1 $(cat cols)"],
        [
            "printf %s https://pypi.org/ > idx",
            "printf %s simple/ >> idx",
            "pip download --index-url $(cat idx) x",
        ],
        ["echo -n v1.2.3+build > ver", "echo -n .45 >> ver", "git tag $(cat ver)"],
        ["echo -n 50%,75% > marks", "echo -n ,90% >> marks", "./plot --at $(cat marks)"],
    ],
)
def test_honest_punctuated_files_written_in_pieces_stay(commands):
    redacted, _ = redact_episode(_with_calls(*commands), SALT)
    calls = [event.tool_calls[0] for event in redacted.events if event.tool_calls]
    assert [json.loads(call.arguments)["command"] for call in calls] == commands
