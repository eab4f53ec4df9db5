"""Checks on ``redacted_corpus``: Λ_leak = 0 and nothing left to redact, JSON still valid, one pseudonym
per value, lineage verifies, license fencing holds. All but the last block what is downstream.

Each judges one day (the asset's daily partitions), the day a run redacted, reading the day's
stored file a row group at a time (``warehouse.partition_batches``), not the day as one table.
"""

from collections.abc import Iterator

import pyarrow as pa
from dagster import AssetCheckExecutionContext, AssetCheckResult, MetadataValue, asset_check

from trajectory_platform.checks.raw import expectation_result
from trajectory_platform.curation.redact import RedactSettings
from trajectory_platform.curation.redact.audit import (
    json_breakage,
    leak_and_residue,
    license_violations,
    lineage_failures,
    pseudonym_conflicts,
)
from trajectory_platform.resources.partitions import DAILY_PARTITIONS
from trajectory_platform.resources.secrets import SecretsSaltResource
from trajectory_platform.resources.settings import WorkdirResource
from trajectory_platform.resources.stage_config import materialized_settings
from trajectory_platform.resources.warehouse import partition_batches, partition_columns

ASSET = "redacted_corpus"


def _day(context: AssetCheckExecutionContext, workdir: WorkdirResource) -> Iterator[pa.Table]:
    """The checked day's rows in batches."""
    return partition_batches(workdir.root, ASSET, context.partition_key)


@asset_check(asset=ASSET, partitions_def=DAILY_PARTITIONS, blocking=True)
def no_canary_leaks(
    context: AssetCheckExecutionContext, secrets_salt: SecretsSaltResource, workdir: WorkdirResource
) -> AssetCheckResult:
    """Λ_leak over canaries planted in the stored episodes of the stage's canary sample is 0, and
    re-redacting every stored episode finds nothing left. The sample is drawn under the settings
    the day's materialization recorded (``--set redacted_corpus.leak_*`` sizes both)."""
    settings = materialized_settings(context.instance, ASSET, RedactSettings, context.partition_key)
    leak, residue = leak_and_residue(lambda: _day(context, workdir), secrets_salt.key(), settings=settings)
    return AssetCheckResult(
        passed=leak.leaked == 0 and not residue,
        metadata={
            "lambda_leak": leak.rate,
            "canaries": MetadataValue.json(leak.as_dict()),
            "residual_findings": len(residue),
            "residual_examples": MetadataValue.json(residue[:20]),
        },
    )


@asset_check(asset=ASSET, partitions_def=DAILY_PARTITIONS, blocking=True, additional_deps=["verified_traces"])
def json_validity_preserved(
    context: AssetCheckExecutionContext, workdir: WorkdirResource
) -> AssetCheckResult:
    """Every field that parsed as JSON upstream (tool arguments, schemas, manifests) still parses."""
    upstream = partition_batches(workdir.root, "verified_traces", context.partition_key)
    broken = json_breakage(upstream, _day(context, workdir))
    return AssetCheckResult(
        passed=not broken,
        metadata={"broken_fields": len(broken), "examples": MetadataValue.json(broken[:20])},
    )


@asset_check(asset=ASSET, partitions_def=DAILY_PARTITIONS, blocking=True)
def pseudonyms_consistent(context: AssetCheckExecutionContext, workdir: WorkdirResource) -> AssetCheckResult:
    """No pseudonym digest appears under two kinds: one value, one pseudonym."""
    conflicts = pseudonym_conflicts(_day(context, workdir))
    return AssetCheckResult(
        passed=not conflicts,
        metadata={"conflicts": len(conflicts), "examples": MetadataValue.json(conflicts[:20])},
    )


@asset_check(asset=ASSET, partitions_def=DAILY_PARTITIONS, blocking=True)
def lineage_verifies(
    context: AssetCheckExecutionContext, secrets_salt: SecretsSaltResource, workdir: WorkdirResource
) -> AssetCheckResult:
    """Each stored envelope recomputes from the stored record and its verdict columns; ids are unique."""
    failures = lineage_failures(_day(context, workdir), secrets_salt.key())
    ids = partition_columns(workdir.root, ASSET, context.partition_key, ["lineage_id"]).column("lineage_id")
    unique = len(set(ids.to_pylist())) == len(ids)
    return AssetCheckResult(
        passed=not failures and unique,
        metadata={
            "failures": len(failures),
            "unique_ids": unique,
            "examples": MetadataValue.json(failures[:20]),
        },
    )


@asset_check(asset=ASSET, partitions_def=DAILY_PARTITIONS, blocking=True)
def license_tiers(context: AssetCheckExecutionContext, workdir: WorkdirResource) -> AssetCheckResult:
    """Known tiers only, nothing restricted, strong copyleft / unknown / tainted rows quarantined."""
    import great_expectations.expectations as gxe

    expectations = [
        gxe.ExpectColumnValuesToBeInSet(
            column="license_tier", value_set=["permissive", "weak_copyleft", "strong_copyleft", "unknown"]
        ),
        gxe.ExpectColumnValuesToBeInSet(column="license_action", value_set=["admit", "quarantine"]),
        gxe.ExpectColumnValuesToNotBeNull(column="lineage_id"),
    ]
    columns = ["episode_id", "license_tier", "license_action", "lineage_id", "taint", "taint_label"]
    fencing = partition_columns(workdir.root, ASSET, context.partition_key, columns)  # not the episodes
    result = expectation_result(fencing, expectations, columns[1:4])
    violations = license_violations(fencing)
    return AssetCheckResult(
        passed=result.passed and not violations,
        metadata={
            **result.metadata,
            "policy_violations": len(violations),
            "violation_examples": MetadataValue.json(violations[:20]),
        },
    )
