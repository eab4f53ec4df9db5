"""OpenAI Chat Completions messages: ``tool_calls`` / ``tool`` role, legacy ``function_call`` /
``function`` role, the fine-tuning ``weight`` on assistant messages, and a ``tools`` /
``functions`` list.

A record is one conversation: ``{"messages": [...], "tools": [...], ...}`` (a JSONL line or an
array element), or a whole file that is a bare list of messages. The task it ran against is
``metadata.task_id`` (see :data:`~trajectory_platform.traces.adapters.base.TASK_ID_KEYS`). The
message conversion is shared with formats that embed OpenAI messages (tau-bench, ToolBench).

Frameworks that write the same messages with content parts of their own (Strands, Vercel AI,
Haystack, Semantic Kernel's ``items``, LlamaIndex's ``blocks``) are read by the parts' shape
(``content_parts.py``); what a logged call answered, however it was logged (a response, an
assistant message, a stream, a list of completions), is found by :func:`chat_response`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from trajectory_platform.traces.adapters.base import (
    CHAT_TASK_ID_SOURCE,
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    chat_task_id,
    expect,
    name_tool_results,
    object_field,
    optional_str,
    read_chat_outcome,
    text_of,
)
from trajectory_platform.traces.adapters.content_parts import (
    ERROR_STATUSES,
    Piece,
    bodies_of,
    call_of,
    pieces_of,
    reasoning_text,
    steps_of,
)
from trajectory_platform.traces.adapters.datasets import is_json_rpc
from trajectory_platform.traces.adapters.message_roles import (
    FOLDED,
    answering_model,
    missing_speaker,
    role_message,
    role_messages,
    spoken_role,
    take_call_facts,
)
from trajectory_platform.traces.drops import named, path_of
from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec, canonical_json

ROLE_KINDS = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
}
CONVERSATION_KEYS = ("messages", "tools", "functions")


def is_message_list(value: Any) -> bool:
    """A non-empty list whose first element looks like a chat message (its role in any spelling
    :mod:`~trajectory_platform.traces.adapters.message_roles` reads), and is no JSON-RPC message in
    a logger's envelope (its ``direction`` read as a speaker, an MCP log was an empty chat)."""
    return (
        isinstance(value, list)
        and bool(value)
        and spoken_role(value[0]) is not None
        and not is_json_rpc(value[0])
    )


AUTOGEN_RESULTS = "tool_responses"
"""AutoGen's (AG2's) tool message field: each result with its call id. Such a message's ``name`` is
the agent that ran the tools (``user_proxy``), a speaker, not a tool: each result's speaker."""
COHERE_RESULTS = "tool_results"
"""Cohere v1's ``TOOL`` message field: each result as ``{"call": {"name", "parameters"}, "outputs"}``
(the call it answers named by its tool and input: Cohere v1 calls carry no id)."""
CONTENT_KEYS = (AUTOGEN_RESULTS, COHERE_RESULTS, "parts", "content", "items", "blocks", "contents")
"""Where a message keeps what it says, the first present read: AutoGen's ``tool_responses`` (each
result of a tool message with its call id; the message's ``content`` only joins their text),
Cohere v1's ``tool_results`` (:data:`COHERE_RESULTS`), the
Vercel AI SDK's ``parts`` (a ``UIMessage``'s text, reasoning and tool parts in order; v4 also
repeats the text as ``content``, which the parts hold), then ``content``, Semantic Kernel's
``items``, LlamaIndex's ``blocks``, Microsoft Agent Framework's and ``Microsoft.Extensions.AI``'s
``contents`` (``function_call`` / ``function_result`` parts by ``call_id``)."""
INVOCATION_KEY = "tool_invocations"
"""Where a Vercel AI SDK v3/v4 ``Message`` without ``parts`` keeps its tool calls and their results
(``toolInvocations``: ``{"state", "toolCallId", "toolName", "args", "result"}``), read as parts after
its ``content`` text."""
TEXT_KEYS = ("message", "text")
"""Where a message with none of :data:`CONTENT_KEYS` keeps its text as a string: voice-agent call
logs (Vapi, Bland) and Devin-style exports write ``message``, others ``text``."""
RESULT_TEXT_KEYS = ("output", "result", "observation")
"""Where a tool message with none of :data:`CONTENT_KEYS` keeps the tool's output as a string."""
REASONING_FIELDS = ("reasoning_content", "reasoning", "thinking", "reasoning_details", "tool_plan", "thought")
"""Where an assistant message keeps the model's reasoning, each present read in this order (a text
two of them repeat, as vLLM writes ``reasoning`` beside ``reasoning_content``, read once):
DeepSeek's and vLLM's ``reasoning_content``, OpenRouter's ``reasoning`` and ``reasoning_details``,
Ollama's ``thinking``, Cohere's ``tool_plan`` (the plan it writes before its calls), the ReAct
``thought`` agent frameworks log."""
MESSAGE_FACT_KEYS = frozenset(
    {"role", "name", "id", "type", "status", "tool_call_id", "tool_name", "model", "finish_reason"}
    | {"timestamp", "created_at", "time", "date", "object", "run_id", "thread_id", "assistant_id"}
)
"""A message's string fields that say what the message is rather than what it says: an otherwise
empty turn beside them is empty as recorded. Any other string field beside an empty turn is text
this reader does not place (:func:`_unplaced_text`)."""
NESTED_FIELDS = "additional_kwargs"
"""Where LlamaIndex and LangChain keep a message's OpenAI fields (``tool_calls``, ``tool_call_id``,
``name``); a field the message itself states wins."""


