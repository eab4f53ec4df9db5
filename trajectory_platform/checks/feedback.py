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
from trajectory_platform.environments.from_feedback import CANDIDATE_SCHEMA, unjudged_candidates
from trajectory_platform.resources.partitions import DAILY_PARTITIONS
from trajectory_platform.traces.feedback import FEEDBACK_SCHEMA, stored_rule_violations


@asset_check(asset="production_feedback", partitions_def=DAILY_PARTITIONS, blocking=True)
def production_feedback_rules(production_feedback: pa.Table) -> AssetCheckResult:
    """FEEDBACK_SCHEMA; every kind known; ratings in [0, 1] and only on rating rows; every edited
    row carries its diff and every correction its turn."""
    shape = schema_result(production_feedback, FEEDBACK_SCHEMA)
    if not shape.passed:
        return shape
    broken = stored_rule_violations(production_feedback)
    return AssetCheckResult(
        passed=not any(broken.values()),
        metadata={"rows": production_feedback.num_rows, "broken_by_rule": MetadataValue.json(broken)},
    )


@asset_check(asset="feedback_candidates")
def feedback_candidates_judged(feedback_candidates: pa.Table) -> AssetCheckResult:
    """CANDIDATE_SCHEMA; every candidate validated or refused with a known reason; every validated
    one carries its task id, digest and reference."""
    shape = schema_result(feedback_candidates, CANDIDATE_SCHEMA)
    if not shape.passed:
        return shape
    problems = unjudged_candidates(feedback_candidates)
    statuses = Counter(feedback_candidates.column("status").to_pylist())
    return AssetCheckResult(
        passed=not any(problems.values()),
        metadata={
            "rows": feedback_candidates.num_rows,
            "by_status": MetadataValue.json(dict(sorted(statuses.items()))),
            **{problem: MetadataValue.json(sources[:10]) for problem, sources in problems.items()},
        },
    )
