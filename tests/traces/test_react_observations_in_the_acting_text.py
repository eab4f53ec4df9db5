"""ReAct steps written whole into one assistant text (``text_conventions.react_turns``): CrewAI's
agent executor appends each tool's output to the assistant message that acted (``Action:``,
``Action Input:``, then ``Observation:``), so its messages, and a ``TaskOutput``'s, held every
call and result as prose: no call to replay, the tool's words trained on as the model's.

Development cases here; the validation half (a crew output whose task holds the messages, a
multi-line observation) is in ``test_react_observations_in_the_acting_text_heldout.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import one_episode, write_json, write_jsonl

SYSTEM = "You are Weather Researcher.\nYour personal goal is: answer weather questions"
ASK = "Current Task: What is the weather in Paris?"
ACTING = (
    'Thought: I should look up the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}\n'
    "Observation: 18C and sunny"
)
FINAL = "Thought: I now know the final answer\nFinal Answer: It is 18C and sunny in Paris."


def crew_messages(*assistant: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": ASK},
        *({"role": "assistant", "content": text} for text in assistant),
    ]


def turns(path: Path) -> list[tuple[Any, ...]]:
    episode = one_episode(path)
    return [
        (e.kind, e.content, [(c.name, json.loads(c.arguments or "null")) for c in e.tool_calls], e.tool_name)
        for e in episode.events
        if e.kind != "system"
    ]


EXPECTED = [
    ("user", ASK, [], None),
    ("assistant", "Thought: I should look up the weather.", [("get_weather", {"city": "Paris"})], None),
    ("tool", "18C and sunny", [], "get_weather"),
    ("assistant", FINAL, [], None),
]


def test_the_agent_executors_messages_are_calls_and_results(tmp_path: Path):
    assert turns(write_json(tmp_path, "crew.json", {"messages": crew_messages(ACTING, FINAL)})) == EXPECTED


def test_a_task_output_with_its_messages(tmp_path: Path):
    task_output = {
        "description": "What is the weather in Paris?",
        "name": "weather_task",
        "expected_output": "A one-line weather report",
        "raw": "It is 18C and sunny in Paris.",
        "agent": "Weather Researcher",
        "output_format": "raw",
        "messages": crew_messages(ACTING, FINAL),
    }
    assert turns(write_json(tmp_path, "task.json", task_output)) == EXPECTED


def test_two_steps_each_in_its_own_text_and_text_after_an_observation_is_a_later_turn(tmp_path: Path):
    news = 'Thought: now the news\nAction: search_news\nAction Input: {"query": "Paris"}\nObservation: None.'
    read = turns(
        write_jsonl(tmp_path, "crew.jsonl", [{"messages": crew_messages(ACTING, news + "\n" + FINAL)}])
    )
    assert [(kind, calls, name) for kind, _, calls, name in read] == [
        ("user", [], None),
        ("assistant", [("get_weather", {"city": "Paris"})], None),
        ("tool", [], "get_weather"),
        ("assistant", [("search_news", {"query": "Paris"})], None),
        ("tool", [], "search_news"),
        ("assistant", [], None),
    ]
    assert read[4][1] == "None." and read[5][1] == FINAL


def test_controls_prose_and_an_action_answered_by_the_next_turn_stay_as_they_were(tmp_path: Path):
    """A text mentioning the words inside a line stays text; an action whose observation is the next
    user turn is read as before (the call, then that turn as its result)."""
    prose = "I will write Action: get_weather then Observation: 18C in my notes."
    assert turns(write_json(tmp_path, "prose.json", {"messages": crew_messages(prose)}))[1] == (
        "assistant",
        prose,
        [],
        None,
    )
    loop = [
        {"role": "user", "content": ASK},
        {"role": "assistant", "content": 'Action: get_weather\nAction Input: {"city": "Paris"}'},
        {"role": "user", "content": "Observation: 18C"},
        {"role": "assistant", "content": "Final Answer: 18C"},
    ]
    read = turns(write_json(tmp_path, "loop.json", {"messages": loop}))
    assert [(kind, content) for kind, content, _, _ in read] == [
        ("user", ASK),
        ("assistant", None),
        ("tool", "18C"),
        ("assistant", "Final Answer: 18C"),
    ]
