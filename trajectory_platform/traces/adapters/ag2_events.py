"""AG2 (AutoGen 0.2's successor, ``ag2`` 0.8 on) run events: what ``agent.run(...)`` streams and
its console or a ``JsonIOStream`` writes, one ``{"type", "content": {"uuid", ...}}`` a line.

A file of events is one run. The events that carry the conversation, each naming its ``sender``
(and ``recipient``):

- ``text``: a message; the acting agent's (below) is an assistant turn, anyone else's a user turn;
- ``tool_call`` / ``function_call``: the acting agent's turn with its calls (``tool_calls``, or the
  legacy ``function_call``, which has no id);
- ``tool_response`` (each of its ``tool_responses`` a result by ``tool_call_id``) /
  ``function_response``: tool events, named by the agent that ran them.

Every event carries its speaker's name. The acting agent, whose turns are the model's, is the one
sender of the calls; a run without calls is the first message's recipient (the initiator's task
goes to the agent that answers). A run whose calls come from more than one agent (a group chat of
several models) cannot say which speaker is the model: an ``ambiguous speaker roles`` reject.
``run_completion``'s ``summary`` is the final answer; ``termination`` ends the run completed (its
reason kept). The bookkeeping events (``execute_function`` / ``executed_function``, which repeat a
call and its result, ``using_auto_reply``, speaker selection, usage summaries, input requests) are
counted in ``extra_json.events_not_read``; an event of another type rejects the run naming it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    arguments_text,
    event_list_or_stream,
    expect,
    name_tool_results,
    optional_str,
)
from trajectory_platform.traces.adapters.content_parts import output_text
from trajectory_platform.traces.adapters.openai import tool_call_of
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

SPOKEN = frozenset({"text", "tool_call", "function_call", "tool_response", "function_response"})
BOOKKEEPING = frozenset(
    {
        "execute_function",
        "executed_function",
        "execute_code_block",
        "generate_code_execution_reply",
        "using_auto_reply",
        "group_chat_run_chat",
        "select_speaker",
        "select_speaker_try_count_exceeded",
        "select_speaker_invalid_input",
        "speaker_attempt_successful",
        "speaker_attempt_failed_multiple_agents",
        "speaker_attempt_failed_no_agents",
        "post_carryover_processing",
        "clear_agents_history",
        "clear_conversable_agent_history",
        "clear_conversable_agent_history_warning",
        "conversable_agent_usage_summary",
        "conversable_agent_usage_summary_no_cost_incurred",
        "input_request",
        "input_response",
        "info",
    }
)
"""Events that carry no turn (a call and its result said again, who speaks next, costs)."""
ENDING = frozenset({"termination", "termination_and_human_reply_no_input", "run_completion"})
EVENT_TYPES = SPOKEN | BOOKKEEPING | ENDING
CALLING = ("tool_call", "function_call")


def is_event(value: Any) -> bool:
    """An AG2 run event: a ``type`` and its ``content`` object with the event's ``uuid`` (a type
    this reader does not know is one too: it rejects the run naming it, never dropped)."""
    return (
        isinstance(value, dict)
        and set(value) <= {"type", "content"}
        and isinstance(value.get("type"), str)
        and isinstance(value.get("content"), dict)
        and "uuid" in value["content"]
    )


def _known(value: Any) -> bool:
    """An event of a type this reader knows: what detection claims a file by."""
    return is_event(value) and value["type"] in EVENT_TYPES


def _actor(events: list[dict[str, Any]]) -> str | None:
    """The agent whose turns are the model's (module docstring)."""
    callers = {e["content"].get("sender") for e in events if e.get("type") in CALLING}
    if len(callers) > 1:
        raise RecordError(
            "ambiguous speaker roles",
            f"{len(callers)} agents make calls: the run cannot say which speaker is the model",
        )
    if callers:
        return optional_str(next(iter(callers)), "sender")
    first: dict[str, Any] = next((e["content"] for e in events if e.get("type") == "text"), {})
    return optional_str(first.get("recipient"), "recipient")


class AG2EventsAdapter(Adapter):
    """AG2 run events, one a line (or a JSON list of them)."""

    name = "ag2-events"
    task_id_source = None

    def sniff(self, sample: Any, path: Any) -> bool:
        if isinstance(sample, list):
            return bool(sample) and all(is_event(e) for e in sample) and _known(sample[0])
        return _known(sample)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        yield from event_list_or_stream(src, is_event, "an AG2 run event ({type, content})")

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        raw = expect(expect(record.value, dict, "record").get("events"), list, "events")
        items = [expect(e, dict, f"events[{i}]") for i, e in enumerate(raw)]
        episode = self.new_episode(record, src, adapter_episode_id(self.name, None, raw))
        actor = _actor(items)
        not_read: Counter[str] = Counter()
        extra: dict[str, Any] = {}
        for index, item in enumerate(items):
            where = f"events[{index}].content"
            kind, body = item.get("type"), expect(item.get("content"), dict, where)
            sender = optional_str(body.get("sender"), f"{where}.sender")
            if kind == "text":
                said = output_text(body.get("content"), f"{where}.content")
                role = "assistant" if sender == actor else "user"
                episode.events.append(Event(kind=role, content=said, name=sender))
            elif kind == "tool_call":
                calls = expect(body.get("tool_calls") or [], list, f"{where}.tool_calls")
                turn = Event(kind="assistant", content=optional_str(body.get("content"), f"{where}.content"))
                turn.tool_calls = [tool_call_of(c, f"{where}.tool_calls[{i}]") for i, c in enumerate(calls)]
                turn.name = sender
                episode.events.append(turn)
            elif kind == "function_call":
                call = expect(body.get("function_call"), dict, f"{where}.function_call")
                name = optional_str(call.get("name"), f"{where}.function_call.name")
                turn = Event(kind="assistant", content=optional_str(body.get("content"), f"{where}.content"))
                turn.tool_calls = [ToolCall(None, name, arguments_text(call.get("arguments")))]
                turn.name = sender
                episode.events.append(turn)
            elif kind == "tool_response":
                results = expect(body.get("tool_responses") or [], list, f"{where}.tool_responses")
                for number, result in enumerate(results):
                    at = f"{where}.tool_responses[{number}]"
                    expect(result, dict, at)
                    episode.events.append(
                        Event(
                            kind="tool",
                            content=output_text(result.get("content"), f"{at}.content"),
                            tool_call_id=optional_str(result.get("tool_call_id"), f"{at}.tool_call_id"),
                            name=sender,
                        )
                    )
            elif kind == "function_response":
                episode.events.append(
                    Event(
                        kind="tool",
                        content=output_text(body.get("content"), f"{where}.content"),
                        tool_name=optional_str(body.get("name"), f"{where}.name"),
                        name=sender,
                    )
                )
            elif kind == "run_completion":
                summary = body.get("summary")
                episode.outcome.final_answer = summary if isinstance(summary, str) else None
                episode.outcome.terminal_status = "completed"
            elif kind in ENDING:
                episode.outcome.terminal_status = "completed"
                reason = body.get("termination_reason")
                if isinstance(reason, str):
                    extra["termination_reason"] = reason
            elif kind in BOOKKEEPING:
                not_read[str(kind)] += 1
            else:
                raise RecordError("unknown event type", f"events[{index}].type is {named(kind)}")
        name_tool_results(episode.events)
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        episode.extra_json = canonical_json({**extra, "events_not_read": dict(sorted(not_read.items()))})
        return episode
