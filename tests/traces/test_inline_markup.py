"""Tool calls, tool results and reasoning written as markup in message text
(traces/adapters/inline_markup.py), lifted into the record's fields at ingest for every chat-like
format; written by hand after the Hermes / Qwen chat templates (``<tool_call>`` holding a Python
literal, ``<tools>`` in the system prompt, ``<tool_response>`` turns) and ``<think>`` outputs.
What must stay text: markup a message only talks about, a log whose calls are structured, an XML
element that names no declared tool, and any block that cannot be read (counted, never guessed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import one_episode, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Episode

HERMES = {
    "id": "h1",
    "conversations": [
        {
            "from": "system",
            "value": "You call functions. <tools> [{'type': 'function', 'function': {'name': 'get_price', "
            "'parameters': {'type': 'object', 'properties': {'symbol': {'type': 'string'}}}}}] </tools>",
        },
        {"from": "human", "value": "Price of ACME?"},
        {
            "from": "gpt",
            "value": "<tool_call>\n{'arguments': {'symbol': 'ACME'}, 'name': 'get_price'}\n</tool_call>",
        },
        {
            "from": "tool",
            "value": '<tool_response>\n{"name": "get_price", "content": {"price": 12.5}}\n</tool_response>',
        },
        {"from": "gpt", "value": "ACME is at 12.50."},
    ],
}
TOOLS = [{"type": "function", "function": {"name": "get_price", "parameters": {"type": "object"}}}]


def _chat(*texts: str, tools: list | None = None, first: str = "q") -> dict[str, Any]:
    messages = [{"role": "user", "content": first}] + [{"role": "assistant", "content": t} for t in texts]
    return {"messages": messages, **({"tools": tools} if tools else {})}


def _read(tmp_path: Path, record: dict[str, Any]) -> Episode:
    return one_episode(write_jsonl(tmp_path, "log.jsonl", [record]))


def _calls(episode: Episode) -> list[tuple[str | None, Any]]:
    return [(c.name, json.loads(c.arguments or "null")) for e in episode.events for c in e.tool_calls]


def test_hermes_calls_tools_and_responses_become_fields(tmp_path: Path):
    episode = _read(tmp_path, HERMES)
    assert [t.name for t in episode.tools] == ["get_price"]  # the <tools> block of the system prompt
    assert _calls(episode) == [("get_price", {"symbol": "ACME"})]  # a Python literal, read safely
    assert episode.events[2].content is None
    result = episode.events[3]
    assert (result.kind, result.tool_name, result.content) == ("tool", "get_price", '{"price":12.5}')
    assert episode.extra()["inline_markup"] == {"lifted": {"tool_calls": 1, "tool_results": 1}}


def test_think_tags_become_reasoning(tmp_path: Path):
    episode = _read(tmp_path, _chat("<think>\nadd them\n</think>\n\n4"))
    assert (episode.events[1].reasoning, episode.events[1].content) == ("add them", "4")


def test_markup_a_message_talks_about_stays_text(tmp_path: Path):
    texts = (
        'Models write <tool_call>{"name": "get_price", "arguments": {}}</tool_call> inline.',
        '> <tool_call>{"name": "get_price", "arguments": {}}</tool_call>',
        '~~~\n<tool_call>\n{"name": "get_price", "arguments": {}}\n</tool_call>\n~~~',
        "Use `<think>` tags for reasoning.",
        "Close the block with `</think>` when done.",
    )
    for index, text in enumerate(texts):
        shown = _read(tmp_path, {**_chat(text, tools=TOOLS), "id": f"c{index}"}).events[1]
        assert (shown.content, shown.reasoning, shown.tool_calls) == (text, None, []), index


def test_a_bare_xml_element_is_a_call_only_when_it_names_a_declared_tool(tmp_path: Path):
    text = "<get_price><symbol>ACME</symbol></get_price>\n<undeclared_tool><a>1</a></undeclared_tool>"
    episode = _read(tmp_path, _chat(text, tools=TOOLS))
    assert _calls(episode) == [("get_price", {"symbol": "ACME"})]
    assert episode.events[1].content == "<undeclared_tool><a>1</a></undeclared_tool>"


def test_a_log_with_structured_calls_keeps_its_text(tmp_path: Path):
    record = _chat('<tool_call>{"name": "get_price", "arguments": {}}</tool_call>', tools=TOOLS)
    record["messages"].append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "function": {"name": "get_price", "arguments": "{}"}}],
        }
    )
    episode = _read(tmp_path, record)
    assert _calls(episode) == [("get_price", {})]  # only the structured one
    assert episode.events[1].content.startswith("<tool_call>")


def test_malformed_markup_is_kept_as_text_and_counted_without_its_text(tmp_path: Path):
    secretish = "sk-live-0123456789abcdefghij"
    texts = [
        f"<tool_call>\n{{'name': 'get_price', 'arguments': {{'key': '{secretish}'}}\n",  # unclosed
        f"<tool_call>\n__import__('os').system('echo {secretish}')\n</tool_call>",  # code, never run
        "<tool_call>\n{'arguments': {}}\n</tool_call>",  # names no tool
        "<think>\nnever closed",
    ]
    path = write_jsonl(
        tmp_path, "log.jsonl", [{**_chat(t, tools=TOOLS), "id": f"m{i}"} for i, t in enumerate(texts)]
    )
    result = ingest_paths([path])
    assert result.rejects == [] and len(result.episodes) == 4
    for episode, text in zip(sorted(result.episodes, key=lambda e: e.episode_id), texts, strict=True):
        assert episode.events[1].content == text and _calls(episode) == []
    assert result.summary()["markup_kept_as_text"] == {
        "call payload names no tool": 1,
        "unclosed think tag": 1,
        "unclosed tool_call tag": 1,
        "unparseable call payload": 1,
    }
    assert secretish not in json.dumps(result.summary())
    assert all(secretish not in json.dumps(e.extra()) for e in result.episodes)
