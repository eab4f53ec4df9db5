"""A call whose caller prefilled the answer (the request's last message is the start of the
assistant's turn, as Anthropic's Messages API allows): the prefill and the model's continuation are
one assistant turn (traces/adapters/chat_log.py)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from handwritten_records import ANTHROPIC_PREFILL_CALL
from log_files import one_episode, write_jsonl


def _blocks(record: dict) -> dict:
    """The prefill written as a content block, not a string (validation shape)."""
    record = copy.deepcopy(record)
    record["request"]["body"]["messages"][-1]["content"] = [{"type": "text", "text": "{"}]
    return record


@pytest.mark.parametrize(
    "record", [ANTHROPIC_PREFILL_CALL, _blocks(ANTHROPIC_PREFILL_CALL)], ids=["text", "blocks"]
)
def test_a_prefill_and_its_continuation_are_one_turn(tmp_path: Path, record: dict):
    episode = one_episode(write_jsonl(tmp_path, "calls.jsonl", [record]))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("system", "Reply in JSON."),
        ("user", "Give me a JSON object with key a=1"),
        ("assistant", '{"a": 1}'),
    ]
    answer = episode.events[-1]
    assert (answer.finish_reason, answer.input_tokens, answer.output_tokens) == ("end_turn", 20, 6)
    assert [(d.event_indices, d.response_event_index) for d in episode.delivered_inputs] == [([0, 1], 2)]
