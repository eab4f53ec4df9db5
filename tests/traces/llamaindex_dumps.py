"""LlamaIndex agent workflow runs as a deployment's own logger dumps the streamed events (each event's
class under a key of the logger's choosing, its ``model_dump()`` beside it or under ``data`` /
``value``), not the workflow's serializer's ``{"qualified_name", "value"}``. Each was read by
``chat-log`` as its first line alone, every later line a ``missing field`` reject.

:data:`DEV` (the class under ``event_type`` or ``type``, fields inline, one a line) is what the reading
was developed against; :data:`VALIDATION` (fields under ``data`` / ``value``, the class as a dotted
path under ``__class__``, ``class_name``, JSON lists, a failed tool) was held out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ASK = "Weather in Paris?"
AGENT = {"current_agent_name": "Agent"}


def run(failed: bool) -> list[tuple[str, dict[str, Any]]]:
    """A run's events as (class, fields): the question, a call, its result, the answer, the stop."""
    return [
        (
            "AgentInput",
            {"input": [{"role": "user", "blocks": [{"block_type": "text", "text": ASK}]}], **AGENT},
        ),
        ("AgentStream", {"delta": "", "response": "", "tool_calls": [], "raw": {}, **AGENT}),
        (
            "AgentOutput",
            {
                "response": {"role": "assistant", "blocks": []},
                "tool_calls": [
                    {"tool_id": "call_1", "tool_name": "get_weather", "tool_kwargs": {"city": "Paris"}}
                ],
                "raw": {},
                **AGENT,
            },
        ),
        ("ToolCall", {"tool_name": "get_weather", "tool_kwargs": {"city": "Paris"}, "tool_id": "call_1"}),
        (
            "ToolCallResult",
            {
                "tool_name": "get_weather",
                "tool_kwargs": {"city": "Paris"},
                "tool_id": "call_1",
                "tool_output": {
                    "content": "timeout" if failed else "18C",
                    "tool_name": "get_weather",
                    "is_error": failed,
                },
                "return_direct": False,
            },
        ),
        (
            "AgentOutput",
            {
                "response": {"role": "assistant", "blocks": [{"block_type": "text", "text": "Done."}]},
                "tool_calls": [],
                **AGENT,
            },
        ),
        ("StopEvent", {"result": None}),
    ]


LAYOUTS = {
    "event_type-inline": lambda kind, fields: {"event_type": kind, **fields},
    "type-inline": lambda kind, fields: {"type": kind, **fields},
    "type-data": lambda kind, fields: {"type": kind, "data": fields},
    "event-value": lambda kind, fields: {"event": kind, "value": fields},
    "class-path": lambda kind, fields: {
        "__class__": "llama_index.core.agent.workflow.workflow_events." + kind,
        **fields,
    },
    "class_name": lambda kind, fields: {"class_name": kind, **fields},
}


@dataclass(frozen=True)
class Case:
    """One dumped run: its file, its lines (or list), and whether its tool failed."""

    name: str
    file: str
    events: list[dict[str, Any]]
    lines: bool
    failed: bool


def cases(layouts: tuple[str, ...], lines: tuple[bool, ...], failed: bool) -> list[Case]:
    return [
        Case(
            f"{layout}-{'jsonl' if one_a_line else 'list'}{'-failed' if failed else ''}",
            "events.jsonl" if one_a_line else "events.json",
            [LAYOUTS[layout](kind, fields) for kind, fields in run(failed)],
            one_a_line,
            failed,
        )
        for layout in layouts
        for one_a_line in lines
    ]


DEV = cases(("event_type-inline", "type-inline"), (True,), False)
VALIDATION = cases(("type-data", "event-value", "class-path", "class_name"), (True, False), False) + cases(
    ("type-inline",), (False,), True
)
CONTROLS = [
    [
        {"type": "ToolCall", "name": "get_weather", "args": {"city": "Paris"}},
        {"type": "AgentOutput", "text": "18C"},
    ],
    [{"event": "StopEvent", "result": "done"}],
]
"""Lines naming those classes without their fields (another framework's events): not LlamaIndex's."""
