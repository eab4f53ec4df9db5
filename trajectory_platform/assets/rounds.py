"""The self-improvement loop as round-partitioned assets (``rounds`` group, one partition per round).

``policy_rollouts`` -> ``round_verified`` (+ ``round_dagger``) -> ``round_mixture`` -> ``round_dataset`` ->
``round_checkpoint`` -> ``round_scorecard``; the collapse watch is a blocking check on
``round_verified`` (``checks/rounds.py``) and the round sensor starts round i+1 when round i's
scorecard promotes (``sensors/rounds.py``). Each body is glue over one domain call of
:mod:`trajectory_platform.rounds.stage` or the helper the unpartitioned stage uses
(:func:`~trajectory_platform.assets.mixture.composed_mixture`,
:func:`~trajectory_platform.assets.dataset.masked_output`,
:func:`~trajectory_platform.assets.checkpoint.trained_output`,
:func:`~trajectory_platform.assets.scorecard.scored_output`), so a round's mixture, dataset,
checkpoint and scorecard are built exactly as the unpartitioned ones are.

Round i samples with round i-1's ``round_checkpoint`` (round 1: the unpartitioned ``checkpoint``),
and round i-1's mixture is the one round i extends. Both are read from the warehouse by partition
key, not declared as Dagster inputs: dynamic partitions have no offset mapping ("the partition
before this one"), so such an input cannot be declared. What would have been the edge is recorded
instead: every round asset from the collection on carries the sampler's checkpoint digest and the
sampler-policy digest in its metadata, so the UI shows per round which checkpoint sampled it and
which checkpoint it produced.

Rollout generation and verification are the two sides of a bounded spool inside one step (the
multi-asset ``policy_rollouts``, whose outputs are ``policy_rollouts`` and ``round_verified``):
docs/operations.md, "Rounds", says why. Its third output, ``round_dagger``, holds the round's DAgger
records (expert labels on the states of the sampler's failed attempts, verified and admitted);
``round_mixture`` reads it beside ``round_verified``, which stays the sampler's own attempts (the
next round estimates p from it, the collapse watch measures it): docs/rounds.md says why.
"""

import dataclasses

import pyarrow as pa
import torch
from dagster import (
    AllPartitionMapping,
    AssetDep,
    AssetExecutionContext,
    AssetIn,
    AssetKey,
    AssetOut,
    DagsterInstance,
    MetadataValue,
    Output,
    asset,
    multi_asset,
)

from trajectory_platform.assets._house import declared, tally_metadata
from trajectory_platform.assets.checkpoint import CheckpointConfig, trained_output
from trajectory_platform.assets.dataset import MaskedDatasetConfig, masked_output
from trajectory_platform.assets.mixture import MixtureConfig, composed_mixture, mixture_metadata
from trajectory_platform.assets.scorecard import FACTS, ScorecardConfig, scored_output
from trajectory_platform.assets.verified import verified_metadata
from trajectory_platform.checks.rounds import COLLAPSE_CHECK, HEALTH_KEY, collapse_watch
from trajectory_platform.curation.split_mixture_stage import (
    TRAINING_MIXTURE_SCHEMA,
    MixtureSettings,
    SplitSettings,
)
from trajectory_platform.curation.verify import verified_table
from trajectory_platform.curation.verify.calibration import CALIBRATION_CACHE_DIR
from trajectory_platform.curation.verify.cascade import VerifySettings
from trajectory_platform.curation.verify.tables import VERIFIED_SCHEMA
from trajectory_platform.environments.table import registered_fixtures
from trajectory_platform.evaluation.settings import EvaluationSettings
from trajectory_platform.evaluation.stage import SCORECARD_SCHEMA, UpstreamFigures
from trajectory_platform.gym.library import build_library
from trajectory_platform.resources.facts import UPSTREAM_FACTS, latest_metadata
from trajectory_platform.resources.partitions import ROUND_PARTITION_COLUMN, ROUND_PARTITIONS, round_index
from trajectory_platform.resources.secrets import SecretsSaltResource
from trajectory_platform.resources.settings import WorkdirResource
from trajectory_platform.resources.stage_config import (
    SETTINGS_KEY,
    materialized_settings,
    recorded_settings,
    settings_of,
    stage_config,
)
from trajectory_platform.resources.warehouse import read_asset_table
from trajectory_platform.rounds.collapse import CollapseDecision, RoundHealth, round_health
from trajectory_platform.rounds.settings import CollapseSettings
from trajectory_platform.rounds.stage import (
    ROUND_CORPUS_SCHEMA,
    RoundRun,
    RoundRunSettings,
    candidates_table,
    round_corpus,
    run_round,
)
from trajectory_platform.traces.schema import EPISODE_SCHEMA, episodes_to_table
from trajectory_platform.training.data.mask_settings import DatasetSettings
from trajectory_platform.training.data.masked_dataset import MASKED_SCHEMA
from trajectory_platform.training.data.provenance import curated
from trajectory_platform.training.optim.runner import CHECKPOINT_SCHEMA
from trajectory_platform.workdir import asset_manifest


