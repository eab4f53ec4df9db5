"""Gemini CLI sessions (traces/adapters/gemini_cli.py): a session file is one episode; a model turn's
thoughts, calls and tokens, each call's result a tool event, interface messages counted apart."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from handwritten_records import GEMINI_CLI_SESSION
from log_files import one_episode, write_json

from trajectory_platform.traces.adapters import SourceFile, detect_format
from trajectory_platform.traces.ingest import ingest_paths


def test_a_session_file_is_one_episode(tmp_path: Path):
    path = write_json(tmp_path, "session-2026-11-04T09-30-f86f.json", GEMINI_CLI_SESSION)
    assert detect_format(SourceFile.read(path)).name == "gemini-cli"
    episode = one_episode(path)
    assert episode.episode_id == "gemini-cli:f86f-sess"
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "tool", "assistant"]
    turn = episode.events[1]
    assert turn.reasoning == "Plan: run the tests first" and (turn.input_tokens, turn.output_tokens) == (
        100,
        10,
    )
    assert [(c.name, json.loads(c.arguments or "")) for c in turn.tool_calls] == [
        ("run_shell_command", {"command": "pytest -q"}),
        ("read_file", {"absolute_path": "/repo/t.py"}),
    ]
    assert [(e.tool_call_id, e.tool_name, e.content, e.status) for e in episode.events[2:4]] == [
        ("run_shell_command-1", "run_shell_command", "1 failed", "ok"),
        ("read_file-2", "read_file", "not found", "error"),
    ]
    assert episode.lineage.model == "gemini-2.5-pro" and episode.task.prompt == "Fix the parser."
    assert json.loads(episode.extra_json or "")["skipped_messages"] == {"info": 1}


def test_an_unknown_message_type_rejects_the_session(tmp_path: Path):
    odd = copy.deepcopy(GEMINI_CLI_SESSION)
    odd["messages"][3]["type"] = "narrator"
    result = ingest_paths([write_json(tmp_path, "session.json", odd)])
    assert [(r.reason, "messages[3].type" in (r.detail or "")) for r in result.rejects] == [
        ("unknown role", True)
    ]
