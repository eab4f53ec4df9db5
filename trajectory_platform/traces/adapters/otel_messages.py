"""The message layouts of GenAI spans: the OpenTelemetry conventions' own (events per message, or
JSON attributes of parts) and the ones instrumentations flatten into span attributes (OpenLLMetry,
OpenInference, the Vercel AI SDK), each read into one layout-independent :class:`Message`; and
the attribute names those instrumentations use for what the conventions name (model, usage, tools,
tool runs)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from trajectory_platform.traces.adapters.anthropic_results import is_result_block, result_event
from trajectory_platform.traces.adapters.base import (
    TASK_ID_KEYS,
    RecordError,
    arguments_text,
    optional_str,
    task_id_of,
)
from trajectory_platform.traces.adapters.bedrock import converse_events, converse_text, is_converse_blocks
from trajectory_platform.traces.adapters.content_parts import parts_in_text, piece_of, pieces_of
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import ToolCall, canonical_json

EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
CHOICE_EVENT = "gen_ai.choice"


def json_attr(value: Any) -> Any:
    """GenAI structured attributes are JSON strings; tolerate already-structured values."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise RecordError("malformed JSON", f"GenAI attribute is not valid JSON: {exc.msg}") from exc
    return value


@dataclass
class Message:
    """Layout-independent message: what both convention versions can say."""

    role: str
    text: str | None = None
    reasoning: str | None = None
    calls: list[ToolCall] = field(default_factory=list)
    call_id: str | None = None
    finish_reason: str | None = None
    status: str | None = None
    """A tool message's status where the message says it (a provider-run tool's failed run)."""
    step: bool = False
    """A message of an answer before its last turn (the provider ran a tool within it): the call's
    usage is the last turn's."""

    def key(self) -> tuple:
        return (self.role, self.text, self.call_id, tuple((c.id, c.name, c.arguments) for c in self.calls))


