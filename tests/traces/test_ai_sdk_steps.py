"""The Vercel AI SDK's ``steps`` (``adapters/ai_sdk_steps.py``), an ``unrecognized format`` reject
before: each step a model turn then its tools' results, in either release's spelling; a
``tool-error`` a failed result, never a second call; the prompt from the first step's request body."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import one_episode, write_jsonl

CALL_V4 = {"toolCallId": "c1", "toolName": "weather", "args": {"city": "Paris"}}
ANSWER_V4 = {
    "stepType": "tool-result",
    "text": "21C.",
    "toolCalls": [],
    "toolResults": [],
    "finishReason": "stop",
}


def test_v4_steps_with_the_request_body_are_the_prompt_turns_and_results(tmp_path: Path):
    body = {
        "model": "gpt-4o",
        "messages": [{"role": "system", "content": "Brief."}, {"role": "user", "content": "Paris?"}],
    }
    first = {
        "stepType": "initial",
        "text": "",
        "toolCalls": [CALL_V4],
        "toolResults": [{**CALL_V4, "result": {"temp": 21}}],
        "finishReason": "tool-calls",
        "usage": {"promptTokens": 10, "completionTokens": 5},
        "request": {"body": json.dumps(body)},
    }
    episode = one_episode(write_jsonl(tmp_path, "r.jsonl", [{"steps": [first, ANSWER_V4], "text": "21C."}]))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("system", "Brief."),
        ("user", "Paris?"),
        ("assistant", None),
        ("tool", '{"temp":21}'),
        ("assistant", "21C."),
    ]
    turn = episode.events[2]
    assert [c.id for c in turn.tool_calls] == ["c1"] and (turn.input_tokens, turn.finish_reason) == (
        10,
        "tool-calls",
    )
    assert episode.outcome.final_answer == "21C."


def test_a_v5_tool_error_is_a_failed_result_and_no_prompt_is_said(tmp_path: Path):
    call = {"type": "tool-call", "toolCallId": "c1", "toolName": "fetch", "input": {"u": "x"}}
    error = {
        "type": "tool-error",
        "toolCallId": "c1",
        "toolName": "fetch",
        "input": {"u": "x"},
        "error": "timeout",
    }
    steps = [
        {
            "content": [call, error],
            "finishReason": "tool-calls",
            "usage": {"inputTokens": 3, "outputTokens": 2},
        },
        {"content": [{"type": "text", "text": "It timed out."}], "finishReason": "stop"},
    ]
    episode = one_episode(write_jsonl(tmp_path, "r.jsonl", [{"steps": steps}]))
    assert [(e.kind, e.content, e.status) for e in episode.events] == [
        ("assistant", None, None),
        ("tool", "timeout", "error"),
        ("assistant", "It timed out.", None),
    ]
    assert len(episode.events[0].tool_calls) == 1 and "request_missing" in json.loads(
        episode.extra_json or ""
    )
