"""Generic chat logs whose assistant writes a whole ReAct step into one text, its ``Observation:``
included: the classic ReAct failure when the stop sequence is missing, the model going on to invent
the tool's output. No framework appended that observation, so it must stay the model's prose (and
the fabrication check flag it), never become a tool event.

The cases are generated: each written layout in each log format (OpenAI messages, Anthropic
messages, a ShareGPT record) under each system prompt. :data:`DEV` is what the reading was developed
against; :data:`VALIDATION` (the Anthropic format, the later layouts, and system prompts close to
CrewAI's without being it) was held out and measured once after."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ASK = "The tests in calc.py fail. Fix them and tell me the result."

LAYOUTS = (
    'Thought: I should run the tests.\nAction: run_tests\nAction Input: {"path": "tests"}\n'
    "Observation: 3 passed in 0.02s\nThought: I now know the final answer\nFinal Answer: All 3 tests pass.",
    'Action: bash\nAction Input: {"cmd": "pytest -q"}\nObservation: $ pytest -q\n...\n5 passed in 0.10s\n'
    "Final Answer: Fixed; 5 passed.",
    'Thought: read it first\nAction: read_file\nAction Input: {"path": "calc.py"}\n'
    "Observation: def add(a, b): return a + b\nThought: now run them\nAction: run_tests\n"
    "Action Input: {}\nObservation: == 1 failed, 4 passed in 0.31s ==\nFinal Answer: One test still fails.",
    'Thought: check each test\nAction: pytest\nAction Input: {"args": "-v"}\nObservation: '
    "tests/test_calc.py::test_add PASSED\ntests/test_calc.py::test_sub PASSED\n"
    "Thought: both pass\nFinal Answer: Both tests pass.",
)
"""What the model wrote, one text each: with and without thoughts, one step or two, an observation
over several lines. Each observation quotes a test runner's output (what the fabrication check
reads as output a tool prints)."""

SYSTEMS = (
    "You are a helpful assistant.",
    None,
    "You are a coding agent.\nYour goal is to fix bugs.\nYou have access to the following tools: run_tests",
    "Answer the following questions as best you can. You have access to the following tools:\n\n"
    "run_tests: runs the tests\n\nUse the following format:\n\nQuestion: the input question\n"
    "Thought: you should always think about what to do\nAction: the action to take, should be one of "
    "[run_tests]\nAction Input: the input to the action\nObservation: the result of the action\n"
    "... (this Thought/Action/Action Input/Observation can repeat N times)\n"
    "Thought: I now know the final answer\nFinal Answer: the final answer to the original input question",
)
"""System prompts: a plain one, none, one worded like a role and a goal (not CrewAI's template), and
LangChain's ReAct prompt (whose loop stops the model at ``Observation:``, so an observation in the
model's own text is one it made up)."""


@dataclass(frozen=True)
class Case:
    """One generated log: its format, what it holds, and the text the model wrote."""

    name: str
    file: str
    record: Any
    text: str


def _openai(system: str | None, text: str) -> Any:
    head = [{"role": "system", "content": system}] if system else []
    return {"messages": [*head, {"role": "user", "content": ASK}, {"role": "assistant", "content": text}]}


def _anthropic(system: str | None, text: str) -> Any:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": ASK}]},
        {"role": "assistant", "content": [{"type": "text", "text": text}]},
    ]
    return {"model": "claude-sonnet-4-5", "system": system, "messages": messages} if system else messages


def _sharegpt(system: str | None, text: str) -> Any:
    turns = [{"from": "human", "value": ASK}, {"from": "gpt", "value": text}]
    return {"id": "sg-1", "conversations": turns, **({"system": system} if system else {})}


FORMATS = {"openai": _openai, "anthropic": _anthropic, "sharegpt": _sharegpt}


def cases(formats: tuple[str, ...], layouts: range, systems: range) -> list[Case]:
    """Every log of ``formats`` x ``layouts`` x ``systems`` (indices into :data:`LAYOUTS`,
    :data:`SYSTEMS`)."""
    return [
        Case(
            f"{fmt}-layout{layout}-system{system}",
            f"{fmt}.json",
            FORMATS[fmt](SYSTEMS[system], LAYOUTS[layout]),
            LAYOUTS[layout],
        )
        for fmt in formats
        for layout in layouts
        for system in systems
    ]


DEV = cases(("openai", "sharegpt"), range(2), range(2))
VALIDATION = cases(("anthropic",), range(4), range(4)) + cases(("openai", "sharegpt"), range(2, 4), range(4))
