"""From an episode to the message sequences a model actually saw (fine-tuning 16.3).

Two decisions live here, both before any tokenization:

- **which responses are targets** (:func:`select_targets`): curation's per-turn selection
  (``target_turns``) when the row carries it; else the OpenAI fine-tuning ``weight`` field
  (assistant messages with weight 1 or no weight are targets, weight 0 are context); else every
  assistant turn except proposals the runtime refused. Observations, system and user text,
  refusals and compaction summaries are never targets.
- **which example each response lands in** (:func:`plan_examples`): each model call's delivered
  prefix is reconstructed from its delivered-input manifest (``messages_json`` or
  ``event_indices``), or, without one, from the event log with compacted turns removed. Calls whose
  prefix extends the previous example (append-only history) share that example, so an
  uncompacted episode is one transcript; a compaction or pruning starts a new example holding that
  call's exact delivered prefix. This stores the (T+1)/2 blow-up only where the runtime actually
  rewrote history.

Observations stay in recorded arrival order (parallel replies are never re-sorted). A log that
recorded no user message at all, but whose task is known, has the task put back where the runtime
sent it (:func:`restored_task`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from trajectory_platform.traces.record import DeliveredInput, Episode, Event, ToolCall, canonical_json

RATIONALE_MODES = ("target", "context", "removed")
TRUNCATION_POLICIES = ("exclude", "prefix")
TRUNCATED_FINISH_REASONS = frozenset({"length", "max_tokens", "truncated"})
OBSERVATION_KINDS = frozenset({"tool", "refusal"})


@dataclass
class Turn:
    """One message of an example: what the template renders and what the mask needs to know."""

    message: dict[str, Any]
    kind: str
    event_index: int | None
    target: bool = False
    truncated: bool = False
    key: tuple = ()


@dataclass
class ExamplePlan:
    """One training example before tokenization: the turns, the tools, which calls it answers."""

    episode_id: str
    example_index: int
    tools: list[dict[str, Any]]
    turns: list[Turn] = field(default_factory=list)
    invocations: list[int] = field(default_factory=list)
    problem: str | None = None
    """Why this call's input cannot be reconstructed (the example is dropped with this reason)."""

    @property
    def example_id(self) -> str:
        return f"{self.episode_id}#{self.example_index}"


@dataclass
class TargetSelection:
    """The assistant event indices selected as targets, and which policy selected them."""

    indices: set[int]
    policy: str


def is_truncated(event: Event) -> bool:
    """A response the trace records as cut off (it has no authentic terminator)."""
    return event.kind == "assistant" and (event.finish_reason or "").lower() in TRUNCATED_FINISH_REASONS


def refused_proposals(episode: Episode) -> set[int]:
    """Assistant events with a call the runtime refused before dispatch."""
    refused_ids = {
        e.tool_call_id
        for e in episode.events
        if e.tool_call_id and (e.kind == "refusal" or (e.kind == "tool" and e.status == "refused"))
    }
    return {
        i
        for i, e in enumerate(episode.events)
        if e.kind == "assistant" and any(c.id in refused_ids for c in e.tool_calls if c.id)
    }


def select_targets(episode: Episode, target_turns: Sequence[int] | None = None) -> TargetSelection:
    """Apply the declared target policy (module docstring); only assistant events can be targets."""
    assistant = {i for i, e in enumerate(episode.events) if e.kind == "assistant"}
    if target_turns is not None:
        return TargetSelection({int(i) for i in target_turns} & assistant, "curation_target_turns")
    if any(episode.events[i].weight is not None for i in assistant):
        chosen = {i for i in assistant if (weight := episode.events[i].weight) is None or weight > 0}
        return TargetSelection(chosen, "openai_weight")
    return TargetSelection(assistant - refused_proposals(episode), "all_assistant_except_refused")


def argument_keys(episode: Episode) -> set[str]:
    """The argument keys every tool schema of ``episode`` declares: what schema augmentation
    renames, and the training key set a dataset declares for PRE."""
    keys: set[str] = set()
    for tool in episode.tools:
        schema = json.loads(tool.parameters_json) if tool.parameters_json else {}
        keys.update((schema.get("properties") or {}) if isinstance(schema, dict) else {})
    return keys


