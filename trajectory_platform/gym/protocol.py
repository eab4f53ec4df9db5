"""The single tool-call text format a model emits and the runtime parses.

It is the format of the training chat template (``trajectory_platform.training.data.chat_template``),
so what the policy learns is exactly what the runtime reads::

    <|reasoning|>why<|end_reasoning|>prose
    <|call|>{"name": "read_file", "arguments": {"file_path": "a.py"}}<|end_call|>   (one line in reality)

- one ``<|call|>...<|end_call|>`` block per call, a JSON object with ``name`` then ``arguments``
  (the role label and the call opener precede the tool name: tokenizer-friendly);
- a turn without a call is a final answer; the turn terminator ``<|end_turn|>`` is the model's
  stop token (a serving stack reports it as ``finish_reason == "stop"``);
- a tool observation is the host's ``<|tool|>...<|end|>`` segment: a model that writes one inside
  its own turn has fabricated a tool result instead of stopping.

Malformed calls are data: the parser keeps their raw text so curation can see what was emitted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trajectory_platform.traces.record import ToolCall, canonical_json

CALL_OPEN = "<|call|>"
CALL_CLOSE = "<|end_call|>"
REASONING_OPEN = "<|reasoning|>"
REASONING_CLOSE = "<|end_reasoning|>"
END_TURN = "<|end_turn|>"
TOOL_OPEN = "<|tool|>"
HOST_END = "<|end|>"

_NAME_RE = re.compile(r'"name"\s*:\s*"([^"\\]*)"')
_ARGS_RE = re.compile(r'"arguments"\s*:\s*(.*)\}\s*$', re.DOTALL)


@dataclass
class ParseError:
    """Why a turn's text holds no dispatchable calls.

    ``category`` follows fine-tuning table 11: ``malformed`` (unparsable serialization) or
    ``truncated`` (a call cut off before its closing marker). ``calls`` keeps what could be
    recovered (name and raw argument text) so the log shows what the model emitted.
    """

    category: str
    reason: str
    calls: list[ToolCall]


@dataclass
class ParsedTurn:
    """A turn split into its parts: prose, reasoning, calls, and any fabricated observation."""

    content: str
    reasoning: str | None
    calls: list[ToolCall] | ParseError
    fabricated_observation: str | None


def render_tool_call(name: str, arguments: dict[str, Any] | str) -> str:
    """One call in the wire format; a raw ``str`` of arguments is rendered verbatim."""
    args = arguments if isinstance(arguments, str) else canonical_json(arguments)
    return f'{CALL_OPEN}{{"name": {json.dumps(name)}, "arguments": {args}}}{CALL_CLOSE}'


def render_turn(
    content: str = "", calls: Sequence[tuple[str, dict[str, Any] | str]] = (), reasoning: str | None = None
) -> str:
    """A whole assistant turn's text (without the terminator): reasoning, prose, then calls."""
    parts = [f"{REASONING_OPEN}{reasoning}{REASONING_CLOSE}" if reasoning else "", content]
    parts.extend(render_tool_call(n, a) for n, a in calls)
    return "".join(parts)


def _parse_block(body: str, call_id: str) -> ToolCall | str:
    """A ``ToolCall`` for a well-formed block, else the reason it is malformed."""
    try:
        obj = json.loads(body)
    except json.JSONDecodeError as exc:
        return f"call is not valid JSON ({exc.msg} at char {exc.pos})"
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        return 'call must be a JSON object with a string "name"'
    args = obj.get("arguments", {})
    if not isinstance(args, dict):
        return '"arguments" must be a JSON object'
    return ToolCall(id=call_id, name=obj["name"], arguments=canonical_json(args))


def _salvage(body: str, call_id: str) -> ToolCall:
    """Best-effort name and raw arguments of a malformed block (kept as data, never repaired)."""
    name = _NAME_RE.search(body)
    args = _ARGS_RE.search(body.strip())
    return ToolCall(
        id=call_id, name=name.group(1) if name else None, arguments=args.group(1) if args else body
    )


def find_fabricated_observation(text: str) -> str | None:
    """The text of a tool observation the model wrote itself, if any (fabrication evidence)."""
    start = text.find(TOOL_OPEN)
    if start < 0:
        return None
    end = text.find(HOST_END, start)
    return text[start + len(TOOL_OPEN) : end if end >= 0 else len(text)]


def parse_tool_calls(
    text: str, id_prefix: str = "call", truncated: bool = False
) -> list[ToolCall] | ParseError:
    """Every call in ``text``, in order, with ids ``<id_prefix>_<k>``; or why there are none.

    ``truncated`` says the generation stopped at its length limit: an unclosed call then counts as
    a truncated proposal rather than a malformed one. Text after a fabricated observation is not
    the model's to act on, so calls there are ignored.
    """
    fabricated_at = text.find(TOOL_OPEN)
    if fabricated_at >= 0:
        text = text[:fabricated_at]
    calls: list[ToolCall] = []
    problems: list[str] = []
    category = "malformed"
    pos = 0
    while True:
        start = text.find(CALL_OPEN, pos)
        if start < 0:
            break
        call_id = f"{id_prefix}_{len(calls)}"
        body_start = start + len(CALL_OPEN)
        end = text.find(CALL_CLOSE, body_start)
        if end < 0:
            body = text[body_start:]
            calls.append(_salvage(body, call_id))
            problems.append("call has no closing marker")
            category = "truncated" if truncated else "malformed"
            break
        body = text[body_start:end]
        parsed = _parse_block(body, call_id)
        if isinstance(parsed, str):
            calls.append(_salvage(body, call_id))
            problems.append(parsed)
        else:
            calls.append(parsed)
        pos = end + len(CALL_CLOSE)
    if problems:
        return ParseError(category=category, reason="; ".join(problems), calls=calls)
    return calls


def parse_turn(text: str, id_prefix: str = "call", truncated: bool = False) -> ParsedTurn:
    """Split a generated turn into reasoning, prose (outside call blocks) and calls."""
    text = text.replace(END_TURN, "")
    reasoning = None
    if text.startswith(REASONING_OPEN):
        close = text.find(REASONING_CLOSE)
        if close >= 0:
            reasoning = text[len(REASONING_OPEN) : close]
            text = text[close + len(REASONING_CLOSE) :]
    fabricated = find_fabricated_observation(text)
    head = text if fabricated is None else text[: text.find(TOOL_OPEN)]
    return ParsedTurn(
        content=_prose(head).strip(),
        reasoning=reasoning,
        calls=parse_tool_calls(text, id_prefix=id_prefix, truncated=truncated),
        fabricated_observation=fabricated,
    )


def _prose(text: str) -> str:
    """Everything outside call blocks (an unclosed block runs to the end), in order: no text the
    model wrote is lost from the log, while the calls themselves live in ``tool_calls``."""
    parts = []
    pos = 0
    while True:
        start = text.find(CALL_OPEN, pos)
        if start < 0:
            parts.append(text[pos:])
            return "".join(parts)
        parts.append(text[pos:start])
        end = text.find(CALL_CLOSE, start)
        if end < 0:
            return "".join(parts)
        pos = end + len(CALL_CLOSE)


def render_tools(specs: list[Any]) -> str:
    """Tool specs as the prompt shows them: ``name: description {json schema}`` one per line."""
    lines = []
    for spec in specs:
        params = spec.parameters_json if spec.parameters_json else "{}"
        lines.append(f"{spec.name}: {spec.description or ''} {params}")
    return "\n".join(lines)
