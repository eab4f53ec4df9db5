"""Checks on ``redacted_corpus``: Λ_leak = 0 and nothing left to redact, JSON still valid, one pseudonym
per value, lineage verifies, license fencing holds. All but the last block what is downstream.

Each judges one day (the asset's daily partitions), the day a run redacted.
"""

import pyarrow as pa
from dagster import AssetCheckResult, AssetIn, MetadataValue, asset_check

from trajectory_platform.checks.raw import expectation_result
from trajectory_platform.curation.redact.audit import (
    json_breakage,
    leak_and_residue,
    license_violations,
    lineage_failures,
    pseudonym_conflicts,
)
from trajectory_platform.resources.partitions import DAILY_PARTITIONS
from trajectory_platform.resources.secrets import SecretsSaltResource


@asset_check(asset="redacted_corpus", partitions_def=DAILY_PARTITIONS, blocking=True)
def no_canary_leaks(secrets_salt: SecretsSaltResource, redacted_corpus: pa.Table) -> AssetCheckResult:
    """Λ_leak over canaries planted in the stored episodes is 0, and re-redaction finds nothing left."""
    leak, residue = leak_and_residue(redacted_corpus, secrets_salt.key())
    return AssetCheckResult(
        passed=leak.leaked == 0 and not residue,
        metadata={
            "lambda_leak": leak.rate,
            "canaries": MetadataValue.json(leak.as_dict()),
            "residual_findings": len(residue),
            "residual_examples": MetadataValue.json(residue[:20]),
        },
    )


@asset_check(
    asset="redacted_corpus",
    partitions_def=DAILY_PARTITIONS,
    blocking=True,
    additional_ins={"verified_traces": AssetIn()},
)
def json_validity_preserved(redacted_corpus: pa.Table, verified_traces: pa.Table) -> AssetCheckResult:
    """Every field that parsed as JSON upstream (tool arguments, schemas, manifests) still parses."""
    broken = json_breakage(verified_traces, redacted_corpus)
    return AssetCheckResult(
        passed=not broken,
        metadata={"broken_fields": len(broken), "examples": MetadataValue.json(broken[:20])},
    )


@asset_check(asset="redacted_corpus", partitions_def=DAILY_PARTITIONS, blocking=True)
def pseudonyms_consistent(redacted_corpus: pa.Table) -> AssetCheckResult:
    """No pseudonym digest appears under two kinds: one value, one pseudonym."""
    conflicts = pseudonym_conflicts(redacted_corpus)
    return AssetCheckResult(
        passed=not conflicts,
        metadata={"conflicts": len(conflicts), "examples": MetadataValue.json(conflicts[:20])},
    )


@asset_check(asset="redacted_corpus", partitions_def=DAILY_PARTITIONS, blocking=True)
def lineage_verifies(secrets_salt: SecretsSaltResource, redacted_corpus: pa.Table) -> AssetCheckResult:
    """Each stored envelope recomputes from the stored record and its verdict columns; ids are unique."""
    failures = lineage_failures(redacted_corpus, secrets_salt.key())
    unique = len(set(redacted_corpus.column("lineage_id").to_pylist())) == redacted_corpus.num_rows
    return AssetCheckResult(
        passed=not failures and unique,
        metadata={
            "failures": len(failures),
            "unique_ids": unique,
            "examples": MetadataValue.json(failures[:20]),
        },
    )


@asset_check(asset="redacted_corpus", partitions_def=DAILY_PARTITIONS, blocking=True)
def license_tiers(redacted_corpus: pa.Table) -> AssetCheckResult:
    """Known tiers only, nothing restricted, strong copyleft / unknown / tainted rows quarantined."""
    import great_expectations.expectations as gxe

    expectations = [
        gxe.ExpectColumnValuesToBeInSet(
            column="license_tier", value_set=["permissive", "weak_copyleft", "strong_copyleft", "unknown"]
        ),
        gxe.ExpectColumnValuesToBeInSet(column="license_action", value_set=["admit", "quarantine"]),
        gxe.ExpectColumnValuesToNotBeNull(column="lineage_id"),
    ]
    columns = ["license_tier", "license_action", "lineage_id"]
    result = expectation_result(redacted_corpus, expectations, columns)
    violations = license_violations(redacted_corpus)
    return AssetCheckResult(
        passed=result.passed and not violations,
        metadata={
            **result.metadata,
            "policy_violations": len(violations),
            "violation_examples": MetadataValue.json(violations[:20]),
        },
    )