class RoundConfig(stage_config(RoundRunSettings)):  # type: ignore[misc]
    """``policy_rollouts``' run config: :class:`RoundRunSettings`' fields."""


EVERY_DAY_FACTS = AssetIn(input_manager_key=UPSTREAM_FACTS, partition_mapping=AllPartitionMapping())
"""A per-day stage's reported figures (every day's, combined) as an input of a round asset."""

ROUND_PROVENANCE = {
    **curated(
        "dagster",
        upstream="round_mixture <- training_mixture (the redacted corpus) + round_verified, round_dagger "
        "(the round sampler's gym rollouts and DAgger records: cascade-judged, never redacted)",
    ),
    "redacted": False,
}
"""The round dataset's provenance. Its rows passed the cascade, but the round's own ones never pass
redaction (the gym's generated tasks plant secrets to test it), so it says ``redacted: false``:
a file copy of it is then refused by ``train`` and ``mask`` unless the user opts out, as unredacted
data should be (the round's checkpoint trains on the table inside the graph)."""

SAMPLER_CHECKPOINT_KEY = "sampler_checkpoint_digest"
"""Metadata key: the artifact digest of the checkpoint that sampled the round (lineage in the UI)."""
VERIFY_SETTINGS_KEY = "verify_settings"
"""Metadata key: the ``verified_traces`` settings the round's cascade was built from."""
SAMPLER_POLICY_KEY = "sampler_policy_digest"
"""Metadata key: the digest every trajectory of the round carries in ``lineage.sampler_policy_digest``."""


def _round(schema: pa.Schema) -> dict:
    """``declared`` for a round asset: the ``rounds`` group, rows replaced per round key."""
    return declared("rounds", schema, partition_expr=ROUND_PARTITION_COLUMN)


def previous_round_table(workdir: WorkdirResource, asset: str, index: int) -> pa.Table:
    """Round ``index - 1``'s ``asset`` from the warehouse (round 1's predecessor: the unpartitioned
    ``checkpoint``); a clear error when that round has not run."""
    name, keys = (
        ("checkpoint", None) if asset == "round_checkpoint" and index == 1 else (asset, [str(index - 1)])
    )
    table = read_asset_table(workdir.root, name, keys)
    if table is None or table.num_rows == 0:
        where = "the unpartitioned checkpoint" if keys is None else f"round {index - 1}'s {name}"
        raise FileNotFoundError(f"round {index} needs {where}, which is not materialized: run it first")
    return table


def sampler_lineage(context: AssetExecutionContext) -> dict:
    """The round's sampler digests, as its collection recorded them (lineage on every later asset)."""
    recorded = latest_metadata(context.instance, "policy_rollouts", context.partition_key)
    return {key: recorded.get(key) for key in (SAMPLER_CHECKPOINT_KEY, SAMPLER_POLICY_KEY)}


