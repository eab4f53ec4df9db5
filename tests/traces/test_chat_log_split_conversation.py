"""A conversation a record splits across sibling fields (traces/adapters/chat_envelope.py): the
prompt in one list, its continuation in another, perhaps a rejected alternative beside them. One
conversation in that order; the rejected side named in ``read_from``, kept in the extra fields; no
list of messages dropped without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from handwritten_records import BRAINTRUST_SPAN, BRAINTRUST_TRACE, SPLIT_CONVERSATIONS
from log_files import one_episode, write_jsonl

PROMPT = [("system", "Be brief."), ("user", "Weather in Paris?")]


@pytest.mark.parametrize("name", sorted(SPLIT_CONVERSATIONS))
def test_the_prompt_comes_before_its_continuation(tmp_path: Path, name: str):
    episode = one_episode(write_jsonl(tmp_path, "rows.jsonl", [SPLIT_CONVERSATIONS[name]]))
    events = [(e.kind, e.content) for e in episode.events]
    assert events[:2] == PROMPT, "the prompt is the conversation's start, not lost to extra_json"
    assert events[-1] == ("assistant", "18C in Paris."), "the continuation (the preferred one) follows"
    assert "I don't know." not in [e.content for e in episode.events], "the rejected side is no turn"


@pytest.mark.parametrize(
    ("name", "rejected"), [("trl_preference", "rejected"), ("openai_dpo", "non_preferred_output")]
)
def test_the_rejected_side_is_named_and_kept(tmp_path: Path, name: str, rejected: str):
    episode = one_episode(write_jsonl(tmp_path, "rows.jsonl", [SPLIT_CONVERSATIONS[name]]))
    extra = json.loads(episode.extra_json or "")
    assert extra["read_from"]["alternatives"] == [rejected]
    assert extra[rejected] == [{"role": "assistant", "content": "I don't know."}]


VALIDATION = {
    "request_response_messages": {
        "request": {"messages": SPLIT_CONVERSATIONS["trl_prompt_completion"]["prompt"]},
        "response": {"messages": SPLIT_CONVERSATIONS["trl_prompt_completion"]["completion"]},
    },
    "prompt_completions": {
        "prompt": SPLIT_CONVERSATIONS["trl_prompt_completion"]["prompt"],
        "completions": SPLIT_CONVERSATIONS["trl_prompt_completion"]["completion"],
    },
    "output_repeats_the_input": {
        "input": {"messages": SPLIT_CONVERSATIONS["trl_prompt_completion"]["prompt"]},
        "output": {
            "messages": [
                *SPLIT_CONVERSATIONS["trl_prompt_completion"]["prompt"],
                *SPLIT_CONVERSATIONS["trl_prompt_completion"]["completion"],
            ]
        },
    },
}
"""Shapes of the same class the fix was not developed on."""


@pytest.mark.parametrize("name", sorted(VALIDATION))
def test_other_split_shapes_read_once_in_order(tmp_path: Path, name: str):
    episode = one_episode(write_jsonl(tmp_path, "rows.jsonl", [VALIDATION[name]]))
    assert [(e.kind, e.content) for e in episode.events] == [
        *PROMPT,
        ("assistant", None),
        ("tool", "18C"),
        ("assistant", "18C in Paris."),
    ]


def test_a_list_of_messages_left_off_the_conversation_is_named(tmp_path: Path):
    record = {
        "history": [{"role": "user", "content": "Hi"}],
        "turns": [*SPLIT_CONVERSATIONS["trl_prompt_completion"]["prompt"]],
    }
    episode = one_episode(write_jsonl(tmp_path, "rows.jsonl", [record]))
    extra = json.loads(episode.extra_json or "")
    assert extra["read_from"]["not_read"] == ["history"] and extra["history"] == record["history"]


def test_a_span_output_of_bare_choices_is_the_calls_answer(tmp_path: Path):
    episode = one_episode(write_jsonl(tmp_path, "spans.jsonl", [BRAINTRUST_SPAN]))
    assert [e.kind for e in episode.events] == ["system", "user", "assistant"]
    answer = episode.events[-1]
    assert [c.name for c in answer.tool_calls] == ["get_weather"] and answer.finish_reason == "tool_calls"
    assert [d.response_event_index for d in episode.delivered_inputs] == [2]


def test_the_spans_of_one_trace_are_one_episode_named_by_the_root_span(tmp_path: Path):
    episode = one_episode(write_jsonl(tmp_path, "spans.jsonl", BRAINTRUST_TRACE))
    assert [(e.kind, e.content) for e in episode.events] == [
        *PROMPT,
        ("assistant", None),
        ("tool", "18C"),
        ("assistant", "18C in Paris."),
    ]
    assert [d.response_event_index for d in episode.delivered_inputs] == [2, 4]
    assert episode.task.fixture_id == "weather-1", "the root span names the task"
    assert json.loads(episode.extra_json or "")["records_without_conversation"] == 1