def tool_call_of(raw: Any, where: str) -> ToolCall:
    """One entry of ``tool_calls``: ``{"id", "type": "function", "function": {"name", "arguments"}}``,
    a custom tool's ``{"type": "custom", "custom": {"name", "input"}}``, or flat (LangChain's
    ``args``, as tracing platforms store a LangChain message as a role dict). A call that names no
    tool rejects the record: it would train a call to nothing."""
    expect(raw, dict, where)
    nested = raw.get("function")
    body = nested if isinstance(nested, dict) else bodies_of(raw)[0][0]
    call = call_of({**raw, **body}, where)
    if call.name is None:
        raise RecordError("unnamed tool call", f"{where} names no tool")
    return call


def _fields(message: dict[str, Any]) -> dict[str, Any]:
    """The message's fields, with those it keeps under :data:`NESTED_FIELDS` where it states none,
    and the parts of a content object (:func:`_content_object_parts`) as its parts."""
    nested = message.get(NESTED_FIELDS)
    own = {k: v for k, v in message.items() if v is not None}
    wrapped = _content_object_parts(own.get("content"))
    if wrapped is not None and "parts" not in own:
        own.pop("content")
        own["parts"] = wrapped
    invocations = own.pop(INVOCATION_KEY, None)
    if isinstance(invocations, list) and invocations and "parts" not in own:
        text = own.pop("content", None)
        own["parts"] = [*([text] if text else []), *invocations]
    return {**nested, **own} if isinstance(nested, dict) else own


def _content_object_parts(content: Any) -> list[Any] | None:
    """The parts of a message's content written as an object holding them: Mastra's stored message
    (``{"format": 2, "parts": [...]}``, beside legacy copies of the same turn: ``content`` text,
    ``toolInvocations``, ``reasoning``), a Gemini-style ``{"role", "parts"}``. Its parts are the
    turn; where they are empty, its ``content`` text is. None for any other content."""
    if not isinstance(content, dict) or not isinstance(content.get("parts"), list):
        return None
    text = content.get("content")
    return content["parts"] or ([text] if isinstance(text, str) and text else [])


def _misplaced(piece: str, role: str, where: str) -> RecordError:
    return RecordError("misplaced content part", f"{where} holds a {piece} part in a {role} message")


