"""Generated tool results in a harness's own error wording, for ``tool_errors.mark_harness_errors``:
each must be read as a failed call (status ``error``) in every log format that carries it, and the
controls (results that mention an error in other words, the wording in a person's or the model's
turn, a status the log states other than ``ok``) must keep what they had.

The wordings are each harness's templates filled in; :data:`DEV` holds CrewAI's tool-use exception
and unknown-tool wordings and LangGraph's call-error template, in OpenAI messages and CrewAI's ReAct
text; :data:`VALIDATION` (CrewAI's other errors, LangGraph's execution template, the Agents SDK's,
in LangChain messages stamped ``success``, Anthropic ``tool_result`` blocks and ShareGPT) was held
out and measured once after."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from test_react_observations_in_the_acting_text import SYSTEM

WORDINGS = {
    "crewai-exception": "I encountered an error while trying to use the tool. This was the error: "
    "HTTPError('500 Server Error').\n Tool get_weather accepts these inputs: Tool Name: get_weather\n"
    "Tool Arguments: {'city': {'type': 'str'}}",
    "crewai-unknown-tool": "You tried to use the tool weather_now, but it doesn't exist. You must use one "
    "of the following tools, use one at time: get_weather.",
    "langgraph-call": "Error: KeyError('city')\n Please fix your mistakes.",
    "crewai-usage": "I encountered an error: the city service timed out",
    "crewai-arguments": "Error: the Action Input is not a valid key, value dictionary.",
    "crewai-repeated": "I tried reusing the same input, I must stop using this action input. I'll try "
    "something else instead.\n\n",
    "langgraph-execution": "Error executing tool 'get_weather' with kwargs {'city': 'Paris'} with error:\n"
    " ConnectionError('refused')\n  Please fix the error and try again.",
    "openai-agents": "An error occurred while running the tool. Please try again. Error: timeout",
    "openai-agents-later": "An error occurred while running the tool. Please try again.",
}
CONTROLS = {
    "no-errors": "No errors found. 3 passed in 0.02s",
    "an-error-rate": "Error rate: 0.1% over the last hour",
    "a-bare-error": "Error: file not found",
    "the-tail-alone": "Done. Please fix your mistakes.",
    "quoted-later": "Log says: I encountered an error while trying to use the tool. This was the error: x",
}
"""Tool results that are not a harness's error wording (a tool's own ``Error:`` line is its output,
its status is the log's to state)."""


@dataclass(frozen=True)
class Case:
    """One generated log and the status its one tool result must have."""

    name: str
    file: str
    record: Any
    status: str | None


ASK = "What is the weather in Paris?"


def _openai(result: str) -> Any:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    return {
        "messages": [
            {"role": "user", "content": ASK},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": result},
            {"role": "assistant", "content": "It failed."},
        ]
    }


def _crewai(result: str) -> Any:
    acting = (
        f'Thought: look it up\nAction: get_weather\nAction Input: {{"city": "Paris"}}\nObservation: {result}'
    )
    final = "Thought: I now know the final answer\nFinal Answer: unknown"
    return {
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": ASK},
            {"role": "assistant", "content": acting.rstrip()},
            {"role": "assistant", "content": final},
        ]
    }


def _langchain(result: str) -> Any:
    call = {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}, "type": "tool_call"}
    return {
        "messages": [
            {"type": "human", "content": ASK},
            {"type": "ai", "content": "", "tool_calls": [call]},
            {
                "type": "tool",
                "content": result,
                "tool_call_id": "c1",
                "name": "get_weather",
                "status": "success",
            },
            {"type": "ai", "content": "It failed."},
        ]
    }


def _anthropic(result: str) -> Any:
    use = {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}}
    return {
        "model": "claude-sonnet-4-5",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": ASK}]},
            {"role": "assistant", "content": [use]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": result}]},
            {"role": "assistant", "content": [{"type": "text", "text": "It failed."}]},
        ],
    }


def _sharegpt(result: str) -> Any:
    call = json.dumps({"name": "get_weather", "arguments": {"city": "Paris"}})
    turns = [
        {"from": "human", "value": ASK},
        {"from": "function_call", "value": call},
        {"from": "observation", "value": result},
        {"from": "gpt", "value": "It failed."},
    ]
    return {"id": "sg-1", "conversations": turns, "tools": "[]"}


FORMATS = {
    "openai": _openai,
    "crewai": _crewai,
    "langchain": _langchain,
    "anthropic": _anthropic,
    "sharegpt": _sharegpt,
}


def cases(formats: tuple[str, ...], wordings: tuple[str, ...], controls: tuple[str, ...]) -> list[Case]:
    """Each of ``wordings`` (an ``error``) and ``controls`` (the status the format gives an ordinary
    result: none, or ``ok`` where it states one: LangChain's ``success``, Anthropic's ``is_error`` unset)
    in each of ``formats``."""
    ordinary = {"langchain": "ok", "anthropic": "ok"}
    return [
        Case(f"{fmt}-{name}", f"{fmt}.json", FORMATS[fmt](texts[name]), status)
        for fmt in formats
        for texts, names, status_of in ((WORDINGS, wordings, None), (CONTROLS, controls, fmt))
        for name in names
        for status in (["error"] if status_of is None else [ordinary.get(fmt)])
    ]


DEV = cases(
    ("openai", "crewai"),
    ("crewai-exception", "crewai-unknown-tool", "langgraph-call"),
    ("no-errors", "a-bare-error"),
)
VALIDATION = cases(("openai", "crewai"), tuple(WORDINGS)[3:], tuple(CONTROLS)[2:]) + cases(
    ("langchain", "anthropic", "sharegpt"), tuple(WORDINGS), tuple(CONTROLS)
)
