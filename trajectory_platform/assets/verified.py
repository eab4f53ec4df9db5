"""``verified_traces`` and ``triage_report``: each day's raw episodes through the verifier cascade.

Thin: take the run's one ``raw_traces`` day as its Parquet file (same daily partitions, identity
mapping; ``PARQUET_FILES``, not a table), call
:func:`~trajectory_platform.curation.verify.tables.verify_files` once (``batch_rows`` episodes at a
time, in id order, no verdict kept), which writes the verified day to a staged file batch by batch;
attach the funnel, the measured ledger and the counts per sink / role / triage class, and hand the
staged file (:class:`~trajectory_platform.resources.warehouse.StagedParquet`) and the triage table
to the warehouse, which moves the file into place and loads DuckDB from it. So no step holds the
day's rows as one table. A new day verifies only its own episodes; a backfill runs one run per day
(``PER_DAY_BACKFILL``), and the warehouse replaces exactly that day's rows (docs/operations.md,
"Per-day curation").
"""

import dataclasses
import json
from pathlib import Path

import pyarrow as pa
from dagster import AssetExecutionContext, AssetIn, AssetOut, MetadataValue, Output, multi_asset

from trajectory_platform.assets._house import declared, tally_metadata
from trajectory_platform.curation.verify.calibration import CALIBRATION_CACHE_DIR
from trajectory_platform.curation.verify.cascade import CascadeResult, VerifySettings, fixtures_lookup
from trajectory_platform.curation.verify.tables import VERIFIED_SCHEMA, verify_files
from trajectory_platform.curation.verify.triage import TRIAGE_REPORT_SCHEMA
from trajectory_platform.resources.partitions import DAILY_PARTITIONS, PER_DAY_BACKFILL, one_day
from trajectory_platform.resources.secrets import SecretsSaltResource
from trajectory_platform.resources.settings import WorkdirResource
from trajectory_platform.resources.stage_config import SETTINGS_KEY, settings_of, stage_config
from trajectory_platform.resources.warehouse import LOAD_KEY, PARQUET_FILES, staged_parquet
from trajectory_platform.sensors.automation import PER_DAY_CONDITION


class VerifyConfig(stage_config(VerifySettings)):  # type: ignore[misc]
    """``verified_traces``' run config: :class:`VerifySettings`' fields."""


@multi_asset(
    ins={"raw_traces": AssetIn(metadata={LOAD_KEY: PARQUET_FILES})},
    deps=["task_environments"],
    outs={
        "verified_traces": AssetOut(
            description="Every raw episode with its cascade verdict: sink, role, t_div/t_rec, target turns, "
            "triage class, advisory score, stage verdicts.",
            automation_condition=PER_DAY_CONDITION,
            **declared("curation", VERIFIED_SCHEMA, partition_expr="partition_date"),
        ),
        "triage_report": AssetOut(
            description="Failing episodes grouped by root cause (runtime / context / interface / policy) "
            "and subject, with the remedy that fixes them outside the weights where possible.",
            automation_condition=PER_DAY_CONDITION,
            **declared("curation", TRIAGE_REPORT_SCHEMA),
        ),
    },
    partitions_def=DAILY_PARTITIONS,
    backfill_policy=PER_DAY_BACKFILL,
)
def verified_traces(
    context: AssetExecutionContext,
    config: VerifyConfig,
    workdir: WorkdirResource,
    secrets_salt: SecretsSaltResource,
    raw_traces: list[Path],
):
    """Verify one day's ingested episodes against the gym's sealed oracles and the workdir's
    registered environments, streamed from the day's file to the staged output file."""
    day = one_day(context.partition_keys, "verified_traces")
    settings = settings_of(config, VerifySettings)
    with staged_parquet(workdir.root, "verified_traces") as staged:
        result = verify_files(
            raw_traces,
            staged.path,
            fixtures_lookup(settings.fixture_seed, workdir.environments_dir),
            settings.cascade(
                progress=False,
                master_key=secrets_salt.key(),
                calibration_cache=workdir.root / CALIBRATION_CACHE_DIR,
            ),
        )
        context.log.info(f"{day}: verified {result.tallies.episodes} episodes: sinks {result.counts('sink')}")
        for warning in result.ledger.health_warnings():
            context.log.warning(warning)
        metadata = {
            **verified_metadata(result),
            SETTINGS_KEY: MetadataValue.json(dataclasses.asdict(settings)),
        }
        yield Output(staged, output_name="verified_traces", metadata=metadata)  # stored while we wait here
    yield Output(result.triage, output_name="triage_report", metadata=_triage_metadata(result.triage))


def verified_metadata(result: CascadeResult) -> dict:
    """A cascade run's page: funnel, ledger, sinks (``verified_traces`` and ``round_verified``)."""
    ledger = result.ledger.summary()
    rows = ["| stage | entered | passed | c_i (s) | p_i |", "|---|---|---|---|---|"]
    rows += [
        f"| {s['stage']} | {s['entered']} | {s['passed']} | {s['c']:.6f} | {s['p']:.4f} |"
        for s in ledger["stages"]
    ]
    return {
        "episodes": result.tallies.episodes,
        "funnel": MetadataValue.json(result.funnel),
        "sinks": MetadataValue.json(result.counts("sink")),
        "unverifiable_reasons": MetadataValue.json(result.unverifiable_by_reason()),
        "replays_retried": result.tallies.replays_retried,
        "roles": MetadataValue.json(result.counts("role")),
        "triage": MetadataValue.json(result.counts("triage_class")),
        "ledger": MetadataValue.json(ledger),
        "ledger_table": MetadataValue.md("\n".join(rows)),
        "c_attempt_s": ledger["c_attempt"],
        "yield": ledger["yield"],
        "c_accepted_s": ledger["c_accepted"],
        "monolithic_c_attempt_s": ledger["monolithic_c_attempt"],
        "cost_ratio": ledger["cost_ratio"],
        "r_flake": ledger["r_flake"],
        "warnings": MetadataValue.json(ledger["warnings"]),
        "calibration_cache": MetadataValue.json(result.calibration_cache.to_dict()),
        **result.janitor.to_dict(),
        **tally_metadata(result.tally()),
    }


def _triage_metadata(report: pa.Table) -> dict:
    rows = ["| class | subject | episodes | remedy |", "|---|---|---|---|"]
    rows += [
        f"| {r['failure_class']} | {r['subject']} | {r['episodes']} | {r['remedy']} |"
        for r in report.to_pylist()
    ]
    return {
        "groups": report.num_rows,
        "report": MetadataValue.md("\n".join(rows) if report.num_rows else "_no failing episodes_"),
        "classes": MetadataValue.json(
            json.loads(
                json.dumps(
                    {
                        c: sum(r["episodes"] for r in report.to_pylist() if r["failure_class"] == c)
                        for c in sorted(set(report.column("failure_class").to_pylist()))
                    }
                )
            )
        ),
    }