def events_of_message(message: Any, where: str) -> list[Event]:
    """Convert one OpenAI message (malformed argument strings are kept verbatim: they are data).

    Content parts are read by their shape (:mod:`~trajectory_platform.traces.adapters.content_parts`):
    an assistant message's text, reasoning and calls are one event, and any results it holds (a
    server-side tool's) follow it as tool events; a user or system message's results are tool events
    where they stand; a tool message's results are one tool event each. A message whose role is
    said another way is read as the OpenAI message it is
    (:mod:`~trajectory_platform.traces.adapters.message_roles`)."""
    message = expect(role_message(message, where), dict, where)
    role = message.get("role")
    if role is None:
        raise RecordError("unknown role", f"{where} states no role{missing_speaker(message)}")
    if not isinstance(role, str) or role not in ROLE_KINDS:
        raise RecordError(
            "unknown role", f"{where}.role is {named(role)}; expected one of {sorted(ROLE_KINDS)}"
        )
    fields = _fields(message)
    output = role in ("tool", "function")
    synonyms = (*TEXT_KEYS, *RESULT_TEXT_KEYS) if output else TEXT_KEYS
    key = next((k for k in CONTENT_KEYS if k in fields), None) or next(
        (k for k in synonyms if isinstance(fields.get(k), str)), "content"
    )
    content, at = fields.get(key), f"{where}.{key}"
    steps = steps_of(content) if role == "assistant" and isinstance(content, list) else []
    if len(steps) > 1:  # the model spoke again after a result within the message: a turn a step
        first = events_of_message({**message, key: steps[0][1]}, where)
        return first + [
            event
            for start, parts in steps[1:]
            for event in events_of_message({"role": "assistant", key: parts}, f"{at}[{start}:]")
        ]
    pieces: list[Piece] = (
        pieces_of(content, at, output) if isinstance(content, list) else [("text", text_of(content, at))]
    )
    event = Event(kind=ROLE_KINDS[role])
    event.name = optional_str(fields.get("name"), f"{where}.name") if role != "function" else None
    events: list[Event] = [event]
    texts: list[str | None] = []
    thoughts: list[str] = []
    for kind, value in pieces:
        if kind == "text":
            texts.append(value)
        elif kind == "result" and role == "tool" and value.tool_call_id is None:
            events.append(value)
            value.tool_call_id = optional_str(fields.get("tool_call_id"), f"{where}.tool_call_id")
        elif kind == "result":
            events.append(value)
            if key == AUTOGEN_RESULTS:  # AutoGen names a tool message by the agent that ran it
                value.name = value.name or optional_str(fields.get("name"), f"{where}.name")
        elif role != "assistant":
            raise _misplaced(kind, role, at)
        elif kind == "call":
            event.tool_calls.append(value)
        else:
            thoughts.append(value)
    said = [t for t in texts if t is not None]
    event.content = "\n".join(said) if said or (isinstance(content, list) and not pieces) else None
    if role == "assistant":
        calls = expect(fields.get("tool_calls") or [], list, f"{where}.tool_calls")
        listed = [tool_call_of(c, f"{where}.tool_calls[{i}]") for i, c in enumerate(calls)]
        # a framework may write one call both as a content part and in ``tool_calls``: it is one
        # call (the API's own field kept, its arguments as sent), not two
        ids = {c.id for c in listed if c.id is not None}
        event.tool_calls = [c for c in event.tool_calls if c.id is None or c.id not in ids] + listed
        if fields.get("function_call") is not None:
            legacy = expect(fields["function_call"], dict, f"{where}.function_call")
            event.tool_calls.append(tool_call_of({"function": legacy}, f"{where}.function_call"))
        for key in REASONING_FIELDS:
            reasoning = reasoning_text(fields.get(key), f"{where}.{key}")
            thoughts += [reasoning] if reasoning is not None and reasoning not in thoughts else []
        event.reasoning = "\n".join(thoughts) or None
        spoken = fields.get("refusal", object_field(fields, "audio").get("transcript"))
        if spoken is not None and event.content is None:  # a refusal, or what an audio answer said
            event.content = optional_str(spoken, f"{where}.refusal")
        weight = fields.get("weight")
        if weight is not None:
            event.weight = float(expect(weight, int | float, f"{where}.weight"))
        take_call_facts(event, fields, where)
    elif role in ("tool", "function"):
        event.tool_call_id = optional_str(fields.get("tool_call_id"), f"{where}.tool_call_id")
        event.tool_name = optional_str(fields.get("name", fields.get("tool_name")), f"{where}.name")
        if str(fields.get("status")) in ERROR_STATUSES:  # LangChain's and Letta's failed tool call
            event.status = "error"
    if not any(e.content or e.reasoning or e.tool_calls for e in events):
        _unplaced_text(fields, where)
    if len(events) == 1 or role == "assistant":
        return events
    if not said:
        return events[1:]  # the message is its results
    return events if pieces[0][0] == "text" else [*events[1:], event]  # the text where it stood


def _holds_text(value: Any) -> bool:
    """Text a message may keep under a field of its own: a string, or a list of parts one of which
    has a ``text`` or ``content`` string (Zed's thread messages keep theirs under ``segments``)."""
    if isinstance(value, str):
        return bool(value.strip())
    return isinstance(value, list) and any(
        isinstance(part, dict)
        and any(isinstance(part.get(k), str) and part[k].strip() for k in ("text", "content"))
        for part in value
    )


def _unplaced_text(fields: dict[str, Any], where: str) -> None:
    """Reject a message read as an empty turn although it holds text under a field this reader does
    not read (anything but :data:`MESSAGE_FACT_KEYS`), as a string or as parts
    (:func:`_holds_text`): admitted, the turn would train as said nothing, and the text would be in
    no field of the record."""
    for key, value in fields.items():
        if key not in MESSAGE_FACT_KEYS and _holds_text(value):
            raise RecordError(
                "unread message text",
                f"{where}.{path_of([str(key)])} holds text, but the message's turn is read empty: "
                "this reader does not read that field as a message's text",
            )


def event_of_message(message: Any, where: str) -> Event:
    """One OpenAI message that is one event (where a single event is read: a model call's reply,
    one step of a harness); a message that holds several (tool results beside its turn) rejects
    the record rather than losing them."""
    events = events_of_message(message, where)
    if len(events) != 1:
        raise RecordError("misplaced content part", f"{where} holds tool results where one turn is read")
    return events[0]