def text_of_value(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return canonical_json(value)


SERVER_CALL = "server_tool_call"
SERVER_RESULT = "server_tool_call_response"
"""The conventions' parts (>= 1.37) for a tool the provider ran within the call (web search, code
interpreter, file search, an MCP server's tool): ``{"type": "server_tool_call", "id", "name",
"server_tool_call": {"type", ...}}`` and ``{"type": "server_tool_call_response", "id",
"server_tool_call_response": {"type", ...}}``, each payload in the provider's own shape."""
FAILED_STATUSES = frozenset({"failed", "error", "incomplete"})


def messages_of_parts(raw: dict[str, Any]) -> list[Message]:
    """A newer-layout ChatMessage / OutputMessage (``role`` + ``parts``), as its messages: one, or,
    where the provider ran a tool within an assistant's turn (:data:`SERVER_RESULT`), the turn up to
    its call, the result (a tool message), then the words after it as a turn of their own (written
    after the model saw the result, as every other reader reads them); the finish reason on the last."""
    role = raw.get("role")
    if not isinstance(role, str) or role not in ("system", "user", "assistant", "tool"):
        raise RecordError("unknown role", f"GenAI message role {named(role)}")
    messages = [Message(role=role)]
    texts: list[str] = []
    thoughts: list[str] = []

    def close() -> None:
        messages[-1].text = "\n".join(texts) if texts else None
        messages[-1].reasoning = "\n".join(thoughts) if thoughts else None
        texts.clear()
        thoughts.clear()

    for index, part in enumerate(raw.get("parts") or []):
        kind = part.get("type")
        message = messages[-1]
        if kind == "text":
            texts.append(part.get("content") or "")
        elif kind == "reasoning":
            thoughts.append(part.get("content") or "")
        elif kind == "tool_call":
            message.calls.append(
                ToolCall(part.get("id"), part.get("name"), arguments_text(part.get("arguments")))
            )
        elif kind == SERVER_CALL:
            message.calls.append(_server_call(part, f"GenAI message part {index}"))
        elif kind == SERVER_RESULT and role == "assistant":
            close()
            messages += [_server_result(part, f"GenAI message part {index}"), Message(role)]
        elif kind == SERVER_RESULT:  # a tool message answering a call the provider ran
            result = _server_result(part, f"GenAI message part {index}")
            message.role, message.call_id, message.status = "tool", result.call_id, result.status
            texts.append(result.text or "")
        else:  # a tool call response (its ``response``, or ``result`` as Pydantic AI writes it), media, ...
            for piece, value in piece_of(part, f"GenAI message part {index}"):
                if piece == "result":
                    message.role, message.call_id = "tool", value.tool_call_id
                    texts.append(value.content or "")
                elif piece == "call":
                    message.calls.append(value)
                else:
                    (thoughts if piece == "reasoning" else texts).append(value)
    close()
    last = messages[-1]
    if len(messages) > 1 and last.text is None and last.reasoning is None and not last.calls:
        messages.pop()  # the turn ended with the provider's result: the model wrote nothing after it
        last = messages[-2]
    for message in messages:
        message.step = message is not last
    last.finish_reason = raw.get("finish_reason")
    return messages


def _payload(part: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    payload = part.get(key)
    if not isinstance(payload, dict):
        raise RecordError("wrong type", f"{where}.{key} is {type(payload).__name__}, expected object")
    return payload


def _server_call(part: dict[str, Any], where: str) -> ToolCall:
    """A :data:`SERVER_CALL` part: the tool named by the part (else its payload's type), its
    arguments the payload's ``arguments`` where it writes them, else the payload's other fields."""
    payload = _payload(part, SERVER_CALL, where)
    arguments = payload.get("arguments", {k: v for k, v in payload.items() if k != "type"})
    name = part.get("name") if part.get("name") is not None else payload.get("type")
    return ToolCall(
        optional_str(part.get("id"), f"{where}.id"),
        optional_str(name, f"{where}.name"),
        arguments_text(arguments),
    )


def _server_result(part: dict[str, Any], where: str) -> Message:
    """A :data:`SERVER_RESULT` part as the tool message answering its call: an Anthropic result block
    (its type ends in ``_tool_result``) read as the Messages reader reads it (a search hit's title
    and address, its page marked encrypted; a run's output and exit code), else the payload's
    ``output`` / ``result`` text, else its fields as JSON; a failed run (``is_error``, a failed
    ``status``, an ``error``) is an ``error`` result."""
    payload = _payload(part, SERVER_RESULT, where)
    call_id = optional_str(part.get("id"), f"{where}.id")
    if is_result_block(payload):
        event = result_event({**payload, "tool_use_id": call_id}, f"{where}.{SERVER_RESULT}", None)
        return Message("tool", text=event.content, call_id=call_id, status=event.status)
    said = next((payload[k] for k in ("output", "result") if isinstance(payload.get(k), str)), None)
    text = said if said is not None else canonical_json({k: v for k, v in payload.items() if k != "type"})
    failed = (
        payload.get("is_error") is True
        or payload.get("status") in FAILED_STATUSES
        or payload.get("error") is not None
    )
    return Message("tool", text=text, call_id=call_id, status="error" if failed else "ok")


def messages_of_text_parts(message: Message, where: str) -> list[Message]:
    """``message`` itself, or, when its text is JSON text of content parts
    (:func:`~trajectory_platform.traces.adapters.content_parts.parts_in_text`), the messages those
    parts say, read by their shape: an assistant's text, reasoning and calls (results a provider
    ran within the turn after it); a user's or tool message's tool results, each a tool message,
    then its text. Parts that do not read, or do not fit the role (a call in a user message), and a
    tool's output holding no result part (JSON data it returned) leave the text as written."""
    parts = parts_in_text(message.text)
    if parts is None:
        return [message]
    try:
        pieces = pieces_of(parts, where, output=message.role == "tool")
    except RecordError:
        return [message]
    said = {
        kind: [value for piece, value in pieces if piece == kind]
        for kind in ("text", "reasoning", "call", "result")
    }
    text = "\n".join(said["text"]) if said["text"] else None
    results = [Message("tool", text=r.content, call_id=r.tool_call_id) for r in said["result"]]
    if message.role == "assistant":
        reasoning = "\n".join(said["reasoning"]) if said["reasoning"] else message.reasoning
        turn = Message(
            "assistant", text, reasoning, [*message.calls, *said["call"]], None, message.finish_reason
        )
        return [turn, *results]
    if said["call"] or said["reasoning"] or (results and message.role == "system"):
        return [message]
    if message.role == "tool" and not results:
        return [message]  # a tool's output that is JSON (a listing of typed objects) is its data
    said_text = (
        [Message(message.role, text, call_id=message.call_id)] if text is not None or not results else []
    )
    return [*results, *said_text]


def messages_of_event(name: str, attrs: dict[str, Any]) -> list[Message]:
    """An event-per-message span event (conventions <= 1.36), as one message, or, where the event's
    content is a JSON list of Bedrock Converse content blocks (Strands Agents writes
    ``[{"text": ...}, {"toolUse": ...}]``), the messages those blocks hold: the text, the calls
    (``toolUse``) and each result (``toolResult``) its own tool message. Read as a plain string,
    that JSON became the turn's text and its calls were lost."""
    choice = name == CHOICE_EVENT
    raw = attrs.get("message") if choice else attrs.get("content")
    blocks = json_attr(raw) if isinstance(raw, str) and raw.lstrip().startswith("[") else raw
    if not is_converse_blocks(blocks):
        return messages_of_text_parts(_message_of_event(name, attrs), f"{name}.content")
    role = "assistant" if choice else EVENT_ROLES[name]
    if role == "system":
        return [Message("system", text=converse_text(blocks, name))]
    speaker = (
        "assistant" if role == "assistant" else "user"
    )  # Converse has no tool role: results are user blocks
    messages = []
    for event in converse_events({"role": speaker, "content": blocks}, name):
        message = Message(
            event.kind, text=event.content, reasoning=event.reasoning, call_id=event.tool_call_id
        )
        message.calls = list(event.tool_calls)
        message.finish_reason = attrs.get("finish_reason") if event.kind == "assistant" else None
        messages.append(message)
    return messages


def _message_of_event(name: str, attrs: dict[str, Any]) -> Message:
    """An event-per-message span event (conventions <= 1.36)."""
    body = attrs
    if name == CHOICE_EVENT:
        inner = json_attr(attrs.get("message")) or {}
        body = {**inner, "finish_reason": attrs.get("finish_reason")}
        role = "assistant"
    else:
        role = EVENT_ROLES[name]
    calls = []
    for raw in json_attr(body.get("tool_calls")) or []:
        function = raw.get("function") or {}
        calls.append(ToolCall(raw.get("id"), function.get("name"), arguments_text(function.get("arguments"))))
    return Message(
        role=role,
        text=text_of_value(body.get("content")),
        calls=calls,
        call_id=body.get("id") if role == "tool" else None,
        finish_reason=body.get("finish_reason"),
    )


INDEXED_LAYOUTS = (("gen_ai.prompt", "gen_ai.completion"), ("llm.input_messages", "llm.output_messages"))
"""(input, output) attribute prefixes of OpenLLMetry and of OpenInference."""
ROLE_ALIASES = {
    "developer": "system",
    "human": "user",
    "ai": "assistant",
    "model": "assistant",
    "function": "tool",
}
"""Roles some instrumentations write for the four the conventions name."""
ATTRIBUTE_ALIASES = {
    "gen_ai.usage.input_tokens": (
        "gen_ai.usage.prompt_tokens",
        "llm.token_count.prompt",
        "ai.usage.promptTokens",
        "ai.usage.inputTokens",
    ),
    "gen_ai.usage.output_tokens": (
        "gen_ai.usage.completion_tokens",
        "llm.token_count.completion",
        "ai.usage.completionTokens",
        "ai.usage.outputTokens",
    ),
    "gen_ai.request.model": ("llm.model_name", "ai.model.id"),
    "gen_ai.tool.name": ("ai.toolCall.name",),
    "gen_ai.tool.call.id": ("ai.toolCall.id",),
    "gen_ai.tool.call.result": ("ai.toolCall.result",),
}
"""A convention attribute and the names OpenLLMetry, OpenInference and the Vercel AI SDK give it."""
AI_SDK_TOOL_RUN = "ai.toolCall"
"""The AI SDK's ``ai.operationId`` of a tool's execution: the conventions' ``execute_tool``."""


def unflatten(attrs: dict[str, Any], prefix: str) -> list[Any]:
    """Attributes flattened under ``prefix`` with numeric indices (``gen_ai.prompt.0.role``,
    ``gen_ai.prompt.0.tool_calls.1.name``) back into lists and objects, indices in numeric order (so
    ``10`` follows ``2``). A key that is both a value and a container keeps the value."""
    root: dict[str, Any] = {}
    for key, value in attrs.items():
        if not key.startswith(prefix + "."):
            continue
        *path, last = key[len(prefix) + 1 :].split(".")
        node: Any = root
        for step in path:
            node = node.setdefault(step, {}) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node[last] = value
    listed = _listed(root)
    return listed if isinstance(listed, list) else []


def _listed(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    items = {key: _listed(value) for key, value in node.items()}
    if items and all(key.isdigit() for key in items):
        return [items[key] for key in sorted(items, key=int)]
    return items


def _role(value: Any) -> str:
    role = ROLE_ALIASES.get(value, value) if isinstance(value, str) else value
    if role not in ("system", "user", "assistant", "tool"):
        raise RecordError("unknown role", f"GenAI message role {named(value)}")
    return role


def messages_of_indexed(raw: Any, where: str) -> list[Message]:
    """An OpenLLMetry ``gen_ai.prompt.<i>`` / ``gen_ai.completion.<i>`` message, or an OpenInference
    ``llm.input_messages.<i>`` one (its fields under ``message``), its content JSON text of parts
    read as those parts (:func:`messages_of_text_parts`)."""
    return messages_of_text_parts(_message_of_indexed(raw), f"{where}.content")


def _message_of_indexed(raw: Any) -> Message:
    body = raw.get("message", raw) if isinstance(raw, dict) else {}
    role = _role(body.get("role"))
    contents = body.get("contents")
    text: str | None
    if isinstance(contents, list):  # OpenInference's multi-part content
        parts = [c.get("message_content") for c in contents if isinstance(c, dict)]
        text = "\n".join(text_of_value(p.get("text")) or "" for p in parts if isinstance(p, dict))
    else:
        text = text_of_value(body.get("content"))
    calls = []
    for entry in body.get("tool_calls") or []:
        call: dict[str, Any] = entry.get("tool_call", entry) if isinstance(entry, dict) else {}
        function = call["function"] if isinstance(call.get("function"), dict) else call
        calls.append(
            ToolCall(call.get("id"), function.get("name"), arguments_text(function.get("arguments")))
        )
    return Message(
        role=role,
        text=text,
        calls=calls,
        call_id=body.get("tool_call_id") if role == "tool" else None,
        finish_reason=body.get("finish_reason"),
    )


def tool_definitions(attrs: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A span's tools: ``gen_ai.tool.definitions``, else OpenLLMetry's ``llm.request.functions`` or
    OpenInference's ``llm.tools`` (each a JSON schema, flat or under ``function``)."""
    if "gen_ai.tool.definitions" in attrs:
        return json_attr(attrs["gen_ai.tool.definitions"])
    if "ai.prompt.tools" in attrs:  # the AI SDK: a list of JSON tool definitions
        tools = [json_attr(t) for t in attrs["ai.prompt.tools"] or []]
        return [
            {**t, "parameters": t.get("parameters", t.get("inputSchema"))}
            for t in tools
            if isinstance(t, dict)
        ]
    functions = unflatten(attrs, "llm.request.functions")
    if functions:
        return [
            {**f, "parameters": json_attr(f.get("parameters", f.get("arguments")))}
            for f in functions
            if isinstance(f, dict)
        ]
    tools = [json_attr((t.get("tool") or {}).get("json_schema")) for t in unflatten(attrs, "llm.tools")]
    return [t.get("function", t) for t in tools if isinstance(t, dict)] or None


def with_aliases(attrs: dict[str, Any]) -> dict[str, Any]:
    """``attrs`` with the convention's names filled in from the ones OpenLLMetry and OpenInference
    use (:data:`ATTRIBUTE_ALIASES`), where the convention's own is absent. Tool definitions, which
    hold JSON to decode, are read per record instead (:func:`tool_definitions`), where a malformed
    one rejects its trace."""
    out = dict(attrs)
    for name, aliases in ATTRIBUTE_ALIASES.items():
        found = next((attrs[a] for a in aliases if a in attrs), None)
        if name not in out and found is not None:
            out[name] = found
    if attrs.get("ai.operationId") == AI_SDK_TOOL_RUN:
        out.setdefault("gen_ai.operation.name", "execute_tool")
    return out


AI_SDK_MODEL_CALLS = (".doGenerate", ".doStream")
"""The AI SDK's spans of one provider call (``ai.generateText.doGenerate``, ``ai.streamText.doStream``):
its outer ``ai.generateText`` span spans the whole loop and is no model call of its own."""


def ai_sdk_messages(attrs: dict[str, Any]) -> tuple[list[Message], list[Message]] | None:
    """(input, output) of a Vercel AI SDK model call span: ``ai.prompt.messages`` (text, reasoning,
    ``tool-call`` and ``tool-result`` parts) and ``ai.response.text`` / ``.toolCalls`` /
    ``.finishReason``; ``None`` for any other span."""
    operation = attrs.get("ai.operationId")
    if "ai.prompt.messages" not in attrs or (
        operation is not None and not str(operation).endswith(AI_SDK_MODEL_CALLS)
    ):
        return None
    inputs = [m for raw in json_attr(attrs["ai.prompt.messages"]) or [] for m in _ai_sdk_message(raw)]
    calls = [_ai_sdk_call(c) for c in json_attr(attrs.get("ai.response.toolCalls")) or []]
    text = attrs.get("ai.response.text")
    if text is None and not calls:
        return inputs, []
    reply = Message(
        "assistant",
        text=text_of_value(text),
        calls=calls,
        finish_reason=attrs.get("ai.response.finishReason"),
    )
    return inputs, [reply]


def _ai_sdk_call(part: dict[str, Any]) -> ToolCall:
    return ToolCall(
        part.get("toolCallId"), part.get("toolName"), arguments_text(part.get("args", part.get("input")))
    )


def _ai_sdk_message(raw: Any) -> list[Message]:
    """One AI SDK message: its text (or text, reasoning and tool-call parts), and each tool-result
    part as a tool message of its own."""
    role = _role(raw.get("role") if isinstance(raw, dict) else None)
    content = raw.get("content")
    if not isinstance(content, list):
        return [Message(role, text=text_of_value(content))]
    texts, thoughts, calls, results = [], [], [], []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            texts.append(text_of_value(part.get("text")) or "")
        elif kind == "reasoning":
            thoughts.append(text_of_value(part.get("text")) or "")
        elif kind == "tool-call":
            calls.append(_ai_sdk_call(part))
        elif kind == "tool-result":
            output = part.get("output", part.get("result"))
            if isinstance(output, dict) and set(output) == {"type", "value"}:  # AI SDK 5: a typed output
                output = output["value"]
            results.append(Message("tool", text=text_of_value(output), call_id=part.get("toolCallId")))
        else:  # read by its shape; a part of an unknown kind rejects the trace, never becomes text
            for piece, value in piece_of(part, "AI SDK message part"):
                if piece == "call":
                    calls.append(value)
                elif piece == "result":
                    results.append(Message("tool", text=value.content, call_id=value.tool_call_id))
                else:
                    (thoughts if piece == "reasoning" else texts).append(value)
    if role == "tool":
        return results
    message = Message(role, text="\n".join(texts) or None, reasoning="\n".join(thoughts) or None, calls=calls)
    return [message, *results]


TASK_ID_SCOPES = ("", "ai.telemetry.metadata.", "traceloop.association.properties.")
"""Where a span states the task it ran against: a bare attribute, the Vercel AI SDK's telemetry
metadata, OpenLLMetry's association properties (and OpenInference's ``metadata`` JSON)."""
TASK_ID_SOURCE = (
    "a span attribute `task_id` (or `environment_id`, `instance_id`), bare, as "
    "`ai.telemetry.metadata.task_id` (Vercel AI SDK), `traceloop.association.properties.task_id` "
    "(OpenLLMetry) or in OpenInference's `metadata` JSON; the first span in start order naming one"
)


def task_id_of_span(attrs: dict[str, Any]) -> str | None:
    """The task id a span's attributes state (:data:`TASK_ID_SCOPES`), else ``None``."""
    metadata = _json_object(attrs.get("metadata"))
    for key in TASK_ID_KEYS:
        for scope in TASK_ID_SCOPES:
            if attrs.get(scope + key) is not None:
                return task_id_of(attrs[scope + key], f"span attribute {scope}{key}")
        if isinstance(metadata, dict) and metadata.get(key) is not None:
            return task_id_of(metadata[key], f"span attribute metadata.{key}")
    return None


def _json_object(value: Any) -> dict[str, Any] | None:
    """OpenInference's free-form ``metadata``: an object, as JSON text or already decoded; anything
    else states no task (it is the application's own field, not a message to reject over)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return None
    return value if isinstance(value, dict) else None
