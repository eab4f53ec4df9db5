"""Validation half of ``test_unclear_rejects_read.py``: other vendors' shapes of the same classes,
written before they were first run (the figure is in docs/formats.md, "Unclear rejects")."""

from __future__ import annotations

import json
from pathlib import Path

from appended_results import QWEN_PROMPTS
from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths


def _reject(path: Path) -> tuple[str, str]:
    result = ingest_paths([path])
    assert result.episodes == []
    (reject,) = result.rejects
    return reject.reason, reject.detail or ""


def test_gemini_cli_relative_timestamps_and_a_bad_claude_code_stamp(tmp_path: Path):
    session = {
        "sessionId": "s-1",
        "projectHash": "ab" * 32,
        "startTime": "2025-01-01T00:00:00Z",
        "lastUpdated": "2025-01-01T00:01:00Z",
        "messages": [
            {"id": "m1", "timestamp": 0.5, "type": "user", "content": "list files"},
            {"id": "m2", "timestamp": 12.25, "type": "gemini", "content": "There are two files."},
        ],
    }
    episode = one_episode(write_json(tmp_path, "session-1.json", session))
    assert [e.timestamp for e in episode.events] == ["+0.5", "+12.25"]
    lines = [
        {
            "type": "user",
            "sessionId": "cc1",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "yesterday",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "type": "assistant",
            "sessionId": "cc1",
            "uuid": "u2",
            "parentUuid": "u1",
            "timestamp": "2025-01-01T00:00:01Z",
            "message": {
                "id": "msg1",
                "role": "assistant",
                "model": "claude-x",
                "content": [{"type": "text", "text": "hello"}],
            },
        },
    ]
    (tmp_path / "cc").mkdir()
    reason, detail = _reject(write_jsonl(tmp_path / "cc", "cc1.jsonl", lines))
    assert reason == "bad timestamp" and "line 1.timestamp" in detail


def test_vercel_v4_tool_invocations_and_a_v5_failed_dynamic_tool(tmp_path: Path):
    v4 = [
        {"id": "1", "role": "user", "content": "Find docs on streams"},
        {
            "id": "2",
            "role": "assistant",
            "content": "Let me search.",
            "toolInvocations": [
                {
                    "state": "result",
                    "toolCallId": "t1",
                    "toolName": "search",
                    "args": {"q": "streams"},
                    "result": ["a.md"],
                }
            ],
        },
        {"id": "3", "role": "assistant", "content": "See a.md."},
    ]
    episode = one_episode(write_json(tmp_path, "v4.json", v4))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "Find docs on streams"),
        ("assistant", "Let me search."),
        # a list of strings is read as text lines (``content_parts.output_text``'s rule for every
        # reader, left as it is): first written expecting the JSON ``["a.md"]``
        ("tool", "a.md"),
        ("assistant", "See a.md."),
    ]
    assert [(c.id, c.name) for c in episode.events[1].tool_calls] == [("t1", "search")]
    v5 = [
        {"id": "u", "role": "user", "parts": [{"type": "text", "text": "Run it"}]},
        {
            "id": "a",
            "role": "assistant",
            "parts": [
                {"type": "step-start"},
                {
                    "type": "dynamic-tool",
                    "toolName": "mcp_run",
                    "toolCallId": "d1",
                    "state": "output-error",
                    "input": {"cmd": "make"},
                    "errorText": "exit 2",
                },
                {"type": "step-start"},
                {"type": "text", "text": "The build failed."},
            ],
        },
    ]
    (tmp_path / "v5").mkdir()
    episode = one_episode(write_json(tmp_path / "v5", "v5.json", v5))
    assert [(e.kind, e.content, e.status) for e in episode.events] == [
        ("user", "Run it", None),
        ("assistant", None, None),
        ("tool", "exit 2", "error"),
        ("assistant", "The build failed.", None),
    ]


def test_a_chat_widget_naming_its_sender_is_read(tmp_path: Path):
    log = {
        "conversation_id": "c-77",
        "messages": [
            {"sender": "customer", "text": "Where is my order?", "sent_at": "2025-02-01T10:00:00Z"},
            {"sender": "bot", "text": "It left the warehouse today.", "sent_at": "2025-02-01T10:00:02Z"},
        ],
    }
    episode = one_episode(write_json(tmp_path, "widget.json", log))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "Where is my order?"),
        ("assistant", "It left the warehouse today."),
    ]


def _lc(kind: str, **kwargs: object) -> dict:
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", kind], "kwargs": kwargs}


def test_serialized_langchain_0_1_messages_keep_their_calls(tmp_path: Path):
    call = {"id": "c1", "type": "function", "function": {"name": "square", "arguments": '{"x": 3}'}}
    record = {
        "messages": [
            _lc("HumanMessage", content="3 squared?"),
            _lc("AIMessage", content="", additional_kwargs={"tool_calls": [call]}),
            _lc("ToolMessage", content="9", tool_call_id="c1"),
            _lc("AIMessage", content="9"),
        ]
    }
    episode = one_episode(write_jsonl(tmp_path, "lc.jsonl", [record]))
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "assistant"]
    assert [(c.id, c.name) for c in episode.events[1].tool_calls] == [("c1", "square")]


def _gateway(body: dict, response: dict) -> dict:
    return {"request": {"body": body}, "response": {"status": 200, "body": response}}


