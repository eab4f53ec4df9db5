"""Chat messages whose role is said another way than OpenAI's ``role``, read as the OpenAI message
they are.

Agent frameworks serialise the same message (who spoke, what was said, which tools were called,
which call a result answers) under keys of their own, and a reader that asks only for ``role`` sees
a message with no speaker (``unknown role ... is None``) or no conversation at all. Each spelling
is recognised by its shape, never by a file name or a vendor field:

- **LangChain / LangGraph**: ``type`` names the message class (``human``, ``ai``, ``tool``,
  ``system``, ``function``), ``tool_calls`` are flat ``{"name", "args", "id"}`` and
  ``invalid_tool_calls`` are calls whose arguments did not parse (the model's mistakes are data:
  kept as calls with their raw text); a message serialised by ``langchain_core.load.dumpd``
  (``{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}}``) is its
  ``kwargs``, its class named by the last ``id``;
- **Letta**: ``message_type`` names the message (``user_message``, ``assistant_message``,
  ``reasoning_message``, ``tool_call_message``, ``tool_return_message``, ...). A tool that needs a
  person's approval (Letta's human-in-the-loop) is called in an ``approval_request_message``: the
  model's turn, its call awaiting approval. The ``approval_response_message`` that answers it is the
  person's decision on each call (``approvals``: ``{"type": "approval", "tool_call_id", "approve",
  "reason"}``, or a client-side tool's ``{"type": "tool", "tool_call_id", "tool_return", "status"}``;
  before that list, one ``approve`` / ``reason`` naming the request by ``approval_request_id``): a
  refusal is the call's result, ``refused``, its reason what the model was told; a client tool's
  return is the call's result; an approval is no turn of its own (the call runs, and the
  ``tool_return_message`` after it is its result), so a response that only approves is folded away;
- **private or PascalCase fields**: Haystack's older dataclass fields (``_role``, ``_content``), a
  .NET serializer's (Semantic Kernel's ``{"Role": {"Label": "user"}, "Items": [{"$type": ...}]}``:
  its ``Content`` only repeats the first text item, so ``Items`` is read, the calls and results
  too) and camelCase fields (``toolCalls``, ``toolCallId``) read in snake case;
- **a speaker under another key**: a message with no ``role`` whose ``type``, ``direction``,
  ``sender``, ``speaker`` or ``author`` holds one speaker word (Devin-style ``user_message``,
  Botpress ``direction: incoming``, a chat widget's ``sender: customer``; :func:`_speaker`), and
  role words that name an OpenAI role (Gemini's ``model``: :data:`ROLE_SYNONYMS`);
- **smolagents' memory messages**: roles ``tool-call`` (the calls, written as a Python literal after
  ``Calling tools:``) and ``tool-response`` (``Call id: ...`` then ``Observation:`` or ``Error:``).

A message that only reasons (Letta's ``reasoning_message``, Continue's ``thinking`` role) is the
reasoning of the assistant turn that follows it, and a smolagents ``tool-call`` message the calls of
the assistant turn before it: each is folded into that turn (:data:`FOLDED` marks its place), so one
model turn stays one event. A message that states its speaker in one of these ways but with a word
no reader knows is an ``unknown role`` reject naming the field it was read from.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Final

from trajectory_platform.traces.adapters.base import RecordError, object_field, optional_str
from trajectory_platform.traces.adapters.content_parts import REFUSED
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Event

LANGCHAIN_ROLES = {
    "human": "user",
    "ai": "assistant",
    "system": "system",
    "tool": "tool",
    "function": "function",
    "developer": "developer",
}
"""LangChain's message ``type`` (``BaseMessage.type``) as an OpenAI role; a ``chat`` message states
its ``role`` itself."""
CLASS_NAMES = {
    "HumanMessage": "human",
    "AIMessage": "ai",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "FunctionMessage": "function",
    "ChatMessage": "chat",
}
"""A serialised LangChain message's class (the last name of its ``id``, ``Chunk`` dropped) -> its type."""
LETTA_ROLES = {
    "user_message": "user",
    "system_message": "system",
    "assistant_message": "assistant",
    "reasoning_message": "assistant",
    "hidden_reasoning_message": "assistant",
    "tool_call_message": "assistant",
    "tool_return_message": "tool",
    "approval_request_message": "assistant",
    "approval_response_message": "tool",
}
"""Letta's ``message_type`` as an OpenAI role."""
LETTA_STREAM_FACTS = frozenset({"stop_reason", "usage_statistics", "ping"})
"""Items Letta's streaming API sends after the messages of a step (why it stopped, the tokens it
used, a keep-alive): facts of the run, no message of the conversation, left out of it rather than
rejecting a readable conversation as an ``unknown role``."""
ROLE_SYNONYMS = {
    "model": "assistant",
    "bot": "assistant",
    "ai": "assistant",
    "human": "user",
    "chatbot": "assistant",
}
"""Role words that name an OpenAI role unambiguously: Gemini's ``model``, a chat bot's ``bot``,
LangChain's ``ai`` / ``human`` written as a ``role``, Cohere v1's ``CHATBOT``. ``agent`` is not
among them: in a support desk's log it is the person answering, not the model."""
OPENAI_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
"""The roles OpenAI's messages state, read in any letter case (:func:`_role_synonym`)."""


