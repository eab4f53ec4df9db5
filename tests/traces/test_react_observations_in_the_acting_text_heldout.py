"""Validation half of ReAct observations inside the acting text
(``test_react_observations_in_the_acting_text.py`` is the development half): held out while the
splitting was written, measured once after (2 of 2; both failed before, read as prose)."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_json
from test_react_observations_in_the_acting_text import ACTING, EXPECTED, FINAL, crew_messages, turns


def test_a_crew_output_whose_task_holds_the_messages(tmp_path: Path):
    crew_output = {
        "raw": "It is 18C and sunny in Paris.",
        "pydantic": None,
        "json_dict": None,
        "tasks_output": [
            {
                "description": "What is the weather in Paris?",
                "expected_output": "weather",
                "raw": "It is 18C and sunny in Paris.",
                "agent": "Weather Researcher",
                "output_format": "raw",
                "messages": crew_messages(ACTING, FINAL),
            }
        ],
        "token_usage": {"total_tokens": 300, "prompt_tokens": 250, "completion_tokens": 50},
    }
    assert turns(write_json(tmp_path, "crew_output.json", crew_output)) == EXPECTED


def test_an_observation_over_several_lines(tmp_path: Path):
    acting = (
        'Thought: read it\nAction: read_file\nAction Input: {"path": "config.yaml"}\n'
        "Observation: name: demo\nport: 8080\n"
    )
    episode = one_episode(write_json(tmp_path, "crew.json", {"messages": crew_messages(acting, FINAL)}))
    (result,) = [e for e in episode.events if e.kind == "tool"]
    assert (result.tool_name, result.content) == ("read_file", "name: demo\nport: 8080")
