"""Checks on ``verified_traces``: one sink per episode, no tampered admission, R_flake, yield band.

Each judges one day (the asset's daily partitions): the day a run verified, by the settings that
day was verified with, reading the day's stored file (its few label columns whole, its episodes a
row group at a time: ``warehouse.partition_columns`` / ``partition_batches``), never the day's
episodes as one table.

The first three block what is downstream (redaction, splits, mixture): a corpus with a lost
episode, a tampered admission or flaky oracles must not reach training. The yield band only warns:
eta outside [low, high] asks a person to look (eta > 0.5 usually means a lax verifier).
"""

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
from trajectory_platform.resources.warehouse import partition_batches, partition_columns

ASSET = "verified_traces"


def _admitted(context: AssetCheckExecutionContext, workdir: WorkdirResource) -> tuple[int, int]:
    """(admitted, rows) of the checked day, from its sink column."""
    sinks = partition_columns(workdir.root, ASSET, context.partition_key, ["sink"]).column("sink")
    return pc.sum(pc.equal(sinks, "admitted")).as_py() or 0, len(sinks)


@asset_check(asset=ASSET, partitions_def=DAILY_PARTITIONS, blocking=True)
def every_episode_in_one_sink(
    context: AssetCheckExecutionContext, workdir: WorkdirResource
) -> AssetCheckResult:
    """Episode ids unique within the day and every row carries exactly one known sink."""
    import great_expectations.expectations as gxe

    expectations = [
        gxe.ExpectColumnValuesToBeUnique(column="episode_id"),
        gxe.ExpectColumnValuesToNotBeNull(column="sink"),
        gxe.ExpectColumnValuesToBeInSet(column="sink", value_set=list(SINKS)),
    ]
    columns = ["episode_id", "sink"]
    return expectation_result(
        partition_columns(workdir.root, ASSET, context.partition_key, columns), expectations, columns
    )


@asset_check(asset=ASSET, partitions_def=DAILY_PARTITIONS, blocking=True)
def no_tampered_episode_admitted(
    context: AssetCheckExecutionContext, workdir: WorkdirResource
) -> AssetCheckResult:
    """Re-screen every admitted episode's final diff and calls from scratch: zero tamper evidence
    (against the fixture library and registered environments the asset was verified with)."""
    settings = materialized_settings(context.instance, ASSET, VerifySettings, context.partition_key)
    lookup = fixtures_lookup(settings.fixture_seed, workdir.environments_dir)
    day = partition_batches(workdir.root, ASSET, context.partition_key)
    flagged = admitted_with_tamper_evidence(day, lookup)
    admitted, _ = _admitted(context, workdir)
    return AssetCheckResult(
        passed=not flagged,
        metadata={
            "admitted": admitted,
            "tampered_admitted": len(flagged),
            "examples": MetadataValue.json(flagged[:10]),
        },
    )


@asset_check(asset=ASSET, partitions_def=DAILY_PARTITIONS, blocking=True)
def r_flake_within_limit(context: AssetCheckExecutionContext, workdir: WorkdirResource) -> AssetCheckResult:
    """R_flake (episodes whose repeated oracle runs disagreed / episodes judged) <= 2 %: else halt."""
    day = partition_batches(workdir.root, ASSET, context.partition_key, ["stage_verdicts_json"])
    inconsistent, judged = flake_counts(day)
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


@asset_check(asset=ASSET, partitions_def=DAILY_PARTITIONS)
def yield_in_declared_band(context: AssetCheckExecutionContext, workdir: WorkdirResource) -> AssetCheckResult:
    """Yield eta = admitted / episodes inside the band the asset was run with (warns; eta > 0.5 = lax
    verifier)."""
    settings = materialized_settings(context.instance, ASSET, VerifySettings, context.partition_key)
    low, high = settings.yield_low, settings.yield_high
    admitted, rows = _admitted(context, workdir)
    eta = admitted / rows if rows else 0.0
    return AssetCheckResult(
        passed=low <= eta <= high,
        severity=AssetCheckSeverity.WARN,
        metadata={"yield": round(eta, 6), "band": MetadataValue.json([low, high]), "lax_verifier": eta > 0.5},
    )