@multi_asset(
    deps=[AssetDep("checkpoint")],
    ins={"split_assignments": FACTS},
    outs={
        "policy_rollouts": AssetOut(
            description="The round's attempts by its sampler (pinned seeds), each stamped with the sampler "
            "digest and the round: the pilot's when one estimated p, then k per task in the P_inform band.",
            **_round(EPISODE_SCHEMA),
        ),
        "round_verified": AssetOut(
            description="The round's attempts with the full cascade's verdicts (ledger in metadata).",
            **_round(VERIFIED_SCHEMA),
        ),
        "round_dagger": AssetOut(
            description="The round's DAgger records: the scripted expert's labels on states of the "
            "learner's failed attempts, verified by continuing to an oracle verdict and admitted by the "
            "full cascade; only the expert's turns are targets.",
            **_round(ROUND_CORPUS_SCHEMA),
        ),
    },
    internal_asset_deps={
        "policy_rollouts": {AssetKey("checkpoint"), AssetKey("split_assignments")},
        "round_verified": {AssetKey("policy_rollouts")},
        "round_dagger": {AssetKey("policy_rollouts")},
    },
    partitions_def=ROUND_PARTITIONS,
    check_specs=[COLLAPSE_CHECK],
    pool="train",
)
def policy_rollouts(
    context: AssetExecutionContext,
    config: RoundConfig,
    workdir: WorkdirResource,
    secrets_salt: SecretsSaltResource,
    split_assignments: dict,
):
    """Sample the round (pilot, band sampling through the bounded spool, DAgger on the failures),
    judge it, and watch it for collapse against the previous round."""
    index, settings = round_index(context.partition_key), settings_of(config, RoundRunSettings)
    verify_settings = corpus_verify_settings(context.instance)
    sampler_row = previous_round_table(workdir, "round_checkpoint", index).to_pylist()[-1]
    run = run_round(
        settings,
        recorded_settings(split_assignments, SplitSettings),
        earlier_outcomes(workdir, index),
        workdir.locate(sampler_row["path"]),
        index,
        workdir.root / "spool" / "policy_rollouts" / context.partition_key,
        settings.cascade(verify_settings, secrets_salt.key(), workdir.root / CALIBRATION_CACHE_DIR),
    )
    sample = run.sample
    previous = latest_metadata(context.instance, "round_verified", str(index - 1)).get(HEALTH_KEY)
    health = round_health(sample)
    decision, check = collapse_watch(health, previous, CollapseSettings())
    recorded = collection_lineage(
        sampler_row["artifact_digest"], sample.sampler_digest, settings, verify_settings
    )
    context.log.info(f"round {index}: {run.selection()}; {sample.summary()['sinks']}")
    rollouts = {**recorded, **collection_metadata(run)}
    yield Output(episodes_to_table(sample.episodes), output_name="policy_rollouts", metadata=rollouts)
    verified = {**recorded, **verified_round_metadata(run, health, decision)}
    yield Output(
        verified_table(sample.episodes, sample.cascade), output_name="round_verified", metadata=verified
    )
    yield dagger_output(run, recorded)
    yield check


def collection_lineage(
    checkpoint_digest: str, sampler_digest: str, settings: RoundRunSettings, verify: VerifySettings
) -> dict:
    """What every output of a round's collection records: the sampler's checkpoint and policy
    digests, the round's settings and the ``verified_traces`` settings its cascade was built from."""
    return {
        SAMPLER_CHECKPOINT_KEY: checkpoint_digest,
        SAMPLER_POLICY_KEY: sampler_digest,
        SETTINGS_KEY: MetadataValue.json(dataclasses.asdict(settings)),
        VERIFY_SETTINGS_KEY: MetadataValue.json(dataclasses.asdict(verify)),
    }


def corpus_verify_settings(instance: DagsterInstance) -> VerifySettings:
    """The settings ``verified_traces`` last ran with (its latest materialization's, any day): the
    round's cascade is the corpus's, so ``run --set verified_traces.reruns=3`` judges the round's
    attempts with three oracle runs too. The defaults when it never ran (its settings then were
    the defaults)."""
    return materialized_settings(instance, "verified_traces", VerifySettings)