def _role_synonym(role: str) -> str | None:
    """The OpenAI role a role word names in another spelling (Cohere v1's ``USER`` / ``CHATBOT`` /
    ``SYSTEM`` / ``TOOL``, a synonym of :data:`ROLE_SYNONYMS`), or None where it is already one or
    names none this module knows (left as written, for its reader's ``unknown role``)."""
    folded = role.lower()
    read = ROLE_SYNONYMS.get(folded, folded if folded in OPENAI_ROLES else None)
    return None if read == role else read


SPEAKER_KEYS = ("type", "direction", "sender", "speaker", "author")
"""Where a message without a ``role`` names its speaker (Devin-style exports' ``type``:
``user_message``; Botpress' ``direction``; chat widgets' ``sender``), read by :func:`_speaker`."""
SPEAKER_WORDS = {
    "user": "user",
    "human": "user",
    "customer": "user",
    "incoming": "user",
    "inbound": "user",
    "assistant": "assistant",
    "bot": "assistant",
    "ai": "assistant",
    "model": "assistant",
    "outgoing": "assistant",
    "outbound": "assistant",
}
"""The words of a :data:`SPEAKER_KEYS` value that say who spoke: a bot platform's ``incoming`` is
what reached the bot (the user), ``outgoing`` what it sent. A tool's or the system's word is not
read from these keys: there ``type`` also names parts and items (``tool_result``), never a speaker."""
SPEAKER_NOISE = frozenset({"message", "msg", "initial", "final", "text"})
"""Words of a speaker value that say nothing of who spoke (``initial_user_message``)."""
TEXT_PAYLOAD = "payload"
"""Where a bot platform's message keeps what it says (Botpress: ``{"payload": {"text"}}``)."""
THINKING_ROLES = frozenset({"thinking", "reasoning"})
"""Roles of a message that only reasons (Continue writes its model's thinking as a message of its own)."""
SMOLAGENTS_CALL_ROLE = "tool-call"
SMOLAGENTS_RESULT_ROLE = "tool-response"
CALLING_TOOLS = "Calling tools:"
SMOLAGENTS_RESULT = re.compile(
    r"Call id: (?P<id>[^\n]*)\n(?P<label>Observation|Error):\n?(?P<output>.*)", re.S
)
"""How smolagents writes a tool's answer into its memory's messages (``ToolResponse`` / ``ActionStep``)."""
PART_LIST_KEYS = ("content", "items")
"""Where a message with fields in another case keeps its parts, read in snake case as well."""
FOLDED: Final = object()
"""What stands in a role-read list where a message was folded into a neighbouring turn (a marker of
its own: a null message in a log is still a reject, never taken for one folded away)."""
REASONING_ONLY = "_reasoning_only"
"""Marks a message read as reasoning alone, to be folded into the assistant turn that follows it."""
APPROVALS = "_approvals"
"""Marks a Letta approval response, read as the results it gives (:func:`_letta_approvals`)."""
APPROVAL_OF = "_approval_of"
"""Marks a Letta approval response of the older spelling (one decision naming its request by the
request message's id): :func:`role_messages` finds the call it decides on."""


