"""Spans exported as rows rather than OTLP: what Arize Phoenix gives (``get_spans_dataframe()``
written out as JSON records, or its REST API's ``{"data": [span, ...]}``).

Such a row is one span with its context and attributes as columns (``context.trace_id``,
``context.span_id``, ``parent_id``, ``start_time``, ``status_code``, ``attributes.llm.input_messages``
holding ``[{"message.role", "message.content", "message.tool_calls": [...]}]``), or nested
(``{"context": {"trace_id", "span_id"}, "attributes": {"llm": {...}}}``). Flattened back into the
dotted, indexed attribute names the instrumentation wrote (``llm.input_messages.0.message.role``),
it is the span the OTLP export would hold, and the ``otel`` adapter reads it as one
(:class:`~trajectory_platform.traces.adapters.otel.Span`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

ROW_CONTEXT = ("context.trace_id", "context.span_id")
ATTRIBUTES = "attributes."
ERROR_STATUS = "ERROR"
LIST_KEYS = ("data",)
"""Where an API page keeps its span rows."""


def flattened(value: Any, prefix: str = "", out: dict[str, Any] | None = None) -> dict[str, Any]:
    """``value`` as dotted attribute names: objects by key, lists of objects by index (a list of
    plain values, an attribute of its own, stays whole)."""
    out = {} if out is None else out
    if isinstance(value, dict):
        for key, item in value.items():
            flattened(item, f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for index, item in enumerate(value):
            flattened(item, f"{prefix}.{index}", out)
    else:
        out[prefix] = value
    return out


def is_span_row(value: Any) -> bool:
    """A span written as a row: its trace and span ids in ``context`` and its attributes beside them."""
    if not isinstance(value, dict):
        return False
    context = value.get("context")
    nested = isinstance(context, dict) and {"trace_id", "span_id"} <= context.keys()
    return (nested or all(k in value for k in ROW_CONTEXT)) and (
        isinstance(value.get("attributes"), dict) or any(k.startswith(ATTRIBUTES) for k in value)
    )


def span_rows(document: Any) -> list[Any] | None:
    """The span rows a document holds (a list of rows, or an API page of them), else None."""
    rows = next((document[k] for k in LIST_KEYS if isinstance(document, dict) and k in document), document)
    return rows if isinstance(rows, list) and rows and all(is_span_row(r) for r in rows) else None


def nanoseconds(value: Any) -> int:
    """A start time as Unix nanoseconds: epoch seconds, milliseconds (pandas' JSON), microseconds or
    nanoseconds told by size, or ISO 8601 text (a naive time is UTC, as Phoenix records it); 0 for
    anything else."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        scale = next(
            (s for limit, s in ((1e17, 1), (1e14, 1_000), (1e11, 1_000_000)) if value > limit), 1_000_000_000
        )
        return int(value * scale)
    try:
        stamp = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return 0  # no time the row states: the span's time stays unknown, its file order decides
    stamp = stamp if stamp.tzinfo else stamp.replace(tzinfo=dt.UTC)
    return int(stamp.timestamp() * 1e9)


def row_fields(row: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, Any]]:
    """(attributes, start in nanoseconds, the OTLP span fields a reader asks for) of one row."""
    flat = flattened(row)
    attributes = {k[len(ATTRIBUTES) :]: v for k, v in flat.items() if k.startswith(ATTRIBUTES)}
    raw = {
        "traceId": flat.get("context.trace_id"),
        "spanId": flat.get("context.span_id"),
        "parentSpanId": flat.get("parent_id"),
        "name": flat.get("name"),
        "status": {"code": 2 if flat.get("status_code") == ERROR_STATUS else 0},
    }
    return attributes, nanoseconds(flat.get("start_time")), raw