def _speaker_roles(messages: list[Any]) -> list[Any]:
    """Messages whose roles are relative to one agent of a multi-agent chat, re-roled for the agent
    that acts.

    AutoGen's ``chat_history`` records each message from one agent's point of view (what it sent is
    ``assistant``, what it received ``user``) but keeps ``assistant`` on every tool-call message. Three
    signs show roles are relative: one ``name`` speaks as both ``user`` and ``assistant``, a
    speaker that runs the tools (its name on tool results) speaks as ``assistant`` (the executor's
    point of view: AutoGen 0.2's ``ChatResult`` of a ``user_proxy``, whose tool-call messages may
    carry no name), or a named ``user`` message calls tools (a user never calls the model's tools:
    an AG2 group chat's ``messages``, every speaker ``user``, who spoke only in ``name``). The agent
    that calls tools is the one trained (:func:`_actor`): its messages are ``assistant`` turns,
    every other named speaker's ``user`` turns; an unnamed message keeps its role, a tool call
    being the actor's. Roles with none of these signs are kept as recorded; relative
    roles with no single acting agent reject the record (which speaker is the model cannot be
    told). A tool-call message AutoGen wrote without a ``name`` (it names only the others) is the
    actor's: it carries the actor's name, so every turn says who spoke."""
    roles_by_name: dict[str, set[str]] = {}
    for message in messages:
        if isinstance(message, dict) and isinstance(message.get("name"), str):
            roles_by_name.setdefault(message["name"], set()).add(str(message.get("role")))
    executors = {
        name for name, roles in roles_by_name.items() if "assistant" in roles and roles & {"tool", "function"}
    }
    users_calling = any(
        isinstance(m, dict)
        and m.get("role") == "user"
        and isinstance(m.get("name"), str)
        and m.get("tool_calls")
        for m in messages
    )
    relative = executors or users_calling
    if not relative and not any({"user", "assistant"} <= roles for roles in roles_by_name.values()):
        return messages
    actor = _actor(messages, roles_by_name, executors)
    return [
        {**m, "role": "assistant" if m.get("name") == actor else "user"}
        if isinstance(m, dict) and m.get("role") in ("user", "assistant") and isinstance(m.get("name"), str)
        else {**m, "name": actor}
        if isinstance(m, dict) and any(m.get(k) for k in CALL_KEYS) and m.get("name") is None
        else m
        for m in messages
    ]


def _actor(messages: list[Any], roles_by_name: dict[str, set[str]], executors: set[str]) -> str:
    """The speaker that acts in a chat of relative roles: the one named on its tool calls, else,
    when no tool call names its speaker, the one chat speaker that does not run the tools."""
    callers = {m.get("name") for m in messages if isinstance(m, dict) and m.get("tool_calls")}
    named = {caller for caller in callers if isinstance(caller, str)}
    if len(named) == 1:
        return next(iter(named))
    speakers = {name for name, roles in roles_by_name.items() if roles & {"user", "assistant"}} - executors
    if not named and executors and len(speakers) == 1:
        return next(iter(speakers))
    raise RecordError(
        "ambiguous speaker roles",
        "one speaker is recorded both as user and as assistant (or runs the tools and speaks as "
        "assistant), and no single speaker calls tools",
    )


def _in_time_order(messages: list[Any]) -> list[Any]:
    """A listing written newest first (the Assistants API's thread messages) reversed into the
    order it happened; any other list is kept in its recorded order (never sorted).

    Newest first is when every message's ``created_at`` is no later than the one listed before it
    and at least one is earlier. Stamps are whole seconds, so an agent's messages often tie: a tie
    says nothing of the order, a fall says the list runs backwards, and a list that never rises
    cannot be a chronological one that fell. Ties alone (every stamp equal) are no evidence, and
    such a list keeps its recorded order."""
    stamps = [m.get("created_at") for m in messages if isinstance(m, dict)]
    numbers = [t for t in stamps if isinstance(t, int | float) and not isinstance(t, bool)]
    pairs = list(zip(numbers, numbers[1:], strict=False))
    if 1 < len(numbers) == len(messages) and all(a >= b for a, b in pairs) and any(a > b for a, b in pairs):
        return messages[::-1]
    return messages


SESSION_KEYS = ("sessionId", "session_id", "conversation_id", "conversationId", "thread_id", "threadId")
"""Where a message logged on its own names the conversation it belongs to."""


