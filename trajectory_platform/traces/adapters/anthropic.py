"""Anthropic Messages: ``{"system", "messages": [{"role", "content": [blocks]}], "tools": [...]}``.

Blocks: ``text`` (its ``citations`` kept in ``extra_json.citations``, a cited block joined to the
text around it: ``citations.py``); ``thinking`` / ``redacted_thinking`` (-> the assistant event's
``reasoning``);
``tool_use`` (-> a tool call, ``input`` kept as canonical JSON); ``tool_result`` with
``is_error`` (-> a tool event, status ``error`` when set). Parallel results come back grouped in
ONE user turn; each becomes its own tool event, in the order recorded (never re-sorted). Text in
the same user turn becomes a user event at its position. The task it ran against is
``metadata.task_id``, read as OpenAI records are. The block conversion is shared with Claude Code
session logs.
"""

from __future__ import annotations

from typing import Any

from trajectory_platform.traces.adapters.anthropic_results import is_result_block, result_event
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
    text_of,
)
from trajectory_platform.traces.adapters.citations import joins_cited
from trajectory_platform.traces.adapters.content_parts import (
    REDACTED,
    AssistantParts,
    check_output_found,
    piece_of,
)
from trajectory_platform.traces.adapters.message_roles import spoken_role
from trajectory_platform.traces.adapters.openai import CALL_KEYS, carries_answer, extra_of, is_message_list
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec, canonical_json

CALL_BLOCKS = ("tool_use", "server_tool_use", "mcp_tool_use")
"""A call: the caller's tool, or one the API runs itself (a server tool, an MCP connector's)."""
ANTHROPIC_BLOCKS = {*CALL_BLOCKS, "tool_result", "thinking", "redacted_thinking"}


def _is_anthropic_block(block: Any) -> bool:
    """A content block only Anthropic writes. Mistral writes a ``thinking`` chunk too, holding a
    list of text chunks where Anthropic's holds a string: that message is not Anthropic's."""
    if not isinstance(block, dict) or not isinstance(block.get("type"), str):
        return False
    if block["type"] == "thinking":
        return isinstance(block.get("thinking"), str)
    return block["type"] in ANTHROPIC_BLOCKS


OPENAI_ROLES = frozenset({"system", "developer", "tool", "function"})
"""Message roles the Chat Completions API writes and the Messages API never does (its system prompt
is a top-level field, its tool results are ``tool_result`` blocks in a user turn)."""
OPENAI_FIELDS = ("tool_calls", "tool_call_id", "function_call")
"""Message fields only the Chat Completions API writes (Anthropic's calls are ``tool_use`` blocks)."""


def _speaks_chat_completions(messages: list[Any]) -> bool:
    """Messages one of which has a role or field only the Chat Completions API writes."""
    return any(
        isinstance(m, dict) and (m.get("role") in OPENAI_ROLES or any(k in m for k in OPENAI_FIELDS))
        for m in messages
    )


def _has_anthropic_blocks(messages: Any) -> bool:
    """Messages holding Anthropic's content blocks and nothing only OpenAI's messages hold: a
    framework that writes its calls both as ``tool_use`` parts and as ``tool_calls`` (with ``tool``
    messages for the results) speaks Chat Completions, read by the ``openai`` reader, which reads
    parts by their shape; read here, its ``tool`` role was an ``unknown role`` reject."""
    if not isinstance(messages, list) or _speaks_chat_completions(messages):
        return False
    return any(
        isinstance(m, dict)
        and isinstance(m.get("content"), list)
        and any(_is_anthropic_block(b) for b in m["content"])
        for m in messages
    )


