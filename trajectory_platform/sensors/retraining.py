"""The retraining sensor: request a new checkpoint (and its scorecard) when it is worth it.

The decision is :func:`trajectory_platform.evaluation.retraining.retraining_reasons` over
facts read from the warehouse Parquet (no DuckDB lock is taken, so it never blocks a run).
The cursor remembers which checkpoint materialization it last saw and how many admitted
tokens existed then (the baseline for "new tokens"); a ``selected_target_tokens`` entry in
the checkpoint's materialization metadata, when present, is the exact baseline instead.
Run keys encode the observed state, so one state never launches two trainings.
"""

from __future__ import annotations

import json

from dagster import (
    AssetKey,
    AssetSelection,
    DagsterInstance,
    DefaultSensorStatus,
    EventLogRecord,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from trajectory_platform.evaluation.retraining import (
    RetrainingSignals,
    admitted_tokens,
    dominant_sampler_digest,
    last_value,
    retraining_reasons,
    scorecard_regressed,
)
from trajectory_platform.resources.retraining import RetrainingPolicyResource
from trajectory_platform.resources.settings import WorkdirResource
from trajectory_platform.resources.warehouse import read_asset_table

RETRAIN_ASSETS = ("token_masked_dataset", "checkpoint", "scorecard")
"""Rebuilt on retraining: the dataset from the current mixture, the checkpoint, its scorecard."""


def _latest(instance: DagsterInstance, key: str) -> EventLogRecord | None:
    """The newest materialization record of ``key`` (its storage id orders events)."""
    records = instance.fetch_materializations(AssetKey(key), limit=1).records
    return records[0] if records else None


def _metadata_value(record: EventLogRecord | None, key: str) -> object | None:
    if record is None or record.asset_materialization is None:
        return None
    value = record.asset_materialization.metadata.get(key)
    return None if value is None else value.value


def _present(context: SensorEvaluationContext, keys: tuple[str, ...]) -> list[str]:
    """The retraining assets that exist in this code location (all of them outside one)."""
    repository = context.repository_def
    if repository is None:
        return list(keys)
    known = repository.asset_graph.get_all_asset_keys()
    return [k for k in keys if AssetKey(k) in known]


@sensor(
    name="retraining_sensor",
    target=AssetSelection.from_string(" or ".join(f'key:"{k}"' for k in RETRAIN_ASSETS)),
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
        return SensorResult(
            skip_reason=SkipReason("training_mixture not materialized yet"), cursor=context.cursor
        )
    tokens_now = admitted_tokens(mixture)

    instance = context.instance
    checkpoint = _latest(instance, "checkpoint")
    marker = checkpoint.storage_id if checkpoint else None
    if state.get("checkpoint_marker") != marker or "baseline_tokens" not in state:
        recorded = _metadata_value(checkpoint, "selected_target_tokens")
        baseline = 0 if checkpoint is None else int(recorded if recorded is not None else tokens_now)
        state = {**state, "checkpoint_marker": marker, "baseline_tokens": baseline}

    scorecard = _latest(instance, "scorecard")
    fresh_evaluation = (
        scorecard is not None
        and checkpoint is not None
        and scorecard.run_id != checkpoint.run_id  # a re-evaluation, not the training run's own
        and scorecard.storage_id != state.get("acted_scorecard")
    )
    episodes = (  # only when the mixture does not carry the lineage itself
        None
        if "lineage" in mixture.column_names
        else read_asset_table(workdir.root, "raw_traces", columns=["episode_id", "lineage"])
    )
    checkpoint_table = read_asset_table(workdir.root, "checkpoint")
    signals = RetrainingSignals(
        admitted_tokens=tokens_now,
        baseline_tokens=state["baseline_tokens"],
        admitted_sampler_digest=dominant_sampler_digest(mixture, episodes),
        incumbent_sampler_digest=last_value(checkpoint_table, "sampler_policy_digest")
        or _metadata_value(checkpoint, "sampler_policy_digest"),
        incumbent_regressed=fresh_evaluation
        and scorecard_regressed(read_asset_table(workdir.root, "scorecard")),
    )
    reasons = retraining_reasons(signals, retraining.min_new_selected_target_tokens)
    if not reasons:
        new = signals.admitted_tokens - signals.baseline_tokens
        limit = retraining.min_new_selected_target_tokens
        skip = f"{new} new admitted tokens < {limit}; corpus fresh; no regression"
        return SensorResult(skip_reason=SkipReason(skip), cursor=json.dumps(state, sort_keys=True))
    if signals.incumbent_regressed:
        state["acted_scorecard"] = scorecard.storage_id
    run_key = (
        f"retrain:{marker}:{tokens_now}:{signals.admitted_sampler_digest}:{state.get('acted_scorecard')}"
    )
    request = RunRequest(
        run_key=run_key,
        asset_selection=[AssetKey(k) for k in targets],
        tags={"trajectory_platform/retrain_reasons": "; ".join(reasons)[:1000]},
    )
    context.log.info(f"requesting retraining: {reasons}")
    return SensorResult(run_requests=[request], cursor=json.dumps(state, sort_keys=True))
