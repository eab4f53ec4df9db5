"""Chat calls and conversations in an envelope: what a gateway, a proxy or a team's own middleware
logs around a model call.

Deployed agents are often logged by what sits between them and the model (LiteLLM, Helicone,
Portkey, OpenRouter, a logging middleware) or by a logger of the team's own, which wraps the call in
a shape of its own: ``{"request": {"body": {"model", "messages", "tools"}}, "response": {"body":
{"choices": [...]}}}``, ``{"input": {"messages"}, "output": {...}}``, ``{"messages", "response"}``,
a conversation under ``history``, ``conversation``, ``turns``, ``data.messages``. The class is the
same: a list of role messages, perhaps the response the call returned. This adapter finds them
wherever the record keeps them, rather than one adapter per gateway:

- **The conversation** is the longest list of role messages (every element an object with a
  ``role``, one of them a user or assistant turn) within four levels of objects.
- **The response** is the first Chat Completions response (``{"choices": [{"message"}]}``), Gemini
  response (``candidates``), Responses API response (``output`` items) or assistant message (an
  Anthropic response is one, and so is a Converse response's ``output.message``) outside the
  conversation.
- **The call** is the object holding the conversation (its ``model``, ``tools``, ``system``,
  sampling parameters) with the conversation and the response put back where its provider's own
  record keeps them, and it is read by that provider's adapter (:data:`DIALECTS`: Bedrock Converse
  for blocks named by their key, Anthropic when content blocks, a ``system`` field or
  ``input_schema`` tools say so, Gemini for ``parts``, the Responses API for typed items, else
  OpenAI), so a ``tool_use`` block is a call, never text. The response is the call's answer: its
  finish reason and token counts (in either provider's words) on the answer, and the events before
  it the call's delivered input; a conversation that already ends with the answer keeps it once.

A gateway logs each call of an agent's run on its own line. Calls that name one run (a
:data:`RUN_KEYS` field at the top level, in ``metadata`` / ``properties`` or beside the
conversation) are one record and one episode, built as the tracing platforms' runs are
(:mod:`~trajectory_platform.traces.adapters.call_trace`: the conversation of the call that saw the
most, every call a delivered input), not one overlapping episode per call.

The record's own shape decides nothing else, so an envelope never seen before reads the same. A
record whose conversation is the top-level ``messages`` with no response is the ``openai`` format,
and formats with an adapter of their own are detected before this one. The dialect and where each
part was found are kept in ``extra_json`` (``dialect``, ``read_from``), with the record's top-level
fields the parts did not come from. The task id is read as for ``openai`` records, at the record's
top level or beside the conversation.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from trajectory_platform.traces.adapters.anthropic import AnthropicAdapter
from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    delivered_input,
    expect,
    frame_json,
    object_field,
    optional_str,
    read_chat_outcome,
    task_id_in,
)
from trajectory_platform.traces.adapters.bedrock import BedrockAdapter
from trajectory_platform.traces.adapters.call_trace import ModelCall, conversation_of
from trajectory_platform.traces.adapters.gemini import GeminiAdapter
from trajectory_platform.traces.adapters.openai import OpenAIAdapter
from trajectory_platform.traces.adapters.openai_responses import OpenAIResponsesAdapter, is_item_list
from trajectory_platform.traces.drops import path_of
from trajectory_platform.traces.record import Episode, Event, canonical_json

MAX_DEPTH = 4
"""Levels of objects searched below the record for the conversation and the response."""
SAMPLING_KEYS = (
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "seed",
    "n",
    "stop",
    "presence_penalty",
    "frequency_penalty",
    "tool_choice",
    "reasoning_effort",
)
"""Request fields beside the conversation that say how the call sampled."""
TASK_ID_SOURCE = (
    "`metadata.task_id` (or `environment_id`, `instance_id`; or the same key at the top level), "
    "else the same keys beside the conversation"
)

MESSAGE_KEYS = ("content", "tool_calls", "function_call", "reasoning_content", "refusal", "name")
"""What an assistant message response carries as a message (an Anthropic response's ``id``,
``type``, ``stop_reason`` and ``usage`` are the call's, not the message's)."""

Path = tuple[str, ...]


def _is_conversation(value: Any) -> bool:
    """A list of role messages holding a user or assistant turn (a message of an unknown role is
    still one: reading it rejects the record naming its path), or of Responses API items."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in value)
        and any(m["role"] in ("user", "assistant") for m in value)
    ) or is_item_list(value)


