"""Development half: conversation content the readers lost while the accounting said all was read
(red team rt-fmt5, classes M1-M7), each a clear reject or read in full now. The validation half,
other shapes of the same classes written before they were first run, is the ``_heldout`` file."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

SYSTEM = "You are a support bot."
ASK = [{"role": "user", "content": "Reset my password"}]
ANTHROPIC_ANSWER = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "content": [{"type": "text", "text": "Done, check your email."}],
    "stop_reason": "end_turn",
}


def _kinds_and_first(path: Path) -> tuple[list[str], str | None]:
    episode = one_episode(path)
    return [e.kind for e in episode.events], episode.events[0].content


# M3: an Anthropic SDK call's `system` beside its `messages`, as the tracing platforms log its kwargs


def test_langfuse_generation_with_an_anthropic_system_prompt_keeps_it(tmp_path: Path):
    trace = {
        "id": "lf-1",
        "timestamp": "2025-08-01T12:00:00.000Z",
        "observations": [
            {
                "id": "o1",
                "traceId": "lf-1",
                "type": "GENERATION",
                "startTime": "2025-08-01T12:00:00.100Z",
                "model": "claude-3-5-haiku-20241022",
                "input": {"system": SYSTEM, "messages": ASK},
                "output": ANTHROPIC_ANSWER,
            }
        ],
    }
    kinds, first = _kinds_and_first(write_json(tmp_path, "lf.json", trace))
    assert (kinds, first) == (["system", "user", "assistant"], SYSTEM)


def test_mlflow_span_inputs_of_the_anthropic_autolog_keep_the_system_prompt(tmp_path: Path):
    inputs = {"model": "claude-3-5-haiku-20241022", "max_tokens": 256, "system": SYSTEM, "messages": ASK}
    span = {
        "trace_id": "tr-1",
        "span_id": "s1",
        "parent_span_id": None,
        "name": "Messages.create",
        "start_time_unix_nano": 1748772000000000000,
        "end_time_unix_nano": 1748772001000000000,
        "status": {"code": "STATUS_CODE_OK"},
        "attributes": {
            "mlflow.spanType": json.dumps("CHAT_MODEL"),
            "mlflow.spanInputs": json.dumps(inputs),
            "mlflow.spanOutputs": json.dumps(ANTHROPIC_ANSWER),
        },
    }
    trace = {"info": {"trace_id": "tr-1", "request_time": "2025-06-01T10:00:00Z"}, "data": {"spans": [span]}}
    kinds, first = _kinds_and_first(write_json(tmp_path, "ml.json", trace))
    assert (kinds, first) == (["system", "user", "assistant"], SYSTEM)