def tool_dict(tool: Any) -> dict[str, Any]:
    """A :class:`ToolSpec` in the OpenAI ``tools`` shape chat templates expect."""
    parameters = json.loads(tool.parameters_json) if tool.parameters_json else {}
    function = {"name": tool.name, "description": tool.description or "", "parameters": parameters}
    return {"type": "function", "function": function}


def message_of(event: Event, rationale: str) -> dict[str, Any]:
    """The chat-template message for one event (refusals render as tool-role observations)."""
    if event.kind == "assistant":
        message: dict[str, Any] = {"role": "assistant", "content": event.content or ""}
        if event.tool_calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {
                        "name": c.name or "",
                        "arguments": "" if c.arguments is None else c.arguments,
                    },
                }
                for c in event.tool_calls
            ]
        if event.reasoning and rationale != "removed":
            message["reasoning_content"] = event.reasoning
        if is_truncated(event):
            message["truncated"] = True
        return message
    if event.kind in OBSERVATION_KINDS:
        return {"role": "tool", "content": event.content or "", "tool_call_id": event.tool_call_id}
    role = "system" if event.kind == "compaction" else event.kind
    return {"role": role, "content": event.content or ""}


def event_of_dict(data: dict[str, Any]) -> Event:
    """An :class:`Event` from its dict form (a delivered-input manifest message)."""
    calls = [ToolCall(**c) for c in data.get("tool_calls") or []]
    known = {k: v for k, v in data.items() if k in Event.__dataclass_fields__ and k != "tool_calls"}
    return Event(**known, tool_calls=calls)


def _compacted_events(episode: Episode, compaction: int) -> set[int]:
    """Events the compaction at index ``compaction`` removed from later calls' input.

    ``replaces_through`` names the last replaced event; system messages and the first user
    message (the task) are kept, as runtimes re-send them with every call, and nothing at or after
    the compaction itself is replaced. Used only when a call has no delivered-input manifest.
    """
    events = episode.events
    task = next((j for j, e in enumerate(events) if e.kind == "user"), None)
    replaces_through = events[compaction].replaces_through
    if replaces_through is None:
        raise ValueError(f"event {compaction} of {episode.episode_id} is no compaction that replaces events")
    through = min(replaces_through + 1, compaction)
    return {j for j in range(through) if events[j].kind != "system" and j != task}


def restored_task(episode: Episode) -> Event | None:
    """The task as a user message, for a log that recorded none while its task is known.

    ``codex exec`` and ``claude -p`` take the prompt as a command argument, so their streams hold
    the model's turns but not the task it answered; the verifier fills ``task.prompt`` from the
    environment the log is linked to, whose statement is the task as the agent was given it. Left
    out, every example of such a log would teach the policy to act with no task in its context. A
    log holding any user message keeps exactly what it recorded.
    """
    if episode.task.prompt is None or any(e.kind == "user" for e in episode.events):
        return None
    return Event(kind="user", content=episode.task.prompt)


def _after_system(kinds: Sequence[str]) -> int:
    """Where the task goes among a prefix's messages: after the leading system messages, as
    runtimes send it."""
    return next((i for i, kind in enumerate(kinds) if kind != "system"), len(kinds))


def _logged_keys(episode: Episode, response: int, replaced: set[int], task: tuple | None) -> list[tuple]:
    """The events before ``response`` that no compaction replaced, with the restored task."""
    keys = [("e", j) for j in range(response) if j not in replaced]
    if task is None:
        return keys
    at = _after_system([episode.events[j].kind for _, j in keys])
    return [*keys[:at], task, *keys[at:]]


def _delivered_keys(
    episode: Episode, response: int, manifest: DeliveredInput | None, replaced: set[int], task: tuple | None
) -> list[tuple]:
    """What the call producing event ``response`` saw: ``("e", index)`` for a logged event, or
    ``("m", canonical JSON)`` for a message the manifest shows verbatim (or the restored task)."""
    if manifest is not None and manifest.messages_json:
        messages = [canonical_json(m) for m in json.loads(manifest.messages_json)]
        indices = manifest.event_indices
        # Messages identical to logged events keep the events' identity, so later calls that extend
        # this prefix share its example instead of starting a new one.
        if (
            indices is not None
            and len(indices) == len(messages)
            and all(
                0 <= j < len(episode.events) and canonical_json(dataclasses.asdict(episode.events[j])) == m
                for j, m in zip(indices, messages, strict=True)
            )
        ):
            return [("e", j) for j in indices]
        return [("m", m) for m in messages]
    if manifest is not None and manifest.event_indices is not None:
        return [("e", j) for j in manifest.event_indices]
    return _logged_keys(episode, response, replaced, task)