def test_a_gateway_logged_responses_chain_of_three_with_string_inputs(tmp_path: Path):
    lines = [
        _gateway(
            {"model": "gpt-4.1", "instructions": "Be brief.", "input": "What's in /tmp?"},
            {
                "id": "resp_a",
                "object": "response",
                "output": [
                    {"type": "function_call", "call_id": "k1", "name": "ls", "arguments": '{"p": "/tmp"}'}
                ],
            },
        ),
        _gateway(
            {
                "model": "gpt-4.1",
                "previous_response_id": "resp_a",
                "input": [{"type": "function_call_output", "call_id": "k1", "output": "a.txt"}],
            },
            {
                "id": "resp_b",
                "object": "response",
                "output": [
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": "a.txt"}],
                    }
                ],
            },
        ),
        _gateway(
            {"model": "gpt-4.1", "previous_response_id": "resp_b", "input": "thanks"},
            {
                "id": "resp_c",
                "object": "response",
                "output": [
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": "Welcome."}],
                    }
                ],
            },
        ),
    ]
    episode = one_episode(write_jsonl(tmp_path, "gw.jsonl", lines))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("system", "Be brief."),
        ("user", "What's in /tmp?"),
        ("assistant", None),
        ("tool", "a.txt"),
        ("assistant", "a.txt"),
        ("user", "thanks"),
        ("assistant", "Welcome."),
    ]


def test_model_role_with_typed_text_parts_is_the_assistant(tmp_path: Path):
    record = {
        "conversation": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "model", "content": [{"type": "text", "text": "hello"}]},
        ]
    }
    episode = one_episode(write_jsonl(tmp_path, "conv.jsonl", [record]))
    assert [(e.kind, e.content) for e in episode.events] == [("user", "hi"), ("assistant", "hello")]


def test_qwen_agent_parallel_calls_and_a_result_in_the_next_turn(tmp_path: Path):
    """Parallel results in the model's text are Qwen-Agent's in its log (its prompt in the system
    turn); a result in a turn of its own is the loop's message in any log."""
    parallel = (
        '✿FUNCTION✿: weather\n✿ARGS✿: {"city": "Oslo"}\n✿FUNCTION✿: weather\n✿ARGS✿: {"city": "Rome"}\n'
        "✿RESULT✿: 3C\n✿RESULT✿: 18C\n✿RETURN✿: Oslo 3C, Rome 18C."
    )
    apart = "✿FUNCTION✿: clock\n✿ARGS✿: {}"
    records = [
        {
            "messages": [
                {"role": "system", "content": QWEN_PROMPTS["en-parallel"]},
                {"role": "user", "content": "Oslo and Rome?"},
                {"role": "assistant", "content": parallel},
            ]
        },
        {
            "messages": [
                {"role": "user", "content": "Time?"},
                {"role": "assistant", "content": apart},
                {"role": "user", "content": "✿RESULT✿: 12:00"},
                {"role": "assistant", "content": "It is noon."},
            ]
        },
    ]
    path = tmp_path / "qwen.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    result = ingest_paths([path])
    assert result.rejects == []
    first, second = sorted(result.episodes, key=lambda e: e.source_line or 0)
    assert [(e.kind, e.content) for e in first.events[1:]] == [
        ("user", "Oslo and Rome?"),
        ("assistant", None),
        ("tool", "3C"),
        ("tool", "18C"),
        ("assistant", "Oslo 3C, Rome 18C."),
    ]
    assert [c.arguments for c in first.events[2].tool_calls] == ['{"city": "Oslo"}', '{"city": "Rome"}']
    assert [(e.kind, e.content, e.tool_name) for e in second.events] == [
        ("user", "Time?", None),
        ("assistant", None, None),
        ("tool", "12:00", "clock"),
        ("assistant", "It is noon.", None),
    ]


def test_an_anthropic_batch_request_file_alone_keeps_the_batch_format(tmp_path: Path):
    request = {
        "custom_id": "q-9",
        "params": {
            "model": "claude-sonnet-4",
            "max_tokens": 64,
            "messages": [{"role": "user", "content": "Hi"}],
        },
    }
    episode = one_episode(write_jsonl(tmp_path, "requests.jsonl", [request]))
    assert episode.source_format == "batch"
    assert json.loads(episode.extra_json or "{}")["batch"]["id"] == "q-9"
    assert "answer_missing" in json.loads(episode.extra_json or "{}")["batch"]


def test_string_answers_beside_a_closing_turn_in_other_keys(tmp_path: Path):
    said = [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}]
    same = one_episode(write_jsonl(tmp_path, "same.jsonl", [{"messages": said, "completion": " 4"}]))
    assert [(e.kind, e.content) for e in same.events] == [("user", "2+2?"), ("assistant", "4")]
    reason, _ = _reject(write_jsonl(tmp_path, "other.jsonl", [{"messages": said, "output": "five"}]))
    assert reason == "ambiguous answer"
    prefill = {
        "system": "Answer in JSON.",
        "messages": [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "{"}],
        "completion": '"answer": 4}',
    }
    episode = one_episode(write_jsonl(tmp_path, "prefill.jsonl", [prefill]))
    assert [(e.kind, e.content) for e in episode.events][-1] == ("assistant", '{"answer": 4}')