def _snake(key: str) -> str:
    """``toolCallId`` / ``ToolCallId`` -> ``tool_call_id``; a .NET type tag ``$type`` -> ``type``; a
    private dataclass field ``_role`` -> ``role``."""
    if key == "$type":
        return "type"
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key.lstrip("_")).lower()


def _snaked_keys(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` with its own keys in snake case (a key already in snake case wins; values untouched:
    a call's arguments are the tool's own data)."""
    out = {k: v for k, v in value.items() if _snake(k) == k}
    for key, item in value.items():
        out.setdefault(_snake(key), item)
    return out


def _role_word(value: Any) -> Any:
    """A role as a .NET serializer writes its ``AuthorRole`` (``{"Label": "user"}``) or as written."""
    if isinstance(value, dict):
        return next((value[k] for k in ("Label", "label", "value") if isinstance(value.get(k), str)), value)
    return value


def _langchain_kwargs(message: dict[str, Any]) -> dict[str, Any] | None:
    """A ``dumpd``-serialised LangChain message's fields, its ``type`` from its class when unstated."""
    kwargs, ids = message.get("kwargs"), message.get("id")
    if message.get("type") != "constructor" or not isinstance(kwargs, dict) or not isinstance(ids, list):
        return None
    if "type" in kwargs or not ids:
        return kwargs
    return {**kwargs, "type": CLASS_NAMES.get(str(ids[-1]).removesuffix("Chunk"), str(ids[-1]))}


def _is_langchain(fields: dict[str, Any]) -> bool:
    """A LangChain message's fields: its class as ``type`` beside the ``content`` every message has
    (a tool definition's ``{"type": "function", "function": {...}}`` is no message)."""
    return "content" in fields and str(fields.get("type")).removesuffix("Chunk") in LANGCHAIN_ROLES


def langchain_fields(message: dict[str, Any]) -> dict[str, Any] | None:
    """A LangChain message's own fields (its ``id``, ``content``, ...) whether ``model_dump()``-ed
    (the message itself) or ``dumpd``-serialised (its ``kwargs``); None for a ``dumpd`` object that
    is no constructor."""
    return _langchain_kwargs(message) if message.get("lc") is not None else message


def is_langchain_message(message: Any) -> bool:
    """A LangChain message as ``model_dump()`` or ``dumpd`` writes it."""
    if not isinstance(message, dict):
        return False
    fields = langchain_fields(message)
    return fields is not None and _is_langchain(fields)


def _langchain(message: dict[str, Any]) -> dict[str, Any]:
    role = LANGCHAIN_ROLES[str(message["type"]).removesuffix("Chunk")]
    out = {k: v for k, v in message.items() if k != "type"}
    invalid = message.get("invalid_tool_calls")
    if isinstance(invalid, list) and invalid:
        out["tool_calls"] = [*(message.get("tool_calls") or []), *invalid]
    out.pop("invalid_tool_calls", None)
    return {**out, "role": role}


CALL_FACT_FIELDS = ("response_metadata", "meta")
"""Where a framework's assistant message keeps the facts of the call that wrote it: LangChain's
``response_metadata``, Haystack's ``ChatMessage.meta`` (``_meta`` in its older serialisation:
``model``, ``finish_reason``, ``usage`` with ``prompt_tokens`` / ``completion_tokens``)."""
TOKEN_KEYS = (
    ("input_tokens", ("input_tokens", "prompt_tokens")),
    ("output_tokens", ("output_tokens", "completion_tokens")),
)
"""Each event token count and the usage keys that give it (LangChain's names, then OpenAI's)."""


def take_call_facts(event: Event, fields: dict[str, Any], where: str) -> None:
    """What an assistant message keeps of its call, on its event: the finish reason under a
    :data:`CALL_FACT_FIELDS` object (``finish_reason``, Anthropic's ``stop_reason``) and the token
    counts under LangChain's ``usage_metadata`` or that object's ``usage``. Every reader of framework
    messages asks here (the tracing payloads, LangGraph, and the OpenAI reader a message in role-dict
    or ``type`` spelling reaches), so none drops them."""
    for key in CALL_FACT_FIELDS:
        metadata = object_field(fields, key)
        finish = metadata.get("finish_reason", metadata.get("stop_reason"))
        event.finish_reason = optional_str(finish, f"{where}.{key}") or event.finish_reason
        usage = object_field(fields, "usage_metadata") or object_field(metadata, "usage")
        for name, keys in TOKEN_KEYS:
            count = next((usage[k] for k in keys if isinstance(usage.get(k), int)), None)
            if count is not None:
                setattr(event, name, count)


def answering_model(messages: list[Any]) -> str | None:
    """The model a conversation's assistant messages say wrote them, under a :data:`CALL_FACT_FIELDS`
    object (``model``, LangChain's ``model_name``), when they name one and only one; a conversation
    whose record names no model of its own is then still said to be that model's."""
    named = {
        model
        for message in messages
        if isinstance(message, dict) and message.get("role") == "assistant"
        for key in CALL_FACT_FIELDS
        for model in [object_field(message, key).get("model", object_field(message, key).get("model_name"))]
        if isinstance(model, str) and model
    }
    return named.pop() if len(named) == 1 else None


def _letta(message: dict[str, Any]) -> dict[str, Any]:
    kind = message["message_type"]
    out = {k: v for k, v in message.items() if k != "message_type"}
    if kind in ("tool_call_message", "approval_request_message"):
        calls = message.get("tool_calls") or [message.get("tool_call")]
        out.pop("tool_call", None)
        return {**out, "role": "assistant", "tool_calls": calls}
    if kind == "approval_response_message":
        return _letta_approvals(out)
    if kind == "tool_return_message":
        return {**out, "role": "tool", "content": message.get("tool_return", message.get("content"))}
    if kind in ("reasoning_message", "hidden_reasoning_message"):
        thought = message.get("reasoning") or message.get("hidden_reasoning") or "[redacted thinking]"
        return {**out, "role": "assistant", "reasoning": thought, REASONING_ONLY: True}
    return {**out, "role": LETTA_ROLES[kind]}


def _letta_approvals(message: dict[str, Any]) -> dict[str, Any]:
    """A Letta approval response as a tool message whose parts are the results it gives: each
    refused call's (status :data:`REFUSED`, the reason its content) and each client-side tool's
    return; an approved call gives none (its run's own result follows)."""
    approvals = message.get("approvals")
    legacy = not isinstance(approvals, list)
    decisions: list[Any] = approvals if isinstance(approvals, list) else [message]
    parts = []
    for decision in decisions:
        if not isinstance(decision, dict):
            parts.append(decision)  # not a decision: the part reader names it
        elif decision.get("type") == "tool" or "tool_return" in decision:
            parts.append(
                {
                    "type": "tool_result",
                    "tool_call_id": decision.get("tool_call_id"),
                    "content": decision.get("tool_return"),
                    "status": decision.get("status"),
                }
            )
        elif decision.get("approve") is False:
            call_id = None if legacy else decision.get("tool_call_id")
            parts.append(
                {
                    "type": "tool_result",
                    "tool_call_id": call_id,
                    "content": decision.get("reason"),
                    "status": REFUSED,
                }
            )
    kept = {k: v for k, v in message.items() if k not in ("approvals", "approve", "reason", "content")}
    marker = {APPROVAL_OF: message.get("approval_request_id")} if legacy else {}
    return {**kept, **marker, APPROVALS: True, "role": "tool", "content": parts}


def _smolagents_calls(message: dict[str, Any], where: str) -> list[Any]:
    """The calls of a ``tool-call`` message: the Python literal smolagents writes after
    :data:`CALLING_TOOLS` (read with ``ast.literal_eval``, which evaluates no code)."""
    text = _text(message.get("content"))
    if text is None or not text.startswith(CALLING_TOOLS):
        raise RecordError("unreadable tool call", f"{where}.content does not start with {CALLING_TOOLS!r}")
    try:
        calls = ast.literal_eval(text[len(CALLING_TOOLS) :].strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise RecordError("unreadable tool call", f"{where}.content is not a list of calls") from None
    if not isinstance(calls, list):
        raise RecordError("unreadable tool call", f"{where}.content is not a list of calls")
    return calls


def _text(content: Any) -> str | None:
    """A message's content as one text: a string, or text parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(p, dict) and isinstance(p.get("text"), str) for p in content
    ):
        return "\n".join(p["text"] for p in content)
    return None


def _smolagents_result(message: dict[str, Any], where: str) -> dict[str, Any]:
    match = SMOLAGENTS_RESULT.match(_text(message.get("content")) or "")
    if match is None:
        raise RecordError("unreadable tool result", f"{where}.content does not start with 'Call id:'")
    return {
        "role": "tool",
        "tool_call_id": match["id"].strip(),
        "content": match["output"],
        "status": "error" if match["label"] == "Error" else None,
    }


def spoken_role(message: Any) -> str | None:
    """The OpenAI role ``message`` states in any spelling this module reads (None: it states none)."""
    if not isinstance(message, dict):
        return None
    try:
        read = role_message(message, "message")
    except RecordError:
        return None
    role = read.get("role")
    return role if isinstance(role, str) else None


def role_message(message: Any, where: str) -> Any:
    """``message`` as an OpenAI message (see the module docstring); a message already in that shape,
    or not an object, unchanged."""
    if not isinstance(message, dict):
        return message
    if isinstance(message.get("role"), str) and all(_snake(k) == k for k in message):
        synonym = _role_synonym(message["role"])
        return message if synonym is None else {**message, "role": synonym}
    serialised = _langchain_kwargs(message) if message.get("lc") is not None else None
    fields = _snaked_keys(serialised if serialised is not None else message)
    for key in PART_LIST_KEYS:  # a .NET serializer's parts are PascalCase too
        if isinstance(fields.get(key), list):
            fields[key] = [_snaked_keys(p) if isinstance(p, dict) else p for p in fields[key]]
    if isinstance(fields.get("items"), list) and fields["items"]:
        fields.pop("content", None)  # .NET's ``Content`` is the first text item, said again
    role = _role_word(fields.get("role"))
    if isinstance(role, str):
        return {**fields, "role": _role_synonym(role) or role}
    if _is_langchain(fields):
        return _langchain(fields)
    letta = fields.get("message_type")
    if isinstance(letta, str):
        if letta not in LETTA_ROLES:
            raise RecordError(
                "unknown role",
                f"{where}.message_type is {named(letta)}; expected one of {sorted(LETTA_ROLES)}",
            )
        return _letta(fields)
    return _speaker(fields) or message


def _speaker(fields: dict[str, Any]) -> dict[str, Any] | None:
    """A message that names its speaker under a :data:`SPEAKER_KEYS` field instead of ``role``, as
    the OpenAI message it is (its text from a ``payload`` object's ``text`` when it has no other);
    ``None`` when no such field holds exactly one speaker word (:data:`SPEAKER_WORDS`)."""
    for key in SPEAKER_KEYS:
        value = fields.get(key)
        if not isinstance(value, str):
            continue
        words = {w for w in re.split(r"[^a-z]+", value.lower()) if w} - SPEAKER_NOISE
        roles = {SPEAKER_WORDS[w] for w in words if w in SPEAKER_WORDS}
        if len(roles) == 1 and words <= SPEAKER_WORDS.keys():
            kept = {k: v for k, v in fields.items() if k != key}
            said = object_field(fields, TEXT_PAYLOAD).get("text")
            if isinstance(said, str):  # the payload is read: its text is the message's
                kept = {"content": said, **{k: v for k, v in kept.items() if k != TEXT_PAYLOAD}}
            return {**kept, "role": roles.pop()}
    return None


def missing_speaker(message: Any) -> str:
    """What a message that states no role holds instead, for its reject: the fields that could have
    named a speaker, with their values' words (never text: a speaker field holds a label)."""
    if not isinstance(message, dict):
        return ""
    found = [f"{k} {named(message[k])}" for k in ("role", *SPEAKER_KEYS) if k in message]
    said = "; it names its speaker as " + ", ".join(found) if found else "; it has none of the fields"
    return (
        f"{said} (read: role, or {', '.join(SPEAKER_KEYS)} holding one of {', '.join(sorted(SPEAKER_WORDS))})"
    )


def _decided(read: list[Any], index: int, raw: list[Any]) -> Any:
    """A Letta approval response in its list: folded away when it gives no result (every call
    approved); a decision of the older spelling given the call id of the request it names (by the
    request message's id), else of the nearest approval request before it."""
    message = {k: v for k, v in read[index].items() if k != APPROVALS}
    if not message["content"]:
        return FOLDED
    if APPROVAL_OF not in message:
        return message
    requests = [
        j
        for j in range(index - 1, -1, -1)
        if isinstance(raw[j], dict) and raw[j].get("message_type") == "approval_request_message"
    ]
    named_request = next((j for j in requests if raw[j].get("id") == message[APPROVAL_OF]), None)
    request = named_request if named_request is not None else next(iter(requests), None)
    calls = read[request].get("tool_calls") if request is not None else None
    call = calls[0] if isinstance(calls, list) and calls and isinstance(calls[0], dict) else {}
    call_id = call.get("tool_call_id", call.get("id"))
    parts = [
        {**part, "tool_call_id": call_id} if isinstance(part, dict) else part for part in message["content"]
    ]
    return {k: v for k, v in {**message, "content": parts}.items() if k != APPROVAL_OF}


def role_messages(messages: list[Any], where: str) -> list[Any]:
    """Each message read by :func:`role_message`, a reasoning-only message folded into the assistant
    turn after it and a smolagents ``tool-call`` into the one before it (:data:`FOLDED` left in
    their places, so every other message keeps its index)."""
    read: list[Any] = [
        FOLDED
        if isinstance(m, dict) and m.get("message_type") in LETTA_STREAM_FACTS
        else role_message(m, f"{where}[{i}]")
        for i, m in enumerate(messages)
    ]
    for index, message in enumerate(read):
        if not isinstance(message, dict):
            continue
        if message.get(APPROVALS):
            read[index] = _decided(read, index, messages)
            continue
        role = message.get("role")
        if role == SMOLAGENTS_RESULT_ROLE:
            read[index] = _smolagents_result(message, f"{where}[{index}]")
        elif role == SMOLAGENTS_CALL_ROLE:
            calls = _smolagents_calls(message, f"{where}[{index}]")
            turn = next((j for j in range(index - 1, -1, -1) if read[j] is not FOLDED), None)
            if turn is not None and isinstance(read[turn], dict) and read[turn].get("role") == "assistant":
                read[turn] = {**read[turn], "tool_calls": [*(read[turn].get("tool_calls") or []), *calls]}
                read[index] = FOLDED
            else:
                read[index] = {"role": "assistant", "content": None, "tool_calls": calls}
    for index, message in enumerate(read):
        if not isinstance(message, dict):
            continue
        thinking = isinstance(message.get("role"), str) and message["role"] in THINKING_ROLES
        if not (message.get(REASONING_ONLY) or thinking):
            continue
        thought = message.get("reasoning") if not thinking else message.get("content")
        after = next((j for j in range(index + 1, len(read)) if read[j] is not FOLDED), len(read))
        target = read[after] if after < len(read) else None
        if isinstance(target, dict) and target.get("role") == "assistant" and not target.get(REASONING_ONLY):
            earlier = target.get("reasoning")
            read[after] = {**target, "reasoning": thought if not earlier else f"{thought}\n{earlier}"}
            read[index] = FOLDED
        else:
            kept = {k: v for k, v in message.items() if k not in (REASONING_ONLY, "content")}
            read[index] = {**kept, "role": "assistant", "content": None, "reasoning": thought}
    return read
