"""OpenHands sessions as its file store keeps them: one event a file, ``sessions/<id>/events/<n>.json``
beside the session's ``metadata.json`` (``openhands._stored_events``, ``numbered_files.py``, shared
with Strands' sessions). Each file was an ``unrecognized format`` reject; now the folder is one
episode in the order of ``n`` (``10.json`` after ``9.json``), its other files read with the first.

Development: a session of twelve events. Validation (held out while the reading was written): the
session's ``metadata.json`` read with it, a lost event, the folder given without its first event."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trajectory_platform.traces.ingest import ingest_paths


def session(root: Path, count: int = 12, metadata: bool = False) -> Path:
    """``root/sessions/abc123/events/<n>.json``: a question, a command and its output, then
    numbered messages; ``metadata.json`` beside when asked. The events folder."""
    events: list[dict[str, Any]] = [
        {
            "id": 0,
            "timestamp": "2025-01-01T00:00:00",
            "source": "user",
            "action": "message",
            "args": {"content": "Fix calc.py"},
        },
        {
            "id": 1,
            "timestamp": "2025-01-01T00:00:01",
            "source": "agent",
            "action": "run",
            "tool_call_metadata": {
                "function_name": "execute_bash",
                "tool_call_id": "t1",
                "model_response": {"id": "r1"},
            },
            "args": {"command": "pytest -q", "thought": "Run the tests"},
        },
        {
            "id": 2,
            "timestamp": "2025-01-01T00:00:02",
            "source": "agent",
            "cause": 1,
            "observation": "run",
            "tool_call_metadata": {
                "function_name": "execute_bash",
                "tool_call_id": "t1",
                "model_response": {"id": "r1"},
            },
            "content": "1 failed",
            "extras": {"command": "pytest -q", "metadata": {"exit_code": 1, "working_dir": "/workspace"}},
        },
    ]
    events += [
        {
            "id": i,
            "source": "agent" if i % 2 else "user",
            "action": "message",
            "args": {"content": f"message {i}"},
        }
        for i in range(3, count)
    ]
    folder = root / "sessions" / "abc123" / "events"
    folder.mkdir(parents=True)
    for event in events:
        (folder / f"{event['id']}.json").write_text(json.dumps(event))
    if metadata:
        (folder.parent / "metadata.json").write_text(
            json.dumps({"conversation_id": "abc123", "title": "Fix calc"})
        )
    return folder


def test_a_stored_session_is_one_episode_in_event_index_order(tmp_path: Path):
    session(tmp_path)
    result = ingest_paths([tmp_path])
    assert result.rejects == []
    (episode,) = result.episodes
    assert (episode.source_format, episode.episode_id) == ("openhands", "openhands:abc123")
    assert [(e.kind, [c.name for c in e.tool_calls], e.exit_code) for e in episode.events[:3]] == [
        ("user", [], None),
        ("assistant", ["execute_bash"], None),
        ("tool", [], 1),
    ]
    assert [e.content for e in episode.events[3:]] == [f"message {i}" for i in range(3, 12)]
    assert sum(sum(read.values()) for read in result.read_with_other_records.values()) == 11
