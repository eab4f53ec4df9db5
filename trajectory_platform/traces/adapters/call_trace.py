"""An episode from a trace of model calls, as tracing platforms (LangSmith, Langfuse) store an agent
run: each model call records what it saw and what it answered, and tool runs sit beside them.

The episode is the conversation of the call that saw the most (the agent loop's last call; ties go
to the later one), then its answer. Every call becomes a delivered input: the indices of the
episode prefix it saw (its answer the event after it, which takes the call's time, finish reason
and token counts), else its messages verbatim, marked compacted (history was rewritten between
calls). A failed tool run marks the result of the call
it ran ``error``: by the call id the run names, else by tool name among the calls not yet matched.
"""

from __future__ import annotations

from dataclasses import dataclass

from trajectory_platform.traces.adapters.base import RecordError, delivered_input
from trajectory_platform.traces.record import Episode, Event


@dataclass
class ModelCall:
    """One model call of a trace: the messages it saw and its answer (``None`` when it failed
    before answering)."""

    seen: list[Event]
    answer: Event | None


@dataclass
class ToolRun:
    """One tool run of a trace: the call id it names (if any), the tool's name, whether it failed."""

    call_id: str | None
    name: str | None
    failed: bool


def conversation_of(episode: Episode, calls: list[ModelCall]) -> int:
    """Fill ``episode.events`` and ``delivered_inputs`` from the trace's model calls, in call order;
    return the number of the call the conversation is (whose tools and model the episode records)."""
    if not calls:
        raise RecordError("no model call", "the trace has no model call with messages")
    chosen, last = max(enumerate(calls), key=lambda numbered: (len(numbered[1].seen), numbered[0]))
    episode.events = [*last.seen, *([last.answer] if last.answer is not None else [])]
    for number, call in enumerate(calls):
        manifest = delivered_input(number, call.seen, episode.events, None)
        after = len(call.seen)
        answered = after < len(episode.events) and episode.events[after].kind == "assistant"
        if manifest.event_indices is not None and answered:
            manifest.response_event_index = after  # it saw a prefix: its answer comes next
            if call.answer is not None and _same_turn(call.answer, episode.events[after]):
                _take_call_facts(episode.events[after], call.answer)
        episode.delivered_inputs.append(manifest)
    return chosen


def _same_turn(answer: Event, event: Event) -> bool:
    return (answer.content, [(c.id, c.name) for c in answer.tool_calls]) == (
        event.content,
        [(c.id, c.name) for c in event.tool_calls],
    )


def _take_call_facts(event: Event, answer: Event) -> None:
    """What only the call's own record says about its answer (a later call's input repeats the
    answer's text and calls, not when it came or what it cost)."""
    event.timestamp = event.timestamp or answer.timestamp
    event.finish_reason = event.finish_reason or answer.finish_reason
    event.input_tokens = event.input_tokens if event.input_tokens is not None else answer.input_tokens
    event.output_tokens = event.output_tokens if event.output_tokens is not None else answer.output_tokens


def mark_failed_tools(events: list[Event], runs: list[ToolRun]) -> None:
    """Mark the result of each failed run's call ``error`` (see the module docstring)."""
    results = {e.tool_call_id: e for e in events if e.kind == "tool" and e.tool_call_id}
    open_calls = [c for e in events for c in e.tool_calls if c.id in results]
    for run in runs:
        call_id = run.call_id
        if call_id is None:
            call = next((c for c in open_calls if c.name == run.name), None)
            call_id = call.id if call is not None else None
        open_calls = [c for c in open_calls if c.id != call_id]
        if run.failed and call_id in results:
            results[call_id].status = "error"
