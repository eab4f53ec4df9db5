"""Held-out validation for test_record_by_record_reading.py (classes A, I, H, E of red team s37):
other formats and other shapes of each class, written before they were first run (docs/formats.md
gives the figure measured then)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from log_files import write_json, write_jsonl

from trajectory_platform.traces.ingest import IngestResult, ingest_paths


def _ingest(path: Path) -> IngestResult:
    result = ingest_paths([path])
    assert result.records_in == result.normalized + len(result.rejects)
    return result


USER = {"role": "user", "content": "q"}


def test_a_sharegpt_line_in_an_openai_file_is_read_as_sharegpt(tmp_path: Path):
    openai = {"messages": [USER, {"role": "assistant", "content": "a"}]}
    sharegpt = {"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello"}]}
    result = _ingest(write_jsonl(tmp_path, "mixed.jsonl", [openai, sharegpt]))
    assert result.rejects == []
    assert sorted(e.source_format for e in result.episodes) == ["openai", "sharegpt"]


def test_a_gemini_answer_after_an_errored_openai_line_is_kept(tmp_path: Path):
    errored = {"messages": [USER], "error": "timeout"}
    gemini = {
        "request": {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
        "response": {"candidates": [{"content": {"role": "model", "parts": [{"text": "hello"}]}}]},
    }
    result = _ingest(write_jsonl(tmp_path, "vertex.jsonl", [errored, gemini]))
    assert result.rejects == []
    (second,) = [e for e in result.episodes if e.source_line == 2]
    assert [e.content for e in second.events if e.kind == "assistant"] == ["hello"]


def test_legacy_function_call_after_an_anthropic_line_is_kept(tmp_path: Path):
    anthropic = {"messages": [USER, {"role": "assistant", "content": [{"type": "text", "text": "a"}]}]}
    legacy = {
        "messages": [
            USER,
            {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
            {"role": "function", "name": "f", "content": "1"},
            {"role": "assistant", "content": "1"},
        ]
    }
    result = _ingest(write_jsonl(tmp_path, "mixed.jsonl", [anthropic, legacy]))
    assert result.rejects == []
    (second,) = [e for e in result.episodes if e.source_line == 2]
    assert [c.name for e in second.events for c in e.tool_calls] == ["f"]


def test_an_anthropic_answer_in_an_array_opened_by_a_conversation_is_kept(tmp_path: Path):
    conversation = {"messages": [USER, {"role": "assistant", "content": "a"}]}
    call = {
        "system": "S",
        "messages": [USER],
        "response": {"role": "assistant", "content": [{"type": "text", "text": "b"}]},
    }
    result = _ingest(write_json(tmp_path, "calls.json", [conversation, call]))
    assert result.rejects == []
    (second,) = [e for e in result.episodes if e.source_path == "[1]"]
    assert [e.kind for e in second.events] == ["system", "user", "assistant"]


def test_a_function_turn_after_prose_that_calls_nothing_is_rejected(tmp_path: Path):
    # (ToolLLaMA's Action / Action Input prose is read as a call since: text_conventions.py)
    record = {
        "conversations": [
            {"from": "human", "value": "weather?"},
            {"from": "gpt", "value": "Let me look that up for you."},
            {"from": "function", "value": "sunny"},
            {"from": "gpt", "value": "It is sunny."},
        ]
    }
    result = _ingest(write_jsonl(tmp_path, "sharegpt.jsonl", [record]))
    assert [r.reason for r in result.rejects] == ["orphan tool result"]


def test_a_tool_turn_opening_a_conversation_is_rejected(tmp_path: Path):
    record = {"messages": [{"role": "tool", "content": "42"}, {"role": "assistant", "content": "ok"}]}
    assert [r.reason for r in _ingest(write_jsonl(tmp_path, "t.jsonl", [record])).rejects] == [
        "orphan tool result"
    ]


def _anthropic_call(messages: list[dict[str, Any]], blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "timestamp": "2025-01-01T00:00:00Z",
        "request": {"model": "claude-3-5-sonnet", "system": "agent", "messages": messages},
        "response": {"role": "assistant", "content": blocks, "stop_reason": "end_turn"},
    }


def test_an_anthropic_call_log_without_a_run_id_is_one_episode(tmp_path: Path):
    use = [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]
    ask = {"role": "user", "content": "list"}
    first = _anthropic_call([ask], use)
    second = _anthropic_call(
        [
            ask,
            {"role": "assistant", "content": use},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.py"}]},
        ],
        [{"type": "text", "text": "a.py"}],
    )
    result = _ingest(write_jsonl(tmp_path, "anthropic_calls.jsonl", [first, second]))
    assert result.rejects == []
    (episode,) = result.episodes
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "assistant"]


def test_a_failed_call_and_its_retry_are_one_episode_and_forks_stay_apart(tmp_path: Path):
    def call(messages: list[dict[str, Any]], answer: str | None) -> dict[str, Any]:
        record: dict[str, Any] = {"input": {"messages": messages}}
        if answer is not None:
            record["output"] = {"choices": [{"message": {"role": "assistant", "content": answer}}]}
        return record

    a1 = {"role": "assistant", "content": "a1"}
    calls = [
        call([USER], None),  # failed: no answer
        call([USER], "a1"),  # its retry
        call([USER, a1, {"role": "user", "content": "more"}], "a2"),
        call([USER, a1, {"role": "user", "content": "other"}], "a3"),  # a fork of the first answer
    ]
    result = _ingest(write_jsonl(tmp_path, "calls.jsonl", calls))
    assert result.rejects == []
    assert sorted(len(e.events) for e in result.episodes) == [4, 4]


def test_nan_inside_tool_call_arguments_of_an_anthropic_record_is_rejected(tmp_path: Path):
    path = tmp_path / "a.jsonl"
    path.write_text(
        '{"messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": '
        '[{"type": "tool_use", "id": "t", "name": "set", "input": {"x": NaN}}]}]}\n'
        '{"messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}]}\n'
    )
    result = _ingest(path)
    assert [(r.source_line, r.reason) for r in result.rejects] == [(1, "non-standard JSON")]
    assert len(result.episodes) == 1


def test_infinity_in_a_whole_json_document_rejects_it_by_name(tmp_path: Path):
    path = tmp_path / "doc.json"
    path.write_text('{"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "temperature": Infinity}')
    result = _ingest(path)
    assert [r.reason for r in result.rejects] == ["non-standard JSON"]
