"""Amazon Bedrock: the Converse API, and the model invocation logs Bedrock itself writes.

An agent deployed on Bedrock leaves its conversations in one of two places. **Model invocation
logging** (to CloudWatch Logs or S3) writes one JSON record per model call: ``{"schemaType":
"ModelInvocationLog", "operation", "modelId", "requestId", "timestamp", "input": {"inputBodyJson",
"inputTokenCount"}, "output": {"outputBodyJson", "outputTokenCount"}}``; a body too large to log
inline goes to S3 instead (``inputBodyS3Path``), and such a record is a reject that says so. Or the
application logs the **Converse** request itself, ``{"system", "messages", "toolConfig",
"inferenceConfig", "requestMetadata"}``, with the response (``response``, or its ``output`` /
``stopReason`` / ``usage`` inline).

Converse content blocks carry their kind as their one key: ``text``; ``toolUse`` (``toolUseId``,
``name``, ``input``) -> a call; ``toolResult`` (``toolUseId``, ``content`` blocks of ``text`` /
``json``, ``status``) -> a tool event; ``reasoningContent`` -> the turn's reasoning; ``guardContent``
text; ``citationsContent`` text; ``image`` / ``document`` / ``video`` -> a marker; ``cachePoint`` is
a caching hint, not content. An invocation of ``InvokeModel`` with an Anthropic Messages body (Claude
on Bedrock) is read as the Anthropic adapter reads one. A block or body this adapter does not know
rejects the record with its path (never dropped silently); fields no event takes stay in
``extra_json``.

The task an invocation ran against is ``requestMetadata.task_id`` (``requestMetadata`` is the
Converse API's own key-value field for filtering invocation logs), else where every chat format
names it (:data:`CHAT_TASK_ID_SOURCE`).
"""

from __future__ import annotations

from typing import Any

from trajectory_platform.traces.adapters.anthropic import REDACTED, AnthropicAdapter, events_of_message
from trajectory_platform.traces.adapters.anthropic import tool_specs_of as messages_tool_specs
from trajectory_platform.traces.adapters.base import (
    CHAT_TASK_ID_SOURCE,
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    arguments_text,
    chat_task_id,
    expect,
    name_tool_results,
    optional_str,
    read_chat_outcome,
    sampling_params_json,
    task_id_in,
    text_of,
    timestamp_of,
)
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec, canonical_json

INVOCATION_LOG = "ModelInvocationLog"
MEDIA_BLOCKS = ("image", "document", "video")
BLOCK_KINDS = (
    "text",
    "toolUse",
    "toolResult",
    "reasoningContent",
    "guardContent",
    "citationsContent",
    "cachePoint",
    *MEDIA_BLOCKS,
)
REQUEST_KEYS = ("modelId", "system", "messages", "toolConfig", "inferenceConfig")
RESPONSE_KEYS = ("response", "output", "stopReason", "usage")
LOG_KEYS = ("schemaType", "modelId", "requestId", "timestamp", "input", "output")
ANTHROPIC_REQUEST_KEYS = ("anthropic_version", *AnthropicAdapter.CONSUMED)
ANTHROPIC_RESPONSE_KEYS = ("role", "content", "stop_reason", "usage")
TASK_ID_SOURCE = f"`requestMetadata.task_id` (Converse), else {CHAT_TASK_ID_SOURCE}"


def is_converse_blocks(value: Any) -> bool:
    """A list of Converse content blocks: objects of one key each, a kind Converse names among them
    (a block of a kind this adapter does not know is then a reject naming it, never text)."""
    return (
        isinstance(value, list)
        and all(isinstance(b, dict) and len(b) == 1 for b in value)
        and any(next(iter(b)) in BLOCK_KINDS for b in value)
    )


