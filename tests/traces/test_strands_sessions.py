"""Strands Agents ``FileSessionManager`` sessions (``adapters/strands_session.py``): a folder tree,
one message a JSON file. Each file was an ``unrecognized format`` reject; now an agent's folder is
one episode, its messages in the order of their index (``message_10`` after ``message_9``, never a
file-name sort), the message files and ``session.json`` counted as read with its ``agent.json``.

Development cases here; the validation half (two agents in one session, a guardrail's redaction,
one agent's folder given alone, its messages given without it, a message lost, a message file cut
short, a failed tool result) is ``test_strands_sessions_heldout.py``."""

from __future__ import annotations

import json
from pathlib import Path

from strands_sessions import agent_folder, long_conversation

from trajectory_platform.traces.ingest import ingest_paths


def test_a_session_folder_is_an_episode_per_agent_in_message_index_order(tmp_path: Path):
    agent_folder(tmp_path, "abc", "default", long_conversation(10))
    result = ingest_paths([tmp_path])
    assert result.rejects == []
    (episode,) = result.episodes
    assert (episode.source_format, episode.episode_id) == ("strands-session", "strands-session:abc/default")
    rows = [(e.kind, e.content, [c.name for c in e.tool_calls], e.tool_call_id) for e in episode.events]
    assert rows[:3] == [
        ("user", "Weather in Paris?", [], None),
        ("assistant", "Checking.", ["get_weather"], None),
        ("tool", "18C", [], "t1"),
    ]
    assert [content for _, content, _, _ in rows[3:]] == [
        f"answer {i}" if i % 2 == 0 else f"follow-up {i}" for i in range(10)
    ]
    assert episode.events[12].timestamp == "2025-08-01T10:00:12+00:00"
    assert json.loads(episode.extra_json or "{}") == {
        "agent_id": "default",
        "session_id": "abc",
        "session_type": "AGENT",
    }
    assert sum(sum(read.values()) for read in result.read_with_other_records.values()) == 14
