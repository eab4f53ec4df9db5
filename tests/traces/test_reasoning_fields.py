"""Reasoning that OpenAI-compatible servers record under names of their own (``REASONING_FIELDS``
of traces/adapters/openai.py, read by content_parts.py): Ollama's ``thinking``, OpenRouter's
``reasoning_details``, Mistral's ``thinking`` content chunk, in a plain conversation and in a
gateway's envelope; written by hand after each provider's documented message shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from log_files import one_episode, write_jsonl

from trajectory_platform.traces.record import Episode

CALL = {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}


def _read(tmp_path: Path, record: dict[str, Any]) -> Episode:
    return one_episode(write_jsonl(tmp_path, "log.jsonl", [record]))


def test_ollama_thinking_in_a_conversation_and_in_a_response(tmp_path: Path):
    conversation = {
        "model": "qwen3:8b",
        "messages": [
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": "", "thinking": "call the tool", "tool_calls": [CALL]},
        ],
    }
    assert _read(tmp_path, conversation).events[1].reasoning == "call the tool"
    envelope = {
        "request": {"model": "qwen3:8b", "messages": [{"role": "user", "content": "Weather?"}]},
        "response": {
            "message": {"role": "assistant", "content": "", "thinking": "use it", "tool_calls": [CALL]}
        },
    }
    episode = _read(tmp_path, envelope)
    assert episode.source_format == "chat-log" and episode.events[-1].reasoning == "use it"


def test_openrouter_reasoning_details(tmp_path: Path):
    message = {
        "role": "assistant",
        "content": "It is 9C.",
        "reasoning_details": [
            {"type": "reasoning.text", "text": "the tool said 9C"},
            {"type": "reasoning.encrypted", "data": "opaque"},
        ],
    }
    episode = _read(tmp_path, {"messages": [{"role": "user", "content": "w?"}, message]})
    assert (
        episode.events[1].reasoning == "the tool said 9C\n[redacted thinking]"
    )  # one marker for every provider's encrypted reasoning


def test_mistral_thinking_chunks_beside_tool_messages(tmp_path: Path):
    record = {
        "model": "mistral-large-latest",
        "messages": [
            {"role": "user", "content": "Status of T1?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "a1", "function": {"name": "status", "arguments": "{}"}}],
            },
            {"role": "tool", "name": "status", "content": "Paid", "tool_call_id": "a1"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": [{"type": "text", "text": "it says paid"}]},
                    {"type": "text", "text": "T1 is paid."},
                ],
            },
        ],
    }
    episode = _read(tmp_path, record)  # a thinking chunk is not an Anthropic block: the tool turn reads
    assert episode.source_format == "openai"
    assert episode.events[-1].reasoning == "it says paid"
