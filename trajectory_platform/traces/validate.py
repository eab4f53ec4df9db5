"""Checks every normalized episode passes before it is admitted to ``raw_traces``.

Adapters convert; this module decides what the platform accepts, the same way for every format:
every value must fit :data:`EPISODE_SCHEMA` (so writing the tables can never fail half-way), the
record must use the vocabularies of :mod:`trajectory_platform.traces.record` (and name a format
the platform reads), its timestamps must read as times, it must hold at least
one event, answer only tool calls that were made (a tool result with no id needs a call before
it that is still unanswered), and keep every text field under a size cap.
Each failure is a :class:`RecordError` with a reason a person understands. A malformed
tool-call *argument* string is never a failure: it is what the model produced.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from trajectory_platform.traces.adapters import ADAPTERS, FORMAT_NAMES
from trajectory_platform.traces.adapters.base import RecordError
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import (
    EVENT_KINDS,
    OBSERVATION_STATUSES,
    TERMINAL_STATUSES,
    Episode,
    is_timestamp,
    known_finish_reason,
)
from trajectory_platform.traces.schema import EPISODE_SCHEMA

DEFAULT_MAX_FIELD_CHARS = 8 * 1024 * 1024
"""Largest text field admitted (characters). Real SWE-agent observations reach ~100k characters."""


def validate_episode(episode: Episode, max_field_chars: int = DEFAULT_MAX_FIELD_CHARS) -> None:
    """Raise :class:`RecordError` when ``episode`` must not be admitted."""
    _check_schema(episode, max_field_chars)
    if not episode.events:
        raise RecordError("empty conversation", "the record holds no messages or steps")
    if episode.source_format not in FORMAT_NAMES:  # a native record names its own
        raise RecordError("unknown source format", f"source_format is {named(episode.source_format)}")
    called: set[str] = set()
    unanswered = 0  # calls made that no tool result has answered yet
    for index, event in enumerate(episode.events):
        where = f"events[{index}]"
        if event.kind not in EVENT_KINDS:
            raise RecordError("unknown role", f"{where}.kind is {named(event.kind)}")
        if event.status is not None and event.status not in OBSERVATION_STATUSES:
            raise RecordError("unknown status", f"{where}.status is {named(event.status)}")
        if event.finish_reason is not None and not known_finish_reason(event.finish_reason):
            detail = f"{where}.finish_reason is {named(event.finish_reason)}"
            raise RecordError("unknown finish reason", detail)
        if event.timestamp is not None and not is_timestamp(event.timestamp):
            raise RecordError("bad timestamp", f"{where}.timestamp is {named(event.timestamp)}")
        called.update(call.id for call in event.tool_calls if call.id)
        unanswered += len(event.tool_calls)
        if event.kind == "tool" and event.tool_call_id and event.tool_call_id not in called:
            raise RecordError(
                "orphan tool result",
                f"{where} answers tool_call_id {named(event.tool_call_id)}, which no earlier call made",
            )
        if event.kind == "tool":
            if not (
                unanswered or event.tool_call_id or not ADAPTERS[episode.source_format].records_tool_calls
            ):
                raise RecordError(
                    "orphan tool result",
                    f"{where} is a tool result, but every tool call before it is already answered "
                    "(a tool's output written as a message of its own, or calls the format's reader "
                    "did not find)",
                )
            unanswered = max(unanswered - 1, 0)
    if not any(e.content or e.reasoning or e.tool_calls for e in episode.events):
        raise RecordError(
            "empty conversation", "every turn of the record is empty (no text, reasoning or call)"
        )
    speakers = {e.name for e in episode.events if e.kind == "user" and e.name}
    if len(speakers) > 1 and not any(e.kind == "assistant" for e in episode.events):
        raise RecordError(
            "no model turn",
            f"{len(speakers)} named speakers all speak as users and no turn is the model's: a "
            "multi-agent chat that writes every agent as 'user' cannot say which speaker is the model",
        )
    status = episode.outcome.terminal_status
    if status is not None and status not in TERMINAL_STATUSES:
        raise RecordError("unknown terminal status", f"outcome.terminal_status is {named(status)}")


class _Problem(Exception):
    """A misfit found deep in the record; the path is assembled only on this (rare) way out."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason, self.detail = reason, detail
        self.path: list[str] = []


_INT_LIMITS = {pa.int32(): 2**31, pa.int64(): 2**63}
Checker = Callable[[Any, int], None]


def _nested(check: Checker, value: Any, limit: int, step: str) -> None:
    try:
        check(value, limit)
    except _Problem as problem:
        problem.path.append(step)
        raise


def _compile(kind: pa.DataType) -> Checker:
    """Turn an Arrow type into a plain-Python checker once, so the per-record walk stays cheap."""
    if pa.types.is_string(kind):

        def check(value: Any, limit: int) -> None:
            if value is not None and not isinstance(value, str):
                raise _Problem("wrong type", f"is {type(value).__name__}, expected string")
            if value is not None and len(value) > limit:
                raise _Problem("oversized field", f"has {len(value)} characters (limit {limit})")

    elif pa.types.is_integer(kind):
        bound = _INT_LIMITS[kind]

        def check(value: Any, limit: int) -> None:
            if value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or abs(value) >= bound
            ):
                raise _Problem("wrong type", f"is {named(value)}, expected a {kind} integer")

    elif pa.types.is_floating(kind) or pa.types.is_boolean(kind) or pa.types.is_timestamp(kind):
        accepted, name = (
            ((int, float), "a number")
            if pa.types.is_floating(kind)
            else ((bool,), "true or false")
            if pa.types.is_boolean(kind)
            else ((dt.date,), "a date")
        )

        def check(value: Any, limit: int) -> None:
            if value is not None and (
                not isinstance(value, accepted) or (isinstance(value, bool) and bool not in accepted)
            ):
                raise _Problem("wrong type", f"is {type(value).__name__}, expected {name}")

    elif pa.types.is_list(kind):
        item_check = _compile(kind.value_type)

        def check(value: Any, limit: int) -> None:
            if value is None:
                return
            if not isinstance(value, list):
                raise _Problem("wrong type", f"is {type(value).__name__}, expected a list")
            for index, item in enumerate(value):
                _nested(item_check, item, limit, f"[{index}]")

    elif pa.types.is_struct(kind):
        fields = [(field.name, _compile(field.type)) for field in kind]

        def check(value: Any, limit: int) -> None:
            if value is None:
                return
            for name, field_check in fields:
                if not hasattr(value, name):
                    raise _Problem(
                        "wrong type", f"is {type(value).__name__}, expected a record with {name!r}"
                    )
                _nested(field_check, getattr(value, name), limit, name)

    else:  # pragma: no cover - the schema uses only the types above
        raise TypeError(f"no checker for Arrow type {kind}")
    return check


_EPISODE_FIELDS = [(field.name, field.nullable, _compile(field.type)) for field in EPISODE_SCHEMA]


def _check_schema(episode: Episode, max_field_chars: int) -> None:
    """Walk the episode along :data:`EPISODE_SCHEMA` without copying it (this runs per record)."""
    try:
        for name, nullable, check in _EPISODE_FIELDS:
            value = getattr(episode, name)
            if value is None and not nullable:
                raise _Problem("missing field", "is empty but required")
            _nested(check, value, max_field_chars, name)
    except _Problem as problem:
        where = "episode" + "".join(p if p.startswith("[") else f".{p}" for p in reversed(problem.path))
        raise RecordError(problem.reason, f"{where} {problem.detail}") from None
