"""Held-out validation of routing Chat Completions messages that hold Anthropic-style parts (kept
apart from test_openai_messages_with_anthropic_parts.py): a bare message list, a system message
beside a thinking block, and a gateway call. Written before they were run; on first measure 3 of 3
as expected (docs/formats.md)."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import one_episode, write_jsonl

USE = {"type": "tool_use", "id": "tu_7", "name": "ls", "input": {"path": "."}}


def test_a_bare_list_with_tool_use_parts_and_a_tool_message(tmp_path: Path):
    messages = [
        {"role": "user", "content": "List files"},
        {"role": "assistant", "content": [USE]},
        {"role": "tool", "tool_call_id": "tu_7", "content": "a.py"},
        {"role": "assistant", "content": "One file."},
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(messages))
    episode = one_episode(path)
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "assistant"]
    assert [c.name for c in episode.events[1].tool_calls] == ["ls"]


def test_a_system_message_beside_a_thinking_block(tmp_path: Path):
    record = {
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "2+2?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Easy.", "signature": "s"},
                    {"type": "text", "text": "4"},
                ],
            },
        ]
    }
    episode = one_episode(write_jsonl(tmp_path, "chat.jsonl", [record]))
    assert [(e.kind, e.content, e.reasoning) for e in episode.events] == [
        ("system", "Be brief.", None),
        ("user", "2+2?", None),
        ("assistant", "4", "Easy."),
    ]


def test_a_gateway_call_whose_history_mixes_both(tmp_path: Path):
    call = {
        "request": {
            "body": {
                "model": "gpt-4o",
                "messages": [
                    {"role": "user", "content": "List files"},
                    {
                        "role": "assistant",
                        "content": [USE],
                        "tool_calls": [
                            {"id": "tu_7", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
                        ],
                    },
                    {"role": "tool", "tool_call_id": "tu_7", "content": "a.py"},
                ],
            }
        },
        "response": {
            "body": {
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": "One."}, "finish_reason": "stop"}
                ]
            }
        },
    }
    episode = one_episode(write_jsonl(tmp_path, "gw.jsonl", [call]))
    assert episode.extra()["dialect"] == "openai"
    assert [len(e.tool_calls) for e in episode.events] == [0, 1, 0, 0]
