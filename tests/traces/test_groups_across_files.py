"""A session or run written over several files of one ingest is one episode (traces/cross_file.py;
red team s37 class B). Development cases; held out in test_groups_across_files_heldout.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from log_files import write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

SESSION = "11111111-0000-4000-8000-000000000001"


def _entry(uuid: str, parent: str | None, role: str, content: Any, session: str = SESSION) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "content": content}
    if role == "assistant":
        message["model"] = "claude-sonnet-4"
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "type": role,
        "message": message,
        "uuid": uuid,
        "sessionId": session,
        "timestamp": "2025-06-01T10:00:00Z",
        "cwd": "/r",
        "version": "1.0.40",
    }


ASK = _entry("u1", None, "user", "Add a --verbose flag")
EDIT = _entry("a1", "u1", "assistant", [{"type": "tool_use", "id": "t1", "name": "Edit", "input": {}}])
EDITED = _entry("u2", "a1", "user", [{"type": "tool_result", "tool_use_id": "t1", "content": "edited"}])
DONE = _entry("a2", "u2", "assistant", [{"type": "text", "text": "Added --verbose."}])


def test_a_claude_code_session_over_two_files_is_one_episode(tmp_path: Path):
    write_jsonl(tmp_path, "part1.jsonl", [ASK, EDIT])
    write_jsonl(tmp_path, "part2.jsonl", [EDITED, DONE])
    result = ingest_paths([tmp_path])
    assert result.rejects == []
    assert result.records_in == result.normalized == 1
    (episode,) = result.episodes
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "assistant"]
    assert episode.source_file.endswith("part1.jsonl")


def test_entries_a_later_file_repeats_are_read_once_and_counted(tmp_path: Path):
    write_jsonl(tmp_path, "a.jsonl", [ASK, EDIT, EDITED, DONE])
    write_jsonl(tmp_path, "b.jsonl", [ASK, EDIT, EDITED, DONE])
    (episode,) = ingest_paths([tmp_path]).episodes
    assert len(episode.events) == 4
    assert episode.extra()["skipped_entries"] == {"repeated": 4}


def test_sessions_held_by_one_file_each_are_read_as_before(tmp_path: Path):
    other = "22222222-0000-4000-8000-000000000002"
    write_jsonl(tmp_path, "a.jsonl", [ASK, EDIT, EDITED, DONE])
    write_jsonl(
        tmp_path,
        "b.jsonl",
        [_entry("x", None, "user", "hi", other), _entry("y", "x", "assistant", "hey", other)],
    )
    result = ingest_paths([tmp_path])
    assert sorted(len(e.events) for e in result.episodes) == [2, 4]
    assert all("skipped_entries" not in e.extra() for e in result.episodes)


def _call(run: str, messages: list[dict[str, Any]], answer: dict[str, Any]) -> dict[str, Any]:
    return {
        "metadata": {"session_id": run},
        "request": {"model": "gpt-4o", "messages": messages},
        "response": {"choices": [{"index": 0, "message": answer}]},
    }


def test_a_gateway_run_logged_into_day_files_is_one_episode(tmp_path: Path):
    ask = {"role": "user", "content": "17*23?"}
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{}"}}],
    }
    result_message = {"role": "tool", "tool_call_id": "c1", "content": "391"}
    (tmp_path / "2025-01-01").mkdir()
    (tmp_path / "2025-01-02").mkdir()
    write_jsonl(tmp_path / "2025-01-01", "calls.jsonl", [_call("r1", [ask], call)])
    write_jsonl(
        tmp_path / "2025-01-02",
        "calls.jsonl",
        [_call("r1", [ask, call, result_message], {"role": "assistant", "content": "391"})],
    )
    result = ingest_paths([tmp_path])
    assert result.rejects == []
    (episode,) = result.episodes
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "assistant"]
    assert len(episode.delivered_inputs) == 2
