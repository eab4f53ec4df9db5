"""What every asset of the code location declares, in one place: its group, its owners, and
its output's column schema (the Arrow schema the domain writes, shown in the UI's column view).

A definitions test walks every asset and holds each of them to it.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from dagster import MetadataValue, TableColumn, TableColumnConstraints, TableSchema

from trajectory_platform.traces.drops import Tally

GROUP_OWNERS = {
    "traces": ["team:ingest"],
    "curation": ["team:curation"],
    "training": ["team:training"],
    "evaluation": ["team:evaluation"],
    "rounds": ["team:training"],
}
"""Who answers for each group's assets (a person reads this on every asset page)."""


def column_schema(schema: pa.Schema) -> TableSchema:
    """The Dagster column schema of an Arrow schema (names, types, nullability)."""
    return TableSchema(
        columns=[
            TableColumn(
                name=f.name,
                type=str(f.type),
                constraints=None if f.nullable else TableColumnConstraints(nullable=False),
            )
            for f in schema
        ]
    )


def tally_metadata(tally: Tally) -> dict[str, Any]:
    """The accounting keys every stage's metadata carries (records in, kept, dropped by reason)."""
    values = tally.metadata()
    return {**values, "dropped_by_reason": MetadataValue.json(values["dropped_by_reason"])}


def declared(group: str, schema: pa.Schema, **metadata: Any) -> dict[str, Any]:
    """Keyword arguments for ``@asset`` / ``AssetOut``: group, owners, column schema (plus any
    other definition ``metadata``)."""
    return {
        "group_name": group,
        "owners": GROUP_OWNERS[group],
        "metadata": {"dagster/column_schema": column_schema(schema), **metadata},
    }
