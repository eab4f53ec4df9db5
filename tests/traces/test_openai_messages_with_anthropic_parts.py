"""Chat Completions messages that also write their calls as Anthropic-style ``tool_use`` parts
(traces/adapters/anthropic.py's ``_has_anthropic_blocks``): the blocks routed the record to the
Anthropic reader, which rejected its ``tool`` role as an `unknown role`. Messages only OpenAI writes
(a ``tool`` / ``system`` role, ``tool_calls``) keep it with the ``openai`` reader, and the call
written twice is one call."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_jsonl

USE = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
LISTED = {
    "id": "toolu_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}


def test_calls_in_parts_and_in_tool_calls_are_read_once_as_openai(tmp_path: Path):
    record = {
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Checking."}, USE],
                "tool_calls": [LISTED],
            },
            {"role": "tool", "tool_call_id": "toolu_1", "content": "18C"},
            {"role": "assistant", "content": "18C."},
        ]
    }
    episode = one_episode(write_jsonl(tmp_path, "chat.jsonl", [record]))
    assert episode.source_format == "openai"
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "Weather in Paris?"),
        ("assistant", "Checking."),
        ("tool", "18C"),
        ("assistant", "18C."),
    ]
    assert [(c.id, c.arguments) for c in episode.events[1].tool_calls] == [("toolu_1", '{"city": "Paris"}')]
