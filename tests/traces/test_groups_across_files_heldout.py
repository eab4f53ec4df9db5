"""Held-out validation for test_groups_across_files.py (red team s37 class B): other spellings of
a session or run spread over files, written before they were first run (figure in docs/formats.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from log_files import write_jsonl

from trajectory_platform.traces.ingest import ingest_paths


def _entry(uuid: str, parent: str | None, role: str, content: Any) -> dict[str, Any]:
    return {
        "parentUuid": parent,
        "type": role,
        "message": {"role": role, "content": content},
        "uuid": uuid,
        "sessionId": "s-1",
        "timestamp": "2025-06-01T10:00:00Z",
    }


def test_a_session_over_three_files_in_nested_folders_is_one_episode(tmp_path: Path):
    for folder in ("a", "b", "c"):
        (tmp_path / folder).mkdir()
    write_jsonl(tmp_path / "a", "1.jsonl", [_entry("u1", None, "user", "run ls")])
    write_jsonl(
        tmp_path / "b",
        "2.jsonl",
        [_entry("a1", "u1", "assistant", [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}])],
    )
    write_jsonl(
        tmp_path / "c",
        "3.jsonl",
        [
            _entry("u2", "a1", "user", [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]),
            _entry("a2", "u2", "assistant", [{"type": "text", "text": "x"}]),
        ],
    )
    result = ingest_paths([tmp_path])
    assert result.rejects == []
    (episode,) = result.episodes
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "assistant"]


def test_an_anthropic_dialect_run_split_over_two_files_is_one_episode(tmp_path: Path):
    def call(messages: list[dict[str, Any]], blocks: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "trace_id": "run-7",
            "request": {"model": "claude", "system": "agent", "messages": messages},
            "response": {"role": "assistant", "content": blocks},
        }

    use = [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]
    ask = {"role": "user", "content": "list"}
    write_jsonl(tmp_path, "day1.jsonl", [call([ask], use)])
    later = [
        ask,
        {"role": "assistant", "content": use},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.py"}]},
    ]
    write_jsonl(tmp_path, "day2.jsonl", [call(later, [{"type": "text", "text": "a.py"}])])
    result = ingest_paths([tmp_path])
    assert result.rejects == []
    (episode,) = result.episodes
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "assistant"]


def test_runs_with_different_ids_in_two_files_stay_apart(tmp_path: Path):
    def call(run: str, text: str) -> dict[str, Any]:
        return {
            "run_id": run,
            "messages": [{"role": "user", "content": text}],
            "response": {"choices": [{"message": {"role": "assistant", "content": "ok"}}]},
        }

    write_jsonl(tmp_path, "a.jsonl", [call("r1", "one")])
    write_jsonl(tmp_path, "b.jsonl", [call("r2", "two")])
    assert len(ingest_paths([tmp_path]).episodes) == 2
