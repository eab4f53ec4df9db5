"""Tool-call arguments a logger JSON-encoded twice are read as the arguments the model wrote, on
every reader's path (red team s37 class J); anything else stays as recorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import one_episode, write_jsonl

ARGS = {"cmd": "ls"}


def _conversation(arguments: Any) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "user", "content": "ls"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": arguments}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "a.py"},
            {"role": "assistant", "content": "a.py"},
        ]
    }


def _arguments(tmp_path: Path, record: dict[str, Any]) -> str | None:
    episode = one_episode(write_jsonl(tmp_path, "x.jsonl", [record]))
    return next(c.arguments for e in episode.events for c in e.tool_calls)


def test_openai_arguments_encoded_twice_are_the_object(tmp_path: Path):
    assert json.loads(_arguments(tmp_path, _conversation(json.dumps(json.dumps(ARGS)))) or "") == ARGS


def test_arguments_encoded_three_times_are_the_object(tmp_path: Path):
    thrice = json.dumps(json.dumps(json.dumps(ARGS)))
    assert json.loads(_arguments(tmp_path, _conversation(thrice)) or "") == ARGS


def test_a_legacy_function_call_encoded_twice_is_the_object(tmp_path: Path):
    record = {
        "messages": [
            {"role": "user", "content": "ls"},
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "bash", "arguments": json.dumps('{"cmd": "ls"}')},
            },
            {"role": "function", "name": "bash", "content": "a.py"},
        ]
    }
    assert _arguments(tmp_path, record) == '{"cmd": "ls"}'


def test_arguments_that_are_no_encoded_json_stay_as_recorded(tmp_path: Path):
    for recorded in ('"just a string"', "ls -la", '{"cmd": "ls"', '"{not json}"'):
        assert _arguments(tmp_path, _conversation(recorded)) == recorded
