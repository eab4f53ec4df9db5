"""Arrow schemas for the trace record and the rejects table, and lossless conversion.

``partition_date`` is stored as ``timestamp[us]`` at midnight, not as a string or date32:
DuckDB-backed partition filters compare against TIMESTAMP, and a string column silently
matches nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

import pyarrow as pa

from trajectory_platform.traces.record import Episode

TOOL_CALL_TYPE = pa.struct([("id", pa.string()), ("name", pa.string()), ("arguments", pa.string())])

EVENT_TYPE = pa.struct(
    [
        ("kind", pa.string()),
        ("content", pa.string()),
        ("reasoning", pa.string()),
        ("tool_calls", pa.list_(TOOL_CALL_TYPE)),
        ("tool_call_id", pa.string()),
        ("tool_name", pa.string()),
        ("status", pa.string()),
        ("exit_code", pa.int32()),
        ("timestamp", pa.string()),
        ("input_tokens", pa.int64()),
        ("output_tokens", pa.int64()),
        ("weight", pa.float64()),
        ("finish_reason", pa.string()),
        ("replaces_through", pa.int32()),
        ("name", pa.string()),
    ]
)

TOOL_SPEC_TYPE = pa.struct(
    [
        ("name", pa.string()),
        ("description", pa.string()),
        ("parameters_json", pa.string()),
        ("version", pa.string()),
    ]
)

DELIVERED_INPUT_TYPE = pa.struct(
    [
        ("call_index", pa.int32()),
        ("response_event_index", pa.int32()),
        ("event_indices", pa.list_(pa.int32())),
        ("messages_json", pa.string()),
        ("compacted", pa.bool_()),
        ("tools_version", pa.string()),
    ]
)

TASK_TYPE = pa.struct(
    [
        ("fixture_id", pa.string()),
        ("prompt", pa.string()),
        ("repo_family", pa.string()),
        ("tool_family", pa.string()),
        ("domain", pa.string()),
        ("license", pa.string()),
    ]
)

LINEAGE_TYPE = pa.struct(
    [
        ("model", pa.string()),
        ("model_digest", pa.string()),
        ("adapter_digest", pa.string()),
        ("prompt_template_digest", pa.string()),
        ("tokenizer_digest", pa.string()),
        ("tool_manifest_digest", pa.string()),
        ("environment_digest", pa.string()),
        ("sampling_params_json", pa.string()),
        ("sampler_policy_digest", pa.string()),
    ]
)

OUTCOME_TYPE = pa.struct(
    [
        ("terminal_status", pa.string()),
        ("final_answer", pa.string()),
        ("workspace_diff", pa.string()),
        ("verifier_results_json", pa.string()),
        ("reward", pa.float64()),
    ]
)

EPISODE_SCHEMA = pa.schema(
    [
        pa.field("episode_id", pa.string(), nullable=False),
        pa.field("source_format", pa.string(), nullable=False),
        pa.field("source_file", pa.string(), nullable=False),
        ("source_line", pa.int64()),
        ("source_path", pa.string()),
        ("partition_date", pa.timestamp("us")),
        ("task", TASK_TYPE),
        ("lineage", LINEAGE_TYPE),
        ("tools", pa.list_(TOOL_SPEC_TYPE)),
        ("events", pa.list_(EVENT_TYPE)),
        ("delivered_inputs", pa.list_(DELIVERED_INPUT_TYPE)),
        ("outcome", OUTCOME_TYPE),
        ("extra_json", pa.string()),
    ]
)
"""One row per episode."""

REJECT_SCHEMA = pa.schema(
    [
        pa.field("source_file", pa.string(), nullable=False),
        ("source_line", pa.int64()),
        ("source_path", pa.string()),
        ("source_format", pa.string()),
        pa.field("reason", pa.string(), nullable=False),
        ("detail", pa.string()),
        ("excerpt", pa.string()),
        ("partition_date", pa.timestamp("us")),
    ]
)
"""One row per record that could not be read; ``reason`` is a short category a person understands."""


def _date_to_ts(value: dt.date | None) -> dt.datetime | None:
    return None if value is None else dt.datetime(value.year, value.month, value.day)


def episode_row(episode: Episode) -> dict:
    """The Arrow row (a plain dict) for one episode.

    Built from shallow ``__dict__`` views rather than ``dataclasses.asdict``: the deep copy that
    ``asdict`` makes of every event dominated table building, and Arrow copies the values anyway.
    """
    row = dict(episode.__dict__)
    row["partition_date"] = _date_to_ts(episode.partition_date)
    row["task"] = episode.task.__dict__
    row["lineage"] = episode.lineage.__dict__
    row["outcome"] = episode.outcome.__dict__
    row["tools"] = [t.__dict__ for t in episode.tools]
    row["delivered_inputs"] = [d.__dict__ for d in episode.delivered_inputs]
    row["events"] = [{**e.__dict__, "tool_calls": [c.__dict__ for c in e.tool_calls]} for e in episode.events]
    return row


def episodes_to_table(episodes: Iterable[Episode]) -> pa.Table:
    """Build an ``EPISODE_SCHEMA`` table; order is preserved (callers sort for determinism)."""
    return pa.Table.from_pylist([episode_row(e) for e in episodes], schema=EPISODE_SCHEMA)


def table_to_episodes(table: pa.Table) -> list[Episode]:
    """Inverse of :func:`episodes_to_table`."""
    return [Episode.from_dict(row) for row in table.to_pylist()]
