"""Assistant messages holding a tool's result among their parts with no step marker between the
steps (Mastra's format-2 messages, the AI SDK v4's ``UIMessage`` ``tool-invocation`` parts, a v5
``tool-<name>`` part saved without ``step-start``): the text the model wrote after the result was
joined to the turn that made the call, as if written before the model saw it.

:data:`DEV` is what the reading was developed against; :data:`VALIDATION` (two steps, reasoning after
a result, a v5 typed tool part) was held out; :data:`CONTROLS` (text before the call, a call still
waiting for its result, a message with step markers) must read as before."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def invocation(cid: str, result: Any = None) -> dict[str, Any]:
    state = "result" if result is not None else "call"
    body = {"state": state, "toolCallId": cid, "toolName": "weather", "args": {"city": cid}}
    return {
        "type": "tool-invocation",
        "toolInvocation": body | ({"result": result} if result is not None else {}),
    }


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


@dataclass(frozen=True)
class Case:
    """Parts of one assistant message, in a Mastra thread or a UI message list, and the turns they
    hold as (kind, content, calls)."""

    name: str
    parts: list[dict[str, Any]]
    expected: list[tuple[str, str | None, list[str]]]
    mastra: bool


def _both(
    name: str, parts: list[dict[str, Any]], expected: list[tuple[str, str | None, list[str]]]
) -> list[Case]:
    return [Case(f"{name}-mastra", parts, expected, True), Case(f"{name}-ui-message", parts, expected, False)]


DEV = _both(
    "answer-after-result",
    [invocation("Paris", {"temp": 18}), text("It is 18C.")],
    [("assistant", None, ["weather"]), ("tool", '{"temp":18}', []), ("assistant", "It is 18C.", [])],
)
VALIDATION = [
    *_both(
        "two-steps",
        [
            text("Checking."),
            invocation("Paris", "18C"),
            text("Now Rome."),
            invocation("Rome", "25C"),
            text("Done."),
        ],
        [
            ("assistant", "Checking.", ["weather"]),
            ("tool", "18C", []),
            ("assistant", "Now Rome.", ["weather"]),
            ("tool", "25C", []),
            ("assistant", "Done.", []),
        ],
    ),
    *_both(
        "reasoning-after-result",
        [invocation("Paris", "18C"), {"type": "reasoning", "text": "Warm."}, text("18C.")],
        [("assistant", None, ["weather"]), ("tool", "18C", []), ("assistant", "18C.", [])],
    ),
    Case(
        "v5-typed-part",
        [
            {
                "type": "tool-weather",
                "toolCallId": "p",
                "state": "output-available",
                "input": {},
                "output": "18C",
            },
            text("18C."),
        ],
        [("assistant", None, ["weather"]), ("tool", "18C", []), ("assistant", "18C.", [])],
        False,
    ),
]
CONTROLS = [
    *_both(
        "text-before-the-call",
        [text("Checking."), invocation("Paris", "18C")],
        [("assistant", "Checking.", ["weather"]), ("tool", "18C", [])],
    ),
    *_both(
        "a-call-waiting",
        [invocation("Paris"), text("Waiting for the tool.")],
        [("assistant", "Waiting for the tool.", ["weather"])],
    ),
    Case(
        "step-markers",
        [
            {"type": "step-start"},
            invocation("Paris", "18C"),
            text("Still step one."),
            {"type": "step-start"},
            text("Two."),
        ],
        [("assistant", "Still step one.", ["weather"]), ("tool", "18C", []), ("assistant", "Two.", [])],
        False,
    ),
]
