"""Tool use and reasoning written as plain text in conventions that are not XML-like tags (those are
``inline_markup.py``'s), read into the structured fields by the same rules:

- OpenThoughts / Bespoke-Stratos: ``<|begin_of_thought|> ... <|end_of_thought|>`` then, optionally,
  ``<|begin_of_solution|> ... <|end_of_solution|>`` -> the turn's reasoning and its answer;
- Mistral's raw template tokens: ``[TOOL_CALLS][{"name", "arguments", "id"}]`` (or
  ``[TOOL_CALLS]name[ARGS]{...}``) -> calls; ``[TOOL_RESULTS]{"content", "call_id"}[/TOOL_RESULTS]``
  -> the result of the call it names;
- ReAct (LangChain's agents, ToolLLaMA / ToolBench's ShareGPT): ``Action: name`` then
  ``Action Input: ...`` -> a call, only when a tool turn, or a user turn starting ``Observation:``
  (ReAct's loop sends the tool's output back so), comes next; that observation -> the tool result.

Left as text, the calls were prose (no replay, the training mask read them as the model's words) and
a tool's output was a user turn or a result answering no call (``validate.py`` now rejects the
latter). Every pattern must open the text or a line, so a message that mentions one in a sentence
stays text; a block that cannot be read raises :class:`UnreadConvention`, counted, never guessed at.
"""

from __future__ import annotations

import json
import re
from typing import Any

from trajectory_platform.traces.adapters.base import RecordError, arguments_text, parse_json
from trajectory_platform.traces.record import Event, ToolCall, canonical_json


class UnreadConvention(ValueError):
    """A block in one of these conventions that cannot be read: its ``reason`` is counted."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_THOUGHT = re.compile(
    r"\A\s*<\|begin_of_thought\|>(?P<thought>.*?)<\|end_of_thought\|>\s*"
    r"(?:<\|begin_of_solution\|>(?P<solution>.*?)<\|end_of_solution\|>)?(?P<rest>.*)\Z",
    re.DOTALL,
)


def lift_thought_tokens(event: Event) -> bool:
    """An assistant turn opening with a thought block: its reasoning, and the solution (else the text
    after the block) its answer. Text after a solution block is not guessed at (False)."""
    if event.kind != "assistant" or event.reasoning is not None or not event.content:
        return False
    match = _THOUGHT.match(event.content)
    if match is None or (match["solution"] is not None and match["rest"].strip()):
        return False
    answer = match["solution"] if match["solution"] is not None else match["rest"]
    event.reasoning, event.content = match["thought"].strip() or None, answer.strip() or None
    return True


MISTRAL_CALLS, MISTRAL_ARGS = "[TOOL_CALLS]", "[ARGS]"
_MISTRAL_RESULTS = re.compile(r"\A\s*\[TOOL_RESULTS\](?P<payload>.*?)\[/TOOL_RESULTS\]\s*\Z", re.DOTALL)


def mistral_calls(text: str) -> tuple[list[ToolCall], str | None] | None:
    """The calls of an assistant text holding Mistral's ``[TOOL_CALLS]`` token at the start of the
    text or of a line, and the text before it; ``None`` when it holds none."""
    head, marker, tail = text.partition(MISTRAL_CALLS)
    if not marker or (head.strip() and not head.endswith("\n")):
        return None
    if tail.lstrip().startswith("["):
        payload = _json(tail, "unreadable [TOOL_CALLS] payload")
        if not isinstance(payload, list) or not all(isinstance(c, dict) for c in payload):
            raise UnreadConvention("unreadable [TOOL_CALLS] payload")
        calls = [_call(c.get("id"), c.get("name"), c.get("arguments")) for c in payload]
    else:  # v11 and later: name[ARGS]{...}, each call after its own [TOOL_CALLS]
        calls = []
        for piece in tail.split(MISTRAL_CALLS):
            name, args_marker, arguments = piece.partition(MISTRAL_ARGS)
            if not args_marker:
                raise UnreadConvention("unreadable [TOOL_CALLS] payload")
            calls.append(_call(None, name.strip(), _json(arguments, "unreadable [TOOL_CALLS] payload")))
    return calls, head.strip() or None


def mistral_result(text: str) -> tuple[str, str | None] | None:
    """A turn that is one ``[TOOL_RESULTS]`` block: the result's text and the call id it names."""
    match = _MISTRAL_RESULTS.match(text)
    if match is None:
        return None
    try:
        payload = parse_json(match["payload"])
    except (json.JSONDecodeError, RecordError):
        return match["payload"].strip(), None
    if isinstance(payload, dict) and "content" in payload:
        content, call_id = payload["content"], payload.get("call_id")
        text_content = content if isinstance(content, str) else canonical_json(content)
        return text_content, call_id if isinstance(call_id, str) else None
    return match["payload"].strip(), None


_ACTION = re.compile(
    r"^Action:[ \t]*(?P<name>[^\n]+?)[ \t]*\n+Action Input:[ \t]*(?P<input>.*?)[ \t]*"
    r"(?=\n(?:Observation|Thought|Final Answer):|\Z)",
    re.MULTILINE | re.DOTALL,
)
OBSERVATION = "Observation:"


def react_call(text: str) -> tuple[ToolCall, str | None] | None:
    """The last ``Action:`` / ``Action Input:`` pair of an assistant text, each opening its line:
    a call (its input as the model wrote it), and the text before it (the thought)."""
    matches = list(_ACTION.finditer(text))
    if not matches:
        return None
    last = matches[-1]
    if text[last.end() :].strip():
        return None  # text after the action: not a turn that ends by acting
    call = _call(None, last["name"].strip(), last["input"].strip())
    return call, text[: last.start()].strip() or None


def observation(event: Event) -> str | None:
    """The tool output a ReAct loop sent back as a user turn starting ``Observation:``."""
    text = (event.content or "").lstrip()
    return text[len(OBSERVATION) :].strip() if event.kind == "user" and text.startswith(OBSERVATION) else None


def _json(text: str, reason: str) -> Any:
    try:
        return parse_json(text.strip())
    except (json.JSONDecodeError, RecordError):
        raise UnreadConvention(reason) from None


def _call(call_id: Any, name: Any, arguments: Any) -> ToolCall:
    if not isinstance(name, str) or not name:
        raise UnreadConvention("call names no tool")
    return ToolCall(
        id=call_id if isinstance(call_id, str) and call_id else None,
        name=name,
        arguments=arguments_text(arguments),
    )