def _one_conversation(messages: list[Any], where: str) -> None:
    """Reject a message list that is not one conversation, which its messages say themselves when
    each names its session (:data:`SESSION_KEYS`): messages of several sessions (read as one, the
    conversations were merged into an episode none of them was), or a session's messages that are
    all the user's, a log of the prompts typed (Gemini CLI's ``logs.json`` beside its ``chats/``:
    slash commands included, no model turn) rather than a conversation or a request."""
    sessions = [next((m[k] for k in SESSION_KEYS if isinstance(m, dict) and k in m), None) for m in messages]
    if not messages or any(session is None for session in sessions):
        return
    other = next((i for i, session in enumerate(sessions) if session != sessions[0]), None)
    if other is not None:
        raise RecordError(
            "several conversations",
            f"{where}[{other}] names another session than {where}[0]: the list holds the messages "
            "of several conversations, which read as one would merge them",
        )
    if all(spoken_role(m) == "user" for m in messages):
        raise RecordError(
            "prompt log",
            f"every message of {where} is the user's and names its session: a log of the prompts "
            "typed (as Gemini CLI's logs.json), with no model turn, not a conversation",
        )


def events_of_messages(messages: Any, where: str) -> list[Event]:
    """Convert a message list in the order it happened (see :func:`_in_time_order`), speakers
    re-roled when their roles are relative (:func:`_speaker_roles`), each role read in whatever
    spelling it was written (:func:`~trajectory_platform.traces.adapters.message_roles.role_messages`);
    a list that is not one conversation rejects the record (:func:`_one_conversation`)."""
    _one_conversation(expect(messages, list, where), where)
    read = role_messages(expect(messages, list, where), where)
    ordered = _speaker_roles(_in_time_order(read))
    reversed_ = ordered is not read and ordered == read[::-1]
    last = len(read) - 1
    return [
        event
        for i, m in enumerate(ordered)
        if m is not FOLDED
        for event in events_of_message(m, f"{where}[{last - i if reversed_ else i}]")
    ]


TEXT_ANSWER_KEYS = ("response", "completion", "output", "answer", "generated_text")
"""Where the simplest loggers write a call's answer as a plain string beside ``messages`` (a local
model's ``generate``, Hugging Face's ``generated_text``): read as the assistant message it is."""
COMPLETION_LIST_KEYS = ("outputs",)
"""A list of completions logged beside the conversation (DSPy's LM history: one string, or one
``{"text", "tool_calls"}`` object, per sample), read as a response's choices."""
SSE_DATA = "data:"
SSE_START = re.compile(r"\s*(?:event:[^\n]*\n)?data:\s*[{\[]")
"""How a logged event stream starts: its first event's ``data:`` line holding JSON (or ``[DONE]``),
perhaps after an ``event:`` line (matched in place: a long text is not copied to be tested)."""
UNREAD_STREAM = "unread_stream"
"""What :func:`chat_response` answers for an event stream it cannot add up (a line that is not JSON,
or events that are not Chat Completions chunks): still the call's answer, so the call is not
taken for one logged without its answer, and ``chat-log`` rejects it naming where it was."""


def is_chat_answer(value: Any) -> bool:
    """A Chat Completions response (``choices`` holding messages) or one assistant message (an
    Anthropic response is one): what a logged call answered."""
    if not isinstance(value, dict):
        return False
    choices = value.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return isinstance(choices[0].get("message"), dict)
    return value.get("role") == "assistant"


def _is_chunk(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("choices"), list)


def _chunks(value: Any) -> list[dict[str, Any]] | None:
    """A streamed response's ``chat.completion.chunk`` objects (each choice a ``delta``), else None."""
    if not (isinstance(value, list) and value and all(_is_chunk(c) for c in value)):
        return None
    deltas = [ch for c in value for ch in c["choices"] if isinstance(ch, dict)]
    return value if deltas and all(isinstance(ch.get("delta"), dict) for ch in deltas) else None


def _event_stream(text: str) -> list[Any] | None:
    """The ``data:`` lines of the server-sent events text a gateway logged, parsed (``[DONE]``
    left out); None when one of them is not JSON."""
    lines = [line[len(SSE_DATA) :].strip() for line in text.splitlines() if line.startswith(SSE_DATA)]
    try:
        return [json.loads(line) for line in lines if line != "[DONE]"]
    except json.JSONDecodeError:
        return None


