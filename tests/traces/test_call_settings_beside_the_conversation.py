"""A logged call whose model, tools and token counts sit in objects beside the conversation
(traces/adapters/chat_envelope.py's ``call_settings``): Braintrust logs an LLM span's ``model`` and
``tools`` under ``metadata`` and its token counts under ``metrics``; the episode had no model, no
tools and no counts although the spans name them."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_jsonl

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
ASK = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
}
SEEN = [{"role": "system", "content": "You are helpful."}, {"role": "user", "content": "Weather in Paris?"}]


def _span(span_id: str, seen: list, message: dict, finish: str, tokens: tuple[int, int]) -> dict:
    return {
        "id": span_id,
        "span_id": span_id,
        "root_span_id": "r1",
        "input": seen,
        "output": [{"index": 0, "message": message, "finish_reason": finish}],
        "metadata": {"model": "gpt-4o", "tools": TOOLS, "temperature": 0},
        "metrics": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]},
        "span_attributes": {"name": "Chat Completion", "type": "llm"},
    }


def test_braintrust_spans_name_their_model_tools_and_tokens(tmp_path: Path):
    asked = {"role": "assistant", "content": None, "tool_calls": [ASK]}
    spans = [
        _span("s1", SEEN, asked, "tool_calls", (50, 12)),
        _span(
            "s2",
            [*SEEN, asked, {"role": "tool", "tool_call_id": "call_1", "content": "18C"}],
            {"role": "assistant", "content": "18C."},
            "stop",
            (70, 9),
        ),
        {"id": "r1", "span_id": "r1", "root_span_id": "r1", "input": "Weather in Paris?", "output": "18C."},
    ]
    episode = one_episode(write_jsonl(tmp_path, "spans.jsonl", spans))
    assert episode.lineage.model == "gpt-4o" and [t.name for t in episode.tools] == ["get_weather"]
    assert episode.lineage.sampling_params_json == '{"temperature":0}'
    assert [(e.input_tokens, e.output_tokens) for e in episode.events if e.kind == "assistant"] == [
        (50, 12),
        (70, 9),
    ]