def _is_converse_content(messages: Any) -> bool:
    """Messages whose content blocks name their kind by their key (``{"toolUse": ...}``), not by a
    ``type`` field (Anthropic, OpenAI parts), each by one of :data:`BLOCK_KINDS`: a framework that
    also names blocks by key, with kinds of its own (Haystack's ``{"tool_call": ...}``), is read by
    the shape of its parts (``content_parts.py``), not rejected here block by block."""
    if not isinstance(messages, list):
        return False
    keyed = [
        block
        for m in messages
        if isinstance(m, dict) and isinstance(m.get("content"), list)
        for block in m["content"]
        if isinstance(block, dict) and "type" not in block
    ]
    return bool(keyed) and all(len(b) == 1 and next(iter(b)) in BLOCK_KINDS for b in keyed)


def _block_kind(block: Any, where: str) -> str:
    expect(block, dict, where)
    if len(block) != 1 or next(iter(block)) not in BLOCK_KINDS:
        raise RecordError(
            "unknown block",
            f"{where} has keys {', '.join(named(k) for k in block) or 'none'}; "
            f"expected one of {list(BLOCK_KINDS)}",
        )
    return next(iter(block))


def converse_text(blocks: Any, where: str) -> str | None:
    """The text of ``system``, a guard or citations block, or a tool result's content: text and JSON
    blocks in order, media as a marker."""
    pieces = []
    for index, block in enumerate(expect(blocks, list, where)):
        at = f"{where}[{index}]"
        expect(block, dict, at)
        if "text" in block:
            text = block["text"]
            pieces.append(text if isinstance(text, str) else expect(text, dict, f"{at}.text").get("text", ""))
        elif "json" in block:
            pieces.append(canonical_json(block["json"]))
        elif "cachePoint" not in block:
            pieces.append(f"[{_block_kind(block, at)}]")
    return "\n".join(pieces) if pieces else None


def _reasoning_of(block: Any, where: str) -> str:
    expect(block, dict, where)
    if "reasoningText" in block:
        text = expect(block["reasoningText"], dict, f"{where}.reasoningText").get("text")
        return expect(text, str, f"{where}.reasoningText.text")
    return REDACTED  # ``redactedContent``: encrypted by the provider


def converse_events(message: Any, where: str) -> list[Event]:
    """One Converse message: an assistant turn is one event (text, reasoning, calls in block order);
    a user turn is its text as a user event and each tool result as a tool event, in block order."""
    expect(message, dict, where)
    role = message.get("role")
    if role not in ("user", "assistant"):
        raise RecordError("unknown role", f"{where}.role is {named(role)}; expected user or assistant")
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[ToolCall] = []
    events: list[Event] = []
    for index, block in enumerate(expect(message.get("content"), list, f"{where}.content")):
        at = f"{where}.content[{index}]"
        kind = _block_kind(block, at)
        if kind == "toolUse":
            use = expect(block[kind], dict, f"{at}.toolUse")
            calls.append(
                ToolCall(
                    id=optional_str(use.get("toolUseId"), f"{at}.toolUse.toolUseId"),
                    name=optional_str(use.get("name"), f"{at}.toolUse.name"),
                    arguments=arguments_text(use.get("input")),
                )
            )
        elif kind == "toolResult":
            result = expect(block[kind], dict, f"{at}.toolResult")
            status = result.get("status")
            events.append(
                Event(
                    kind="tool",
                    content=converse_text(result.get("content", []), f"{at}.toolResult.content"),
                    tool_call_id=optional_str(result.get("toolUseId"), f"{at}.toolResult.toolUseId"),
                    status="error" if status == "error" else "ok",
                )
            )
        elif kind == "reasoningContent":
            thoughts.append(_reasoning_of(block[kind], f"{at}.reasoningContent"))
        elif kind in ("guardContent", "citationsContent"):
            inner = expect(block[kind], dict, f"{at}.{kind}")
            text = inner.get("text") if kind == "guardContent" else None
            texts.append(
                expect(text, dict, f"{at}.{kind}.text").get("text", "")
                if text is not None
                else converse_text(inner.get("content", []), f"{at}.{kind}.content") or ""
            )
        elif kind == "text":
            texts.append(expect(block[kind], str, f"{at}.text"))
        elif kind != "cachePoint":
            texts.append(f"[{kind}]")
        if role == "user" and texts:  # a user turn's text becomes an event where it stands
            _add_user_text(events, "\n".join(texts))
            texts = []
    if role == "assistant":
        event = Event(
            kind="assistant", content="\n".join(texts) or None, reasoning="\n".join(thoughts) or None
        )
        event.tool_calls = calls
        return [event]
    return events


