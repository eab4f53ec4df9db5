"""A call that answered with several choices (``n`` > 1) continues with the lowest index, and every
reader says so the same way, in ``extra_json.choices_taken`` (``[{"call", "index", "of"}]``): the
tracing readers (LangSmith, Langfuse, MLflow, OpenAI Agents) took the choice without a word, while
``chat-log`` and a lone answer said which, of how many."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from handwritten_records import (
    _ASKED_OPENAI,
    _FIRST_INPUT,
    AGENTS_SDK_TRACE,
    LANGFUSE_TRACE,
    LANGSMITH_RUNS,
    MLFLOW_TRACE,
)
from log_files import one_episode, write_jsonl

from trajectory_platform.traces.record import Episode

OTHER_SAMPLE = {"role": "assistant", "content": "A sample the agent never acted on."}
TAKEN = [{"call": 0, "index": 1, "of": 2}]
"""The first call's choice of index 0, listed second (position 1) of two."""


def _two_choices() -> dict[str, Any]:
    """A Chat Completions response of two choices, the one of index 0 (the agent's) listed second."""
    return {
        "choices": [
            {"index": 1, "message": OTHER_SAMPLE, "finish_reason": "stop"},
            {"index": 0, "message": _ASKED_OPENAI, "finish_reason": "tool_calls"},
        ],
        "usage": {"prompt_tokens": 80, "completion_tokens": 20},
    }


def _taken(episode: Episode) -> Any:
    turn = episode.events[2]
    assert [c.id for c in turn.tool_calls] == ["call_a", "call_b"], "the lowest index is the trajectory"
    return json.loads(episode.extra_json or "{}").get("choices_taken")


def test_langsmith_says_which_choice_it_took(tmp_path: Path) -> None:
    runs = copy.deepcopy(LANGSMITH_RUNS)
    runs[1]["outputs"] = _two_choices()
    assert _taken(one_episode(write_jsonl(tmp_path, "runs.jsonl", runs))) == TAKEN


def test_langsmith_says_which_of_several_generations_it_took(tmp_path: Path) -> None:
    runs = copy.deepcopy(LANGSMITH_RUNS)
    generations = runs[1]["outputs"]["generations"][0]
    generations.append({"text": "Another sample.", "generation_info": {"finish_reason": "stop"}})
    assert _taken(one_episode(write_jsonl(tmp_path, "runs.jsonl", runs))) == [
        {"call": 0, "index": 0, "of": 2}
    ]


def test_langfuse_says_which_choice_it_took(tmp_path: Path) -> None:
    trace = copy.deepcopy(LANGFUSE_TRACE)
    trace["observations"][1]["output"] = _two_choices()
    assert _taken(one_episode(write_jsonl(tmp_path, "traces.jsonl", [trace]))) == TAKEN


def test_mlflow_says_which_choice_it_took(tmp_path: Path) -> None:
    trace = copy.deepcopy(MLFLOW_TRACE)
    trace["data"]["spans"][1]["attributes"]["mlflow.spanOutputs"] = json.dumps(_two_choices())
    assert _taken(one_episode(write_jsonl(tmp_path, "traces.jsonl", [trace]))) == TAKEN


def test_openai_agents_says_which_choice_it_took(tmp_path: Path) -> None:
    spans = copy.deepcopy(AGENTS_SDK_TRACE)
    spans[2]["span_data"]["output"] = [_two_choices()]
    assert _taken(one_episode(write_jsonl(tmp_path, "spans.jsonl", spans))) == TAKEN


def test_chat_log_says_it_the_same_way(tmp_path: Path) -> None:
    call = {"messages": _FIRST_INPUT, "response": _two_choices()}
    assert _taken(one_episode(write_jsonl(tmp_path, "calls.jsonl", [call]))) == TAKEN
