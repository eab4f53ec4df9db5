"""Checks every normalized episode passes before it is admitted to ``raw_traces``.

Adapters convert; this module decides what the platform accepts, the same way for every format:
the record must use the vocabularies of :mod:`trajectory_platform.traces.record`, hold at least
one event, answer only tool calls that were made, and keep every text field under a size cap.
Each failure is a :class:`RecordError` with a reason a person understands. A malformed
tool-call *argument* string is never a failure: it is what the model produced.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from trajectory_platform.traces.adapters.base import RecordError
from trajectory_platform.traces.record import (
    EVENT_KINDS,
    OBSERVATION_STATUSES,
    TERMINAL_STATUSES,
    Episode,
)

DEFAULT_MAX_FIELD_CHARS = 8 * 1024 * 1024
"""Largest text field admitted (characters). Real SWE-agent observations reach ~100k characters."""


def validate_episode(episode: Episode, max_field_chars: int = DEFAULT_MAX_FIELD_CHARS) -> None:
    """Raise :class:`RecordError` when ``episode`` must not be admitted."""
    _check_sizes(dataclasses.asdict(episode), "episode", max_field_chars)
    if not episode.events:
        raise RecordError("empty conversation", "the record holds no messages or steps")
    called: set[str] = set()
    for index, event in enumerate(episode.events):
        where = f"events[{index}]"
        if event.kind not in EVENT_KINDS:
            raise RecordError("unknown role", f"{where}.kind is {event.kind!r}")
        if event.status is not None and event.status not in OBSERVATION_STATUSES:
            raise RecordError("unknown status", f"{where}.status is {event.status!r}")
        called.update(call.id for call in event.tool_calls if call.id)
        if event.kind == "tool" and event.tool_call_id and event.tool_call_id not in called:
            raise RecordError(
                "orphan tool result",
                f"{where} answers tool_call_id {event.tool_call_id!r}, which no earlier assistant call made",
            )
    status = episode.outcome.terminal_status
    if status is not None and status not in TERMINAL_STATUSES:
        raise RecordError("unknown terminal status", f"outcome.terminal_status is {status!r}")


def _check_sizes(value: Any, where: str, max_field_chars: int) -> None:
    """Walk the plain-dict form and reject any string over the cap, naming the field."""
    if isinstance(value, dict):
        for key, item in value.items():
            _check_sizes(item, f"{where}.{key}", max_field_chars)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_sizes(item, f"{where}[{index}]", max_field_chars)
    elif isinstance(value, str) and len(value) > max_field_chars:
        raise RecordError("oversized field", f"{where} has {len(value)} characters (limit {max_field_chars})")