def assembled_chunks(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The response a stream of chunks adds up to: per choice, its content, reasoning and each tool
    call's arguments concatenated in order (a call's id and name from the delta that names them),
    its last finish reason; the model and usage of the chunks that state them."""
    choices: dict[int, dict[str, Any]] = {}
    response: dict[str, Any] = {}
    for chunk in chunks:
        response.update({k: chunk[k] for k in ("id", "model", "usage") if chunk.get(k) is not None})
        for choice in chunk["choices"]:
            index = choice.get("index", 0)
            message = choices.setdefault(index, {"index": index, "message": {"role": "assistant"}})
            delta, body = choice["delta"], message["message"]
            for key in ("content", "reasoning_content", "reasoning", "refusal"):
                if isinstance(delta.get(key), str):
                    body[key] = body.get(key, "") + delta[key]
            for call in delta.get("tool_calls") or []:
                calls = body.setdefault("tool_calls", {})
                merged = calls.setdefault(call.get("index", len(calls)), {"function": {}})
                merged.update({k: call[k] for k in ("id", "type") if call.get(k) is not None})
                function = call.get("function") or {}
                if function.get("name"):
                    merged["function"]["name"] = function["name"]
                merged["function"]["arguments"] = merged["function"].get("arguments", "") + (
                    function.get("arguments") or ""
                )
            if choice.get("finish_reason") is not None:
                message["finish_reason"] = choice["finish_reason"]
    for message in choices.values():
        calls = message["message"].get("tool_calls")
        if calls is not None:
            message["message"]["tool_calls"] = [calls[i] for i in sorted(calls)]
    return {**response, "choices": [choices[i] for i in sorted(choices)]}


def _completions(value: Any) -> dict[str, Any] | None:
    """A :data:`COMPLETION_LIST_KEYS` list as a response whose choices are its samples."""
    if not (isinstance(value, list) and value and all(isinstance(v, str | dict) for v in value)):
        return None
    messages = [{"content": v} if isinstance(v, str) else v for v in value]
    return {
        "choices": [
            {"index": i, "message": {"role": "assistant", **{"content": m.get("text"), **m}}}
            for i, m in enumerate(messages)
        ]
    }


def chat_response(key: str, value: Any) -> dict[str, Any] | None:
    """``value`` (the field ``key`` of a logged call) as the Chat Completions response it holds: a
    response or an assistant message as it is, a response's choices alone as that response, a
    stream of chunks (or its event text) assembled, a list of completions
    (:data:`COMPLETION_LIST_KEYS`) as its choices; ``None`` when it holds no
    answer (:data:`UNREAD_STREAM` when it holds one this reader cannot add up)."""
    if is_chat_answer(value):
        return dict(value)
    if isinstance(value, str) and SSE_START.match(value):
        chunks = _chunks(_event_stream(value))
        return {UNREAD_STREAM: True} if chunks is None else assembled_chunks(chunks)
    if _is_choice_list(value):
        return {"choices": list(value)}
    chunks = _chunks(value)
    if chunks is not None:
        return assembled_chunks(chunks)
    return _completions(value) if key in COMPLETION_LIST_KEYS else None


def text_answer(key: str, value: Any) -> dict[str, Any] | None:
    """``value`` (the field ``key`` of a logged call) as the assistant message it is when it is a
    plain string answer (:data:`TEXT_ANSWER_KEYS`), else ``None``. A structured answer
    (:func:`chat_response`) beside it wins: loggers that write both (Humanloop's ``output`` and
    ``output_message``) restate the same answer as text."""
    if isinstance(value, str) and key in TEXT_ANSWER_KEYS and value.strip():
        return {"role": "assistant", "content": value}
    return None


def _is_choice_list(value: Any) -> bool:
    """A response's ``choices`` logged without the response around them (Braintrust's span
    ``output``): objects each holding a ``message``."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(c, dict) and isinstance(c.get("message"), dict) for c in value)
    )


def carries_answer(record: dict[str, Any]) -> bool:
    """Does a ``messages`` record log its call's answer beside the conversation (:func:`chat_response`,
    :func:`text_answer`)?
    Such a record is a logged call, read by ``chat-log`` (detected before ``openai``), which appends
    the answer as the call's response; read as a conversation alone, the answer would be left in
    ``extra_json``, off the conversation."""
    return any(
        chat_response(k, v) is not None or text_answer(k, v) is not None
        for k, v in record.items()
        if k != "messages"
    )


def taken_choice(response: dict[str, Any], where: str, key: str = "choices") -> tuple[int, dict[str, Any]]:
    """The choice of a response that the episode continues with, and its position: the one with the
    lowest ``index`` (the first listed when none is numbered). With ``n`` > 1 an agent program reads
    ``choices[0]`` and goes on from it, so that choice is the trajectory; the others are samples it
    never acted on (how many is said where the episode's extra fields are kept). ``key`` names the
    list: a Gemini response's ``candidates`` (``candidateCount`` > 1) are taken the same way."""
    choices = expect(response[key], list, f"{where}.{key}")
    if not choices:
        raise RecordError("missing field", f"{where}.{key} is empty")
    order = [c.get("index", i) if isinstance(c, dict) else i for i, c in enumerate(choices)]
    ranks = [o if isinstance(o, int) and not isinstance(o, bool) else i for i, o in enumerate(order)]
    position = min(range(len(choices)), key=lambda i: (ranks[i], i))
    return position, expect(choices[position], dict, f"{where}.{key}[{position}]")


