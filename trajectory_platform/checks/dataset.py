"""Checks on ``token_masked_dataset`` and ``preference_dataset``; all of them block training.

``heldout_targets_covered`` audits the training targets against what the held-out suite needs
(:mod:`trajectory_platform.evaluation.coverage`). The others re-derive structural invariants from
the stored rows (not from the run's own report):
a row without targets has an undefined loss, misaligned labels or spans train the wrong tokens,
and a target inside an observation teaches the policy to fabricate tool output. A preference pair
is held to the same three on both of its sides (same check names, on its own asset), and to one
of its own: the conditioning prefix is the same tokens on both sides and carries no score, so a
DPO margin compares two decisions under identical information.
"""

import pyarrow as pa
from dagster import AssetCheckExecutionContext, AssetCheckResult, AssetIn, MetadataValue, asset_check

from trajectory_platform.curation.split_mixture_stage import SplitSettings
from trajectory_platform.evaluation.coverage import suite_coverage
from trajectory_platform.resources import UPSTREAM_FACTS, WorkdirResource
from trajectory_platform.resources.stage_config import materialized_settings, recorded_settings
from trajectory_platform.training.data.dataset_stage import audit_table
from trajectory_platform.training.data.mask_settings import DatasetSettings
from trajectory_platform.training.data.preference_dataset import audit_pairs
from trajectory_platform.training.data.tokenizer import load_tokenizer

SHOWN = 10


def _result(table: pa.Table, problem: str, pairs: bool = False) -> AssetCheckResult:
    failing = (audit_pairs if pairs else audit_table)(table)[problem]
    return AssetCheckResult(
        passed=not failing,
        metadata={
            "rows": table.num_rows,
            "failing": len(failing),
            "failing_examples": MetadataValue.json(failing[:SHOWN]),
        },
    )


@asset_check(asset="token_masked_dataset", blocking=True)
def n_active_positive(token_masked_dataset: pa.Table) -> AssetCheckResult:
    """Every example has at least one selected target (N_active > 0)."""
    return _result(token_masked_dataset, "n_active")


@asset_check(asset="token_masked_dataset", blocking=True)
def offsets_verified(token_masked_dataset: pa.Table) -> AssetCheckResult:
    """Labels are aligned with input_ids (no shift) and the turn spans tile every example."""
    return _result(token_masked_dataset, "offsets")


@asset_check(asset="token_masked_dataset", blocking=True)
def no_target_in_observation(token_masked_dataset: pa.Table) -> AssetCheckResult:
    """No loss position falls outside a selected assistant span (observations, system, user)."""
    return _result(token_masked_dataset, "target_in_context")


@asset_check(
    asset="token_masked_dataset",
    blocking=True,
    additional_ins={"split_assignments": AssetIn(input_manager_key=UPSTREAM_FACTS)},
)
def heldout_targets_covered(
    context: AssetCheckExecutionContext,
    workdir: WorkdirResource,
    token_masked_dataset: pa.Table,
    split_assignments: dict,
) -> AssetCheckResult:
    """Every token the held-out learnable suite's solutions write (familiar schemas) was a training
    target at least ``heldout_target_minimum`` times: otherwise the suite is out of reach and every
    downstream figure would measure zeros."""
    settings = materialized_settings(context.instance, "token_masked_dataset", DatasetSettings)
    if not settings.heldout_target_minimum:
        return AssetCheckResult(passed=True, metadata={"audit": "off (heldout_target_minimum = 0)"})
    tokenizer = load_tokenizer(settings.tokenizer_dir(workdir.root))
    split = recorded_settings(split_assignments, SplitSettings).policy()
    coverage = suite_coverage(token_masked_dataset, tokenizer, split, settings.heldout_target_minimum)
    summary = coverage.summary()
    return AssetCheckResult(
        passed=coverage.passed,
        metadata={
            **{k: v for k, v in summary.items() if k != "least_covered"},
            "least_covered": MetadataValue.json(summary["least_covered"]),
        },
    )


@asset_check(asset="preference_dataset", name="n_active_positive", blocking=True)
def pairs_n_active_positive(preference_dataset: pa.Table) -> AssetCheckResult:
    """Both sides of every pair have at least one scored target (N_active > 0)."""
    return _result(preference_dataset, "n_active", pairs=True)


@asset_check(asset="preference_dataset", name="offsets_verified", blocking=True)
def pairs_offsets_verified(preference_dataset: pa.Table) -> AssetCheckResult:
    """On both sides labels are aligned with input_ids, the spans tile the example, and the scored
    positions are exactly the targets."""
    return _result(preference_dataset, "offsets", pairs=True)


@asset_check(asset="preference_dataset", name="no_target_in_observation", blocking=True)
def pairs_no_target_in_observation(preference_dataset: pa.Table) -> AssetCheckResult:
    """No scored position on either side falls outside a selected assistant span."""
    return _result(preference_dataset, "target_in_context", pairs=True)


@asset_check(asset="preference_dataset", blocking=True)
def shared_prefix_unscored(preference_dataset: pa.Table) -> AssetCheckResult:
    """The tokens before the branch turn are identical on both sides and none of them is scored."""
    return _result(preference_dataset, "prefix", pairs=True)
