"""Validation half of plugin-qualified tool names (``test_plugin_qualified_tool_names.py`` is the
development half): held out while the rule was written, measured once after (2 of 2; the
underscore case failed before, the .NET one read both sides as the function alone)."""

from __future__ import annotations

from pathlib import Path

from log_files import write_json, write_jsonl
from test_plugin_qualified_tool_names import names, sk_history


def test_a_python_call_in_parts_and_its_result_joined_by_an_underscore(tmp_path: Path):
    history = sk_history(
        {"plugin_name": "weather", "function_name": "current", "arguments": {"city": "Paris"}},
        {"name": "weather_current", "result": "18C"},
    )
    assert names(write_jsonl(tmp_path, "history.jsonl", [history])) == (
        ["weather-current"],
        ["weather-current"],
    )


def test_a_dotnet_result_naming_its_function_without_the_plugin(tmp_path: Path):
    history = {
        "Messages": [
            {"Role": {"Label": "user"}, "Items": [{"$type": "TextContent", "Text": "Weather?"}]},
            {
                "Role": {"Label": "assistant"},
                "Items": [
                    {
                        "$type": "FunctionCallContent",
                        "Id": "call_1",
                        "PluginName": "Weather",
                        "FunctionName": "GetWeather",
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
                        "FunctionName": "GetWeather",
                        "Result": "18C",
                    }
                ],
            },
            {"Role": {"Label": "assistant"}, "Items": [{"$type": "TextContent", "Text": "18C."}]},
        ]
    }
    assert names(write_json(tmp_path, "history.json", history)) == (
        ["Weather-GetWeather"],
        ["Weather-GetWeather"],
    )
