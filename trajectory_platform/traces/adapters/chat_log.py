"""Chat calls and conversations in an envelope: what a gateway, a proxy or a team's own middleware
logs around an OpenAI-format call.

Deployed agents are often logged by what sits between them and the model (LiteLLM, Helicone,
Portkey, OpenRouter, a logging middleware) or by a logger of the team's own, which wraps the call in
a shape of its own: ``{"request": {"body": {"model", "messages", "tools"}}, "response": {"body":
{"choices": [...]}}}``, ``{"input": {"messages"}, "output": {...}}``, ``{"messages", "response"}``,
a conversation under ``history``, ``conversation``, ``turns``, ``data.messages``. The class is the
same: a list of role messages (``{"role", "content", "tool_calls"}``), perhaps the response the call
returned. This adapter finds them wherever the record keeps them, rather than one adapter per
gateway:

- **The conversation** is the longest list of role messages (every element an object with a
  ``role``, one of them a user or assistant turn) within four levels of objects;
  its messages are read as the ``openai`` format reads them.
- **The response** is the first Chat Completions response (``{"choices": [{"message"}]}``, its
  finish reason and ``usage``) or assistant message (``{"role": "assistant"}``) outside the
  conversation. It is the call's answer: the final assistant event (unless the conversation
  already ends with it), and the conversation is what that call saw (a delivered input).
- **The call's settings** sit beside the conversation: ``tools`` / ``functions``, ``model`` (else
  the response's), sampling parameters (:data:`SAMPLING_KEYS`).

The record's own shape decides nothing else, so an envelope never seen before reads the same. A
record whose conversation is the top-level ``messages`` with no response is the ``openai`` format,
and formats with an adapter of their own are detected before this one. Where each part was found is
kept in ``extra_json`` (``read_from``), with the record's top-level fields the parts did not
come from. The task id is read as for ``openai`` records, at the record's top level or beside the
conversation.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    delivered_input,
    expect,
    object_field,
    optional_str,
    read_chat_outcome,
    task_id_in,
)
from trajectory_platform.traces.adapters.chat_payloads import first_choice
from trajectory_platform.traces.adapters.openai import (
    event_of_message,
    events_of_messages,
    tool_specs_of,
)
from trajectory_platform.traces.drops import path_of
from trajectory_platform.traces.record import Episode, canonical_json

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

Path = tuple[str, ...]


def _is_conversation(value: Any) -> bool:
    """A list of role messages holding a user or assistant turn (a message of an unknown role is
    still one: reading it rejects the record naming its path)."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in value)
        and any(m["role"] in ("user", "assistant") for m in value)
    )


def _is_response(value: dict[str, Any]) -> bool:
    """A Chat Completions response, or one assistant message."""
    choices = value.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return isinstance(choices[0].get("message"), dict)
    return value.get("role") == "assistant"


@dataclass
class Envelope:
    """Where a record keeps its call: the conversation (and the object holding it), the response."""

    conversation: list[Any]
    conversation_at: Path
    request: dict[str, Any]
    response: dict[str, Any] | None = None
    response_at: Path = ()


def locate(record: dict[str, Any]) -> Envelope | None:
    """The conversation and response of ``record`` (see the module docstring), breadth first in
    the record's own key order; None without a conversation."""
    best: Envelope | None = None
    response: tuple[Path, dict[str, Any]] | None = None
    queue: deque[tuple[Path, dict[str, Any]]] = deque([((), record)])
    while queue:
        path, node = queue.popleft()
        if path and response is None and _is_response(node):
            response = (path, node)
            continue
        for key, child in node.items():
            if _is_conversation(child) and (best is None or len(child) > len(best.conversation)):
                best = Envelope(child, (*path, str(key)), node)
            elif isinstance(child, dict) and len(path) < MAX_DEPTH:
                queue.append(((*path, str(key)), child))
    if best is not None and response is not None:
        best.response_at, best.response = response
    return best


def _dotted(path: Path) -> str:
    """Where a part was found, as a detail may say it (keys are the record's own: :func:`path_of`)."""
    return path_of(path)


class ChatLogAdapter(Adapter):
    """OpenAI-format calls and conversations wrapped in a gateway's or a logger's own envelope."""

    name = "chat-log"
    task_id_source = TASK_ID_SOURCE

    def claims_record(self, record: dict[str, Any]) -> bool:
        found = locate(record)
        return found is not None and (found.conversation_at != ("messages",) or found.response is not None)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        found = locate(value)
        if found is None:
            raise RecordError("missing field", f"no list of role messages within {MAX_DEPTH} levels")
        where = _dotted(found.conversation_at)
        episode = self.new_episode(record, src, adapter_episode_id(self.name, value.get("id"), value))
        read_chat_outcome(value, episode)
        request = found.request
        episode.task.fixture_id = task_id_in(
            [
                (value.get("metadata"), "metadata."),
                (value, ""),
                (request.get("metadata"), f"{_dotted(found.conversation_at[:-1])}.metadata."),
                (request, f"{_dotted(found.conversation_at[:-1])}."),
            ]
        )
        seen = events_of_messages(found.conversation, where)
        episode.events = list(seen)
        if found.response is not None:
            self._answer(found, episode, seen)
        for key in ("tools", "functions"):
            if request.get(key) is not None:
                episode.tools.extend(
                    tool_specs_of(request[key], f"{_dotted(found.conversation_at[:-1])}.{key}")
                )
        model = request.get("model", (found.response or {}).get("model"))
        episode.lineage.model = optional_str(model, "model")
        sampling = {k: request[k] for k in SAMPLING_KEYS if request.get(k) is not None}
        episode.lineage.sampling_params_json = canonical_json(sampling) if sampling else None
        read_from = {  # the record's own keys: episode data, redacted with it (details never are)
            "messages": ".".join(found.conversation_at),
            **({"response": ".".join(found.response_at)} if found.response else {}),
        }
        consumed = {found.conversation_at[0], *found.response_at[:1], "id"}
        rest = {k: v for k, v in value.items() if k not in consumed}
        episode.extra_json = canonical_json({"read_from": read_from, **rest})
        return episode

    @staticmethod
    def _answer(found: Envelope, episode: Episode, seen: list[Any]) -> None:
        """The response as the call's answer: the final assistant event (or the conversation's own
        last turn, when it already ends with it), and the conversation as what that call saw."""
        response, at = found.response or {}, _dotted(found.response_at)
        if "choices" in response:
            answer = first_choice(response, at)  # with its finish reason and the response's usage
        else:
            answer = event_of_message(response, at)
            usage = object_field(response, "usage")
            answer.input_tokens = usage.get("prompt_tokens", usage.get("input_tokens"))
            answer.output_tokens = usage.get("completion_tokens", usage.get("output_tokens"))
        last = seen[-1] if seen else None
        repeated = (
            last is not None
            and last.kind == "assistant"
            and (last.content, [(c.name, c.arguments) for c in last.tool_calls])
            == (answer.content, [(c.name, c.arguments) for c in answer.tool_calls])
        )
        if repeated:
            seen = seen[:-1]
            episode.events[-1].finish_reason = answer.finish_reason
            episode.events[-1].input_tokens = answer.input_tokens
            episode.events[-1].output_tokens = answer.output_tokens
        else:
            episode.events.append(answer)
        episode.delivered_inputs.append(delivered_input(0, seen, episode.events, len(seen)))