def assistant_events(content: Any, where: str) -> list[Event]:
    """One assistant message: its turns (text, reasoning and tool calls in block order), each followed
    by the results it holds as tool events (a server tool's, an MCP server's or Claude.ai's, which run
    within the message: ``anthropic_results.py``). What follows such a result was written after the
    model saw it, so it opens a turn of its own (joined to the turn before, an answer citing a search
    read as written before the search ran). A block of another kind is read by its shape
    (:mod:`~trajectory_platform.traces.adapters.content_parts`), or rejects the record."""
    if not isinstance(content, list):
        return [Event(kind="assistant", content=text_of(content, where))]
    steps = [AssistantParts(Event(kind="assistant"))]
    for index, block in enumerate(content):
        at = f"{where}[{index}]"
        expect(block, dict, at)
        kind = block.get("type")
        parts = steps[-1]
        if is_result_block(block):
            calls = parts.turn.tool_calls
            parts.results.append(
                result_event(block, at, calls[len(parts.results)] if calls[len(parts.results) :] else None)
            )
            continue
        if parts.results:  # the model goes on after its tools' results: the next step
            parts = AssistantParts(Event(kind="assistant"))
            steps.append(parts)
        if kind == "text":
            text = expect(block.get("text", ""), str, f"{at}.text")
            if parts.texts and index and joins_cited(block, content[index - 1]):
                parts.texts[-1] += text  # one sentence the API split at a citation
            else:
                parts.texts.append(text)
        elif kind == "thinking":
            parts.thoughts.append(expect(block.get("thinking", ""), str, f"{at}.thinking"))
        elif kind == "redacted_thinking":
            parts.thoughts.append(REDACTED)
        elif kind in CALL_BLOCKS:
            parts.turn.tool_calls.append(
                ToolCall(
                    id=optional_str(block.get("id"), f"{at}.id"),
                    name=optional_str(block.get("name"), f"{at}.name"),
                    arguments=arguments_text(block.get("input")),
                )
            )
        else:
            parts.take(piece_of(block, at))
    return [event for parts in steps for event in parts.events()]


def user_events(content: Any, where: str) -> list[Event]:
    """One user message: tool results (each its own event) and text, in block order."""
    if not isinstance(content, list):
        return [Event(kind="user", content=text_of(content, where))]
    events: list[Event] = []
    for index, block in enumerate(content):
        at = f"{where}[{index}]"
        expect(block, dict, at)
        if is_result_block(block):
            check_output_found(block, block.get("content"), at)
            events.append(result_event(block, at, None))
            continue
        for piece, value in piece_of(block, at):
            if piece == "result":
                events.append(value)
            elif piece != "text":
                raise RecordError("misplaced content part", f"{at} holds a {piece} part in a user message")
            elif events and events[-1].kind == "user":
                events[-1].content = f"{events[-1].content}\n{value}"
            else:
                events.append(Event(kind="user", content=value))
    return events


def events_of_message(message: Any, where: str) -> list[Event]:
    """Convert one Messages-API message (``user`` or ``assistant``)."""
    expect(message, dict, where)
    # a message naming its speaker another way (Claude.ai's export: ``sender``) is read as the
    # openai reader reads it, not rejected as role None
    role = message["role"] if "role" in message else spoken_role(message)
    unread = next((key for key in CALL_KEYS if message.get(key)), None)
    if unread is not None:  # another dialect's calls in a Messages-API message: never dropped silently
        raise RecordError(
            "unread conversation content",
            f"{where}.{unread} is another API's field that the Messages API reader does not read",
        )
    if role == "assistant":
        events = assistant_events(message.get("content"), f"{where}.content")
        last = [e for e in events if e.kind == "assistant"][-1]  # the step the message ended on
        last.finish_reason = optional_str(message.get("stop_reason"), f"{where}.stop_reason")
        usage = message.get("usage") if isinstance(message.get("usage"), dict) else {}
        last.input_tokens = usage.get("input_tokens")
        last.output_tokens = usage.get("output_tokens")
        return events
    if role == "user":
        return user_events(message.get("content"), f"{where}.content")
    if role == "system":
        return [Event(kind="system", content=text_of(message.get("content"), f"{where}.content"))]
    raise RecordError("unknown role", f"{where}.role is {named(role)}; expected user or assistant")


