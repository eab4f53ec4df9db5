"""Checks on ``raw_traces`` and ``ingest_rejects``: schema, ids, conservation.

Flat-column expectations (non-null, unique) run as a great-expectations suite in an ephemeral
context, so the rules read like a GE suite and produce GE's counts and samples; the Arrow
schema (nested types GE cannot express) is compared directly against the record contract.
Conservation (records in = normalized + rejected) is only knowable during ingestion, so the
asset itself reports it through :data:`CONSERVATION_CHECK`.
"""

from __future__ import annotations

import functools
import os

import pyarrow as pa
from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    MetadataValue,
    asset_check,
)

from trajectory_platform.resources.partitions import DAILY_PARTITIONS
from trajectory_platform.traces.schema import EPISODE_SCHEMA, REJECT_SCHEMA

CONSERVATION_CHECK = AssetCheckSpec(
    "records_conserved",
    asset="raw_traces",
    blocking=True,
    description="records_in == normalized + rejected for the run's partitions (nothing dropped silently).",
)


def conservation_result(records_in: int, normalized: int, rejected: int) -> AssetCheckResult:
    """The conservation verdict for one ingestion run."""
    return AssetCheckResult(
        check_name=CONSERVATION_CHECK.name,
        asset_key="raw_traces",
        passed=records_in == normalized + rejected,
        metadata={"records_in": records_in, "normalized": normalized, "rejected": rejected},
    )


@functools.cache
def _ge_batch_definition():
    """One ephemeral GE context per process (its import and setup cost seconds, not the checks)."""
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    source = context.data_sources.add_pandas("warehouse")
    return source.add_dataframe_asset("table").add_batch_definition_whole_dataframe("partition")


def expectation_result(table: pa.Table, expectations: list, columns: list[str]) -> AssetCheckResult:
    """Validate ``columns`` of ``table`` against GE ``expectations``; failed ones named in metadata.

    Reusable by any stage's checks: pass ``great_expectations.expectations`` objects.
    """
    import great_expectations as gx

    frame = table.select(columns).to_pandas()
    batch = _ge_batch_definition().get_batch(batch_parameters={"dataframe": frame})
    outcome = batch.validate(gx.ExpectationSuite(name="check", expectations=expectations))
    failures = {
        f"{r.expectation_config.type}({r.expectation_config.kwargs.get('column', '')})": {
            "unexpected_count": r.result.get("unexpected_count"),
            "sample": [str(v) for v in (r.result.get("partial_unexpected_list") or [])[:5]],
        }
        for r in outcome.results
        if not r.success
    }
    return AssetCheckResult(
        passed=bool(outcome.success),
        metadata={
            "rows": table.num_rows,
            "expectations": len(expectations),
            "failures": MetadataValue.json(failures),
        },
    )


def schema_result(table: pa.Table, expected: pa.Schema) -> AssetCheckResult:
    """Field-by-field comparison against the record contract (names, order, nested types)."""
    mismatches = []
    for index, field in enumerate(expected):
        actual = table.schema.field(index) if index < len(table.schema) else None
        if actual is None or actual.name != field.name or actual.type != field.type:
            mismatches.append(f"{field.name}: expected {field.type}, got {actual}")
    extra = [f.name for f in table.schema][len(expected) :]
    return AssetCheckResult(
        passed=not mismatches and not extra,
        severity=AssetCheckSeverity.ERROR,
        metadata={
            "mismatches": MetadataValue.json(mismatches),
            "unexpected_columns": MetadataValue.json(extra),
        },
    )


@asset_check(asset="raw_traces", partitions_def=DAILY_PARTITIONS, blocking=True)
def raw_traces_schema(raw_traces: pa.Table) -> AssetCheckResult:
    """The stored table has exactly EPISODE_SCHEMA (the trace record contract)."""
    return schema_result(raw_traces, EPISODE_SCHEMA)


@asset_check(asset="raw_traces", partitions_def=DAILY_PARTITIONS, blocking=True)
def raw_traces_episode_ids(raw_traces: pa.Table) -> AssetCheckResult:
    """Episode ids are present and unique within each day; source and date are never null."""
    import great_expectations.expectations as gxe

    columns = ["episode_id", "source_format", "source_file", "partition_date"]
    expectations = [
        gxe.ExpectColumnValuesToBeUnique(column="episode_id"),
        *(gxe.ExpectColumnValuesToNotBeNull(column=c) for c in columns),
    ]
    return expectation_result(raw_traces, expectations, columns)


@asset_check(asset="ingest_rejects", partitions_def=DAILY_PARTITIONS)
def ingest_rejects_explained(ingest_rejects: pa.Table) -> AssetCheckResult:
    """Every reject has REJECT_SCHEMA and names its file and a reason a person understands."""
    import great_expectations.expectations as gxe

    shape = schema_result(ingest_rejects, REJECT_SCHEMA)
    if not shape.passed:
        return shape
    columns = ["source_file", "reason"]
    return expectation_result(
        ingest_rejects, [gxe.ExpectColumnValuesToNotBeNull(column=c) for c in columns], columns
    )
