"""The OpenHands Software Agent SDK (OpenHands V1): a conversation's events, each naming its
``kind``.

The SDK replaced the older event stream (``action`` / ``observation``, read by ``openhands``) with
typed events: ``SystemPromptEvent`` (the system prompt and the tools given), ``MessageEvent`` (an
``llm_message`` in OpenAI's shape, from the user or the agent), ``ActionEvent`` (one call the model
made: its ``tool_call``, the ``thought`` and ``reasoning_content`` beside it; actions of one model
response share an ``llm_response_id`` and are one assistant turn), ``ObservationEvent`` (the tool's
answer, by ``tool_call_id``), ``AgentErrorEvent`` (a call that failed before it ran: an ``error``
result), ``UserRejectObservation`` (the user refused the call: a ``refusal``), ``Condensation`` (the
condenser forgetting events, perhaps with a ``summary``: a ``compaction`` replacing through the last
event it forgot) and bookkeeping (pauses, state updates, condensation requests), counted in
``extra_json.bookkeeping_events``. A record is one conversation: a list of events, or a file of
events one a line. The ``FinishAction``'s message is the final answer; a ``ConversationErrorEvent``
ends the episode ``error``. An event of another kind rejects the record with its index.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    event_list_or_stream,
    expect,
    name_tool_results,
    object_field,
    optional_str,
    text_of,
    timestamp_of,
)
from trajectory_platform.traces.adapters.openai import events_of_message, tool_call_of, tool_specs_of
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

READ_KINDS = frozenset(
    {
        "SystemPromptEvent",
        "MessageEvent",
        "ActionEvent",
        "ObservationEvent",
        "AgentErrorEvent",
        "UserRejectObservation",
        "Condensation",
        "CondensationSummaryEvent",
        "ConversationErrorEvent",
    }
)
BOOKKEEPING = frozenset({"PauseEvent", "ConversationStateUpdateEvent", "CondensationRequest"})
SOURCES = ("agent", "user", "environment")


def is_event(value: Any) -> bool:
    """An SDK event: a ``kind`` and who it came from (a kind not read here rejects its record, naming
    it, rather than making the file a stranger)."""
    return isinstance(value, dict) and isinstance(value.get("kind"), str) and value.get("source") in SOURCES


def _claimed(events: list[Any]) -> bool:
    return bool(events) and all(is_event(e) for e in events) and any(e["kind"] in READ_KINDS for e in events)


def _observation_text(observation: dict[str, Any], where: str) -> str | None:
    """What a tool answered: its ``content`` parts or text, else its ``output``."""
    content = observation.get("content", observation.get("output"))
    return (
        text_of(content, where)
        if content is None or isinstance(content, str | list)
        else canonical_json(content)
    )


class OpenHandsSDKAdapter(Adapter):
    """OpenHands Software Agent SDK event logs."""

    name = "openhands-sdk"
    task_id_source = None

    def sniff(self, sample: Any, path: Any) -> bool:
        return _claimed(sample if isinstance(sample, list) else [sample])

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        yield from event_list_or_stream(src, is_event, "an OpenHands SDK event ({kind, source})")

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        events = expect(expect(record.value, dict, "record").get("events"), list, "events")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, None, events))
        index_of_id: dict[Any, int] = {}
        last_response: Any = None
        bookkeeping = 0
        for index, raw in enumerate(events):
            where = f"events[{index}]"
            event = expect(raw, dict, where)
            kind = event.get("kind")
            stamp = timestamp_of(event.get("timestamp"), f"{where}.timestamp")
            response = None
            if kind in BOOKKEEPING:
                bookkeeping += 1
                continue
            if kind == "SystemPromptEvent":
                prompt = event.get("system_prompt")
                text = text_of([prompt] if isinstance(prompt, dict) else prompt, f"{where}.system_prompt")
                episode.events.append(Event(kind="system", content=text, timestamp=stamp))
                episode.tools = tool_specs_of(event.get("tools") or [], f"{where}.tools")
            elif kind == "MessageEvent":
                read = events_of_message(event.get("llm_message"), f"{where}.llm_message")
                extended = event.get("extended_content") or []
                if extended and read[0].kind == "user":
                    added = text_of(extended, f"{where}.extended_content")
                    read[0].content = "\n".join(t for t in (read[0].content, added) if t)
                for turn in read:
                    turn.timestamp = stamp
                episode.events.extend(read)
            elif kind == "ActionEvent":
                response = event.get("llm_response_id")
                self._action(
                    event, where, stamp, episode, joined=response is not None and response == last_response
                )
            elif kind in ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation"):
                episode.events.append(self._answer(event, kind, where, stamp))
            elif kind in ("Condensation", "CondensationSummaryEvent"):
                forgotten = [
                    index_of_id[i] for i in event.get("forgotten_event_ids") or [] if i in index_of_id
                ]
                summary = optional_str(event.get("summary"), f"{where}.summary")
                episode.events.append(
                    Event(
                        kind="compaction",
                        content=summary,
                        replaces_through=max(forgotten, default=None),
                        timestamp=stamp,
                    )
                )
            elif kind == "ConversationErrorEvent":
                episode.outcome.terminal_status = "error"
                bookkeeping += 1
                continue
            else:
                raise RecordError(
                    "unknown event", f"{where}.kind is {named(kind)}; expected one of {sorted(READ_KINDS)}"
                )
            last_response = response
            if event.get("id") is not None and episode.events:
                index_of_id[event["id"]] = len(episode.events) - 1
        name_tool_results(episode.events)
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        episode.extra_json = canonical_json({"bookkeeping_events": bookkeeping})
        return episode

    @staticmethod
    def _action(event: dict[str, Any], where: str, stamp: str | None, episode: Episode, joined: bool) -> None:
        """One call the model made, joined to the previous turn when one response made both."""
        action = object_field(event, "action")
        raw_call = event.get("tool_call")
        call = (
            tool_call_of(raw_call, f"{where}.tool_call")
            if raw_call is not None
            else ToolCall(
                optional_str(event.get("tool_call_id"), f"{where}.tool_call_id"),
                optional_str(event.get("tool_name"), f"{where}.tool_name"),
                canonical_json({k: v for k, v in action.items() if k != "kind"}),
            )
        )
        if action.get("kind") == "FinishAction":
            episode.outcome.final_answer = optional_str(action.get("message"), f"{where}.action.message")
            episode.outcome.terminal_status = "completed"
        previous = episode.events[-1] if episode.events else None
        if joined and previous is not None and previous.kind == "assistant":
            previous.tool_calls.append(call)
            return
        thought = event.get("thought") or None
        reasoning = event.get("reasoning_content")
        episode.events.append(
            Event(
                kind="assistant",
                content=text_of(thought, f"{where}.thought") if thought else None,
                reasoning=optional_str(reasoning, f"{where}.reasoning_content") or None,
                tool_calls=[call],
                timestamp=stamp,
            )
        )

    @staticmethod
    def _answer(event: dict[str, Any], kind: str, where: str, stamp: str | None) -> Event:
        call_id = optional_str(event.get("tool_call_id"), f"{where}.tool_call_id")
        tool = optional_str(event.get("tool_name"), f"{where}.tool_name")
        if kind == "UserRejectObservation":
            reason = optional_str(event.get("rejection_reason"), f"{where}.rejection_reason")
            return Event(
                kind="refusal",
                content=reason,
                tool_call_id=call_id,
                tool_name=tool,
                status="refused",
                timestamp=stamp,
            )
        if kind == "AgentErrorEvent":
            error = optional_str(event.get("error"), f"{where}.error")
            return Event(
                kind="tool",
                content=error,
                tool_call_id=call_id,
                tool_name=tool,
                status="error",
                timestamp=stamp,
            )
        observation = object_field(event, "observation")
        exit_code = observation.get("exit_code")
        exit_code = (
            exit_code
            if isinstance(exit_code, int) and not isinstance(exit_code, bool) and exit_code != -1
            else None
        )
        failed = bool(observation.get("error") or observation.get("is_error")) or bool(exit_code)
        return Event(
            kind="tool",
            content=_observation_text(observation, f"{where}.observation"),
            tool_call_id=call_id,
            tool_name=tool,
            status="error" if failed else "ok",
            exit_code=exit_code,
            timestamp=stamp,
        )
