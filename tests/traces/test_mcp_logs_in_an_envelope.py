"""An MCP client's JSON-RPC log whose messages a logger wraps with a ``direction`` and a time (the
MCP Inspector's history, ``{"timestamp", "direction": "outgoing", "message": {"jsonrpc": "2.0",
...}}``) is ``not a trajectory``, as a bare one is: its ``direction`` was read as a chat speaker and
the file an ``empty conversation`` reject, which named the wrong cause.

Found by the red team's validation half (``rt_mcp_inspector``) and fixed after that measure, so
this case is no held-out figure."""

from __future__ import annotations

from pathlib import Path

from log_files import write_json

from trajectory_platform.traces.ingest import ingest_paths


def test_an_inspector_history_of_json_rpc_messages_is_not_a_trajectory(tmp_path: Path):
    call = {"name": "get_weather", "arguments": {"city": "Paris"}}
    history = [
        {
            "direction": "outgoing",
            "message": {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call},
        },
        {"direction": "incoming", "message": {"jsonrpc": "2.0", "id": 3, "result": {"content": []}}},
    ]
    result = ingest_paths([write_json(tmp_path, "inspector.json", history)])
    assert [r.reason for r in result.rejects] == ["not a trajectory"] and not result.episodes
    assert "MCP" in (result.rejects[0].detail or "")


def test_control_a_bot_platforms_messages_with_a_direction_are_still_a_chat(tmp_path: Path):
    chat = [
        {"direction": "incoming", "payload": {"text": "Hi"}},
        {"direction": "outgoing", "payload": {"text": "Hello"}},
    ]
    result = ingest_paths([write_json(tmp_path, "bot.json", chat)])
    assert result.rejects == [] and [e.kind for e in result.episodes[0].events] == ["user", "assistant"]
