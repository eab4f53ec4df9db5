"""Messages keeping their parts under ``contents`` (Microsoft Agent Framework's ``ChatMessage``,
``Microsoft.Extensions.AI``'s): ``text``, ``function_call`` and ``function_result`` parts paired by
``call_id``. The message's text and calls were unread (an ``unread message text`` reject).

Development case here (``to_dict`` with typed roles); the validation case (an agent run response,
plain roles, arguments as an object) was held out and read on its first measure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import call_rows, write_json


def message(role: str, *contents: dict[str, Any], typed: bool = True) -> dict[str, Any]:
    said: Any = {"type": "role", "value": role} if typed else role
    return (
        {"type": "chat_message", "role": said, "contents": list(contents)}
        if typed
        else {
            "role": said,
            "contents": list(contents),
        }
    )


def run(typed: bool) -> list[dict[str, Any]]:
    arguments: Any = json.dumps({"city": "Paris"}) if typed else {"city": "Paris"}
    return [
        message("user", {"type": "text", "text": "Weather in Paris?"}, typed=typed),
        message(
            "assistant",
            {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": arguments},
            typed=typed,
        ),
        message("tool", {"type": "function_result", "call_id": "call_1", "result": "18C"}, typed=typed),
        message("assistant", {"type": "text", "text": "It is 18C."}, typed=typed),
    ]


EXPECTED = [
    ("user", "Weather in Paris?", [], None),
    ("assistant", None, [("call_1", "get_weather", {"city": "Paris"})], None),
    ("tool", "18C", [], "call_1"),
    ("assistant", "It is 18C.", [], None),
]


def test_chat_messages_with_typed_roles_and_contents(tmp_path: Path):
    assert call_rows(write_json(tmp_path, "thread.json", {"messages": run(typed=True)})) == EXPECTED


def test_held_out_an_agent_run_response_with_plain_roles(tmp_path: Path):
    response = {"type": "agent_run_response", "messages": run(typed=False), "response_id": "r1"}
    assert call_rows(write_json(tmp_path, "response.json", response)) == EXPECTED