CHOICES_TAKEN = "choices_taken"
"""The extra field saying which answer each call that gave several continued with:
``[{"call", "index", "of"}]`` (the call's number in the run, the taken answer's position, how many)."""


def choice_taken(response: Any) -> tuple[int, int] | None:
    """``(position, of how many)`` of the answer an episode continues with, where a call answered
    with several (``n`` > 1): a Chat Completions response's choices or a Gemini response's
    candidates (:func:`taken_choice`), a LangChain chat result's first generations
    (``generations[0][0]`` taken); ``None`` for one."""
    if not isinstance(response, dict):
        return None
    for key in ("choices", "candidates"):
        listed = response.get(key)
        if isinstance(listed, list) and len(listed) > 1:
            return taken_choice(response, "response", key)[0], len(listed)
    generations = response.get("generations")
    first = generations[0] if isinstance(generations, list) and generations else None
    if isinstance(first, list) and len(first) > 1:
        return 0, len(first)
    return None


def choices_taken(calls: list[tuple[int, tuple[int, int] | None]]) -> dict[str, Any]:
    """The episode's extra field :data:`CHOICES_TAKEN` for its calls (number in the run,
    :func:`choice_taken`), every reader saying the same; empty when every call had one answer."""
    taken = [{"call": number, "index": c[0], "of": c[1]} for number, c in calls if c is not None]
    return {CHOICES_TAKEN: taken} if taken else {}


def tool_specs_of(raw: Any, where: str) -> list[ToolSpec]:
    """``tools`` (``{"type": "function", "function": {...}}``, or flat as the Responses API writes
    them) or legacy ``functions`` entries; a built-in tool (``{"type": "web_search"}``) is named by
    its type."""
    expect(raw, list, where)
    specs = []
    for index, entry in enumerate(raw):
        expect(entry, dict, f"{where}[{index}]")
        function = entry.get("function", entry) if isinstance(entry.get("function"), dict) else entry
        built_in = entry.get("type") if entry.get("type") != "function" else None
        name = expect(function.get("name", built_in), str, f"{where}[{index}].name")
        parameters = function.get("parameters")
        specs.append(
            ToolSpec(
                name=name,
                description=optional_str(function.get("description"), f"{where}[{index}].description"),
                parameters_json=None if parameters is None else canonical_json(parameters),
                version=optional_str(entry.get("version"), f"{where}[{index}].version"),
            )
        )
    return specs


TOOL_RUN_KEYS = ("tool_call_id", "tool_args", "result", "tool_call_error")
"""Fields only a tool that ran has (its call's id, the arguments it got, what it returned, whether
it failed): a ``tools`` list of such entries (Agno's ``RunResponse.tools``) records the calls made,
not the tools the model was given, and their specification is nowhere in it."""


def _lists_tool_runs(raw: Any) -> bool:
    """Does ``tools`` hold the tools that ran rather than their definitions? Every entry then has a
    :data:`TOOL_RUN_KEYS` field and none a definition's (``function``, ``parameters``,
    ``description``, ``input_schema``)."""
    definition = ("function", "parameters", "description", "input_schema")
    return (
        isinstance(raw, list)
        and bool(raw)
        and all(
            isinstance(e, dict) and any(k in e for k in TOOL_RUN_KEYS) and not any(k in e for k in definition)
            for e in raw
        )
    )


CALL_KEYS = ("tool_calls", "function_call")
"""Where an OpenAI message lists the tool calls its turn made."""
CONVERSATION_CONTENT_KEYS = ("system", *CALL_KEYS)
"""Top-level fields that hold a part of the conversation (its system prompt, the calls a turn made)
wherever a log writes them: a reader that does not read one must not keep it as an extra field."""


NESTED_DEPTH = 4
"""Levels below a top-level field searched for a conversation left unread (:func:`_nested_conversation`)."""


def _nested_conversation(value: Any, path: list[str], depth: int = 0) -> list[str] | None:
    """Where ``value`` holds, below its top level, a list of role messages with a model turn: a
    conversation of its own (a team member's run inside an Agno team run's ``member_responses``,
    its own system prompt, calls and results), the path to it; else ``None``."""
    if isinstance(value, list):
        if value and all(spoken_role(m) is not None for m in value):
            return path if any(spoken_role(m) == "assistant" for m in value) else None
        items = [(f"[{i}]", v) for i, v in enumerate(value)]
    elif isinstance(value, dict):
        items = [(str(k), v) for k, v in value.items()]
    else:
        return None
    if depth >= NESTED_DEPTH:
        return None
    for key, child in items:
        if isinstance(child, dict | list) and (found := _nested_conversation(child, [*path, key], depth + 1)):
            return found
    return None