def dagger_output(run: RoundRun, recorded: dict) -> Output:
    """``round_dagger``: the round's admitted DAgger records (none when DAgger is off), with the
    sampler's digests and DAgger's figures."""
    records = run.dagger.admitted if run.dagger is not None else []
    metadata = {**recorded, **dagger_metadata(run)}
    return Output(candidates_table(records), output_name="round_dagger", metadata=metadata)


def earlier_outcomes(workdir: WorkdirResource, index: int) -> pa.Table | None:
    """The verified outcomes round ``index`` may estimate p from: the previous round's attempts;
    ``None`` for round 1 (the corpus's outcomes are the scripted policies', not the checkpoint's, so
    round 1 pilots its sampler instead)."""
    return previous_round_table(workdir, "round_verified", index) if index > 1 else None


def collection_metadata(run: RoundRun) -> dict:
    """How p was estimated and the task choice (the pilot's summary included), and the band
    sampling's queue: depth (max, mean) and episodes per second of each stage (none when no task
    was in the band)."""
    queue = run.collected.queue.to_dict() if run.collected is not None else {}
    figures = ("depth_max", "depth_mean", "produce_episodes_per_s", "verify_episodes_per_s")
    return {
        "selection": MetadataValue.json(run.selection()),
        "queue": MetadataValue.json(queue),
        **{key: queue[key] for key in figures if key in queue},
    }


def dagger_metadata(run: RoundRun) -> dict:
    """DAgger's figures: states labelled, labels used and dropped by reason, learner-state
    disagreement, records admitted and the rest by sink (``{"enabled": False}`` when off)."""
    if run.dagger is None:
        return {"dagger": MetadataValue.json({"enabled": False})}
    summary = run.dagger.summary()
    return {
        "dagger": MetadataValue.json(summary),
        "records_admitted": summary["records_admitted"],
        "learner_state_disagreement": summary["learner_state_disagreement"],
    }


def verified_round_metadata(run: RoundRun, health: RoundHealth, decision: CollapseDecision) -> dict:
    """The cascade's figures on the round (as ``verified_traces`` reports them), the round's
    collapse figures (``health``: the next round compares with them) and the collapse verdict."""
    return {
        **verified_metadata(run.sample.cascade),
        HEALTH_KEY: MetadataValue.json(health.to_dict()),
        "collapse_halt": decision.halt,
        "collapse_reasons": MetadataValue.json(list(decision.reasons)),
    }


@asset(
    ins={
        "round_verified": AssetIn(),
        "round_dagger": AssetIn(),
        "training_mixture": AssetIn(),
        "split_assignments": FACTS,
    },
    partitions_def=ROUND_PARTITIONS,
    **_round(TRAINING_MIXTURE_SCHEMA),
    description="The mix the round's checkpoint trains on: the last mix plus the round's admitted "
    "trajectories and DAgger records, stale samplers retired, deduplicated by action sequence, under the "
    "token-share policy.",
)
def round_mixture(
    context: AssetExecutionContext,
    config: MixtureConfig,
    workdir: WorkdirResource,
    round_verified: pa.Table,
    round_dagger: pa.Table,
    training_mixture: pa.Table,
    split_assignments: dict,
) -> Output[pa.Table]:
    """Fold the round's admitted trajectories and DAgger records into the last mix (``next_mix``),
    then compose it as ``training_mixture`` is composed."""
    index = round_index(context.partition_key)
    previous = training_mixture if index == 1 else previous_round_table(workdir, "round_mixture", index)
    settings = materialized_settings(
        context.instance, "round_verified", RoundRunSettings, context.partition_key
    )
    split = recorded_settings(split_assignments, SplitSettings)
    library, environments = build_library(split.fixture_seed), registered_fixtures(workdir.environments_dir)
    corpus = round_corpus(
        previous, round_verified, round_dagger, index, settings, split, library, environments
    )
    result = composed_mixture(settings_of(config, MixtureSettings), corpus.corpus, corpus.splits.table)
    context.log.info(f"round {index} mix: {corpus.mix.tally()}; {result.summary['realized_token_shares']}")
    round_tally = {f"round_mix_{k}": v for k, v in tally_metadata(corpus.mix.tally()).items()}
    return Output(
        result.table, metadata={**mixture_metadata(result), **round_tally, **sampler_lineage(context)}
    )


