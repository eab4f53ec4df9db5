"""What a message's list of content parts holds, recognised by the part's shape, not its vendor.

Chat frameworks write the same few kinds of part in many spellings: Anthropic's ``tool_use``,
Strands' ``{"toolUse": {...}}``, the Vercel AI SDK's ``tool-call``, Haystack's ``tool_call``,
Semantic Kernel's ``function_call``, Pydantic AI's ``tool-call``. A reader that knows only the
spellings it was written against turns the next one into junk text or silently loses it, so each
part is classified by what it carries (:func:`pieces_of`):

- a **tool call** names a tool and gives its input: a :data:`NAME_KEYS` field and an
  :data:`ARGUMENT_KEYS` field;
- a **tool result** answers a call and carries its output: a :data:`CALL_ID_KEYS` field (or a call
  of its own, nested: Haystack's ``origin``), or an ``id`` beside a tool name or under a type that
  says it answers (:data:`RESULT_WORDS`), and an :data:`OUTPUT_KEYS` field. A part with both a
  call's and a result's fields (a UI message's tool invocation that already ran) is the call and
  then its result;
- **reasoning** is a part whose type says so (:data:`REASONING_WORDS`);
- **text** is a ``text`` string (or ``{"value": ...}``, as the Assistants API writes it), or a
  ``content`` string;
- **media** (an image, audio, a file) is decorative: a marker naming its type, as before
  (:func:`~trajectory_platform.traces.adapters.base.is_media`).

The fields of a part may sit in the part itself, under the key its ``type`` names (OpenAI's
``{"type": "custom", "custom": {...}}``), under the one key of a single-key wrapper
(``{"toolUse": {...}}``), or in a typed part's one object field. Anything else is an **unknown
content part**: the record is rejected with the part's path and type (never its text), so nothing
is lost silently or trained on as placeholder text; in a tool's own message it is the tool's output
data, kept as canonical JSON. The key tables below hold every part-level spelling; those of a
message's own fields (where its parts, its reasoning, its answer sit) are in ``openai.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from trajectory_platform.traces.adapters.anthropic_results import is_result_block, result_event
from trajectory_platform.traces.adapters.base import (
    RecordError,
    arguments_text,
    is_media,
    optional_str,
    parse_json,
    part_text,
    part_type,
    text_of,
)
from trajectory_platform.traces.adapters.citations import joins_cited
from trajectory_platform.traces.drops import path_of
from trajectory_platform.traces.record import Event, ToolCall, canonical_json

NAME_KEYS = ("name", "tool_name", "toolName", "function_name", "functionName")
PLUGIN_KEYS = ("plugin_name", "pluginName")
PLUGIN_SEPARATOR = "-"
"""Semantic Kernel names a function by its plugin and its own name apart (``plugin_name``,
``function_name``); the model calls it by the two joined with this separator
(``WeatherPlugin-get_weather``), the name its Python ``FunctionCallContent.name`` holds."""
ARGUMENT_KEYS = ("arguments", "input", "args", "parameters")
CALL_ID_KEYS = ("tool_call_id", "toolCallId", "tool_use_id", "toolUseId", "call_id", "callId")
OUTPUT_KEYS = ("output", "result", "content", "response", "outputs", "error_text", "errorText")
"""Where a result keeps the tool's output: Cohere v1's ``outputs`` (a list of the tool's objects,
beside the ``call`` it answers); the last two are the AI SDK's error text (``errorText``), which a
failed tool part carries instead of an ``output``."""
STEP_WORD = "step"
"""A part holding only a type with this word in it (``step-start``) opens a model step (:func:`steps_of`)."""
TOOL_TYPE_PREFIX = "tool-"
"""How the Vercel AI SDK v5 names a static tool's part: ``tool-<tool name>`` (:func:`named_by_type`)."""
RESULT_WORDS = ("result", "response", "return", "output")
REASONING_WORDS = ("reason", "think")
"""A part whose type holds one of these words is reasoning: ``thinking``, ``redacted_thinking``,
``reasoning``, the AI SDK's ``redacted-reasoning``, Bedrock's and Strands' ``reasoningContent``."""
REASONING_TEXT_KEYS = ("thinking", "reasoning", "text", "content", "summary")
REDACTED = "[redacted thinking]"
ERROR_STATUSES = frozenset({"error", "failed", "failure"})
TYPED_OUTPUTS = frozenset({"text", "json", "content", "error-text", "error-json"})
DENIED_OUTPUT = "execution-denied"
"""The kinds of the AI SDK's typed tool output (:func:`typed_output`)."""
REFUSED = "refused"
"""A result's status where the call was refused before it ran (a person denied its approval): the
tool event's status as it is."""

