"""The retraining sensor: request a new checkpoint (and its scorecard) when it is worth it.

Thin: gather the tick's facts (tables from the warehouse Parquet, so no DuckDB lock is taken and
it never blocks a run; the newest checkpoint and scorecard materializations from the instance)
and hand them, with the cursor, to
:func:`trajectory_platform.evaluation.retraining.decide_retraining`.
"""

from __future__ import annotations

import json

import pyarrow as pa
from dagster import (
    AssetKey,
    DagsterInstance,
    DefaultSensorStatus,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from trajectory_platform.evaluation.retraining import Materialization, RetrainingFacts, decide_retraining
from trajectory_platform.resources.retraining import RetrainingPolicyResource
from trajectory_platform.resources.settings import WorkdirResource
from trajectory_platform.resources.warehouse import read_asset_table
from trajectory_platform.sensors.jobs import RETRAIN_ASSETS, RETRAINING_JOB


def _latest(instance: DagsterInstance, key: str) -> Materialization | None:
    """The newest materialization of ``key`` (its storage id orders events)."""
    records = instance.fetch_materializations(AssetKey(key), limit=1).records
    if not records or records[0].asset_materialization is None:
        return None
    metadata = {k: v.value for k, v in records[0].asset_materialization.metadata.items()}
    return Materialization(records[0].storage_id, records[0].run_id, metadata)


def _present(context: SensorEvaluationContext, keys: tuple[str, ...]) -> list[str]:
    """The retraining assets that exist in this code location (all of them outside one)."""
    repository = context.repository_def
    if repository is None:
        return list(keys)
    known = repository.asset_graph.get_all_asset_keys()
    return [k for k in keys if AssetKey(k) in known]


def _lineage(workdir: WorkdirResource, mixture: pa.Table) -> pa.Table | None:
    """The episodes' lineage envelopes from ``raw_traces``, when the mixture rows do not carry them."""
    if "lineage" in mixture.column_names:
        return None
    return read_asset_table(workdir.root, "raw_traces", columns=["episode_id", "lineage"])


@sensor(
    name="retraining_sensor",
    job=RETRAINING_JOB,
    minimum_interval_seconds=300,
    default_status=DefaultSensorStatus.STOPPED,
    description="Requests checkpoint + scorecard on enough new admitted tokens, stale corpus or regression.",
)
def retraining_sensor(
    context: SensorEvaluationContext, workdir: WorkdirResource, retraining: RetrainingPolicyResource
) -> SensorResult:
    state = json.loads(context.cursor) if context.cursor else {}
    targets = _present(context, RETRAIN_ASSETS)
    if "checkpoint" not in targets:
        return SensorResult(skip_reason=SkipReason("no checkpoint asset in this code location yet"))
    mixture = read_asset_table(workdir.root, "training_mixture")
    if mixture is None:
        skip = SkipReason("training_mixture not materialized yet")
        return SensorResult(skip_reason=skip, cursor=context.cursor)
    facts = RetrainingFacts(
        mixture=mixture,
        checkpoint=_latest(context.instance, "checkpoint"),
        scorecard=_latest(context.instance, "scorecard"),
        checkpoint_table=read_asset_table(workdir.root, "checkpoint"),
        scorecard_table=read_asset_table(workdir.root, "scorecard"),
        episodes=_lineage(workdir, mixture),
    )
    decision = decide_retraining(facts, state, retraining.min_new_selected_target_tokens)
    cursor = json.dumps(decision.state, sort_keys=True)
    if decision.skip is not None:
        return SensorResult(skip_reason=SkipReason(decision.skip), cursor=cursor)
    request = RunRequest(
        run_key=decision.run_key,
        asset_selection=[AssetKey(k) for k in targets],
        tags={"trajectory_platform/retrain_reasons": "; ".join(decision.reasons)[:1000]},
    )
    context.log.info(f"requesting retraining: {decision.reasons}")
    return SensorResult(run_requests=[request], cursor=cursor)
