"""OTel message content that holds JSON text of content parts (traces/adapters/content_parts.py's
``parts_in_text``): OpenLLMetry's Anthropic instrumentation writes a turn's blocks into
``gen_ai.prompt.<i>.content`` as a JSON string, and it was read as plain text (the call became
assistant text, its result user text). Read by the parts' shape now; text that only looks like JSON
stays text."""

from __future__ import annotations

import json
from pathlib import Path

from test_adapter_otel_indexed import _episode, _prompt, _span

USE = [
    {"type": "text", "text": "Checking."},
    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
]
RESULT = [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "18C"}]


def _turns(episode) -> list[tuple]:
    return [
        (e.kind, e.content, [(c.id, c.name) for c in e.tool_calls], e.tool_call_id) for e in episode.events
    ]


def test_openllmetry_anthropic_blocks_in_json_text_are_a_call_and_its_result(tmp_path: Path):
    attrs = {
        "gen_ai.request.model": "claude-3-5-sonnet",
        **_prompt("gen_ai.prompt", 0, "user", content="Weather in Paris?"),
        **_prompt("gen_ai.prompt", 1, "assistant", content=json.dumps(USE)),
        **_prompt("gen_ai.prompt", 2, "user", content=json.dumps(RESULT)),
        **_prompt("gen_ai.completion", 0, "assistant", content="It's 18C.", finish_reason="end_turn"),
    }
    episode = _episode(tmp_path, [_span("t", "s1", 1, attrs)])
    assert _turns(episode) == [
        ("user", "Weather in Paris?", [], None),
        ("assistant", "Checking.", [("toolu_1", "get_weather")], None),
        ("tool", "18C", [], "toolu_1"),
        ("assistant", "It's 18C.", [], None),
    ]
    assert episode.events[1].tool_calls[0].arguments == '{"city":"Paris"}'


def test_text_that_only_looks_like_json_parts_stays_text(tmp_path: Path):
    texts = ["[1, 2, 3]", '[{"a": 1, "b": 2}]', "[draft] see below", '["plain", "strings"]']
    attrs = {
        f"gen_ai.prompt.{i}.{k}": v
        for i, t in enumerate(texts)
        for k, v in (("role", "user"), ("content", t))
    }
    attrs.update(_prompt("gen_ai.completion", 0, "assistant", content="ok"))
    episode = _episode(tmp_path, [_span("t", "s1", 1, attrs)])
    assert [e.content for e in episode.events] == [*texts, "ok"]
