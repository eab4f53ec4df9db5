"""A tool named within a plugin (Semantic Kernel's ``plugin_name`` / ``function_name``, Python or
.NET) is one name for its call and its result: ``Plugin-function``, the name the model called
(``content_parts.tool_name_of``); a result naming the same tool in another spelling takes its
call's (``base.name_tool_results``). The call was ``get_weather`` beside a result named
``WeatherPlugin-get_weather`` (or the other way round), so one tool was two names in an episode.

Development cases here; the validation half (an underscore-joined result name, a .NET result
naming its function alone) is ``test_plugin_qualified_tool_names_heldout.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import one_episode, write_json

from trajectory_platform.traces.adapters.base import same_tool


def sk_history(call: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """Python ``ChatHistory.serialize()``: a question, one call, its result, the answer."""
    return {
        "messages": [
            {"role": "user", "items": [{"content_type": "text", "text": "Weather in Paris?"}]},
            {"role": "assistant", "items": [{"content_type": "function_call", "id": "call_1", **call}]},
            {"role": "tool", "items": [{"content_type": "function_result", "id": "call_1", **result}]},
            {"role": "assistant", "items": [{"content_type": "text", "text": "18C."}]},
        ]
    }


def names(path: Path) -> tuple[list[str | None], list[str | None]]:
    episode = one_episode(path)
    calls = [c.name for e in episode.events for c in e.tool_calls]
    return calls, [e.tool_name for e in episode.events if e.kind == "tool"]


def test_a_full_name_on_the_call_and_the_parts_on_the_result_are_one_name(tmp_path: Path):
    call = {
        "name": "WeatherPlugin-get_weather",
        "plugin_name": "WeatherPlugin",
        "function_name": "get_weather",
    }
    result = {"plugin_name": "WeatherPlugin", "function_name": "get_weather", "result": "18C"}
    history = sk_history({**call, "arguments": json.dumps({"city": "Paris"})}, result)
    path = write_json(tmp_path, "history.json", history)
    assert names(path) == (["WeatherPlugin-get_weather"], ["WeatherPlugin-get_weather"])


def test_dotnet_parts_on_both_sides_are_the_qualified_name(tmp_path: Path):
    history = [
        {"Role": {"Label": "user"}, "Items": [{"$type": "TextContent", "Text": "Weather in Paris?"}]},
        {
            "Role": {"Label": "assistant"},
            "Items": [
                {
                    "$type": "FunctionCallContent",
                    "Id": "call_1",
                    "PluginName": "WeatherPlugin",
                    "FunctionName": "get_weather",
                    "Arguments": {"city": "Paris"},
                }
            ],
        },
        {
            "Role": {"Label": "tool"},
            "Items": [
                {
                    "$type": "FunctionResultContent",
                    "CallId": "call_1",
                    "PluginName": "WeatherPlugin",
                    "FunctionName": "get_weather",
                    "Result": "18C",
                }
            ],
        },
        {"Role": {"Label": "assistant"}, "Items": [{"$type": "TextContent", "Text": "18C."}]},
    ]
    path = write_json(tmp_path, "history.json", history)
    assert names(path) == (["WeatherPlugin-get_weather"], ["WeatherPlugin-get_weather"])


def test_a_result_naming_its_function_alone_takes_its_calls_name(tmp_path: Path):
    history = sk_history(
        {"name": "math-add", "arguments": '{"a": 2}'}, {"function_name": "add", "result": "5"}
    )
    assert names(write_json(tmp_path, "history.json", history)) == (["math-add"], ["math-add"])


def test_controls_a_result_naming_another_tool_keeps_its_name_and_a_plain_name_is_unchanged(tmp_path: Path):
    other = sk_history({"name": "math-add", "arguments": "{}"}, {"name": "search", "result": "5"})
    assert names(write_json(tmp_path, "other.json", other)) == (["math-add"], ["search"])
    plain = sk_history({"name": "weather", "arguments": "{}"}, {"name": "weather", "result": "5"})
    assert names(write_json(tmp_path, "plain.json", plain)) == (["weather"], ["weather"])
    assert not same_tool("add", "madd") and not same_tool("get", "get_weather")