def _is_response(value: dict[str, Any]) -> bool:
    """A Chat Completions response, a Gemini response (``candidates``), a Responses API response
    (its ``output`` items), or one assistant message (an Anthropic response is one, and so is a
    Converse response's ``output.message``)."""
    choices = value.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return isinstance(choices[0].get("message"), dict)
    return (
        isinstance(value.get("candidates"), list)
        or is_item_list(value.get("output"))
        or value.get("role") == "assistant"
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


def locate(record: dict[str, Any]) -> Envelope | None:
    """The conversation and response of ``record`` (see the module docstring), breadth first in
    the record's own key order; None without a conversation."""
    best: Envelope | None = None
    response: tuple[Path, dict[str, Any], tuple[dict[str, Any], ...]] | None = None
    queue: deque[tuple[Path, dict[str, Any], tuple[dict[str, Any], ...]]] = deque([((), record, ())])
    while queue:
        path, node, outer = queue.popleft()
        if path and response is None and _is_response(node):
            response = (path, node, outer)
            continue
        for key, child in node.items():
            if _is_conversation(child) and (best is None or len(child) > len(best.conversation)):
                best = Envelope(child, (*path, str(key)), node)
            elif isinstance(child, dict) and len(path) < MAX_DEPTH:
                queue.append(((*path, str(key)), child, (node, *outer)))
    if best is not None and response is not None:
        best.response_at, best.response, best.response_outer = response
    return best


RUN = "run"
RUN_KEYS = ("session_id", "sessionId", "trace_id", "traceId", "run_id", "runId", "thread_id", "threadId")
"""Fields a gateway or logger names an agent run with, so its calls form one episode."""
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


def _task_id(value: dict[str, Any], found: Envelope | None) -> str | None:
    """The task id a call names: at the record's top level (or its ``metadata``), else beside its
    conversation."""
    scopes: list[tuple[Any, str]] = [(value.get("metadata"), "metadata."), (value, "")]
    if found is not None:
        parent = _dotted(found.conversation_at[:-1])
        scopes += [(found.request.get("metadata"), f"{parent}.metadata."), (found.request, f"{parent}.")]
    return task_id_in(scopes)


def _dotted(path: Path) -> str:
    """Where a part was found, as a detail may say it (keys are the record's own: :func:`path_of`)."""
    return path_of(path)


def _answer_message(response: dict[str, Any]) -> dict[str, Any]:
    """The response as one more message of the conversation it answers: a Chat Completions
    response's first choice, an Anthropic message's content, or the assistant message itself."""
    if "choices" in response:
        message = response["choices"][0]["message"]
        return message if isinstance(message, dict) else {"role": "assistant", "content": message}
    return {"role": "assistant", **{k: v for k, v in response.items() if k in MESSAGE_KEYS}}


FINISH_KEYS = ("finish_reason", "stop_reason", "stopReason", "status")
INPUT_TOKEN_KEYS = ("prompt_tokens", "input_tokens", "inputTokens")
OUTPUT_TOKEN_KEYS = ("completion_tokens", "output_tokens", "outputTokens")
"""How a response says why it stopped and what it cost, in OpenAI's, Anthropic's, Bedrock's and the
Responses API's words."""


def _answer_facts(found: Envelope) -> tuple[Any, Any, Any]:
    """(finish reason, input tokens, output tokens) of the response: from its first choice, itself,
    or the nearest object around it that states them (a Converse response's, around its message)."""
    response = found.response or {}
    choices = response.get("choices")
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    scopes = [first, response, *found.response_outer]

    def stated(keys: tuple[str, ...], usage: bool, kind: type) -> Any:
        """The first value of ``kind`` under ``keys`` (an HTTP ``status`` of 200 is not a reason)."""
        for scope in scopes:
            holder = object_field(scope, "usage") if usage else scope
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


def unwrapped(found: Envelope, with_response: bool = True) -> dict[str, Any]:
    """The envelope's call as its provider's own record: the object holding the conversation, with
    the conversation under the provider's key (``contents`` for Gemini's parts, else ``messages``)
    and the response where that provider's record keeps it (Gemini's ``response``, else the last
    message)."""
    request = {k: v for k, v in found.request.items() if k != found.conversation_at[-1]}
    response = found.response if with_response else None
    if any("parts" in message for message in found.conversation):
        return {**request, "contents": found.conversation, **({"response": response} if response else {})}
    if is_item_list(found.conversation) or response is not None and is_item_list(response.get("output")):
        return {
            **request,
            "input": found.conversation,
            **({"output": response["output"]} if response else {}),
        }
    messages = [*found.conversation, *([_answer_message(response)] if response else [])]
    return {**request, "messages": messages}


DIALECTS: tuple[Adapter, ...] = (
    BedrockAdapter(),
    AnthropicAdapter(),
    GeminiAdapter(),
    OpenAIResponsesAdapter(),
    OpenAIAdapter(),
)
"""The providers a conversation may be written for, most specific first: each reads the unwrapped
call as it reads its own records."""


def _same_turn(a: Event, b: Event) -> bool:
    return a.kind == b.kind == "assistant" and (a.content, [(c.name, c.arguments) for c in a.tool_calls]) == (
        b.content,
        [(c.name, c.arguments) for c in b.tool_calls],
    )


class ChatLogAdapter(Adapter):
    """Chat calls and conversations wrapped in a gateway's or a logger's own envelope."""

    name = "chat-log"
    task_id_source = TASK_ID_SOURCE

    def claims_record(self, record: dict[str, Any]) -> bool:
        found = locate(record)
        return found is not None and (found.conversation_at != ("messages",) or found.response is not None)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        """Each call its own record, except the calls that name one run: those are one record."""
        runs: dict[str, list[RawRecord]] = {}
        for record in frame_json(src):
            run = run_of(record.value) if record.error is None else None
            if run is None:
                yield record
            else:
                runs.setdefault(run, []).append(record)
        for run, records in runs.items():
            if len(records) == 1:
                yield records[0]
            else:
                calls = [r.value for r in records]
                yield RawRecord(records[0].line, f"run={run}", value={RUN: run, "calls": calls})

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        if RUN in value:
            return self._run(record, src)
        found = locate(value)
        if found is None:
            raise RecordError("missing field", f"no list of role messages within {MAX_DEPTH} levels")
        episode, dialect = self._call(record, src, found)
        episode.episode_id = adapter_episode_id(self.name, value.get("id"), value)
        read_chat_outcome(value, episode)
        episode.task.fixture_id = _task_id(value, found)
        self._settings(found, episode, dialect, value)
        return episode

    def _run(self, record: RawRecord, src: SourceFile) -> Episode:
        """The calls of one run: the episode is the conversation of the call that saw the most, every
        call a delivered input (:func:`~trajectory_platform.traces.adapters.call_trace.conversation_of`);
        the task id the first call naming one names."""
        read: list[tuple[Envelope, Episode, str]] = []
        calls, tasks = [], []
        for number, value in enumerate(record.value["calls"]):
            found = locate(value)
            if found is None:
                raise RecordError("missing field", f"call {number} of the run holds no list of role messages")
            episode, dialect = self._call(record, src, found)
            answered = episode.delivered_inputs[0].response_event_index if episode.delivered_inputs else None
            seen = episode.events if answered is None else episode.events[:answered]
            calls.append(ModelCall(seen, None if answered is None else episode.events[answered]))
            read.append((found, episode, dialect))
            tasks.append(_task_id(value, found))
        episode = self.new_episode(record, src, f"{self.name}:{record.value[RUN]}")
        chosen = conversation_of(episode, calls)
        found, read_by, dialect = read[chosen]
        episode.tools = read_by.tools
        episode.outcome = read_by.outcome
        episode.task.prompt = read_by.task.prompt
        episode.task.fixture_id = next((task for task in tasks if task is not None), None)
        self._settings(found, episode, dialect, {"calls": len(calls)})
        return episode

    def _call(self, record: RawRecord, src: SourceFile, found: Envelope) -> tuple[Episode, str]:
        """One call read by its provider's reader, its response as its answer; and that reader's name."""
        call = unwrapped(found)
        dialect = next((d for d in DIALECTS if d.claims_record(call)), DIALECTS[-1])
        episode = self._read(dialect, record, src, call, found)
        episode.source_format = self.name
        if found.response is not None:
            bare = self._read(dialect, record, src, unwrapped(found, False), found)
            self._answer(found, episode, len(bare.events))
        return episode, dialect.name

    @staticmethod
    def _settings(found: Envelope, episode: Episode, dialect: str, value: dict[str, Any]) -> None:
        """The call's model and sampling parameters; where its parts were found, and the rest."""
        model = found.request.get("model", (found.response or {}).get("model"))
        episode.lineage.model = optional_str(model, "model")
        sampling = {k: found.request[k] for k in SAMPLING_KEYS if found.request.get(k) is not None}
        episode.lineage.sampling_params_json = canonical_json(sampling) if sampling else None
        read_from = {  # the record's own keys: episode data, redacted with it (details never are)
            "messages": ".".join(found.conversation_at),
            **({"response": ".".join(found.response_at)} if found.response else {}),
        }
        consumed = {found.conversation_at[0], *found.response_at[:1], "id"}
        rest = {k: v for k, v in value.items() if k not in consumed}
        episode.extra_json = canonical_json({"dialect": dialect, "read_from": read_from, **rest})

    @staticmethod
    def _read(
        dialect: Adapter, record: RawRecord, src: SourceFile, call: dict[str, Any], found: Envelope
    ) -> Episode:
        """The unwrapped call read by its provider's adapter; an error says where the call was."""
        try:
            return dialect.parse(RawRecord(record.line, record.json_path, value=call), src)
        except RecordError as error:
            where = f"the {dialect.name} call read from {_dotted(found.conversation_at)}"
            raise RecordError(error.reason, f"{error.detail} ({where})") from None

    @staticmethod
    def _answer(found: Envelope, episode: Episode, asked: int) -> None:
        """The events from ``asked`` on are the response: the call's answer, whose input was the
        ``asked`` events before it (a delivered input). A conversation that already ended with the
        answer keeps it once."""
        events = episode.events
        if len(events) == asked + 1 and asked and _same_turn(events[asked - 1], events[asked]):
            del events[asked:]
            asked -= 1
        if len(events) <= asked:
            return
        finish, tokens_in, tokens_out = _answer_facts(found)
        answer = events[asked]
        answer.finish_reason = answer.finish_reason or finish
        answer.input_tokens = answer.input_tokens if answer.input_tokens is not None else tokens_in
        answer.output_tokens = answer.output_tokens if answer.output_tokens is not None else tokens_out
        episode.delivered_inputs.append(delivered_input(0, events[:asked], events, asked))
