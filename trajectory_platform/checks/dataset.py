"""Checks on ``token_masked_dataset``; all three block training.

They re-derive the structural invariants from the stored rows (not from the run's own report):
a row without targets has an undefined loss, misaligned labels or spans train the wrong tokens,
and a target inside an observation teaches the policy to fabricate tool output.
"""

from __future__ import annotations

import pyarrow as pa
from dagster import AssetCheckResult, MetadataValue, asset_check

from trajectory_platform.training.data.dataset_stage import audit_table

SHOWN = 10


def _result(table: pa.Table, problem: str) -> AssetCheckResult:
    failing = audit_table(table)[problem]
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