def system_events(request: dict[str, Any], where: str) -> list[Event]:
    """The system prompt a Messages API call declares beside its ``messages``: the top-level
    ``system`` (a string or text blocks), as one system event, or none. The one reading of it for
    every reader of such a call: this format's, and the tracing platforms' (Langfuse, LangSmith,
    MLflow log an Anthropic SDK call's keyword arguments as its input), which read only
    ``messages`` before and so dropped the prompt the model saw. ``where`` is the path of the
    object holding it (empty at a record's top level)."""
    if request.get("system") is None:
        return []
    return [Event(kind="system", content=text_of(request["system"], f"{where}.system".lstrip(".")))]


def tool_specs_of(raw: Any, where: str) -> list[ToolSpec]:
    """``tools``: ``{"name", "description", "input_schema"}``."""
    expect(raw, list, where)
    specs = []
    for index, tool in enumerate(raw):
        expect(tool, dict, f"{where}[{index}]")
        schema = tool.get("input_schema")
        specs.append(
            ToolSpec(
                name=expect(tool.get("name"), str, f"{where}[{index}].name"),
                description=optional_str(tool.get("description"), f"{where}[{index}].description"),
                parameters_json=None if schema is None else canonical_json(schema),
            )
        )
    return specs


class AnthropicAdapter(Adapter):
    """A Messages request/conversation per record (JSONL line, array element or document)."""

    name = "anthropic"
    task_id_source = CHAT_TASK_ID_SOURCE
    reads_conversation_alone = True
    SAMPLING = ("temperature", "top_p", "top_k", "max_tokens")
    CONSUMED = ("id", "system", "messages", "tools", "model", *SAMPLING)
    bare_list_key = "messages"

    def is_bare_list(self, document: Any) -> bool:
        """A file that is a bare list of Messages API messages holding Anthropic blocks: read here,
        not as OpenAI messages, whose reader would turn a ``tool_use`` block into text (Cline's and
        Roo Code's ``api_conversation_history.json`` is the ``cline`` format's, read the same way)."""
        return is_message_list(document) and _has_anthropic_blocks(document)

    def claims_record(self, record: dict[str, Any]) -> bool:
        if not isinstance(record.get("messages"), list):
            return False
        tools = record.get("tools")
        has_schema = isinstance(tools, list) and any(
            isinstance(t, dict) and "input_schema" in t for t in tools
        )
        # OpenAI puts the system prompt in the messages; Anthropic has a top-level ``system``, but
        # a record beside it whose messages speak Chat Completions (a ``tool`` role, ``tool_calls``:
        # Letta's agent file) is OpenAI's, its ``system`` the agent's prompt
        openai_spoken = _speaks_chat_completions(record["messages"])
        system = "system" in record and not openai_spoken
        anthropic = has_schema or system or _has_anthropic_blocks(record["messages"])
        return anthropic and not carries_answer(record)  # a logged call with its answer: chat-log

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        own_id = optional_str(value.get("id"), "id")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, own_id, value))
        episode.task.fixture_id = chat_task_id(value)
        read_chat_outcome(value, episode)
        episode.events.extend(system_events(value, ""))
        messages = expect(value.get("messages"), list, "messages")
        for index, message in enumerate(messages):
            episode.events.extend(events_of_message(message, f"messages[{index}]"))
        if value.get("tools") is not None:
            episode.tools = tool_specs_of(value["tools"], "tools")
        episode.lineage.model = optional_str(value.get("model"), "model")
        sampling = {k: value[k] for k in self.SAMPLING if k in value}
        episode.lineage.sampling_params_json = sampling_params_json(sampling)
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        episode.extra_json = extra_of(value, self.CONSUMED)
        name_tool_results(episode.events)
        return episode
