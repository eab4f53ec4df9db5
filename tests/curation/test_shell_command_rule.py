"""One rule says whether a call runs a shell line (``CallRecord.shell_command``): replay re-runs what it
names, roles read its program, dedup its words, and the write audit its verbs. Two rules disagreed
before: the record's took any tool's ``command`` argument (the file editor's ``create``, so an
editor write was no write), missed text actions and read the coding CLIs' shells where replay's
did not. These are the cases where they differed."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.curation.verify.calls import CallRecord
from trajectory_platform.curation.verify.sweagent_tools import shell_words
from trajectory_platform.traces.record import ToolCall


def _record(tool: str, arguments: object) -> CallRecord:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    parsed = json.loads(raw) if raw.lstrip().startswith("{") else None
    return CallRecord(0, ToolCall("c", tool, raw), parsed, None, None, False, None)


@pytest.mark.parametrize(
    ("tool", "arguments", "line"),
    [
        ("run_shell_command", {"command": "rm calc/ops.py"}, "rm calc/ops.py"),  # the Gemini CLI's shell
        ("exec_command", {"cmd": "rm calc/ops.py"}, "rm calc/ops.py"),  # Codex's
        ("developer__shell", {"command": "rm calc/ops.py"}, "rm calc/ops.py"),  # Goose's
        ("Bash", {"command": "rm calc/ops.py"}, "rm calc/ops.py"),  # Claude Code's
        ("bash", "rm calc/ops.py", "rm calc/ops.py"),  # mini-swe-agent's text action
        ("sed", "sed -i s/-/+/ calc/ops.py", "sed -i s/-/+/ calc/ops.py"),  # SWE-agent's action line
    ],
)
def test_a_shell_line_is_read_as_one_and_its_writes_are_writes(tool, arguments, line):
    record = _record(tool, arguments)
    assert record.shell_command == line
    assert record.is_write


@pytest.mark.parametrize(
    ("tool", "arguments", "writes"),
    [
        ("str_replace_editor", {"command": "create", "path": "/repo/x.py", "file_text": "x"}, True),
        (
            "str_replace_editor",
            {"command": "str_replace", "path": "/repo/x.py", "old_str": "a", "new_str": "b"},
            True,
        ),
        (
            "str_replace_editor",
            {"command": "insert", "path": "/repo/x.py", "insert_line": 1, "new_str": "b"},
            True,
        ),
        ("str_replace_editor", {"command": "view", "path": "/repo/x.py"}, False),
        ("sql", {"command": "SELECT 1"}, False),
        ("open", "open calc/ops.py", False),  # SWE-agent's own command, not a program
    ],
)
def test_another_tools_command_is_no_shell_line(tool, arguments, writes):
    """The editor's ``command`` names what it does: ``create`` writes (it was read as the shell line
    ``create``, which writes nothing), ``view`` does not."""
    record = _record(tool, arguments)
    assert record.shell_command is None
    assert record.is_write is writes


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("cat $'calc/ops\\x2epy'", ["cat", "calc/ops.py"]),  # ANSI-C quoting, decoded
        ("cat a\\ b", ["cat", "a b"]),  # a backslash outside quotes: the next character, literal
        ("find . -exec true \\;", ["find", ".", "-exec", "true", ";"]),
        ('cat "$PWD/a" ${PWD}/b', ["cat", "./a", "./b"]),  # a variable the caller knows
        ("cat '$PWD/a'", ["cat", "$PWD/a"]),  # single quotes expand nothing
        ("cat $HOME/a", None),  # a variable nobody knows
        ("cat $'\\cA'", None),  # an escape not read
        ('cat "a\\b"', None),  # a backslash inside double quotes
        ("cat a; rm b", None),
    ],
)
def test_shell_words_are_bashs(line, words):
    assert shell_words(line, {"PWD": "."}) == words
