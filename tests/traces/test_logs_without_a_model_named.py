"""Logs an agent stack writes that record no model acting are rejected as ``not a trajectory``
naming what they are (``adapters/datasets.py``), not ``unrecognized format``: CrewAI's crew and task
outputs, and an MCP client's JSON-RPC message log (bare, or as an inspector wraps each message)."""

from __future__ import annotations

from pathlib import Path

import pytest
from log_files import write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "w", "arguments": {}}}
ANSWER = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {"content": [{"type": "text", "text": "Sunny"}], "isError": False},
}


@pytest.mark.parametrize(
    ("name", "lines", "named"),
    [
        ("crew.json", {"raw": "Report", "tasks_output": [], "token_usage": {}}, "CrewAI"),
        (
            "task.jsonl",
            [{"description": "Write", "expected_output": "a poem", "raw": "Roses", "agent": "Poet"}],
            "CrewAI",
        ),
        ("mcp.jsonl", [CALL, ANSWER], "MCP"),
        (
            "inspector.jsonl",
            [{"direction": "outgoing", "message": CALL}, {"direction": "incoming", "message": ANSWER}],
            "MCP",
        ),
    ],
)
def test_a_log_without_model_turns_is_named(name: str, lines: object, named: str, tmp_path: Path):
    path = (
        write_jsonl(tmp_path, name, lines) if isinstance(lines, list) else write_json(tmp_path, name, lines)
    )
    (reject,) = ingest_paths([path]).rejects
    assert reject.reason == "not a trajectory" and named in (reject.detail or "")
