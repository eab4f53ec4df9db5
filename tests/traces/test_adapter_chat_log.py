"""OpenAI-format calls and conversations inside an envelope (traces/adapters/chat_log.py): a
gateway's request and response, a logger's own input / output, a conversation under another key.
Found wherever the record keeps them; a bare ``messages`` record stays the ``openai`` format."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from handwritten_records import GATEWAY_ANTHROPIC_CALL, GATEWAY_LOG
from log_files import one_episode, write_jsonl

from trajectory_platform.traces.adapters import SourceFile, detect_format
from trajectory_platform.traces.ingest import ingest_paths

MESSAGES = GATEWAY_LOG["request"]["body"]["messages"]
ANSWER = {"role": "assistant", "content": "Fixed."}


def test_a_gateway_log_is_the_conversation_then_the_answer(tmp_path: Path):
    path = write_jsonl(tmp_path, "gateway.jsonl", [GATEWAY_LOG])
    assert detect_format(SourceFile.read(path)).name == "chat-log"
    episode = one_episode(path)
    assert episode.episode_id == "chat-log:req_7"
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    answer = episode.events[-1]
    assert (answer.content, answer.finish_reason, answer.input_tokens, answer.output_tokens) == (
        "Fixed.",
        "stop",
        140,
        5,
    )
    assert [(d.event_indices, d.response_event_index) for d in episode.delivered_inputs] == [
        ([0, 1, 2, 3, 4], 5)
    ], "the request's conversation is what the call that answered saw"
    assert episode.task.fixture_id == "fix-parser-7", "the task id beside the conversation"
    assert episode.lineage.model == "gpt-4o" and json.loads(episode.lineage.sampling_params_json or "") == {
        "temperature": 0
    }
    assert [t.name for t in episode.tools] == ["read_file"]
    extra = json.loads(episode.extra_json or "")
    assert extra["read_from"] == {"messages": "request.body.messages", "response": "response.body"}
    assert extra["created_at"] == "2026-11-04T09:30:06.000Z", (
        "the fields the parts did not come from are kept"
    )


@pytest.mark.parametrize(
    ("record", "read_from"),
    [
        ({"messages": MESSAGES, "response": {"choices": [{"message": ANSWER}]}}, "messages"),
        ({"input": {"messages": MESSAGES}, "output": ANSWER}, "input.messages"),
        (
            {"call": {"request": {"messages": MESSAGES}}, "result": {"choices": [{"message": ANSWER}]}},
            "call.request.messages",
        ),
    ],
    ids=["messages_and_response", "input_and_output_message", "nested_deeper"],
)
def test_other_envelopes_read_the_same(tmp_path: Path, record: dict, read_from: str):
    episode = one_episode(write_jsonl(tmp_path, "calls.jsonl", [record]))
    assert [(e.kind, e.content) for e in episode.events][-2:] == [
        ("tool", "FileNotFoundError: t.py"),
        ("assistant", "Fixed."),
    ]
    assert json.loads(episode.extra_json or "")["read_from"]["messages"] == read_from
    assert [d.response_event_index for d in episode.delivered_inputs] == [5]


@pytest.mark.parametrize("key", ["history", "conversation", "turns"])
def test_a_conversation_under_another_key_is_read(tmp_path: Path, key: str):
    episode = one_episode(
        write_jsonl(tmp_path, "log.jsonl", [{key: [*MESSAGES, ANSWER], "task_id": "calc-add"}])
    )
    assert episode.source_format == "chat-log" and len(episode.events) == 6
    assert episode.delivered_inputs == [], "no call's answer is recorded apart: nothing says what a call saw"
    assert episode.task.fixture_id == "calc-add"


def test_a_logged_conversation_that_already_ends_with_the_answer_is_not_doubled(tmp_path: Path):
    record = {
        "messages": [*MESSAGES, ANSWER],
        "response": {"choices": [{"message": ANSWER, "finish_reason": "stop"}]},
    }
    episode = one_episode(write_jsonl(tmp_path, "log.jsonl", [record]))
    assert [e.content for e in episode.events].count("Fixed.") == 1 and episode.events[
        -1
    ].finish_reason == "stop"
    assert [(d.event_indices, d.response_event_index) for d in episode.delivered_inputs] == [
        ([0, 1, 2, 3, 4], 5)
    ]


def test_bare_messages_stay_openai_and_an_odd_record_rejects_while_the_rest_goes_on(tmp_path: Path):
    plain = write_jsonl(tmp_path, "plain.jsonl", [{"messages": MESSAGES}])
    assert detect_format(SourceFile.read(plain)).name == "openai"
    odd = copy.deepcopy(GATEWAY_LOG)
    odd["id"] = "req_odd"
    odd["request"]["body"]["messages"][1]["role"] = "narrator"
    path = write_jsonl(tmp_path, "day.jsonl", [GATEWAY_LOG, odd, {"request": {"body": {}}}])
    result = ingest_paths([path])
    assert [e.episode_id for e in result.episodes] == ["chat-log:req_7"]
    assert sorted((r.source_line, r.reason) for r in result.rejects) == [
        (2, "unknown role"),
        (3, "missing field"),
    ]
    detail = next(r.detail or "" for r in result.rejects if r.source_line == 2)
    assert "messages[1].role" in detail and "call read from request.body.messages" in detail


GEMINI_CALL = {
    "request": {"model": "gemini-2.5-pro", "contents": [{"role": "user", "parts": [{"text": "Fix add()"}]}]},
    "response": {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "Fixed."}]}, "finishReason": "STOP"}]
    },
}


CONVERSE_CALL = {
    "request": {
        "modelId": "anthropic.claude-3-5-sonnet",
        "system": [{"text": "You fix bugs."}],
        "messages": [
            {"role": "user", "content": [{"text": "Fix add()"}]},
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "t1", "name": "read_file", "input": {}}}],
            },
            {
                "role": "user",
                "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "a - b"}]}}],
            },
        ],
    },
    "response": {
        "output": {"message": {"role": "assistant", "content": [{"text": "Fixed."}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 9, "outputTokens": 3},
    },
}
RESPONSES_CALL = {
    "log": {
        "request": {
            "model": "gpt-4.1",
            "instructions": "You fix bugs.",
            "input": [
                {"role": "user", "content": "Fix add()"},
                {"type": "function_call", "call_id": "t1", "name": "read_file", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "t1", "output": "a - b"},
            ],
        },
        "response": {
            "object": "response",
            "status": "completed",
            "output": [
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "Fixed."}],
                }
            ],
            "usage": {"input_tokens": 30, "output_tokens": 3},
        },
    }
}
TOOL_LOOP = ["system", "user", "assistant", "tool", "assistant"]


@pytest.mark.parametrize(
    ("record", "dialect", "kinds", "finish"),
    [
        (GATEWAY_ANTHROPIC_CALL, "anthropic", TOOL_LOOP, "end_turn"),
        (GEMINI_CALL, "gemini", ["user", "assistant"], "STOP"),
        (CONVERSE_CALL, "bedrock", TOOL_LOOP, "end_turn"),
        (RESPONSES_CALL, "openai-responses", TOOL_LOOP, "completed"),
    ],
    ids=["anthropic", "gemini", "bedrock_converse", "responses_api"],
)
def test_a_call_written_for_another_provider_is_read_by_that_providers_reader(
    tmp_path: Path, record: dict, dialect: str, kinds: list[str], finish: str
):
    """Content blocks (``tool_use``, ``tool_result``) or parts are not OpenAI messages: the unwrapped
    call goes to the reader of the provider it was written for, never read as text."""
    episode = one_episode(write_jsonl(tmp_path, "calls.jsonl", [record]))
    assert episode.source_format == "chat-log" and json.loads(episode.extra_json or "")["dialect"] == dialect
    assert [e.kind for e in episode.events] == kinds
    assert (episode.events[-1].content, episode.events[-1].finish_reason) == ("Fixed.", finish)
    assert [d.response_event_index for d in episode.delivered_inputs] == [len(kinds) - 1]
    if kinds == TOOL_LOOP:
        (call,) = episode.events[2].tool_calls
        assert (call.name, episode.events[3].tool_call_id) == ("read_file", call.id)
        assert episode.events[-1].output_tokens == 3, "the tokens, in the provider's own words"


def _call(messages: list, answer: dict, session: str | None) -> dict:
    return {
        "request": {"body": {"model": "gpt-4o", "messages": messages}},
        "response": {"body": {"choices": [{"message": answer, "finish_reason": "stop"}]}},
        **({"metadata": {"session_id": session, "task_id": "calc-add"}} if session else {}),
    }


def test_the_calls_of_one_run_are_one_episode(tmp_path: Path):
    """A gateway logs each model call of an agent's run on its own line; the lines naming one
    session are one episode (the conversation of the call that saw the most), each call a delivered
    input, rather than one overlapping episode per call."""
    first, asked = MESSAGES[:2], MESSAGES[2]
    lines = [
        _call(first, asked, "run-1"),
        _call(MESSAGES, ANSWER, "run-1"),
        _call(first, {"role": "assistant", "content": "A call of another run."}, None),
    ]
    result = ingest_paths([write_jsonl(tmp_path, "gateway.jsonl", lines)])
    assert result.rejects == [] and result.records_in == 2
    run = next(e for e in result.episodes if e.episode_id == "chat-log:run-1")
    assert [e.kind for e in run.events] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    assert [(d.event_indices, d.response_event_index) for d in run.delivered_inputs] == [
        ([0, 1], 2),
        ([0, 1, 2, 3, 4], 5),
    ]
    assert run.task.fixture_id == "calc-add" and run.source_path == "run=run-1"
    assert json.loads(run.extra_json or "")["calls"] == 2
    (alone,) = [e for e in result.episodes if e is not run]
    assert alone.events[-1].content == "A call of another run."
