"""``split_assignments``, ``training_mixture`` and ``preference_pairs`` (curation III).

Thin: take ``redacted_corpus``'s daily Parquet files (read a batch at a time by the stage, never
loaded whole) and ``split_assignments``, call one stage function of
:mod:`trajectory_platform.curation.split_mixture_stage`, attach what a person reads (split sizes by
family / tool family / domain, leakage, declared vs realized shares), return the table.

The mixture is measured in selected target tokens. Curation never imports a tokenizer; this layer
may, so by default it passes the dataset stage's own count of selected target tokens under the
embedded default tokenizer (built under the workdir if needed): ``selected_target_tokens`` then
sums to ``token_masked_dataset``'s ``n_targets``. ``token_measure: word_pieces`` selects the
tokenizer-agnostic measure instead.
"""

import dataclasses
from pathlib import Path

import pyarrow as pa
from dagster import AssetExecutionContext, AssetIn, MetadataValue, Output, asset

from trajectory_platform.assets._house import declared, tally_metadata
from trajectory_platform.checks.mixture import MIXTURE_SHARES_CHECK, mixture_shares_result
from trajectory_platform.curation.mixture import NEGATIVE
from trajectory_platform.curation.split_mixture_stage import (
    PREFERENCE_PAIRS_SCHEMA,
    SPLIT_ASSIGNMENTS_SCHEMA,
    TRAINING_MIXTURE_SCHEMA,
    Corpus,
    MixtureSettings,
    MixtureStageResult,
    SplitSettings,
    SplitStageResult,
    mixture_stage,
    preference_stage,
    split_stage,
)
from trajectory_platform.environments.table import registered_fixtures
from trajectory_platform.evaluation.retraining import SAMPLER_KEY, dominant_sampler_digest
from trajectory_platform.gym.library import build_library
from trajectory_platform.resources.settings import WorkdirResource
from trajectory_platform.resources.stage_config import SETTINGS_KEY, settings_of, stage_config
from trajectory_platform.resources.warehouse import LOAD_KEY, PARQUET_FILES
from trajectory_platform.sensors.automation import OVER_DAYS_CONDITION
from trajectory_platform.training.data.masked_dataset import load_target_counter
from trajectory_platform.training.data.tokenizer import load_token_counter

CORPUS_FILES = AssetIn(metadata={LOAD_KEY: PARQUET_FILES})
"""``redacted_corpus`` as its days' Parquet files: the stages read them a batch at a time, so no
step holds every day's rows (the warehouse IO manager would otherwise load them as one table)."""


class SplitConfig(stage_config(SplitSettings)):  # type: ignore[misc]
    """``split_assignments``' run config: :class:`SplitSettings`' fields."""


class MixtureConfig(stage_config(MixtureSettings)):  # type: ignore[misc]
    """``training_mixture``'s run config: :class:`MixtureSettings`' fields."""


@asset(
    ins={"redacted_corpus": CORPUS_FILES},
    deps=["task_environments"],
    **declared("curation", SPLIT_ASSIGNMENTS_SCHEMA),
    automation_condition=OVER_DAYS_CONDITION,
    description="One row per corpus episode: repository family, dependency closure, split "
    "(train / validation / test / excluded), transfer regime for test rows, and the reason.",
)
def split_assignments(
    context: AssetExecutionContext, config: SplitConfig, workdir: WorkdirResource, redacted_corpus: list[Path]
) -> Output[pa.Table]:
    """Closure-disjoint splits over the fixture library and the workdir's registered environments
    (the ones the scorecard evaluates), inherited by derived records, decontaminated."""
    settings = settings_of(config, SplitSettings)
    library = build_library(settings.fixture_seed)
    environments = registered_fixtures(workdir.environments_dir)
    result = split_stage(
        redacted_corpus,
        library,
        settings.policy(),
        settings.decontamination(),
        environments=environments,
        batch_rows=settings.batch_rows,
    )
    summary = result.summary
    context.log.info(f"split_assignments: {summary['split_counts']}, leakage {summary['decontamination']}")
    return Output(result.table, metadata=split_metadata(result, settings))


def split_metadata(result: SplitStageResult, settings: SplitSettings) -> dict:
    """What the split's asset page shows: the tally, the split's sizes and reasons, leakage, and
    the settings its checks judge by."""
    summary = result.summary
    return {
        **tally_metadata(result.tally()),
        "split_counts": MetadataValue.json(summary["split_counts"]),
        "closure_split": MetadataValue.json(summary["closure_split"]),
        "reserved_tool_families": MetadataValue.json(summary["reserved_tool_families"]),
        "reserved_domains": MetadataValue.json(summary["reserved_domains"]),
        "evaluation_fixtures": summary["evaluation_fixtures"],
        "sizes_by_family_tool_domain": MetadataValue.json(summary["sizes"]),
        "leakage_rate": summary["decontamination"]["leakage_rate"],
        "leakage": MetadataValue.json(summary["decontamination"]),
        "c_usable_per_unit_cost": summary["c_usable_per_unit_cost"],
        "split_table": MetadataValue.md(_split_markdown(summary["sizes"])),
        "assignments_by_reason": MetadataValue.json(summary["assignments_by_reason"]),
        "environments": MetadataValue.json(summary["environments"]),
        SETTINGS_KEY: MetadataValue.json(dataclasses.asdict(settings)),
    }


