"""A key written to a file piece by piece across tool calls (red team rtsec11, class 15): each
command alone shows too little of it; the file's content, followed through the episode, is scanned.

The values and write syntaxes here are not the red team's (those are its generators): held out, to
test the class rather than the examples."""

from __future__ import annotations

import json

import pytest
from redact_factory import SALT, secret_episode, with_shell_calls

from trajectory_platform.curation.redact import redact_episode

TOKEN = "glpat-" + "Vq7Rk2Lm9XbT4wZp8Ns3"
PASSWORD = "Fenwick7Qz" + "Lr4Mp2Ty"
"""Random letters and digits under the entropy floor: only its use says it is a password."""


def _with_calls(*commands: str):
    episode = secret_episode()
    episode.events = episode.events[:2]
    return with_shell_calls(episode, *((command, "") for command in commands))


def _pieces(value: str, *cuts: int) -> list[str]:
    bounds = [0, *cuts, len(value)]
    return [value[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


@pytest.mark.parametrize(
    ("writes", "pieces", "use"),
    [
        (
            ["printf '%s' {0} > ~/.cache/gl/a1", "printf '%s' {1} >> ~/.cache/gl/a1"],
            _pieces(TOKEN, 10),
            "true",
        ),
        (
            [
                "echo -n '{0}' | tee part.txt >/dev/null",
                "echo -n {1} | tee -a part.txt",
                "echo -n {2} >> part.txt",
            ],
            _pieces(TOKEN, 9, 17),
            'curl -H "PRIVATE-TOKEN: $(cat part.txt)" https://gitlab.example.org/api/v4/user',
        ),
        (
            [
                "python3 -c \"open('.c2', 'w').write('{0}')\"",
                "python3 -c \"open('.c2', 'a').write('{1}')\"",
            ],
            _pieces(PASSWORD, 8),
            'psql "host=db user=app password=$(cat .c2 2>/dev/null)" -c "select 1"',
        ),
        (
            ["echo -n {0} > /run/app/cfg", "echo -n {1} >> /run/app/cfg"],
            _pieces(PASSWORD, 7),
            "DB_PASSWORD=$(< /run/app/cfg) ./migrate",
        ),
    ],
)
def test_a_key_a_file_receives_in_pieces_is_replaced_in_every_piece(
    writes: list[str], pieces: list[str], use: str
) -> None:
    episode = _with_calls(*(write.format(*pieces) for write in writes), use)
    redacted, _ = redact_episode(episode, SALT)
    text = json.dumps(redacted.to_dict())
    assert [piece for piece in pieces if piece in text] == []


def test_a_file_started_over_is_not_joined_with_what_it_held_before() -> None:
    """``>`` truncates: the first piece is no part of what the file holds when it is read."""
    head, tail = _pieces(TOKEN, 10)
    episode = _with_calls(f"echo -n {head} > t", "echo -n XY > t", f"echo -n {tail} >> t", "cat t")
    redacted, _ = redact_episode(episode, SALT)
    assert head in json.dumps(redacted.to_dict())


def test_honest_files_written_in_pieces_stay() -> None:
    commands = [
        'echo "NODE_ENV=production" > .env',
        'echo "PORT=8080" >> .env',
        "printf '%s\\n' 'id,name' > users.csv",
        "printf '%s\\n' '1,alice' '2,bob' >> users.csv",
        "echo -n build >> stage.txt 2> err.log",
        "echo -n ing >> stage.txt",
        "echo step-two-done | tee -a build.log",
        "cat .env users.csv && ./run --stage $(cat stage.txt)",
    ]
    episode = _with_calls(*commands)
    redacted, _ = redact_episode(episode, SALT)
    calls = [event.tool_calls[0] for event in redacted.events if event.tool_calls]
    assert [json.loads(call.arguments)["command"] for call in calls] == commands


SHORT_WRITES = (
    ["echo -n {0} > k", "echo -n {1} >> k", "echo -n {2} >> k"],
    ["printf '%s' {0} > k", "printf '%s' '{1}' >> k", "printf '%s' {2} >> k"],
    ["python3 -c \"open('k', 'w').write('{0}')\"", "echo -n {1} >> k", "echo -n {2} >> k"],
)


@pytest.mark.parametrize("writes", SHORT_WRITES, ids=range(len(SHORT_WRITES)))
@pytest.mark.parametrize(
    "cut", [3, 2, len(TOKEN) - 3, len(TOKEN) - 1], ids=["head3", "head2", "tail3", "tail1"]
)
def test_a_piece_under_four_characters_is_replaced_where_it_was_written(writes: list[str], cut: int) -> None:
    """A key's head or tail written alone (``echo -n gl >> k``) is replaced in its write, and only
    there: the same few characters elsewhere in the episode stay."""
    middle = 10 if cut < 10 else cut - 8
    pieces = _pieces(TOKEN, *sorted((cut, middle)))
    short = next(piece for piece in pieces if len(piece) < 4)
    elsewhere = f"ls {short}/ && git log -1 --format=%s {short}"
    episode = _with_calls(
        *(write.format(*pieces) for write in writes), 'curl -H "PRIVATE-TOKEN: $(cat k)" x', elsewhere
    )
    redacted, _ = redact_episode(episode, SALT)
    calls = [json.loads(e.tool_calls[0].arguments)["command"] for e in redacted.events if e.tool_calls]
    written = [write.format(*pieces) for write in writes]
    assert [
        call
        for call, write in zip(calls[:3], written, strict=True)
        if "REDACTED_" not in call or call == write
    ] == []
    assert calls[-1] == elsewhere