Piece = tuple[str, Any]
"""One part read: ``("text", str)``, ``("reasoning", str)``, ``("call", ToolCall)`` or
``("result", Event)`` (a tool event)."""


def bodies_of(part: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    """The objects that may hold a part's fields, most likely first, and the part's type: the one
    under the key its type names, or under the one key of a single-key wrapper (whose key is then
    its type); the part itself; and, for a typed part, its one object field (the Vercel AI SDK's
    ``{"type": "tool-invocation", "toolInvocation": {...}}``)."""
    kind = part_type(part)
    if kind is not None and isinstance(part.get(kind), dict):
        return [part[kind], part], kind
    if kind is None and len(part) == 1:
        key, inner = next(iter(part.items()))
        if isinstance(inner, dict) and not isinstance(inner.get("value"), str):
            return [inner, part], key
    objects = [value for value in part.values() if isinstance(value, dict)]
    return [part, *(objects if kind is not None and len(objects) == 1 else [])], kind


def _first(body: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """The first of ``keys`` present (not null) in ``body``."""
    return next((body[k] for k in keys if body.get(k) is not None), None)


def _nested_call(body: dict[str, Any]) -> dict[str, Any] | None:
    """A call a result carries to say what it answers (Haystack's ``origin``)."""
    return next((v for v in body.values() if isinstance(v, dict) and _is_call(v)), None)


def _is_call(body: dict[str, Any]) -> bool:
    return _first(body, NAME_KEYS) is not None and any(k in body for k in ARGUMENT_KEYS)


def _is_result(body: dict[str, Any], kind: str | None) -> bool:
    """A call id (or a nested call) and an output; a bare ``id`` counts when a tool name stands
    beside it or the part's type says it answers (:data:`RESULT_WORDS`: OTel's
    ``tool_call_response``, Pydantic AI's ``tool-return``)."""
    named_call = _first(body, CALL_ID_KEYS) is not None or _nested_call(body) is not None
    answers = _first(body, NAME_KEYS) is not None or any(w in (kind or "") for w in RESULT_WORDS)
    return (named_call or body.get("id") is not None and answers) and any(k in body for k in OUTPUT_KEYS)


def named_by_type(part: dict[str, Any]) -> dict[str, Any]:
    """A part that names its tool in its type, as the Vercel AI SDK v5 writes a static tool's part
    (``{"type": "tool-getWeather", "toolCallId", "state", "input", "output"}``), with the name as a
    field; any other part unchanged. Only a part that carries a call id and names no tool otherwise
    counts, so a type that is a kind (``tool-call``, ``tool-result``) is never taken for a name."""
    kind = part_type(part)
    if (
        kind is None
        or not kind.startswith(TOOL_TYPE_PREFIX)
        or _first(part, NAME_KEYS) is not None
        or _first(part, CALL_ID_KEYS) is None
    ):
        return part
    return {**part, "tool_name": kind.removeprefix(TOOL_TYPE_PREFIX)}


def tool_name_of(body: dict[str, Any], where: str) -> str | None:
    """The tool a part names, as the model called it: its ``name``, else a function named within its
    plugin as ``plugin-function`` (:data:`PLUGIN_SEPARATOR`), else the function's own name. Read
    the same way for a call and its result, so one tool is never two names (a call named
    ``Plugin-fn``, its result ``fn``)."""
    if body.get("name") is None and (plugin := _first(body, PLUGIN_KEYS)) is not None:
        function = _first(body, NAME_KEYS)
        if function is not None:
            plugin_name = optional_str(plugin, f"{where}.plugin_name")
            return f"{plugin_name}{PLUGIN_SEPARATOR}{optional_str(function, f'{where}.function_name')}"
    return optional_str(_first(body, NAME_KEYS), f"{where}.name")


def call_of(body: dict[str, Any], where: str) -> ToolCall:
    """A tool call part: its id, the tool's name, its input as the raw string recorded."""
    return ToolCall(
        id=optional_str(_first(body, (*CALL_ID_KEYS, "id")), f"{where}.id"),
        name=tool_name_of(body, where),
        arguments=arguments_text(_first(body, ARGUMENT_KEYS)),
    )


def output_text(output: Any, where: str) -> str | None:
    """A tool's output as text: a string, a list of text (and media) parts, else canonical JSON of
    the structured value (the data itself, never a placeholder)."""
    try:
        return text_of(output, where)
    except RecordError:
        return canonical_json(output)


RESULT_FACT_KEYS = frozenset(
    {"type", "id", "status", "state", "is_error", "isError", "cache_control", *CALL_ID_KEYS, *NAME_KEYS}
)
"""Fields of a tool result part that say which call it answers and how it went, never its output."""


def check_output_found(part: dict[str, Any], output: Any, where: str) -> None:
    """Reject a tool result part whose output is nowhere its reader looks while other fields of it
    hold something: its payload sits under keys the reader does not know (Amp's ``toolUseID`` with
    ``run.result`` / ``run.error``). Admitted, it was an empty ``ok`` result the model never saw,
    and the record counted as read; a result with no output and only the facts of its call
    (:data:`RESULT_FACT_KEYS`) is an empty result, as recorded."""
    if output is not None:
        return
    unread = sorted(
        str(k)
        for k, v in part.items()
        if k not in RESULT_FACT_KEYS and v not in (None, "", [], {}, False, True)
    )
    if unread:
        raise RecordError(
            "unread content part",
            f"{where} is a tool result with no output where its reader looks ({', '.join(OUTPUT_KEYS)}), "
            f"while {path_of(unread[:1])}{' and others' if unread[1:] else ''} holds something: "
            "its payload would be lost",
        )


def typed_output(output: Any) -> tuple[Any, str | None]:
    """A tool output the Vercel AI SDK (v5 on) wraps in its kind, ``{"type": "text" / "json" /
    "content" / "error-text" / "error-json", "value"}`` or ``{"type": "execution-denied", "reason"}``:
    its value, and ``"error"`` or :data:`REFUSED` where the kind says the tool failed or was never
    run. Read as data, the wrapper was the tool's output and an error an ``ok`` result. Any other
    output is returned as it is, with None."""
    if not isinstance(output, dict) or not isinstance(output.get("type"), str):
        return output, None
    kind = output["type"]
    if kind == DENIED_OUTPUT and set(output) <= {"type", "reason", "providerOptions"}:
        return output.get("reason") or "", REFUSED
    if (
        kind not in TYPED_OUTPUTS
        or "value" not in output
        or not set(output) <= {"type", "value", "providerOptions"}
    ):
        return output, None
    return output["value"], "error" if kind.startswith("error-") else None


def result_of(body: dict[str, Any], where: str) -> Event:
    """A tool result part as a tool event: the call it answers, its output, whether it failed."""
    origin = _nested_call(body) or {}
    status = body.get("status", body.get("state"))
    failed = bool(
        body.get("is_error")
        or body.get("isError")
        or body.get("error") is True
        or (isinstance(status, str) and any(word in status for word in ERROR_STATUSES))
    )
    output = next((body[k] for k in OUTPUT_KEYS if k in body and not isinstance(body[k], bool)), None)
    check_output_found(body, output, where)
    output, said = typed_output(output)
    failed = failed or said == "error"
    status = REFUSED if said == REFUSED else status
    return Event(
        kind="tool",
        content=output_text(output, f"{where}.output"),
        tool_call_id=optional_str(
            _first(body, CALL_ID_KEYS) or body.get("id") or origin.get("id"), f"{where}.id"
        ),
        tool_name=tool_name_of(body, where) or tool_name_of(origin, f"{where}.origin"),
        status="error"
        if failed or (isinstance(status, str) and status in ERROR_STATUSES)
        else REFUSED
        if status == REFUSED
        else "ok",
    )


def _reasoning(body: dict[str, Any], where: str) -> str:
    """A reasoning part's text (a string, or a list of text parts as Mistral writes it); a redacted
    or encrypted one is marked as such (never its ciphertext)."""
    for key in REASONING_TEXT_KEYS:
        if isinstance(body.get(key), str | list):
            return text_of(body[key], f"{where}.{key}") or ""
    nested = [value for value in body.values() if isinstance(value, dict)]
    return _reasoning(nested[0], where) if len(nested) == 1 else REDACTED  # Bedrock's reasoningText


def reasoning_text(value: Any, where: str) -> str | None:
    """A message's reasoning field as text: a string; an object or a list of reasoning entries
    (OpenRouter's ``reasoning_details``: ``reasoning.text`` / ``.summary`` / ``.encrypted``), each
    read as a reasoning part is."""
    if value is None or isinstance(value, str):
        return value
    entries = value if isinstance(value, list) else [value]
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict | str):
            raise RecordError("wrong type", f"{where}[{index}] is {type(entry).__name__}")
    return "\n".join(e if isinstance(e, str) else _reasoning(e, where) for e in entries)


def piece_of(part: Any, where: str, output: bool = False) -> list[Piece]:
    """What one part is (see the module docstring); raises for a part of an unknown kind, except in a
    tool's ``output``, where every part is the tool's data: kept as canonical JSON (Cohere's
    ``{"type": "document", "document": {"data"}}``)."""
    if isinstance(part, str):
        return [("text", part)]
    if not isinstance(part, dict):
        raise RecordError("wrong type", f"{where} is {type(part).__name__}")
    if part_type(part) is not None and len(part) == 1 and not is_media(part):
        return []  # nothing but its kind (the AI SDK's ``step-start``: see :func:`steps_of`)
    if is_result_block(part) and part["type"] != "tool_result":
        return [
            ("result", result_event(part, where, None))
        ]  # a server / MCP tool's, as Anthropic's reader reads it
    part = named_by_type(part)
    bodies, kind = bodies_of(part)
    if any(word in (kind or "").lower() for word in REASONING_WORDS):
        return [("reasoning", _reasoning(bodies[0], where))]
    for body in bodies:
        fields = body if body is part else {**part, **body}  # an id beside the nested body counts
        pieces: list[Piece] = []
        if _is_call(body):
            pieces.append(("call", call_of(fields, where)))
        if _is_result(body, kind) or (pieces and any(k in body for k in ("result", "output"))):
            pieces.append(("result", result_of(fields, where)))
        if pieces:
            return pieces
    try:
        return [("text", part_text(part, where))]
    except RecordError:
        if not output:
            raise
        return [("text", canonical_json(part))]


def steps_of(content: list[Any]) -> list[tuple[int, list[Any]]]:
    """An assistant message's parts split into the model's steps, each with the index of its first
    part: a message of an agent loop may hold several model calls, the tool results between them
    included (the Vercel AI SDK's ``UIMessage``, whose ``step-start`` part opens each step). Its text
    after a result was written after the model saw that result, so it is a turn of its own, never
    joined to the turn that made the call. A part that holds only a type naming a step marks the
    boundary; so does, where the message marks none, a part the model wrote (text, reasoning, a
    call) after a part holding a result (a ``tool-invocation`` whose ``result`` came back, as Mastra
    and the AI SDK v4 keep them): the model wrote it after it saw that result. A message with
    neither is one step."""
    steps: list[tuple[int, list[Any]]] = [(0, [])]
    marked = any(_step_marker(part) for part in content)
    seen_result = False
    for index, part in enumerate(content):
        pieces = [] if marked else _pieces_or_none(part)
        after_result = seen_result and any(piece != "result" for piece, _ in pieces)
        if (_step_marker(part) or after_result) and steps[-1][1]:
            steps.append((index, []))
            seen_result = False
        seen_result = seen_result or any(piece == "result" for piece, _ in pieces)
        steps[-1][1].append(part)
    return steps


def _step_marker(part: Any) -> bool:
    return isinstance(part, dict) and len(part) == 1 and STEP_WORD in str(part_type(part))


def _pieces_or_none(part: Any) -> list[Piece]:
    """What a part reads as, or nothing where it cannot be read (its reader says why later)."""
    try:
        return piece_of(part, "")
    except RecordError:
        return []


def pieces_of(content: list[Any], where: str, output: bool = False) -> list[Piece]:
    """Every part of a content list read, in order (``output``: a tool message's, see :func:`piece_of`);
    a cited text block and the text beside it are one piece, the sentence the API split at its
    citation (``citations.joins_cited``)."""
    out: list[Piece] = []
    for index, part in enumerate(content):
        read = piece_of(part, f"{where}[{index}]", output)
        if (
            out
            and out[-1][0] == "text"
            and [piece for piece, _ in read] == ["text"]
            and joins_cited(part, content[index - 1])
        ):
            out[-1] = ("text", out[-1][1] + read[0][1])
        else:
            out.extend(read)
    return out


def parts_in_text(value: Any) -> list[dict[str, Any]] | None:
    """Content parts written into a string as JSON text, parsed; ``None`` for any other value.

    Instrumentations that flatten messages into string attributes serialize a structured content
    so (OpenLLMetry's Anthropic ``gen_ai.prompt.<i>.content`` holds ``[{"type": "tool_use", ...}]``).
    Read as text, its calls and results were lost and the JSON trained on as if the model had
    written it. Only a whole JSON list of parts counts (each an object with a ``type`` string, or a
    one-key wrapper such as ``{"toolUse": {...}}``): prose, a JSON object, a list of anything else
    stays text, and the caller keeps the text as written where the parts do not read."""
    text = value.strip() if isinstance(value, str) else ""
    if not (text.startswith("[") and text.endswith("]")):
        return None
    try:
        parsed = parse_json(text)
    except (json.JSONDecodeError, RecordError):
        return None
    if not isinstance(parsed, list) or not parsed:
        return None
    if all(isinstance(p, dict) and (isinstance(p.get("type"), str) or len(p) == 1) for p in parsed):
        return parsed
    return None


@dataclass
class AssistantParts:
    """An assistant turn's parts gathered in order: its text, reasoning and calls, and the results of
    tools its provider ran within the turn (an MCP or server tool's), which follow it as tool events."""

    turn: Event
    texts: list[str] = field(default_factory=list)
    thoughts: list[str] = field(default_factory=list)
    results: list[Event] = field(default_factory=list)

    def take(self, pieces: list[Piece]) -> None:
        """Add the pieces a part read by its shape gave (:func:`piece_of`)."""
        for piece, value in pieces:
            if piece == "call":
                self.turn.tool_calls.append(value)
            elif piece == "result":
                self.results.append(value)
            else:
                (self.texts if piece == "text" else self.thoughts).append(value)

    def events(self) -> list[Event]:
        """The turn, its text and reasoning joined, then the results it holds."""
        self.turn.content = "\n".join(self.texts) if self.texts else None
        self.turn.reasoning = "\n".join(self.thoughts) if self.thoughts else None
        return [self.turn, *self.results]
