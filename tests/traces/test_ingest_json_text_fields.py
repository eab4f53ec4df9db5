"""A logger's JSON-text fields (traces/adapters/json_text.py): a row holding its messages, response
and metadata as JSON strings is read as the call it holds; text the model saw stays text. It used to be
a whole-file `unrecognized format` reject."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import write_jsonl

from trajectory_platform.traces.ingest import ingest_paths


def test_a_gateway_row_holding_json_text_is_read_as_the_call_it_holds(tmp_path: Path) -> None:
    tool_output = '{"lines": 12}'
    row = {
        "request_id": "chatcmpl-9f1",
        "session_id": "",
        "metadata": json.dumps({"task_id": "calc-add"}),
        "messages": json.dumps(
            [
                {"role": "user", "content": "Count the lines."},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "wc", "arguments": "{}"}}
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": tool_output},
            ]
        ),
        "response": json.dumps(
            {
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "12."}}],
            }
        ),
    }
    (episode,) = ingest_paths([write_jsonl(tmp_path, "spend_logs.jsonl", [row])]).episodes
    assert episode.source_format == "chat-log" and episode.task.fixture_id == "calc-add"
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "Count the lines."),
        ("assistant", None),
        ("tool", tool_output),
        ("assistant", "12."),
    ], "a tool's JSON output stays the text the model saw"


def test_messages_alone_as_json_text_are_read_too(tmp_path: Path) -> None:
    row = {
        "id": "row-1",
        "messages": json.dumps(
            [{"role": "user", "content": "Hi."}, {"role": "assistant", "content": "Hello."}]
        ),
    }
    (episode,) = ingest_paths([write_jsonl(tmp_path, "rows.jsonl", [row])]).episodes
    assert [(e.kind, e.content) for e in episode.events] == [("user", "Hi."), ("assistant", "Hello.")]
