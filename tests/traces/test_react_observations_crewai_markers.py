"""What names CrewAI in a log, a framework whose executor appends each tool's output to the acting
text (``text_conventions.appending_frameworks``): its agent prompt in a system turn, in any of its
versions' spellings, or a CrewAI result around the messages. Other prompts, even ones worded close to
it, name no such framework, and an observation in their model's text is the model's own (the cases
of ``test_hallucinated_react_observations*.py``).

The CrewAI logs below were held out while the markers were written (from CrewAI's prompt templates
and output models) and measured once after; each must still be split into its call and result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from log_files import write_json, write_jsonl
from test_react_observations_in_the_acting_text import ACTING, ASK, EXPECTED, FINAL, turns

from trajectory_platform.traces.adapters.text_conventions import crewai_prompt

TOOLS = (
    "\nYou ONLY have access to the following tools, and should NEVER make up tools that are not listed "
    "here:\n\nTool Name: get_weather\nTool Arguments: {'city': {'description': None, 'type': 'str'}}\n"
    "Tool Description: the weather in a city\n\nIMPORTANT: Use the following format in your response:"
    "\n\n```\nThought: you should always think about what to do\nAction: the action to take, only one "
    "name of [get_weather], just the name, exactly as it's written.\nAction Input: the input to the "
    'action, just a simple JSON object, enclosed in curly braces, using " to wrap keys and values.\n'
    "Observation: the result of the action\n```"
)
GOAL = "Your personal goal is: answer weather questions"
ROLE = "You are Weather Researcher. A meteorologist of twenty years.\n" + GOAL
OLD_ROLE = "You are Weather Researcher.\nA meteorologist\nof twenty years.\n\n" + GOAL

CREWAI_PROMPTS = {
    "role": ROLE,
    "role-and-tools": ROLE + TOOLS,
    "older-role-over-lines": OLD_ROLE,
    "lower-case": ROLE.lower(),
    "custom-template-with-the-tool-rules": "<|system|>\nWeather desk." + TOOLS,
    "custom-template-around-the-role": "<|start_header_id|>system<|end_header_id|>\n\n" + ROLE + "<|eot_id|>",
}
OTHER_PROMPTS = {
    "plain": "You are a helpful assistant.",
    "a-goal-in-other-words": "You are a coding agent.\nYour goal is to fix bugs.",
    "the-goal-line-not-after-a-role": "Weather desk.\nYour personal goal is: answer weather questions",
    "the-tool-rule-copied-alone": (
        "Rules:\n5. You ONLY have access to the following tools, and should NEVER make up tools that are "
        "not listed here: get_weather"
    ),
    "langchain-react": (
        "Use the following format:\n\nThought: you should always think about what to do\nAction: the "
        "action to take, should be one of [get_weather]\nAction Input: the input to the action\n"
        "Observation: the result of the action"
    ),
}


@pytest.mark.parametrize("name", CREWAI_PROMPTS)
def test_crewais_agent_prompt_in_its_spellings(name: str):
    assert crewai_prompt(CREWAI_PROMPTS[name])


@pytest.mark.parametrize("name", OTHER_PROMPTS)
def test_controls_other_prompts_name_no_crewai(name: str):
    assert not crewai_prompt(OTHER_PROMPTS[name])


def test_crewais_prompt_in_the_first_user_turn_names_it_only_beside_its_result(tmp_path: Path):
    """CrewAI with its system prompt off sends the prompt as the first user turn; but a person can
    paste any prompt there, so the turn alone names no framework (``appended_results``' pasted
    cases): the steps stay the model's text. Logged with its result object, they split."""
    messages = [
        {"role": "user", "content": ROLE + TOOLS + "\n" + ASK},
        {"role": "assistant", "content": ACTING},
        {"role": "assistant", "content": FINAL},
    ]
    read = turns(write_json(tmp_path, "chat.json", {"messages": messages}))
    assert [(kind, calls) for kind, _, calls, _ in read] == [
        ("user", []),
        ("assistant", []),
        ("assistant", []),
    ]
    task = {"agent": "Weather Researcher", "output_format": "raw", "raw": "18C", "messages": messages}
    read = turns(write_json(tmp_path, "crew.json", task))
    assert [(kind, calls, name) for kind, _, calls, name in read[1:]] == [
        (kind, calls, name) for kind, _, calls, name in EXPECTED[1:]
    ]


def test_the_older_template_and_a_custom_one_with_the_tool_rules(tmp_path: Path):
    for number, system in enumerate((OLD_ROLE, CREWAI_PROMPTS["custom-template-with-the-tool-rules"])):
        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": ASK},
            {"role": "assistant", "content": ACTING},
            {"role": "assistant", "content": FINAL},
        ]
        assert turns(write_json(tmp_path, f"crew{number}.json", {"messages": messages})) == EXPECTED


def test_a_task_output_names_crewai_without_a_system_turn(tmp_path: Path):
    task_output = {
        "description": "What is the weather in Paris?",
        "expected_output": "weather",
        "agent": "Weather Researcher",
        "messages": [
            {"role": "user", "content": ASK},
            {"role": "assistant", "content": ACTING},
            {"role": "assistant", "content": FINAL},
        ],
    }
    assert turns(write_json(tmp_path, "task.json", task_output)) == EXPECTED


def test_a_crew_output_under_a_key_of_its_own_one_a_line(tmp_path: Path):
    task = {
        "agent": "Weather Researcher",
        "output_format": "raw",
        "raw": "It is 18C and sunny in Paris.",
        "messages": [
            {"role": "user", "content": ASK},
            {"role": "assistant", "content": ACTING + "\n" + FINAL},
        ],
    }
    line = {"run_id": "r1", "result": {"raw": task["raw"], "tasks_output": [task]}}
    read = turns(write_jsonl(tmp_path, "crews.jsonl", [line]))
    assert [(kind, content, name) for kind, content, _, name in read] == [
        (kind, content, name) for kind, content, _, name in EXPECTED
    ]
    assert json.dumps(read[1][2]) == json.dumps([["get_weather", {"city": "Paris"}]])