def _split_markdown(sizes: dict) -> str:
    lines = ["| split | axis | value | episodes |", "|---|---|---|---|"]
    for split, axes in sizes.items():
        for axis, counts in axes.items():
            lines.extend(f"| {split} | {axis} | {value} | {n} |" for value, n in counts.items())
    return "\n".join(lines)


@asset(
    ins={"redacted_corpus": CORPUS_FILES, "split_assignments": AssetIn()},
    **declared("curation", TRAINING_MIXTURE_SCHEMA),
    automation_condition=OVER_DAYS_CONDITION,
    check_specs=[MIXTURE_SHARES_CHECK],
    description="The SFT mix (pristine + recovery, train split) in selected target tokens, with every "
    "episode column and the counted target_turns; hard negatives go to preference_pairs.",
)
def training_mixture(
    context: AssetExecutionContext,
    config: MixtureConfig,
    redacted_corpus: list[Path],
    split_assignments: pa.Table,
):
    """Dedup, cap, and fill each class to its token target; realized shares reported and checked."""
    result = composed_mixture(settings_of(config, MixtureSettings), redacted_corpus, split_assignments)
    summary = result.summary
    context.log.info(f"training_mixture: {summary['realized_token_shares']} ({summary['token_measure']})")
    yield Output(result.table, metadata=mixture_metadata(result))
    yield mixture_shares_result(result.table, summary)


def composed_mixture(settings: MixtureSettings, corpus: Corpus, splits: pa.Table) -> MixtureStageResult:
    """The mixture stage under ``settings``' token measure, anchors and policy: what
    ``training_mixture`` and each round's ``round_mixture`` compose their SFT rows with."""
    counter, targets, measure = settings.counters(load_token_counter, load_target_counter)
    anchors, policy = frozenset(settings.anchor_sources), settings.policy()
    return mixture_stage(corpus, splits, policy, counter, measure, anchors, targets)


def mixture_metadata(result: MixtureStageResult) -> dict:
    """What a person reads on a mixture's page: declared vs realized shares, counts, the tally."""
    summary = result.summary
    return {
        "token_measure": summary["token_measure"],
        "declared_shares": MetadataValue.json(summary["declared"]),
        "realized_token_shares": MetadataValue.json(summary["realized_token_shares"]),
        "realized_sft_token_shares": MetadataValue.json(summary["realized_sft_token_shares"]),
        "realized_trajectory_shares": MetadataValue.json(summary["realized_trajectory_shares"]),
        "realized_tokens": MetadataValue.json(summary["realized_tokens"]),
        "within_bounds": summary["within_bounds"],
        "selected_target_tokens": summary["sft_target_tokens"],
        "preference_target_tokens": summary["realized_tokens"][NEGATIVE],
        "sft_rows": summary["sft_rows"],
        "preference_negatives": summary["preference_negatives"],
        "considered": summary["considered"],
        **tally_metadata(result.tally()),
        "fixtures_in_band": summary["fixtures_in_band"],
        "distinct_sequences_per_fixture": summary["distinct_sequences_per_fixture"],
        "anchors": summary["anchors"],
        SAMPLER_KEY: dominant_sampler_digest(result.table, None),
    }


@asset(
    ins={"redacted_corpus": CORPUS_FILES, "split_assignments": AssetIn()},
    **declared("curation", PREFERENCE_PAIRS_SCHEMA),
    automation_condition=OVER_DAYS_CONDITION,
    description="Admitted DPO pairs: same fixture, same delivered prefix, ordered by the declared rule "
    "(pass over fail; cheaper pass over costlier), divergent spans marked, both episodes carried.",
)
def preference_pairs(
    context: AssetExecutionContext,
    config: MixtureConfig,
    redacted_corpus: list[Path],
    split_assignments: pa.Table,
) -> Output[pa.Table]:
    """Pairs among train-split passes and the hard negatives the mixture routed to preference."""
    settings = settings_of(config, MixtureSettings)
    counter, targets, _ = settings.counters(load_token_counter, load_target_counter)
    anchors, policy = frozenset(settings.anchor_sources), settings.policy()
    result = preference_stage(redacted_corpus, split_assignments, policy, counter, anchors, targets)
    summary = result.summary
    context.log.info(
        f"preference_pairs: {summary['pairs_admitted']} admitted of {summary['pairs_considered']}"
    )
    return Output(
        result.table,
        metadata={
            **tally_metadata(result.tally()),
            "pairs_admitted": summary["pairs_admitted"],
            "pairs_considered": summary["pairs_considered"],
            "pairs_refused": summary["pairs_refused"],
            "refusals_by_reason": MetadataValue.json(summary["refusals_by_reason"]),
            "admitted_by_rule": MetadataValue.json(summary["admitted_by_rule"]),
            "routed_negatives": summary["routed_negatives"],
            "negatives_unrouted": summary["negatives_unrouted"],
        },
    )
