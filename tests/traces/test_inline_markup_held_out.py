"""Held-out shapes of inline tool-call / reasoning markup (adapters/inline_markup.py), written
before the lifter was run on them and kept apart from the cases it was developed on
(test_inline_markup.py): each is a chat template's or agent's way the development cases did not
show. The figure reported for the change is how many of these passed on first run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import one_episode, write_jsonl

from trajectory_platform.traces.record import Episode

WEATHER_TOOLS = [
    {
        "type": "function",
        "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {}}},
    }
]


def _chat(*messages: dict[str, Any], tools: list | None = None) -> dict[str, Any]:
    return {"messages": list(messages), **({"tools": tools} if tools else {})}


def _user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def _assistant(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


def _calls(episode: Episode) -> list[tuple[str | None, Any]]:
    return [
        (c.name, json.loads(c.arguments) if c.arguments else None)
        for e in episode.events
        for c in e.tool_calls
    ]


def _read(tmp_path: Path, record: dict[str, Any]) -> Episode:
    return one_episode(write_jsonl(tmp_path, "log.jsonl", [record]))


def test_text_then_a_call_with_blank_lines_inside_the_tag(tmp_path: Path):
    text = (
        "Let me check.\n<tool_call>\n\n"
        '  {"name": "get_weather",\n   "arguments": {"city": "Paris"}}  \n\n</tool_call>\n'
    )
    episode = _read(tmp_path, _chat(_user("w?"), _assistant(text), tools=WEATHER_TOOLS))
    assert _calls(episode) == [("get_weather", {"city": "Paris"})]
    assert episode.events[1].content == "Let me check."


def test_two_calls_answered_in_one_user_turn(tmp_path: Path):
    calls = (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>'
    )
    results = "<tool_response>\n9C\n</tool_response>\n<tool_response>\n20C\n</tool_response>"
    episode = _read(
        tmp_path, _chat(_user("w?"), _assistant(calls), _user(results), _assistant("ok"), tools=WEATHER_TOOLS)
    )
    assert _calls(episode) == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})]
    assert [(e.kind, e.tool_name, e.content) for e in episode.events[2:4]] == [
        ("tool", "get_weather", "9C"),
        ("tool", "get_weather", "20C"),
    ]


def test_llama_function_tag(tmp_path: Path):
    text = '<function=get_weather>{"city": "Paris"}</function>'
    episode = _read(tmp_path, _chat(_user("w?"), _assistant(text), tools=WEATHER_TOOLS))
    assert _calls(episode) == [("get_weather", {"city": "Paris"})]
    assert episode.events[1].content is None


def test_think_then_call_in_one_message(tmp_path: Path):
    text = (
        "<think>\nneed the weather\n</think>\n"
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    )
    episode = _read(tmp_path, _chat(_user("w?"), _assistant(text), tools=WEATHER_TOOLS))
    turn = episode.events[1]
    assert turn.reasoning == "need the weather" and turn.content is None
    assert _calls(episode) == [("get_weather", {"city": "Paris"})]


def test_function_call_tag_with_arguments_as_a_json_string(tmp_path: Path):
    text = '<function_call>{"name": "add", "arguments": "{\\"a\\": 1}"}</function_call>'
    episode = _read(tmp_path, _chat(_user("1+?"), _assistant(text)))
    assert _calls(episode) == [("add", {"a": 1})]


def test_deepseek_r1_lone_closing_think(tmp_path: Path):
    episode = _read(tmp_path, _chat(_user("2+2"), _assistant("adding\n</think>\n\n4")))
    assert (episode.events[1].reasoning, episode.events[1].content) == ("adding", "4")


def test_qwen3_coder_parameter_elements(tmp_path: Path):
    text = "<tool_call>\n<function=run>\n<parameter=cmd>\nls -la\n</parameter>\n</function>\n</tool_call>"
    episode = _read(tmp_path, _chat(_user("list"), _assistant(text)))
    assert _calls(episode) == [("run", {"cmd": "ls -la"})]


def test_markup_inside_a_code_fence_stays_text(tmp_path: Path):
    text = (
        "Write calls like this:\n```\n"
        '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>\n```'
    )
    episode = _read(tmp_path, _chat(_user("how?"), _assistant(text), tools=WEATHER_TOOLS))
    assert _calls(episode) == [] and episode.events[1].content == text


def test_thinking_tag_in_an_anthropic_text_block(tmp_path: Path):
    record = {
        "system": "s",
        "messages": [
            {"role": "user", "content": "2+2"},
            {"role": "assistant", "content": [{"type": "text", "text": "<thinking>sum</thinking>\n4"}]},
        ],
    }
    episode = _read(tmp_path, record)
    assert episode.source_format == "anthropic"
    assert (episode.events[-1].reasoning, episode.events[-1].content) == ("sum", "4")


def test_a_truncated_payload_is_kept_as_text_and_counted(tmp_path: Path):
    text = '<tool_call>{"name": "get_weather", "arguments": {</tool_call>'
    episode = _read(tmp_path, _chat(_user("w?"), _assistant(text), tools=WEATHER_TOOLS))
    assert _calls(episode) == [] and episode.events[1].content == text
    kept = episode.extra()["inline_markup"]["kept_as_text"]
    assert sum(kept.values()) == 1


def test_python_literal_with_true_and_none(tmp_path: Path):
    text = "<tool_call>\n{'name': 'search', 'arguments': {'exact': True, 'limit': None}}\n</tool_call>"
    episode = _read(tmp_path, _chat(_user("find"), _assistant(text)))
    assert _calls(episode) == [("search", {"exact": True, "limit": None})]


def test_sharegpt_observation_turn_answers_a_tagged_call(tmp_path: Path):
    record = {
        "conversations": [
            {"from": "human", "value": "w?"},
            {
                "from": "gpt",
                "value": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
            },
            {"from": "observation", "value": "<tool_response>\n-3C\n</tool_response>"},
            {"from": "gpt", "value": "Cold."},
        ]
    }
    episode = _read(tmp_path, record)
    assert _calls(episode) == [("get_weather", {"city": "Oslo"})]
    assert [(e.kind, e.tool_name, e.content) for e in episode.events if e.kind == "tool"] == [
        ("tool", "get_weather", "-3C")
    ]