def extra_of(value: dict[str, Any], consumed: tuple[str, ...]) -> str | None:
    """Top-level fields no adapter field consumed, kept as canonical JSON (nothing dropped).

    A field left over that holds conversation content (:data:`CONVERSATION_CONTENT_KEYS`, a
    call's answer as :func:`chat_response` finds one, or, below it, a conversation of its own:
    :func:`_nested_conversation`) rejects the record instead: kept as an extra
    field it would leave the episode without that turn and still be admitted (a line of a mixed log
    read by a format that does not know that field)."""
    rest = {k: v for k, v in value.items() if k not in consumed}
    for key, field_value in rest.items():
        if field_value in (None, "", [], {}):
            continue
        if key in CONVERSATION_CONTENT_KEYS or chat_response(str(key), field_value) is not None:
            raise RecordError(
                "unread conversation content",
                f"field {path_of([str(key)])} holds a part of the conversation that this format's "
                "reader does not read; it would be lost from the episode",
            )
        nested = _nested_conversation(field_value, [str(key)])
        if nested is not None:
            raise RecordError(
                "unread conversation content",
                f"{path_of(k for k in nested if not k.startswith('['))} holds a conversation of its "
                "own below the top level (a sub-agent's run, say) that this format's reader does not "
                "read; it would be lost from the episode",
            )
    return canonical_json(rest) if rest else None


def _said_system(system: Any, events: list[Event]) -> bool:
    """Whether a record's top-level ``system`` string (an agent's prompt beside its messages, as
    Letta's agent file keeps it) is said by the conversation: a leading system event holding it (the
    prompt compiled with more, its memory), or, with none, the system event it is made here. Any
    other top-level ``system`` is left to :func:`extra_of`, which rejects conversation content it
    would otherwise drop."""
    if not isinstance(system, str) or not system.strip():
        return False
    if events and events[0].kind == "system":
        return system.strip() in (events[0].content or "")
    events.insert(0, Event(kind="system", content=system))
    return True


def _said_calls(calls: Any, events: list[Event]) -> bool:
    """Whether a record's top-level ``tool_calls`` (a response's calls beside the history it returns,
    as Cohere v1's chat response writes them) are the calls of the conversation's last turn, said
    again: the same tools with the same arguments, in order. Any other top-level ``tool_calls`` is
    left to :func:`extra_of`, which rejects conversation content it would otherwise drop."""
    if not isinstance(calls, list) or not calls or not events or events[-1].kind != "assistant":
        return False
    try:
        read = [tool_call_of(c, f"tool_calls[{i}]") for i, c in enumerate(calls)]
    except RecordError:
        return False
    said = [(c.name, _parsed(c.arguments)) for c in events[-1].tool_calls]
    return said == [(c.name, _parsed(c.arguments)) for c in read]


def _parsed(arguments: str | None) -> Any:
    """Arguments compared by what they say, not how they were spaced."""
    try:
        return json.loads(arguments) if arguments is not None else None
    except json.JSONDecodeError:
        return arguments


class OpenAIAdapter(Adapter):
    """Chat conversations in the OpenAI message format (the fine-tuning JSONL shape included)."""

    name = "openai"
    task_id_source = CHAT_TASK_ID_SOURCE
    reads_conversation_alone = True

    bare_list_key = "messages"

    def is_bare_list(self, document: Any) -> bool:
        return is_message_list(document)

    def claims_record(self, record: dict[str, Any]) -> bool:
        return isinstance(record.get("messages"), list)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        if "messages" not in value:
            raise RecordError("missing field", "record has no 'messages' list")
        own_id = optional_str(value.get("id", value.get("conversation_id")), "id")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, own_id, value))
        episode.task.fixture_id = chat_task_id(value)
        read_chat_outcome(value, episode)
        episode.events = events_of_messages(value["messages"], "messages")
        said_system = _said_system(value.get("system"), episode.events)
        name_tool_results(episode.events)  # a result that names only its call id (AutoGen's, LlamaIndex's)
        runs = _lists_tool_runs(value.get("tools"))
        for key in ("tools", "functions"):
            if value.get(key) is not None and not (key == "tools" and runs):
                episode.tools.extend(tool_specs_of(value[key], key))
        model = optional_str(value.get("model"), "model")
        episode.lineage.model = model or answering_model(role_messages(value["messages"], "messages"))
        consumed = tuple(k for k in CONVERSATION_KEYS if not (k == "tools" and runs))
        consumed += ("system",) if said_system else ()
        consumed += ("tool_calls",) if _said_calls(value.get("tool_calls"), episode.events) else ()
        episode.extra_json = extra_of(value, ("id", "conversation_id", "model", *consumed))
        return episode
