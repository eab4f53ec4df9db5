"""Held-out validation for test_text_tool_conventions.py (red team s37 class C): other spellings
of the same conventions, written before they were first run (figure in docs/formats.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from log_files import one_episode, write_jsonl

from trajectory_platform.traces.record import Episode


def _read(tmp_path: Path, record: dict[str, Any]) -> Episode:
    return one_episode(write_jsonl(tmp_path, "x.jsonl", [record]))


def test_mistral_v11_name_args_calls_answered_in_order(tmp_path: Path):
    record = {
        "messages": [
            {"role": "user", "content": "Weather in Paris and Rome?"},
            {
                "role": "assistant",
                "content": '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'
                '[TOOL_CALLS]get_weather[ARGS]{"city": "Rome"}',
            },
            {"role": "tool", "content": "[TOOL_RESULTS]20C[/TOOL_RESULTS]"},
            {"role": "tool", "content": "[TOOL_RESULTS]25C[/TOOL_RESULTS]"},
            {"role": "assistant", "content": "Paris 20C, Rome 25C."},
        ]
    }
    episode = _read(tmp_path, record)
    assert [c.arguments for c in episode.events[1].tool_calls] == ['{"city":"Paris"}', '{"city":"Rome"}']
    assert [e.content for e in episode.events if e.kind == "tool"] == ["20C", "25C"]


def test_a_langchain_react_loop_over_two_observations(tmp_path: Path):
    def step(thought: str, tool: str, arg: str) -> dict[str, str]:
        return {"role": "assistant", "content": f"Thought: {thought}\nAction: {tool}\nAction Input: {arg}"}

    record = {
        "messages": [
            {"role": "system", "content": "Answer using tools."},
            {"role": "user", "content": "Population of the capital of France?"},
            step("find the capital", "search", "capital of France"),
            {"role": "user", "content": "Observation: Paris"},
            step("its population", "search", '{"q": "population of Paris"}'),
            {"role": "user", "content": "Observation: 2.1 million"},
            {"role": "assistant", "content": "Thought: I know.\nFinal Answer: 2.1 million"},
        ]
    }
    episode = _read(tmp_path, record)
    assert [e.kind for e in episode.events] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert episode.events[4].tool_calls[0].arguments == '{"q": "population of Paris"}'


def test_a_thought_block_without_a_solution_block(tmp_path: Path):
    text = "<|begin_of_thought|>check units<|end_of_thought|>\n\nThe answer is 7 m."
    record = {"messages": [{"role": "user", "content": "?"}, {"role": "assistant", "content": text}]}
    answer = _read(tmp_path, record).events[-1]
    assert (answer.reasoning, answer.content) == ("check units", "The answer is 7 m.")


def test_a_sentence_mentioning_the_tokens_stays_text(tmp_path: Path):
    text = "Mistral writes [TOOL_CALLS] before its calls, and ReAct writes Action: then Action Input:."
    record = {"messages": [{"role": "user", "content": "?"}, {"role": "assistant", "content": text}]}
    assert _read(tmp_path, record).events[-1].content == text