@asset(
    ins={"round_mixture": AssetIn()},
    partitions_def=ROUND_PARTITIONS,
    **_round(MASKED_SCHEMA),
    description="The round's mixture tokenized and masked, as token_masked_dataset is.",
)
def round_dataset(
    context: AssetExecutionContext,
    config: MaskedDatasetConfig,
    workdir: WorkdirResource,
    round_mixture: pa.Table,
) -> Output[pa.Table]:
    """Mask the round's mixture; its manifest lands under ``artifacts/round_dataset/<round>/``."""
    artifact = f"round_dataset/{context.partition_key}"
    settings = settings_of(config, DatasetSettings)
    return masked_output(
        settings, workdir, round_mixture, "round_mixture", artifact, context.log.info, ROUND_PROVENANCE
    )


@asset(
    ins={"round_dataset": AssetIn()},
    partitions_def=ROUND_PARTITIONS,
    pool="train",
    **_round(CHECKPOINT_SCHEMA),
    description="The round's checkpoint (SFT on round_dataset), with the digest of the checkpoint that "
    "sampled the round: per-round lineage sampler -> checkpoint.",
)
def round_checkpoint(
    context: AssetExecutionContext,
    config: CheckpointConfig,
    workdir: WorkdirResource,
    round_dataset: pa.Table,
) -> Output[pa.Table]:
    """Train as ``checkpoint`` trains, on the round's dataset (SFT: a round has no preference pairs)."""
    if config.objective != "sft":
        raise ValueError(f"round_checkpoint trains SFT on the round's dataset, not {config.objective!r}")
    manifest = asset_manifest(workdir.root, f"round_dataset/{context.partition_key}")
    output = trained_output(config, workdir, round_dataset, manifest, "round_dataset", context.log.info)
    return Output(output.value, metadata={**output.metadata, **sampler_lineage(context)})


@asset(
    ins={
        "round_checkpoint": AssetIn(),
        "round_mixture": AssetIn(),
        "round_dataset": AssetIn(),
        **{name: EVERY_DAY_FACTS for name in ("verified_traces", "redacted_corpus")},
        "split_assignments": FACTS,
    },
    partitions_def=ROUND_PARTITIONS,
    pool="train",
    **_round(SCORECARD_SCHEMA),
    description="The round's checkpoint against the checkpoint that sampled the round (paired held-out "
    "trials), with the release decision the round sensor reads: promote starts the next round.",
)
def round_scorecard(
    context: AssetExecutionContext,
    config: ScorecardConfig,
    workdir: WorkdirResource,
    round_checkpoint: pa.Table,
    round_mixture: pa.Table,
    round_dataset: pa.Table,
    verified_traces: dict,
    redacted_corpus: dict,
    split_assignments: dict,
) -> Output[pa.Table]:
    """Score the round's checkpoint; the baseline is the round's sampler unless ``baseline_path`` is set."""
    torch.set_num_threads(max(1, config.threads))
    index, settings = round_index(context.partition_key), settings_of(config, EvaluationSettings)
    if not settings.baseline_path:
        sampler = previous_round_table(workdir, "round_checkpoint", index).to_pylist()[-1]
        settings = dataclasses.replace(settings, baseline_path=str(workdir.locate(sampler["path"])))
    row = round_checkpoint.to_pylist()[0]
    upstream = UpstreamFigures(verified=verified_traces, redacted=redacted_corpus)
    output = scored_output(
        context, settings, workdir, row, round_mixture, round_dataset, upstream, split_assignments
    )
    return Output(output.value, metadata={**output.metadata, **sampler_lineage(context)})
