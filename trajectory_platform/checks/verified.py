"""Checks on ``verified_traces``: one sink per episode, no tampered admission, R_flake, yield band.

Each judges one day (the asset's daily partitions): the day a run verified, by the settings that
day was verified with.

The first three block what is downstream (redaction, splits, mixture): a corpus with a lost
episode, a tampered admission or flaky oracles must not reach training. The yield band only warns:
eta outside [low, high] asks a person to look (eta > 0.5 usually means a lax verifier).
"""

import pyarrow as pa
import pyarrow.compute as pc
from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetCheckSeverity,
    MetadataValue,
    asset_check,
)

from trajectory_platform.checks.raw import expectation_result
from trajectory_platform.curation.verify import SINKS
from trajectory_platform.curation.verify.cascade import VerifySettings, fixtures_lookup
from trajectory_platform.curation.verify.ledger import R_FLAKE_LIMIT
from trajectory_platform.curation.verify.tables import admitted_with_tamper_evidence, flake_counts
from trajectory_platform.resources.partitions import DAILY_PARTITIONS
from trajectory_platform.resources.settings import WorkdirResource
from trajectory_platform.resources.stage_config import materialized_settings


@asset_check(asset="verified_traces", partitions_def=DAILY_PARTITIONS, blocking=True)
def every_episode_in_one_sink(verified_traces: pa.Table) -> AssetCheckResult:
    """Episode ids unique within the day and every row carries exactly one known sink."""
    import great_expectations.expectations as gxe

    expectations = [
        gxe.ExpectColumnValuesToBeUnique(column="episode_id"),
        gxe.ExpectColumnValuesToNotBeNull(column="sink"),
        gxe.ExpectColumnValuesToBeInSet(column="sink", value_set=list(SINKS)),
    ]
    return expectation_result(verified_traces, expectations, ["episode_id", "sink"])


@asset_check(asset="verified_traces", partitions_def=DAILY_PARTITIONS, blocking=True)
def no_tampered_episode_admitted(
    context: AssetCheckExecutionContext, workdir: WorkdirResource, verified_traces: pa.Table
) -> AssetCheckResult:
    """Re-screen every admitted episode's final diff and calls from scratch: zero tamper evidence
    (against the fixture library and registered environments the asset was verified with)."""
    settings = materialized_settings(
        context.instance, "verified_traces", VerifySettings, context.partition_key
    )
    lookup = fixtures_lookup(settings.fixture_seed, workdir.environments_dir)
    flagged = admitted_with_tamper_evidence(verified_traces, lookup)
    admitted = pc.sum(pc.equal(verified_traces["sink"], "admitted")).as_py() or 0
    return AssetCheckResult(
        passed=not flagged,
        metadata={
            "admitted": admitted,
            "tampered_admitted": len(flagged),
            "examples": MetadataValue.json(flagged[:10]),
        },
    )


@asset_check(asset="verified_traces", partitions_def=DAILY_PARTITIONS, blocking=True)
def r_flake_within_limit(verified_traces: pa.Table) -> AssetCheckResult:
    """R_flake (episodes whose repeated oracle runs disagreed / episodes judged) <= 2 %: else halt."""
    inconsistent, judged = flake_counts(verified_traces)
    r_flake = inconsistent / judged if judged else 0.0
    return AssetCheckResult(
        passed=r_flake <= R_FLAKE_LIMIT,
        metadata={
            "r_flake": round(r_flake, 6),
            "inconsistent": inconsistent,
            "judged": judged,
            "limit": R_FLAKE_LIMIT,
        },
    )


@asset_check(asset="verified_traces", partitions_def=DAILY_PARTITIONS)
def yield_in_declared_band(
    context: AssetCheckExecutionContext, verified_traces: pa.Table
) -> AssetCheckResult:
    """Yield eta = admitted / episodes inside the band the asset was run with (warns; eta > 0.5 = lax
    verifier)."""
    settings = materialized_settings(
        context.instance, "verified_traces", VerifySettings, context.partition_key
    )
    low, high = settings.yield_low, settings.yield_high
    rows = verified_traces.num_rows
    admitted = pc.sum(pc.equal(verified_traces["sink"], "admitted")).as_py() or 0
    eta = admitted / rows if rows else 0.0
    return AssetCheckResult(
        passed=low <= eta <= high,
        severity=AssetCheckSeverity.WARN,
        metadata={"yield": round(eta, 6), "band": MetadataValue.json([low, high]), "lax_verifier": eta > 0.5},
    )