def _turn(episode: Episode, key: tuple, rationale: str) -> Turn:
    event = episode.events[key[1]] if key[0] == "e" else event_of_dict(json.loads(key[1]))
    return Turn(message_of(event, rationale), event.kind, key[1] if key[0] == "e" else None, key=key)


def plan_examples(
    episode: Episode, selection: TargetSelection, rationale: str = "context"
) -> list[ExamplePlan]:
    """Group the episode's model calls into examples (module docstring); targets marked per turn.

    Every response is a target at most once: only a call's own answer can be a target, and a later
    example that repeats an earlier response in its prefix holds it as context. Linear in the
    episode length for append-only history: while no manifest or compaction intervenes, each call
    only appends the events since the previous one (no prefix is rebuilt or compared).
    """
    if rationale not in RATIONALE_MODES:
        raise ValueError(f"rationale must be one of {RATIONALE_MODES}, got {rationale!r}")
    tools = [tool_dict(t) for t in episode.tools]
    manifests = {d.response_event_index: d for d in episode.delivered_inputs}
    restored = restored_task(episode)
    task = None if restored is None else ("m", canonical_json(dataclasses.asdict(restored)))
    plans: list[ExamplePlan] = []
    replaced: set[int] = set()
    through: int | None = -1  # the current example is exactly events 0..through (append-only), else None
    for response, event in enumerate(episode.events):
        if event.kind == "compaction" and event.replaces_through is not None:
            replaced |= _compacted_events(episode, response)
        if event.kind != "assistant":
            continue
        manifest = manifests.get(response)
        if (
            manifest is not None
            and manifest.compacted
            and not manifest.messages_json
            and manifest.event_indices is None
            and not replaced
        ):
            # The call saw a compacted history that neither the manifest nor the log shows.
            plans.append(
                ExamplePlan(
                    episode.episode_id,
                    len(plans),
                    tools,
                    invocations=[response],
                    problem="compacted_prefix_unknown",
                )
            )
            through = None
            continue
        current = plans[-1] if plans else None
        if current is not None and through is not None and manifest is None and not replaced:
            current.turns.extend(_turn(episode, ("e", j), rationale) for j in range(through + 1, response))
        else:
            keys = _delivered_keys(episode, response, manifest, replaced, task)
            held = [t.key for t in current.turns] if current is not None else None
            if (
                current is not None
                and held is not None
                and current.problem is None
                and keys[: len(held)] == held
            ):
                current.turns.extend(_turn(episode, k, rationale) for k in keys[len(held) :])
            else:
                current = ExamplePlan(
                    episode.episode_id, len(plans), tools, turns=[_turn(episode, k, rationale) for k in keys]
                )
                plans.append(current)
            append_only = [t.key for t in current.turns] == _logged_keys(episode, response, set(), task)
            through = response - 1 if append_only else None
        selected = response in selection.indices
        current.turns.append(
            Turn(
                message_of(event, rationale),
                "assistant",
                response,
                target=selected,
                truncated=is_truncated(event),
                key=("e", response),
            )
        )
        current.invocations.append(response)
        through = response if through is not None else None
    return plans


def transcript_tokens(episode: Episode, tokenizer: Any, rationale: str = "context") -> int:
    """Tokens of the episode through its last response rendered as one transcript.

    The baseline for the per-invocation expansion factor and for augmentation token expansion.
    """
    responses = [i for i, e in enumerate(episode.events) if e.kind == "assistant"]
    events = episode.events[: responses[-1] + 1] if responses else episode.events
    tools = [tool_dict(t) for t in episode.tools] or None
    messages = [message_of(e, rationale) for e in events]
    if (restored := restored_task(episode)) is not None:
        messages.insert(_after_system([e.kind for e in events]), message_of(restored, rationale))
    text = tokenizer.apply_chat_template(messages, tools=tools, tokenize=False)
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])
