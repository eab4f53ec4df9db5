"""Tool use and reasoning written in plain-text conventions that are not tags are read into the
structured fields (traces/adapters/text_conventions.py; red team s37 class C). Development cases;
held out in test_text_tool_conventions_heldout.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from log_files import one_episode, write_jsonl

from trajectory_platform.traces.record import Episode


def _read(tmp_path: Path, record: dict[str, Any]) -> Episode:
    return one_episode(write_jsonl(tmp_path, "x.jsonl", [record]))


def _shape(episode: Episode) -> list[tuple[str, list[str | None]]]:
    return [(e.kind, [c.name for c in e.tool_calls]) for e in episode.events]


def test_toolllama_actions_answered_by_function_turns_are_calls(tmp_path: Path):
    record = {
        "conversations": [
            {"from": "user", "value": "A cat joke."},
            {
                "from": "assistant",
                "value": 'Thought: call it.\nAction: search_jokes\nAction Input: {"query": "cats"}',
            },
            {"from": "function", "value": '{"response": "A cat joke."}'},
            {
                "from": "assistant",
                "value": 'Thought: done\nAction: Finish\nAction Input: {"final_answer": "A cat joke."}',
            },
        ]
    }
    episode = _read(tmp_path, record)
    assert _shape(episode) == [("user", []), ("assistant", ["search_jokes"]), ("tool", []), ("assistant", [])]
    assert episode.events[1].content == "Thought: call it."
    assert episode.events[1].tool_calls[0].arguments == '{"query": "cats"}'


def test_a_react_observation_sent_as_a_user_turn_is_the_tool_result(tmp_path: Path):
    record = {
        "messages": [
            {"role": "user", "content": "Who founded Acme?"},
            {"role": "assistant", "content": "Thought: search.\nAction: search\nAction Input: Acme founder"},
            {"role": "user", "content": "Observation: Wile E., 1949."},
            {"role": "assistant", "content": "Final Answer: Wile E."},
        ]
    }
    episode = _read(tmp_path, record)
    assert _shape(episode) == [("user", []), ("assistant", ["search"]), ("tool", []), ("assistant", [])]
    assert (episode.events[2].content, episode.events[1].tool_calls[0].arguments) == (
        "Wile E., 1949.",
        "Acme founder",
    )


def test_mistral_tool_call_tokens_are_calls_and_results_linked_by_id(tmp_path: Path):
    record = {
        "messages": [
            {"role": "user", "content": "Weather Paris?"},
            {
                "role": "assistant",
                "content": '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, '
                '"id": "abc123xyz"}]',
            },
            {
                "role": "tool",
                "content": '[TOOL_RESULTS]{"content": {"temp": 20}, "call_id": "abc123xyz"}[/TOOL_RESULTS]',
            },
            {"role": "assistant", "content": "20C."},
        ]
    }
    episode = _read(tmp_path, record)
    assert _shape(episode)[1] == ("assistant", ["get_weather"])
    assert (episode.events[2].tool_call_id, episode.events[2].content) == ("abc123xyz", '{"temp":20}')


def test_openthoughts_thought_and_solution_blocks_are_reasoning_and_answer(tmp_path: Path):
    text = (
        "<|begin_of_thought|>\n\n2 plus 3 is 5.\n\n<|end_of_thought|>\n\n"
        "<|begin_of_solution|>\n\n5\n\n<|end_of_solution|>"
    )
    record = {"conversations": [{"from": "user", "value": "2+3?"}, {"from": "assistant", "value": text}]}
    answer = _read(tmp_path, record).events[-1]
    assert (answer.reasoning, answer.content) == ("2 plus 3 is 5.", "5")


def test_an_action_no_tool_output_follows_stays_text(tmp_path: Path):
    text = "I would write:\nAction: search\nAction Input: cats"
    record = {
        "messages": [
            {"role": "user", "content": "How do ReAct prompts look?"},
            {"role": "assistant", "content": text},
        ]
    }
    assert _read(tmp_path, record).events[-1].content == text
