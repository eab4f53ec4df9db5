"""Validation half of ``test_content_the_readers_missed.py``: other shapes of the classes M1-M7,
written before they were first run (the figure is in docs/formats.md, "Content the readers missed")."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

SYSTEM = "You triage tickets."
ASK = [{"role": "user", "content": "Ticket 7 is stuck"}]


def _reasons(path: Path) -> list[str]:
    result = ingest_paths([path])
    assert result.episodes == [], [e.episode_id for e in result.episodes]
    return [r.reason for r in result.rejects]


def test_langsmith_anthropic_system_blocks_are_read(tmp_path: Path):
    blocks = [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    answer = {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", "AIMessage"],
        "kwargs": {"content": "On it."},
    }
    run = {
        "id": "r-1",
        "trace_id": "r-1",
        "parent_run_id": None,
        "name": "ChatAnthropic",
        "run_type": "llm",
        "start_time": "2025-09-01T10:00:00",
        "inputs": {"system": blocks, "messages": ASK, "max_tokens": 100},
        "outputs": {"generations": [[{"text": "On it.", "message": answer}]]},
    }
    episode = one_episode(write_jsonl(tmp_path, "runs.jsonl", [run]))
    assert [(e.kind, e.content) for e in episode.events][:2] == [
        ("system", SYSTEM),
        ("user", "Ticket 7 is stuck"),
    ]


def test_langfuse_anthropic_call_with_a_text_output_keeps_the_system_prompt(tmp_path: Path):
    generation = {
        "id": "o1",
        "traceId": "lf-2",
        "type": "GENERATION",
        "startTime": "2025-08-01T12:00:00.100Z",
        "input": {"model": "claude-sonnet-4", "system": SYSTEM, "messages": ASK},
        "output": "On it.",
    }
    trace = {"id": "lf-2", "timestamp": "2025-08-01T12:00:00.000Z", "observations": [generation]}
    episode = one_episode(write_json(tmp_path, "trace.json", trace))
    assert [e.kind for e in episode.events] == ["system", "user", "assistant"]


def test_a_tool_result_with_empty_content_and_a_payload_beside_it_is_rejected(tmp_path: Path):
    conversation = {
        "messages": [
            {"role": "user", "content": "Look up ticket 7"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "lookup", "input": {"id": 7}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": None,
                        "payload": {"state": "stuck"},
                    }
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "It is stuck."}]},
        ]
    }
    assert _reasons(write_jsonl(tmp_path, "c.jsonl", [conversation])) == ["unread content part"]


def test_a_typed_result_part_with_null_output_and_data_elsewhere_is_rejected(tmp_path: Path):
    messages = [
        {"role": "user", "content": "Run it"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "run", "arguments": "{}"}}],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": [{"type": "tool-result", "toolCallId": "c1", "output": None, "value": {"ok": 1}}],
        },
        {"role": "assistant", "content": "Done."},
    ]
    assert _reasons(write_jsonl(tmp_path, "c.jsonl", [{"messages": messages}])) == ["unread content part"]


def test_codex_exec_mcp_error_given_as_a_string_is_the_result(tmp_path: Path):
    item = {
        "id": "i1",
        "type": "mcp_tool_call",
        "server": "gh",
        "tool": "issue",
        "arguments": {},
        "error": "forbidden",
        "status": "failed",
    }
    events = [
        {"type": "thread.started", "thread_id": "t-2"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": item},
        {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}},
    ]
    episode = one_episode(write_jsonl(tmp_path, "exec.jsonl", events))
    (tool,) = [e for e in episode.events if e.kind == "tool"]
    assert (tool.content, tool.status) == ("forbidden", "error")


def test_gemini_function_response_file_part_is_marked(tmp_path: Path):
    response = {
        "name": "fetch",
        "response": {"ok": True},
        "parts": [{"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/f.pdf"}}],
    }
    record = {
        "contents": [
            {"role": "user", "parts": [{"text": "Fetch the report"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "fetch", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": response}]},
            {"role": "model", "parts": [{"text": "Here it is."}]},
        ]
    }
    episode = one_episode(write_jsonl(tmp_path, "g.jsonl", [record]))
    (tool,) = [e for e in episode.events if e.kind == "tool"]
    assert (tool.content or "").endswith("[file_data]")


def test_a_session_file_with_an_unknown_entry_holding_content_is_rejected(tmp_path: Path):
    lines = [
        {
            "type": "user",
            "sessionId": "s-9",
            "uuid": "u1",
            "message": {"role": "user", "content": "build it"},
        },
        {"type": "tool_execution", "sessionId": "s-9", "uuid": "x1", "content": "make: ok"},
        {
            "type": "assistant",
            "sessionId": "s-9",
            "uuid": "a1",
            "message": {"role": "assistant", "content": "Built."},
        },
    ]
    assert _reasons(write_jsonl(tmp_path, "s.jsonl", lines)) == ["unknown entry"]


def test_a_tree_with_children_lists_is_rejected(tmp_path: Path):
    leaf = {"role": "user", "content": "more?", "children": []}
    tree = {
        "root": {
            "role": "user",
            "content": "Hi",
            "children": [
                {"role": "assistant", "content": "Hello", "children": [leaf]},
                {"role": "assistant", "content": "Hey", "children": []},
            ],
        }
    }
    assert _reasons(write_json(tmp_path, "tree.json", tree)) == ["message tree"]


def test_conversations_under_named_keys_side_by_side_are_rejected(tmp_path: Path):
    def talk(ask: str) -> list[dict]:
        return [{"role": "user", "content": ask}, {"role": "assistant", "content": "ok"}]

    record = {"data": {"alpha": talk("first"), "beta": talk("second")}}
    assert _reasons(write_jsonl(tmp_path, "d.jsonl", [record])) == ["several conversations"]


def test_an_abandoned_tree_node_beside_the_conversation_is_never_the_answer(tmp_path: Path):
    """Written expecting the episode read without the node; it is a clear ``unread conversation
    content`` reject instead (the node is an answer the record holds off the conversation): never
    the abandoned answer appended, which is the class. Counted as a miss in the figure."""
    record = {
        "conversation": [
            {"role": "user", "content": "2+2?", "parent_id": None},
            {"role": "assistant", "content": "4", "parent_id": "u"},
        ],
        "regenerated": {"role": "assistant", "content": "5", "parent_id": "u"},
    }
    assert _reasons(write_jsonl(tmp_path, "c.jsonl", [record])) == ["unread conversation content"]


def test_a_conversation_nested_deep_in_a_steps_list_is_not_kept_as_extra(tmp_path: Path):
    record = {
        "messages": [{"role": "user", "content": "plan"}, {"role": "assistant", "content": "done"}],
        "steps": [
            {
                "agent": {
                    "history": [
                        {"role": "user", "content": "sub"},
                        {"role": "assistant", "content": "sub done"},
                    ]
                }
            }
        ],
    }
    assert _reasons(write_jsonl(tmp_path, "n.jsonl", [record])) == ["unread conversation content"]


def test_a_prompt_log_with_snake_case_session_ids_is_rejected(tmp_path: Path):
    logs = [
        {"session_id": "a", "role": "user", "content": "hello"},
        {"session_id": "a", "role": "user", "content": "/help"},
    ]
    assert _reasons(write_json(tmp_path, "prompts.json", logs)) == ["prompt log"]


def test_messages_of_several_conversation_ids_are_rejected(tmp_path: Path):
    rows = [
        {"conversation_id": "c1", "role": "user", "content": "hi"},
        {"conversation_id": "c1", "role": "assistant", "content": "hello"},
        {"conversation_id": "c2", "role": "user", "content": "bye"},
    ]
    assert _reasons(write_json(tmp_path, "rows.json", rows)) == ["several conversations"]


def test_three_session_files_two_colliding_with_other_content_make_a_conflict(tmp_path: Path):
    def entries(session: str, text: str) -> list[dict]:
        return [
            {
                "type": "user",
                "sessionId": session,
                "uuid": "e-1",
                "parentUuid": None,
                "message": {"role": "user", "content": text},
            }
        ]

    write_jsonl(tmp_path, "a.jsonl", entries("s-a", "alpha"))
    write_jsonl(tmp_path, "b.jsonl", entries("s-b", "beta"))
    write_jsonl(
        tmp_path,
        "c.jsonl",
        entries("s-c", "alpha")
        + [
            {
                "type": "assistant",
                "sessionId": "s-c",
                "uuid": "e-2",
                "parentUuid": "e-1",
                "message": {"role": "assistant", "content": "ok"},
            }
        ],
    )
    result = ingest_paths([tmp_path])
    assert result.records_in == len(result.episodes) + len(result.rejects)
    assert [r.reason for r in result.rejects] == ["conflicting entries"]
    assert json.loads(json.dumps(result.rejects[0].detail)).count(".jsonl") == 3
