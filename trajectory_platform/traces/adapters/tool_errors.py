"""A tool result in a harness's own error wording is a failed call, whatever status the log gave it.

Agent frameworks catch a tool's exception and hand the model a fixed sentence instead of the output
(CrewAI's ``I encountered an error while trying to use the tool. This was the error: ...``,
LangGraph's ``ToolNode``, the OpenAI Agents SDK's default error function). Their logs record that
sentence as the tool's result, with no status (CrewAI's ReAct text, split by
``text_conventions.react_turns``) or with ``ok`` (a tracing span that ended without raising), so a
failed call read as a successful one: a recovery trained as a clean run, an error's text as a
tool's answer. Each harness's wording is registered here (:data:`HARNESS_ERRORS`, the whole text
from its start, the variable parts the harness fills in); a result in one is an ``error``. Only a
tool event's text is read (never a turn a person or the model wrote), and a status the log states
other than ``ok`` (``refused``, ``truncated``, ``error``) is kept.
"""

from __future__ import annotations

import re

from trajectory_platform.traces.record import Episode

ERROR = "error"

HARNESS_ERRORS: dict[str, tuple[re.Pattern[str], ...]] = {
    "crewai": tuple(
        re.compile(pattern, re.DOTALL)
        for pattern in (
            r"I encountered an error while trying to use the tool\. This was the error: .*",
            r"I encountered an error: .+",
            r"Error: the Action Input is not a valid key, value dictionary\..*",
            r"You tried to use the tool .+, but it doesn't exist\. You must use one of the following tools,"
            r" use one at time: .*",
            r"Error executing tool\. coworker mentioned not found, it must be one of the following"
            r" options:.*",
            r"Error executing task with agent '[^'\n]*'\. Error: .*",
            r"I tried reusing the same input, I must stop using this action input\. I'll try something"
            r" else instead\..*",
        )
    ),
    "langgraph": tuple(
        re.compile(pattern, re.DOTALL)
        for pattern in (
            r"Error: .+\n [Pp]lease fix your mistakes\.\s*",
            r"Error (?:executing|invoking) tool '[^'\n]*' with kwargs .* with error:\n.*"
            r"Please fix the error and try again\.\s*",
        )
    ),
    "openai-agents": (
        re.compile(
            r"An error occurred while running the tool\. Please try again\.(?: Error: .*)?", re.DOTALL
        ),
    ),
}
"""Each harness's tool-error wordings, matched against a result's whole text from its start (CrewAI's
``translations/en.json`` errors; LangGraph's ``ToolNode`` templates, ``TOOL_CALL_ERROR_TEMPLATE`` and
the execution and invocation ones; the Agents SDK's ``default_tool_error_function``, with the error
or, in later versions, without). CrewAI's repeated-input notice is one: the call was not run."""


def harness_error(text: str | None) -> bool:
    """Is ``text`` (a tool result) a harness's registered error wording (:data:`HARNESS_ERRORS`)?"""
    body = (text or "").strip()
    return any(form.fullmatch(body) for forms in HARNESS_ERRORS.values() for form in forms)


def mark_harness_errors(episode: Episode) -> int:
    """Give each tool result in a harness's error wording the status ``error`` (in place), where the
    log stated none or ``ok``; how many were marked."""
    marked = 0
    for event in episode.events:
        if event.kind == "tool" and event.status in (None, "ok") and harness_error(event.content):
            event.status = ERROR
            marked += 1
    return marked
