"""Development cases: a log whose lines are not all one format's, tool results that answer no call,
call logs that name no run, and the NaN / Infinity literals JSON does not allow (red team s37,
classes A, I, H, E; held-out cases in test_record_by_record_reading_heldout.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import write_json, write_jsonl

from trajectory_platform.traces.ingest import IngestResult, ingest_paths


def _ingest(path: Path) -> IngestResult:
    result = ingest_paths([path])
    assert result.records_in == result.normalized + len(result.rejects)
    return result


def _kinds(result: IngestResult, line: int | None = None, path: str | None = None) -> list[str]:
    (episode,) = [
        e for e in result.episodes if e.source_line == line and (path is None or e.source_path == path)
    ]
    return [event.kind for event in episode.events]


USER = {"role": "user", "content": "q"}
ERRORED = {"model": "gpt-4o", "messages": [USER], "error": {"status": 429}}
OPENAI_CALL = {
    "model": "gpt-4o",
    "messages": [{"role": "system", "content": "Be terse."}, USER],
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "a1"}, "finish_reason": "stop"}],
}
ANTHROPIC_CALL = {
    "model": "claude-3-5-sonnet",
    "system": "S",
    "messages": [USER],
    "response": {"role": "assistant", "content": [{"type": "text", "text": "a2"}], "stop_reason": "end_turn"},
}
OPENAI_TOOLS = {
    "messages": [
        USER,
        {
            "role": "assistant",
            "content": "checking",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "done"},
    ]
}
ANTHROPIC_CONVERSATION = {
    "model": "claude-3-5-sonnet",
    "messages": [
        USER,
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "x"}]},
    ],
}


def test_later_lines_of_a_gateway_log_are_read_by_their_own_format(tmp_path: Path):
    result = _ingest(write_jsonl(tmp_path, "gateway.jsonl", [ERRORED, OPENAI_CALL, ANTHROPIC_CALL]))
    assert result.rejects == []
    assert _kinds(result, 1) == ["user"]
    assert _kinds(result, 2) == ["system", "user", "assistant"]
    assert _kinds(result, 3) == ["system", "user", "assistant"]


def test_openai_tool_calls_in_a_file_whose_first_line_is_anthropic_are_kept(tmp_path: Path):
    result = _ingest(write_jsonl(tmp_path, "mixed.jsonl", [ANTHROPIC_CONVERSATION, OPENAI_TOOLS]))
    assert result.rejects == []
    (second,) = [e for e in result.episodes if e.source_line == 2]
    assert [c.name for e in second.events for c in e.tool_calls] == ["bash"]


def test_a_json_array_of_mixed_records_reads_each_element_by_its_format(tmp_path: Path):
    result = _ingest(write_json(tmp_path, "mixed.json", [ERRORED, OPENAI_CALL]))
    assert result.rejects == []
    assert _kinds(result, 1, "[1]") == ["system", "user", "assistant"]  # a one-line file: line 1


def test_calls_another_api_writes_beside_a_top_level_system_are_read_never_vanish(tmp_path: Path):
    """A top-level system prompt (the Messages API's place) beside Chat Completions calls: the record
    is read as OpenAI's, the prompt opening it (it was an ``unread conversation content`` reject,
    before that the calls vanished)."""
    record = {"system": "S", **OPENAI_TOOLS}
    result = _ingest(write_jsonl(tmp_path, "one.jsonl", [record]))
    assert result.rejects == []
    (episode,) = result.episodes
    assert [(e.kind, e.content) for e in episode.events][:2] == [("system", "S"), ("user", USER["content"])]
    assert [c.name for e in episode.events for c in e.tool_calls] == ["bash"]


def test_a_tool_result_without_a_call_before_it_is_rejected(tmp_path: Path):
    lone = {
        "messages": [USER, {"role": "tool", "content": "rm -rf done"}, {"role": "assistant", "content": "ok"}]
    }
    answered_twice = {
        "messages": [
            USER,
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "a.py"},
            {"role": "tool", "content": "b.py"},
        ]
    }
    result = _ingest(write_jsonl(tmp_path, "tools.jsonl", [lone, answered_twice]))
    assert result.episodes == []
    assert [r.reason for r in result.rejects] == ["orphan tool result"] * 2


def test_parallel_calls_answered_without_ids_are_admitted(tmp_path: Path):
    calls = [{"type": "function", "function": {"name": n, "arguments": "{}"}} for n in ("a", "b")]
    record = {
        "messages": [
            USER,
            {"role": "assistant", "content": None, "tool_calls": calls},
            {"role": "tool", "name": "a", "content": "1"},
            {"role": "tool", "name": "b", "content": "2"},
            {"role": "assistant", "content": "3"},
        ]
    }
    assert _ingest(write_jsonl(tmp_path, "parallel.jsonl", [record])).rejects == []


def _call(messages: list[dict[str, Any]], answer: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": "gpt-4o",
        "request": {"messages": messages},
        "response": {"choices": [{"index": 0, "message": answer, "finish_reason": "stop"}]},
    }


SYSTEM = {"role": "system", "content": "You are a coding agent."}
ASK = {"role": "user", "content": "Fix a.py"}
READ = {
    "role": "assistant",
    "content": None,
    "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}],
}
RESULT = {"role": "tool", "tool_call_id": "c1", "content": "1/0"}
DONE = {"role": "assistant", "content": "Fixed."}


def test_calls_of_a_run_that_names_no_run_are_one_episode(tmp_path: Path):
    calls = [_call([SYSTEM, ASK], READ), _call([SYSTEM, ASK, READ, RESULT], DONE)]
    result = _ingest(write_jsonl(tmp_path, "calls.jsonl", calls))
    assert result.rejects == []
    (episode,) = result.episodes
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "assistant"]
    assert [d.response_event_index for d in episode.delivered_inputs] == [2, 4]
    assert episode.source_path == "lines=1-2"


def test_samples_of_one_prompt_and_chats_sharing_an_opening_stay_apart(tmp_path: Path):
    other = {"role": "user", "content": "What is 2+2?"}
    calls = [
        _call([SYSTEM, ASK], READ),
        _call([SYSTEM, ASK], DONE),  # a second sample of the same prompt
        _call([SYSTEM, other], {"role": "assistant", "content": "4"}),
    ]
    assert len(_ingest(write_jsonl(tmp_path, "samples.jsonl", calls)).episodes) == 3


def test_nan_and_infinity_literals_reject_their_record_with_a_clear_reason(tmp_path: Path):
    good = json.dumps({"messages": [USER, {"role": "assistant", "content": "a"}]})
    bad = good[:-1] + ', "score": NaN}'
    path = tmp_path / "scores.jsonl"
    path.write_text(f"{bad}\n{good}\n")
    result = _ingest(path)
    assert [(r.source_line, r.reason) for r in result.rejects] == [(1, "non-standard JSON")]
    assert "NaN" in (result.rejects[0].detail or "")
    assert [e.source_line for e in result.episodes] == [2]


def test_a_pretty_printed_value_holding_infinity_is_one_reject(tmp_path: Path):
    good = json.dumps({"messages": [USER, {"role": "assistant", "content": "a"}]}, indent=1)
    path = tmp_path / "pretty.jsonl"
    path.write_text(good[:-1] + ', "x": -Infinity}\n' + good + "\n")
    result = _ingest(path)
    assert [r.reason for r in result.rejects] == ["non-standard JSON"]
    assert len(result.episodes) == 1
