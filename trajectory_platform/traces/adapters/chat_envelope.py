"""Where a logged model call keeps its parts, whatever envelope a gateway or logger wrapped it in:
the conversation, the response, the run it belongs to; and the call unwrapped into the record its
provider's own adapter reads (:mod:`~trajectory_platform.traces.adapters.chat_log` uses it).

- **The conversation** is the longest list of role messages (every element an object with a
  ``role``, one of them a user or assistant turn), or of Responses API items, within
  :data:`MAX_DEPTH` levels of objects; or, where the record splits one conversation across
  sibling fields, the prompt then its continuation (:func:`_joined`: TRL's ``prompt`` /
  ``completion`` and ``prompt`` / ``chosen``, OpenAI DPO's ``input.messages`` /
  ``preferred_output``, a logger's ``input.messages`` / ``output.messages``). A rejected
  alternative (``rejected``, ``non_preferred_output``) and any other list of messages left off the
  conversation are named (:attr:`Envelope.set_aside`), never dropped silently.
- **The response** is the first Chat Completions response (``{"choices": [{"message"}]}``), Gemini
  response (``candidates``), Responses API response (``output`` items) or assistant message (an
  Anthropic response is one, and so is a Converse response's ``output.message``) outside the
  conversation; or a streamed response (its chunks, or the event text a gateway logged) or a list of
  completions (DSPy's ``outputs``), read as the response it adds up to
  (:func:`~trajectory_platform.traces.adapters.openai.chat_response`); failing all of these, a plain
  string answer (:func:`~trajectory_platform.traces.adapters.openai.text_answer`).
- **The run** is a :data:`RUN_KEYS` field at the top level, in ``metadata`` / ``properties``, or
  beside the conversation.

Nothing here depends on a gateway's own shape, so an envelope never seen before is read the same.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from trajectory_platform.traces.adapters.base import object_field
from trajectory_platform.traces.adapters.message_roles import spoken_role
from trajectory_platform.traces.adapters.openai import (
    REASONING_FIELDS,
    chat_response,
    is_chat_answer,
    taken_choice,
    text_answer,
)
from trajectory_platform.traces.adapters.openai_responses import is_item_list

MAX_DEPTH = 4
"""Levels of objects searched below the record for the conversation and the response."""
MESSAGE_KEYS = ("content", "tool_calls", "function_call", "refusal", "name", *REASONING_FIELDS)
"""What an assistant message response carries as a message (an Anthropic response's ``id``,
``type``, ``stop_reason`` and ``usage`` are the call's, not the message's)."""

Path = tuple[str, ...]

PROMPT_KEYS = frozenset({"prompt", "input", "inputs", "request"})
CONTINUATION_KEYS = frozenset(
    {"completion", "completions", "output", "outputs", "response", "chosen", "preferred_output"}
)
REJECTED_KEYS = frozenset({"rejected", "non_preferred_output"})
"""What the field holding a list of messages says it is: the prompt, the turns that continue it (a
completion, a call's output, the preferred side of a preference pair), or the rejected side of a
pair. A preference record's trajectory is its prompt and the chosen continuation: that is what DPO
trains towards and what SFT on the same data keeps (TRL's ``chosen`` / OpenAI's
``preferred_output``); the rejected side is a counter-example the agent never lived, so it is not
made an episode of its own, but is named where the episode's extra fields say what was read."""


def _is_conversation(value: Any) -> bool:
    """A list of role messages holding a user or assistant turn (a message of an unknown role is
    still one: reading it rejects the record naming its path; a role in a framework's own spelling
    counts: :mod:`~trajectory_platform.traces.adapters.message_roles`), or of Responses API items."""
    if isinstance(value, list) and value and all(spoken_role(m) is not None for m in value):
        return any(spoken_role(m) in ("user", "assistant") for m in value)
    return is_item_list(value)


TREE_CHILD_KEYS = ("replies", "children")
"""Where a message of a message tree holds its replies inline (OpenAssistant's export)."""
TREE_LINK_KEYS = ("parentId", "parent_id", "childrenIds", "children_ids", *TREE_CHILD_KEYS)
"""Fields by which a message says it is a node of a message tree (Open WebUI, LibreChat,
OpenAssistant): the conversation is a path through the tree, and its other nodes are branches."""


def tree_level(messages: list[Any]) -> bool:
    """Are ``messages`` one level of a message tree whose replies are nested (:data:`TREE_CHILD_KEYS`),
    so siblings, each an alternative answer, rather than turns that follow one another?"""
    return any(
        isinstance(m, dict) and any(isinstance(m.get(k), list) for k in TREE_CHILD_KEYS) for m in messages
    )


def has_both_sides(messages: list[Any]) -> bool:
    """Does a list of messages hold a user turn and an assistant turn: a conversation of its own?"""
    roles = {spoken_role(m) for m in messages}
    return {"user", "assistant"} <= roles


def _is_response(value: dict[str, Any]) -> bool:
    """A Chat Completions response, a Gemini response (``candidates``), a Responses API response
    (its ``output`` items), or one assistant message (an Anthropic response is one, and so is a
    Converse response's ``output.message``); never a node of a message tree (:data:`TREE_LINK_KEYS`:
    an answer a user regenerated away sits beside the chosen path in Open WebUI's
    ``history.messages``, and was appended as the call's answer)."""
    return not any(key in value for key in TREE_LINK_KEYS) and (
        is_chat_answer(value)
        or isinstance(value.get("candidates"), list)
        or is_item_list(value.get("output"))
    )


@dataclass
class Envelope:
    """Where a record keeps its call: the conversation (and the object holding it), the response."""

    conversation: list[Any]
    conversation_at: Path
    request: dict[str, Any]
    response: dict[str, Any] | None = None
    response_at: Path = ()
    response_outer: tuple[dict[str, Any], ...] = ()
    """The objects around the response, nearest first: where a Converse response keeps its
    ``stopReason`` and ``usage`` beside ``output.message``."""
    request_outer: tuple[dict[str, Any], ...] = ()
    """The objects around the one holding the conversation, nearest first: where a logger may keep
    the call's settings (:func:`call_settings`)."""
    continuation_at: Path = ()
    """Where the turns that continue the prompt at ``conversation_at`` were (empty: none apart)."""
    alternatives: tuple[Path, ...] = ()
    """Where the rejected sides of a preference pair are (kept in the record, not read as turns)."""
    not_read: tuple[Path, ...] = ()
    """Other lists of messages the conversation does not hold (kept in the record, named)."""
    other_conversations: tuple[Path, ...] = ()
    """Those of :attr:`not_read` that hold a conversation of their own (a user and an assistant
    turn): a record of several conversations, which ``chat-log`` rejects rather than keep one."""
    answer_is_text: bool = False
    """The response is a plain string (``openai.text_answer``): no role, no finish reason, nothing
    that says which turn it is (``ChatLogAdapter._answer`` reads it beside an assistant turn)."""


def _side(path: Path) -> str | None:
    """What the outermost field of ``path`` that says so calls the list: prompt, continuation or
    rejected (:data:`PROMPT_KEYS`); None when no field names it."""
    for key in path:
        for side, keys in (
            ("prompt", PROMPT_KEYS),
            ("continuation", CONTINUATION_KEYS),
            ("rejected", REJECTED_KEYS),
        ):
            if key in keys:
                return side
    return None


def _holds(conversation: list[Any], part: list[Any]) -> bool:
    """Is ``part`` a run of consecutive messages of ``conversation`` (a call's input, repeated in
    the output that holds the whole conversation)?"""
    return any(conversation[i : i + len(part)] == part for i in range(len(conversation) - len(part) + 1))


def _joined(found: list[Envelope]) -> Envelope | None:
    """The conversation of the lists ``found`` (in the record's order), as the module docstring
    says: a prompt continued by a list a continuation field holds, the continuation alone when it
    already starts with the prompt; the longest list when no field names a continuation."""
    sides = [_side(e.conversation_at) for e in found]
    kept = [e for e, side in zip(found, sides, strict=True) if side != "rejected"] or found
    longest = max(kept, key=lambda e: len(e.conversation), default=None)
    continuation = next((e for e, side in zip(found, sides, strict=True) if side == "continuation"), None)
    prompt = next((e for e, side in zip(found, sides, strict=True) if side == "prompt"), None) or next(
        (e for e, side in zip(found, sides, strict=True) if side is None), None
    )
    read = longest
    if continuation is not None and prompt is not None:
        same_kind = is_item_list(prompt.conversation) == is_item_list(continuation.conversation)
        if continuation.conversation[: len(prompt.conversation)] == prompt.conversation:
            read = continuation
        elif same_kind:
            read = Envelope(
                [*prompt.conversation, *continuation.conversation],
                prompt.conversation_at,
                prompt.request,
                continuation_at=continuation.conversation_at,
                request_outer=prompt.request_outer,
            )
    if read is None:
        return None
    used = (read.conversation_at, read.continuation_at)
    rest = [(e, side) for e, side in zip(found, sides, strict=True) if e.conversation_at not in used]
    rest = [
        (e, side) for e, side in rest if side == "rejected" or not _holds(read.conversation, e.conversation)
    ]
    read.alternatives = tuple(e.conversation_at for e, side in rest if side == "rejected")
    read.not_read = tuple(e.conversation_at for e, side in rest if side != "rejected")
    read.other_conversations = tuple(
        e.conversation_at for e, side in rest if side != "rejected" and has_both_sides(e.conversation)
    )
    return read


def _text_answers(node: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The plain string answers ``node`` holds, each with its key, in the node's key order
    (:func:`~trajectory_platform.traces.adapters.openai.text_answer`)."""
    answers = ((str(key), text_answer(str(key), value)) for key, value in node.items())
    return [(key, answer) for key, answer in answers if answer is not None]


TEXT_INPUT = "input"
"""Where a Responses API request holds its input; a string there is the shorthand for one user
message (``client.responses.create(input="List files")``)."""


def _text_input(record: dict[str, Any]) -> Envelope | None:
    """The conversation of a Responses API call whose request ``input`` is the string shorthand: that
    one user message, as the item the API reads it as. Without it a logged call whose prompt was a
    string had no conversation at all, and the chain it opens lost its first turn."""
    queue: deque[tuple[Path, dict[str, Any], tuple[dict[str, Any], ...]]] = deque([((), record, ())])
    while queue:
        path, node, outer = queue.popleft()
        text = node.get(TEXT_INPUT)
        if isinstance(text, str):
            message = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
            return Envelope([message], (*path, TEXT_INPUT), node, request_outer=outer)
        if len(path) < MAX_DEPTH:
            queue.extend(((*path, str(k)), v, (node, *outer)) for k, v in node.items() if isinstance(v, dict))
    return None


def locate(record: dict[str, Any]) -> Envelope | None:
    """The conversation and response of ``record`` (see the module docstring), breadth first in
    the record's own key order; None without a conversation."""
    found: list[Envelope] = []
    response: tuple[Path, dict[str, Any], tuple[dict[str, Any], ...]] | None = None
    said: tuple[Path, dict[str, Any], tuple[dict[str, Any], ...]] | None = None  # a string answer
    queue: deque[tuple[Path, dict[str, Any], tuple[dict[str, Any], ...]]] = deque([((), record, ())])
    while queue:
        path, node, outer = queue.popleft()
        if path and response is None and _is_response(node):
            response = (path, node, outer)
            continue
        for key, child in node.items():
            if _is_conversation(child):
                found.append(Envelope(child, (*path, str(key)), node, request_outer=outer))
            elif response is None and not isinstance(child, dict) and (read := chat_response(key, child)):
                response = ((*path, str(key)), read, (node, *outer))
            elif isinstance(child, dict) and len(path) < MAX_DEPTH:
                queue.append(((*path, str(key)), child, (node, *outer)))
        if said is None and (not path or any(_is_conversation(child) for child in node.values())):
            # a plain string answer, at the top or beside a conversation (elsewhere it may be any text)
            said = next(
                (((*path, k), text, (node, *outer)) for k, text in _text_answers(node)),
                None,
            )
    best = _joined(found)
    answer_is_text = response is None and said is not None
    response = response or said
    if best is None and response is not None and is_item_list(response[1].get("output")):
        best = _text_input(record)
    if best is not None and response is not None:
        best.response_at, best.response, best.response_outer = response
        best.answer_is_text = answer_is_text
    return best


RUN_KEYS = (
    "session_id",
    "sessionId",
    "trace_id",
    "traceId",
    "run_id",
    "runId",
    "thread_id",
    "threadId",
    "root_span_id",
)
"""Fields a gateway or logger names an agent run with, so its calls form one episode (Braintrust
names a trace by its root span)."""
RUN_SCOPES = ("metadata", "properties")


def run_of(value: Any) -> str | None:
    """The run a logged call belongs to: a :data:`RUN_KEYS` field at the record's top level, in its
    ``metadata`` / ``properties``, or beside its conversation (a string or a number); else None."""
    if not isinstance(value, dict):
        return None
    found = locate(value)
    scopes = [value, *(value.get(k) for k in RUN_SCOPES)]
    if found is not None:
        scopes += [found.request, found.request.get("metadata")]
    for scope in scopes:
        if isinstance(scope, dict):
            for key in RUN_KEYS:
                run = scope.get(key)
                if isinstance(run, str | int) and not isinstance(run, bool) and str(run):
                    return str(run)
    return None


def _answer_message(response: dict[str, Any]) -> dict[str, Any]:
    """The response as one more message of the conversation it answers: a Chat Completions
    response's first choice, an Anthropic message's content, or the assistant message itself."""
    if "choices" in response:
        message = taken_choice(response, "response")[1]["message"]
        return message if isinstance(message, dict) else {"role": "assistant", "content": message}
    return {"role": "assistant", **{k: v for k, v in response.items() if k in MESSAGE_KEYS}}


FINISH_KEYS = ("finish_reason", "stop_reason", "stopReason", "status")
USAGE_FIELDS = ("usage", "metrics")
"""Where a response or the record around it counts tokens: ``usage`` (the providers), ``metrics``
(Braintrust's span)."""
INPUT_TOKEN_KEYS = ("prompt_tokens", "input_tokens", "inputTokens")
OUTPUT_TOKEN_KEYS = ("completion_tokens", "output_tokens", "outputTokens")
"""How a response says why it stopped and what it cost, in OpenAI's, Anthropic's, Bedrock's and the
Responses API's words."""


def answer_facts(found: Envelope) -> tuple[Any, Any, Any]:
    """(finish reason, input tokens, output tokens) of the response: from its first choice, itself,
    or the nearest object around it that states them (a Converse response's, around its message)."""
    response = found.response or {}
    taken = taken_choice(response, "response")[1] if isinstance(response.get("choices"), list) else {}
    scopes = [taken, response, *found.response_outer]

    def stated(keys: tuple[str, ...], usage: bool, kind: type) -> Any:
        """The first value of ``kind`` under ``keys`` (an HTTP ``status`` of 200 is not a reason)."""
        for scope in scopes:
            for holder in [object_field(scope, field) for field in USAGE_FIELDS] if usage else [scope]:
                for key in keys:
                    value = holder.get(key)
                    if isinstance(value, kind) and not isinstance(value, bool):
                        return value
        return None

    return (
        stated(FINISH_KEYS, False, str),
        stated(INPUT_TOKEN_KEYS, True, int),
        stated(OUTPUT_TOKEN_KEYS, True, int),
    )


def call_settings(found: Envelope, keys: tuple[str, ...]) -> dict[str, Any]:
    """The settings ``keys`` of a call: each where the object holding the conversation holds it,
    else where a logger put it, in that object's ``metadata`` / ``properties`` (:data:`RUN_SCOPES`:
    Braintrust logs a span's ``model``, ``tools`` and ``temperature`` under ``metadata``) or in
    those of an object around it, nearest first. Left there, the episode had no model and no tools
    although the record names them. An outer object's own fields are not read: they describe the
    record, not the call (an agent run's ``tools`` may list the tools that ran)."""
    asides = [holder.get(key) for holder in (found.request, *found.request_outer) for key in RUN_SCOPES]
    scopes = [found.request, *(scope for scope in asides if isinstance(scope, dict))]
    return {
        key: value
        for key in keys
        if (value := next((scope[key] for scope in scopes if scope.get(key) is not None), None)) is not None
    }


CALL_KEYS = ("model", "tools", "functions")
"""The settings a provider's reader takes from the call itself: its model and its tools."""


def unwrapped(found: Envelope, with_response: bool = True) -> dict[str, Any]:
    """The envelope's call as its provider's own record: the object holding the conversation, with
    the conversation under the provider's key (``contents`` for Gemini's parts, else ``messages``)
    and the response where that provider's record keeps it (Gemini's ``response``, else the last
    message); its model and tools where the provider keeps them (:func:`call_settings`)."""
    parent = found.conversation_at[:-1]
    lists = (found.response_at, found.continuation_at, *found.alternatives, *found.not_read)
    left_out = {found.conversation_at[-1], *(at[-1] for at in lists if at and at[:-1] == parent)}
    request = {k: v for k, v in found.request.items() if k not in left_out}
    request.update(call_settings(found, CALL_KEYS))  # a setting a logger moved aside
    response = found.response if with_response else None
    if any("parts" in message for message in found.conversation):
        return {**request, "contents": found.conversation, **({"response": response} if response else {})}
    answered_with_items = found.response is not None and is_item_list(found.response.get("output"))
    if is_item_list(found.conversation) or answered_with_items:  # the request too, read without it
        return {
            **request,
            "input": found.conversation,
            **({"output": response["output"]} if response else {}),
        }
    messages = [*found.conversation, *([_answer_message(response)] if response else [])]
    return {**request, "messages": messages}
