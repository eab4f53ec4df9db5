"""Checks on ``production_feedback`` and ``feedback_candidates``: the stored rows keep the reader's
rules, and no candidate is left unjudged.

The reader refuses a bad line before it becomes a row; these checks hold the stored table to the
same rules (a table written by another tool, or a reader change, would show here), and hold
``feedback_candidates`` to its promise that a candidate is either validated or refused with a
reason, never passed on unjudged.
"""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
from dagster import AssetCheckResult, MetadataValue, asset_check

from trajectory_platform.checks.raw import schema_result
from trajectory_platform.environments.from_feedback import CANDIDATE_REFUSALS, CANDIDATE_SCHEMA
from trajectory_platform.resources.partitions import DAILY_PARTITIONS
from trajectory_platform.traces.feedback import FEEDBACK_KINDS, FEEDBACK_SCHEMA


@asset_check(asset="production_feedback", partitions_def=DAILY_PARTITIONS, blocking=True)
def production_feedback_rules(production_feedback: pa.Table) -> AssetCheckResult:
    """FEEDBACK_SCHEMA; every kind known; ratings in [0, 1] and only on rating rows; every edited
    row carries its diff and every correction its turn."""
    shape = schema_result(production_feedback, FEEDBACK_SCHEMA)
    if not shape.passed:
        return shape
    rows = production_feedback.select(["kind", "rating", "edit_diff", "turn_index"]).to_pylist()
    broken = {
        "unknown_kind": sum(r["kind"] not in FEEDBACK_KINDS for r in rows),
        "bad_rating": sum(
            (r["kind"] == "rating") != (r["rating"] is not None)
            or (r["rating"] is not None and not 0.0 <= r["rating"] <= 1.0)
            for r in rows
        ),
        "missing_edit_diff": sum(r["kind"] == "edited" and r["edit_diff"] is None for r in rows),
        "missing_turn_index": sum(r["kind"] == "correction" and r["turn_index"] is None for r in rows),
    }
    return AssetCheckResult(
        passed=not any(broken.values()),
        metadata={"rows": len(rows), "broken_by_rule": MetadataValue.json(broken)},
    )


@asset_check(asset="feedback_candidates")
def feedback_candidates_judged(feedback_candidates: pa.Table) -> AssetCheckResult:
    """CANDIDATE_SCHEMA; every candidate validated or refused with a known reason; every validated
    one carries its task id, digest and reference."""
    shape = schema_result(feedback_candidates, CANDIDATE_SCHEMA)
    if not shape.passed:
        return shape
    rows = feedback_candidates.to_pylist()
    unjudged = [r["source"] for r in rows if r["status"] not in ("validated", "refused")]
    unexplained = [
        r["source"] for r in rows if r["status"] == "refused" and r["reason"] not in CANDIDATE_REFUSALS
    ]
    incomplete = [
        r["source"]
        for r in rows
        if r["status"] == "validated"
        and not (r["task_id"] and r["environment_digest"] and r["reference_diff"])
    ]
    return AssetCheckResult(
        passed=not (unjudged or unexplained or incomplete),
        metadata={
            "rows": len(rows),
            "by_status": MetadataValue.json(dict(sorted(Counter(r["status"] for r in rows).items()))),
            "unjudged": MetadataValue.json(unjudged[:10]),
            "unexplained_refusals": MetadataValue.json(unexplained[:10]),
            "validated_without_environment": MetadataValue.json(incomplete[:10]),
        },
    )
