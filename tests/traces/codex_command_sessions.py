"""Codex CLI rollouts whose commands outlive their call (unified exec): ``exec_command`` answers
``Process running with session ID N`` when the command is still running as its ``yield_time_ms``
ends, and the model then polls it or types into it with ``write_stdin`` (``{"session_id": N,
"chars"}``), each answer a chunk of the same command's output, the last one saying ``Process exited
with code K``. The exit is the command's, not the write's: each ``write_stdin`` is linked to the
``exec_command`` whose session it fed.

Generated over the command (a build polled with empty ``chars``, a REPL fed lines, a prompt answered
``y``), how many writes, the exit code, whether another command's session runs interleaved with it,
whether the log ends while it still runs (session ids as large as the process ids Codex shows), in
the rollout layout Codex writes (``{"timestamp", "type": "response_item", "payload"}``, the output's
header lines
``Chunk ID`` / ``Wall time`` / ``Process running with session ID`` or ``Process exited with code`` /
``Original token count`` / ``Output:``). :data:`DEV` is what the linking was developed against,
:data:`VALIDATION` was held out (a case is in one half by a hash of its name; measured as 75 / 45
cases with a small-id variant, trimmed for test time and re-split); :data:`CONTROLS` are commands that
end within their call and a write to a session the log never started: read as before.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

COMMANDS = {
    "build": ("npm run build", ["", "", ""], ["Building...", "still building", "bundle written", "done"]),
    "repl": ("python3 -i", ["x = 6 * 7\n", "print(x)\n", "exit()\n"], [">>> ", ">>> ", "42\n>>> ", ""]),
    "prompt": (
        "./setup.sh",
        ["y\n", "y\n", "y\n"],
        ["Continue? [y/N]", "Overwrite? [y/N]", "Sure? [y/N]", "ok"],
    ),
}
"""A command: its line, the ``chars`` of each write, the output of each chunk (the call's, then each
write's)."""


@dataclass
class Session:
    session_id: str
    command: str
    writes: list[str]
    exit_code: int | None
    """``None``: the log ends while the command still runs."""


@dataclass(frozen=True)
class Case:
    name: str
    lines: list[dict[str, Any]]
    sessions: list[dict[str, Any]]
    """The expected ``extra_json.command_sessions``."""
    command_results: dict[str, tuple[int | None, str | None]] = field(default_factory=dict)
    """Each session's ``exec_command`` result: (exit code, status)."""
    write_results: dict[str, tuple[int | None, str | None]] = field(default_factory=dict)
    """Each ``write_stdin`` result: (exit code, status)."""


def _line(second: int, payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "timestamp": f"2025-09-01T10:{second // 60:02d}:{second % 60:02d}.000Z",
        "type": "response_item",
        "payload": payload,
    }


def _output(chunk: str, said: str, session_id: str, exit_code: int | None) -> str:
    state = (
        f"Process exited with code {exit_code}"
        if exit_code is not None
        else f"Process running with session ID {session_id}"
    )
    return (
        f"Chunk ID: {chunk}\nWall time: 1.0021 seconds\n{state}\nOriginal token count: 7\nOutput:\n{said}\n"
    )


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function_call", "name": name, "arguments": json.dumps(arguments), "call_id": call_id}


def _result(call_id: str, output: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def _steps(
    tag: str, command: str, writes: int, exit_code: int | None, session_id: str
) -> list[list[dict[str, Any]]]:
    """One command's calls and results, each step a call and its answer."""
    line, chars, outputs = COMMANDS[command]
    steps = [
        [
            _call(f"call_{tag}0", "exec_command", {"cmd": line, "workdir": "/repo", "yield_time_ms": 1000}),
            _result(f"call_{tag}0", _output(f"{tag}0", outputs[0], session_id, None)),
        ]
    ]
    for index in range(1, writes + 1):
        ended = exit_code if index == writes else None
        arguments = {"session_id": int(session_id), "chars": chars[index - 1], "yield_time_ms": 2000}
        steps.append(
            [
                _call(f"call_{tag}{index}", "write_stdin", arguments),
                _result(f"call_{tag}{index}", _output(f"{tag}{index}", outputs[index], session_id, ended)),
            ]
        )
    return steps


def _rollout(steps: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [
        {
            "timestamp": "2025-09-01T10:00:00.000Z",
            "type": "session_meta",
            "payload": {
                "id": "0199a2b3-c4d5-7e6f-8a9b-0c1d2e3f4a5b",
                "cwd": "/repo",
                "cli_version": "0.46.0",
            },
        },
        _line(
            1, {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Build it."}]}
        ),
    ]
    second = 2
    for step in steps:
        for payload in step:
            lines.append(_line(second, payload))
            second += 1
    said = [{"type": "output_text", "text": "Done."}]
    lines.append(_line(second, {"type": "message", "role": "assistant", "content": said}))
    return lines


def _case(command: str, writes: int, exit_code: int, interleaved: bool, open_end: bool) -> Case:
    session_id = "84213"
    ended = None if open_end else exit_code
    main = _steps("a", command, writes, ended, session_id)
    steps = list(main)
    sessions = [
        {
            "session_id": session_id,
            "command": "call_a0",
            "writes": [f"call_a{i}" for i in range(1, writes + 1)],
            "exit_code": ended,
        }
    ]
    command_results = {"call_a0": (ended, None if ended is None else "ok" if ended == 0 else "error")}
    write_results = {
        f"call_a{i}": (None, None if ended is None or i < writes else "ok") for i in range(1, writes + 1)
    }
    if interleaved:  # a second command polled between the first's writes, its own session
        other_id = "84219"
        other = _steps("b", "build", 1, 0, other_id)
        steps = [main[0], other[0], *main[1:2], other[1], *main[2:]]
        sessions.append({"session_id": other_id, "command": "call_b0", "writes": ["call_b1"], "exit_code": 0})
        command_results["call_b0"] = (0, "ok")
        write_results["call_b1"] = (None, "ok")
    sessions.sort(key=lambda s: s["command"])
    name = (
        f"{command}-w{writes}-x{exit_code}-{'inter' if interleaved else 'alone'}"
        f"-{'open' if open_end else 'ended'}"
    )
    return Case(name, _rollout(steps), sessions, command_results, write_results)


CASES = [
    _case(*combo)
    for combo in itertools.product(COMMANDS, (1, 2, 3), (0, 1), (False, True), (False, True))
    if not (combo[3] and combo[1] == 1)  # interleaving needs a write after the other's start
]


def _controls() -> list[Case]:
    finished = [
        _call("call_c0", "exec_command", {"cmd": "make", "workdir": "/repo"}),
        _result("call_c0", _output("c0", "built", "0", 2)),
    ]
    stray = [
        _call("call_d1", "write_stdin", {"session_id": 77, "chars": ""}),
        _result("call_d1", _output("d1", "tail", "77", 1)),
    ]
    return [
        Case("finished-within-its-call", _rollout([finished]), [], {"call_c0": (2, "error")}),
        Case("write-to-a-session-never-started", _rollout([stray]), [], {}, {"call_d1": (1, "error")}),
    ]


CONTROLS = _controls()


def _half(case: Case) -> int:
    return hashlib.sha256(case.name.encode()).digest()[0] % 2


DEV = [c for c in CASES if _half(c) == 0]
VALIDATION = [c for c in CASES if _half(c) == 1]
