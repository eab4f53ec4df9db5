"""Google's Agent Development Kit (ADK): a session's events, as the ADK stores them and as its
servers (``adk api_server``'s ``/run_sse``, Vertex AI Agent Engine's ``stream_query``) stream them.

An ADK event is a Gemini ``Content`` (``{"role", "parts"}``) said by an ``author`` (``user``, or the
agent that spoke), with the invocation it belongs to, its id, an epoch ``timestamp``, the model's
``usage_metadata`` and the ``actions`` it asked of the runner (state changes, a transfer to another
agent). A record is one session: ``{"id", "app_name", "user_id", "state", "events"}``, a bare list
of events, or a file of events one a line (a streamed run). The parts are read as the ``gemini``
format reads them (:func:`~trajectory_platform.traces.adapters.gemini.events_of_content`): a model
turn is one assistant event (thought text -> reasoning, ``function_call`` -> calls,
``executable_code`` -> a ``code_execution`` call), a ``function_response`` a tool event answering its
call by id, and a code execution result the built-in tool's answer. The author of a model turn is
the event's ``name`` (several agents may speak in one session). A ``partial`` event is a streamed
fragment that the complete event after it repeats, so it is counted (``extra_json.partial_events``),
not read twice; an event with no content (a state change, a transfer) is counted as
``events_without_content``. An event's ``error_code`` ends the episode ``error``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    SourceFile,
    adapter_episode_id,
    event_stream_records,
    expect,
    frame_json,
    name_tool_results,
    object_field,
    task_id_in,
    timestamp_of,
)
from trajectory_platform.traces.adapters.gemini import events_of_content, snaked
from trajectory_platform.traces.record import Episode, canonical_json

TASK_ID_SOURCE = "the session's `state.task_id` (or `environment_id`, `instance_id`; or at its top level)"
SESSION_KEYS = ("app_name", "appName", "user_id", "userId", "last_update_time", "lastUpdateTime")


def is_event(value: Any) -> bool:
    """An ADK event: an ``author`` and a Gemini content (``parts``), or no content at all."""
    if not isinstance(value, dict) or not isinstance(value.get("author"), str):
        return False
    content = value.get("content")
    return content is None or isinstance(content, dict) and isinstance(content.get("parts"), list)


def is_session(value: Any) -> bool:
    events = value.get("events") if isinstance(value, dict) else None
    return (
        isinstance(events, list)
        and any(k in value for k in SESSION_KEYS)
        and all(is_event(e) for e in events)
        and any(isinstance(e.get("content"), dict) for e in events)
    )


class ADKAdapter(Adapter):
    """ADK sessions and streamed ADK events."""

    name = "adk"
    task_id_source = TASK_ID_SOURCE

    def sniff(self, sample: Any, path: Any) -> bool:
        if isinstance(sample, list):
            return bool(sample) and all(is_event(e) for e in sample) and any(e.get("content") for e in sample)
        return is_session(sample) or is_event(sample) and isinstance(sample.get("content"), dict)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        document, error = src.document
        if error is None and isinstance(document, list) and all(is_event(e) for e in document):
            yield RawRecord(None, "$", value={"events": document})
        elif error is None and not is_event(document):
            yield from frame_json(src)
        else:
            yield from event_stream_records(src, is_event, "an ADK event ({author, content: {parts}})")

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        session = expect(record.value, dict, "record")
        events = expect(session.get("events"), list, "events")
        own_id = (
            session.get("id") if "events" in session and any(k in session for k in SESSION_KEYS) else None
        )
        episode = self.new_episode(record, src, adapter_episode_id(self.name, own_id, session))
        partial = without_content = 0
        for index, raw in enumerate(events):
            event = snaked(expect(raw, dict, f"events[{index}]"))
            if event.get("partial"):
                partial += 1
                continue
            if event.get("content") is None:
                without_content += 1
                continue
            read = events_of_content(event["content"], f"events[{index}].content")
            usage = object_field(event, "usage_metadata")
            for turn in read:
                turn.timestamp = timestamp_of(event.get("timestamp"), f"events[{index}].timestamp")
                if turn.kind == "assistant":
                    turn.name = event["author"]
                    turn.input_tokens = usage.get("prompt_token_count")
                    turn.output_tokens = usage.get("candidates_token_count")
            episode.events.extend(read)
            if event.get("error_code") is not None:
                episode.outcome.terminal_status = "error"
        name_tool_results(episode.events)
        state = session.get("state")
        episode.task.fixture_id = task_id_in([(state, "state."), (session, "")])
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        rest = {k: v for k, v in session.items() if k not in ("events", "id")}
        episode.extra_json = canonical_json(
            {**rest, "partial_events": partial, "events_without_content": without_content}
        )
        return episode