def _add_user_text(events: list[Event], text: str) -> None:
    """Text joins the user event it follows, else opens one after the tool results before it."""
    if events and events[-1].kind == "user":
        events[-1].content = f"{events[-1].content}\n{text}"
    else:
        events.append(Event(kind="user", content=text))


def tool_specs_of(config: Any, where: str) -> list[ToolSpec]:
    """``toolConfig.tools``: each ``toolSpec`` (``inputSchema.json`` is the parameters' schema);
    a built-in tool is named by its key, and a ``cachePoint`` is no tool."""
    tools = expect(expect(config, dict, where).get("tools", []), list, f"{where}.tools")
    specs = []
    for index, entry in enumerate(tools):
        at = f"{where}.tools[{index}]"
        for key, value in expect(entry, dict, at).items():
            if key == "cachePoint":
                continue
            if key != "toolSpec":
                specs.append(ToolSpec(name=key))
                continue
            spec = expect(value, dict, f"{at}.toolSpec")
            schema = spec.get("inputSchema")
            parameters = expect(schema, dict, f"{at}.toolSpec.inputSchema").get("json") if schema else None
            specs.append(
                ToolSpec(
                    name=expect(spec.get("name"), str, f"{at}.toolSpec.name"),
                    description=optional_str(spec.get("description"), f"{at}.toolSpec.description"),
                    parameters_json=None if parameters is None else canonical_json(parameters),
                )
            )
    return specs


def _task_id(request: dict[str, Any], log: dict[str, Any]) -> str | None:
    stated = ((scope.get("requestMetadata"), "requestMetadata.") for scope in (request, log))
    return task_id_in(stated) or chat_task_id(request) or chat_task_id(log)


def _body(log: dict[str, Any], side: str) -> Any:
    """``input.inputBodyJson`` or ``output.outputBodyJson``; a body Bedrock delivered to S3 (too
    large to log inline) is a reject naming where it went, so a person can fetch it into the record."""
    section = expect(log.get(side, {}), dict, side)
    body = section.get(f"{side}BodyJson")
    if body is None and section.get(f"{side}BodyS3Path") is not None:
        raise RecordError(
            "body stored apart",
            f"{side}.{side}BodyJson is absent: Bedrock delivered the body to S3 ({side}.{side}BodyS3Path); "
            "put it in the record to read it",
        )
    return body


class BedrockAdapter(Adapter):
    """Bedrock model invocation logs and logged Converse requests (with their response)."""

    name = "bedrock"
    logs_calls_alone = True
    task_id_source = TASK_ID_SOURCE

    def claims_record(self, record: dict[str, Any]) -> bool:
        return (
            record.get("schemaType") == INVOCATION_LOG
            or isinstance(record.get("toolConfig"), dict)
            or _is_converse_content(record.get("messages"))
        )

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        logged = value.get("schemaType") == INVOCATION_LOG
        if logged:
            request = expect(_body(value, "input"), dict, "input.inputBodyJson")
            response = _body(value, "output")
        else:
            request, response = value, value.get("response", value if "output" in value else None)
        if "messages" not in request:
            raise RecordError(
                "not a conversation", "the request holds no messages (an embedding or a completion call?)"
            )
        own_id = optional_str(value.get("requestId"), "requestId") if logged else None
        episode = self.new_episode(record, src, adapter_episode_id(self.name, own_id, value))
        episode.task.fixture_id = _task_id(request, value)
        read_chat_outcome(request, episode)
        messages_api = "anthropic_version" in request  # InvokeModel with a Messages body: Claude on Bedrock
        (_read_anthropic if messages_api else _read_converse)(request, response, episode)
        final = episode.events[-1] if episode.events and episode.events[-1].kind == "assistant" else None
        if logged and final is not None:
            final.timestamp = timestamp_of(value.get("timestamp"), "timestamp")
            final.input_tokens = expect(
                value["input"].get("inputTokenCount"), int | None, "input.inputTokenCount"
            )
            final.output_tokens = expect(
                value["output"].get("outputTokenCount"), int | None, "output.outputTokenCount"
            )
        episode.lineage.model = optional_str(value.get("modelId", request.get("modelId")), "modelId")
        name_tool_results(episode.events)
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        episode.extra_json = _extra(value, request, response, logged)
        return episode


