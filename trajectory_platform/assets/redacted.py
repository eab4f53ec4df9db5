"""``redacted_corpus`` and ``redaction_rejects``: verified episodes redacted, lineage sealed, licenses
fenced, one day at a time; the episodes left out, each with its reason.

Thin: take the run's one ``verified_traces`` day as its Parquet file (same daily partitions,
identity mapping, ``PARQUET_FILES``; one run per day in a backfill), call :func:`redact_files` once
with the key from the ``secrets_salt`` resource and the run's :class:`RedactSettings` (batch size,
canary sample), which writes the redacted day to a staged file ``batch_rows`` rows at a time; attach
findings by kind, Λ_leak with its 95% interval and sample size, throughput and the license audit,
hand the staged file to the warehouse and return ``redaction_rejects`` (every episode left out, with
its reason key). ``redact_files`` raises when a canary survives, so a leaking corpus is never
materialized (a failed blocking check would still have recorded it).
"""

import dataclasses
from pathlib import Path

from dagster import AssetExecutionContext, AssetIn, AssetOut, MetadataValue, Output, multi_asset

from trajectory_platform.assets._house import declared, tally_metadata
from trajectory_platform.curation.redact import RedactSettings
from trajectory_platform.curation.redact.corpus import (
    AUDIT_SCHEMA,
    CorpusResult,
    corpus_tally,
    output_schema,
    redact_files,
)
from trajectory_platform.curation.verify.tables import VERIFIED_SCHEMA
from trajectory_platform.resources.partitions import DAILY_PARTITIONS, PER_DAY_BACKFILL, one_day
from trajectory_platform.resources.secrets import SecretsSaltResource
from trajectory_platform.resources.settings import WorkdirResource
from trajectory_platform.resources.stage_config import SETTINGS_KEY, settings_of, stage_config
from trajectory_platform.resources.warehouse import LOAD_KEY, PARQUET_FILES, staged_parquet
from trajectory_platform.sensors.automation import PER_DAY_CONDITION


class RedactConfig(stage_config(RedactSettings)):  # type: ignore[misc]
    """``redacted_corpus``' run config: :class:`RedactSettings`' fields."""


@multi_asset(
    ins={"verified_traces": AssetIn(metadata={LOAD_KEY: PARQUET_FILES})},
    outs={
        "redacted_corpus": AssetOut(
            description="Every verified episode redacted (three passes, keyed pseudonyms, JSON kept valid), "
            "sealed with its lineage envelope (lineage_id, merkle_root, lineage_json) and fenced by license "
            "(license_tier, license_action, taint).",
            automation_condition=PER_DAY_CONDITION,
            **declared("curation", output_schema(VERIFIED_SCHEMA), partition_expr="partition_date"),
        ),
        "redaction_rejects": AssetOut(
            description="Episodes the redaction stage left out, one row each with its reason key "
            "(license_blocked: a restricted-license family; nesting_too_deep; out_of_class; "
            "engine_error) and a detail.",
            automation_condition=PER_DAY_CONDITION,
            **declared("curation", AUDIT_SCHEMA, partition_expr="partition_date"),
        ),
    },
    partitions_def=DAILY_PARTITIONS,
    backfill_policy=PER_DAY_BACKFILL,
    can_subset=True,
)
def redacted_corpus(
    context: AssetExecutionContext,
    config: RedactConfig,
    secrets_salt: SecretsSaltResource,
    workdir: WorkdirResource,
    verified_traces: list[Path],
):
    """Redact, seal and fence one day of ``verified_traces``, streamed from the day's file to the
    staged output file; verdict columns pass through, and every episode left out is a
    ``redaction_rejects`` row (rows in = corpus + rejects)."""
    day = one_day(context.partition_keys, "redacted_corpus")
    settings = settings_of(config, RedactSettings)
    selected = context.op_execution_context.selected_output_names
    with staged_parquet(workdir.root, "redacted_corpus") as staged:
        result = redact_files(verified_traces, staged.path, secrets_salt.key(), settings)
        context.log.info(f"{day}: redacted {result.stats['rows_out']} of {result.stats['rows_in']} rows")
        for row in result.audit.to_pylist():
            context.log.warning(
                f"license block: {row['episode_id']} ({row['license']}, family {row['repo_family']})"
            )
        if "redacted_corpus" in selected:
            metadata = _metadata(result, secrets_salt.source, settings)
            yield Output(staged, output_name="redacted_corpus", metadata=metadata)  # stored while we wait
    if "redaction_rejects" in selected:
        rejects_metadata = tally_metadata(corpus_tally(result))
        yield Output(result.audit, output_name="redaction_rejects", metadata=rejects_metadata)


def _metadata(result: CorpusResult, salt_source: str, settings: RedactSettings) -> dict:
    stats, leak = result.stats, result.leak.as_dict()
    return {
        **tally_metadata(corpus_tally(result)),
        "rows_in": stats["rows_in"],
        "rows_out": stats["rows_out"],
        "license_blocked": stats["blocked"],
        "license_quarantined": stats["quarantined"],
        "license_tainted": stats["tainted"],
        "findings_by_kind": MetadataValue.json(result.findings_by_kind),
        "findings_total": sum(result.findings_by_kind.values()),
        "leak_rate": result.leak.rate,
        "leak_rate_interval": MetadataValue.json(leak["interval"]),
        "leak_sample_records": result.leak.records_planted,
        "canaries": MetadataValue.json(leak),
        "mb_per_s": stats["mb_per_s"],
        "text_mb": round(stats["text_bytes"] / 1e6, 4),
        "json_regressions": stats["json_regressions"],
        "license_audit": MetadataValue.json(result.audit.drop_columns(["partition_date"]).to_pylist()),
        "salt_source": salt_source,
        SETTINGS_KEY: MetadataValue.json(dataclasses.asdict(settings)),
    }