def _read_converse(request: dict[str, Any], response: Any, episode: Episode) -> None:
    if request.get("system") is not None:
        episode.events.append(Event(kind="system", content=converse_text(request["system"], "system")))
    for index, message in enumerate(expect(request["messages"], list, "messages")):
        episode.events.extend(converse_events(message, f"messages[{index}]"))
    if request.get("toolConfig") is not None:
        episode.tools = tool_specs_of(request["toolConfig"], "toolConfig")
    sampling = request.get("inferenceConfig")
    if isinstance(sampling, dict):
        episode.lineage.sampling_params_json = sampling_params_json(sampling)
    if response is None:
        return  # the request alone was logged: the conversation ends where the model was asked
    expect(response, dict, "response")
    output = expect(response.get("output"), dict, "response.output")
    answer = converse_events(output.get("message"), "response.output.message")
    answer[0].finish_reason = optional_str(response.get("stopReason"), "response.stopReason")
    usage = expect(response.get("usage", {}), dict, "response.usage")
    answer[0].input_tokens = usage.get("inputTokens")
    answer[0].output_tokens = usage.get("outputTokens")
    episode.events.extend(answer)


def _read_anthropic(request: dict[str, Any], response: Any, episode: Episode) -> None:
    if request.get("system") is not None:
        episode.events.append(Event(kind="system", content=text_of(request["system"], "system")))
    for index, message in enumerate(expect(request["messages"], list, "messages")):
        episode.events.extend(events_of_message(message, f"messages[{index}]"))
    if request.get("tools") is not None:
        episode.tools = messages_tool_specs(request["tools"], "tools")
    sampling = {k: request[k] for k in AnthropicAdapter.SAMPLING if k in request}
    episode.lineage.sampling_params_json = sampling_params_json(sampling)
    if response is not None:
        reply = expect(response, dict, "output.outputBodyJson")
        episode.events.extend(events_of_message({**reply, "role": "assistant"}, "output.outputBodyJson"))


def _rest(value: dict[str, Any], taken: tuple[str, ...]) -> dict[str, Any]:
    return {key: item for key, item in value.items() if key not in taken}


def _extra(value: dict[str, Any], request: dict[str, Any], response: Any, logged: bool) -> str | None:
    """What no event took, kept (nothing dropped): the log's own fields (account, region, identity),
    the request's other fields (``toolChoice``, ``additionalModelRequestFields``, ...) and the
    response's (``metrics``, ...)."""
    rest: dict[str, Any] = {}
    if logged:
        rest.update(_rest(value, LOG_KEYS))
        for side in ("input", "output"):
            section = _rest(value[side], (f"{side}BodyJson", f"{side}TokenCount"))
            if section:
                rest[side] = section
    request_rest = _rest(request, (*REQUEST_KEYS, *ANTHROPIC_REQUEST_KEYS, *RESPONSE_KEYS, "metadata"))
    tool_config = request.get("toolConfig")
    if isinstance(tool_config, dict) and _rest(tool_config, ("tools",)):
        request_rest["toolConfig"] = _rest(tool_config, ("tools",))  # toolChoice: how the model was asked
    if logged and request_rest:
        rest["request"] = request_rest
    elif not logged:
        rest.update(request_rest)
    if isinstance(response, dict) and response is not request:
        response_rest = _rest(response, (*RESPONSE_KEYS, *ANTHROPIC_RESPONSE_KEYS))
        if response_rest:
            rest["response"] = response_rest
    return canonical_json(rest) if rest else None
