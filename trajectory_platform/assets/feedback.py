"""``production_feedback`` and ``feedback_candidates``: users' signals on a deployed agent, and the
task environments their edits propose.

``production_feedback`` reads one day of ``<workdir>/feedback_source/<YYYY-MM-DD>/*.jsonl`` (the
``feedback_source`` resource: a tree apart from the trace source, so ingestion never reads
feedback as traces) with :func:`~trajectory_platform.traces.feedback.read_feedback_files`: one row
per record, every bad line a counted drop naming its file and line.

``feedback_candidates`` links all feedback to all ingested episodes by ``episode_id``, turns each
edit on an episode of a registered environment into a candidate environment, validates it in the
sandbox and writes the validated ones to ``artifacts/feedback_candidates/`` for a person to import
(:mod:`trajectory_platform.environments.from_feedback`). Nothing here feeds the verifier cascade:
feedback never changes a sink.
"""

import datetime as dt

import pyarrow as pa
from dagster import AssetExecutionContext, AssetIn, BackfillPolicy, MetadataValue, Output, asset

from trajectory_platform.assets._house import declared, tally_metadata
from trajectory_platform.environments.from_feedback import (
    CANDIDATE_SCHEMA,
    FeedbackOutcome,
    candidates_from_feedback,
    validate_candidates,
    write_validated,
)
from trajectory_platform.environments.registry import EnvironmentCatalog
from trajectory_platform.resources import TraceSourceResource, WorkdirResource
from trajectory_platform.resources.partitions import DAILY_PARTITIONS
from trajectory_platform.traces.feedback import (
    FEEDBACK_SCHEMA,
    FeedbackBatch,
    discover_feedback_files,
    read_feedback_files,
    table_to_feedback,
)
from trajectory_platform.traces.schema import table_to_episodes

FIRST_DROPS = 10
TOP_RANKED = 10


@asset(
    description="Users' feedback on a deployed agent's episodes (FEEDBACK_SCHEMA), one row per "
    "accepted / edited / reverted / correction / retry / abandoned / rating record, by day.",
    partitions_def=DAILY_PARTITIONS,
    backfill_policy=BackfillPolicy.single_run(),
    **declared("traces", FEEDBACK_SCHEMA, partition_expr="partition_date"),
)
def production_feedback(context: AssetExecutionContext, feedback_source: TraceSourceResource) -> Output:
    """Read the feedback folders of the run's day(s); every line is a record or a counted drop."""
    batch = FeedbackBatch()
    for key in context.partition_keys:
        day = read_feedback_files(
            discover_feedback_files(feedback_source.partition_dir(key)),
            relative_to=feedback_source.root_path,
            partition_date=dt.date.fromisoformat(key),
        )
        batch.records += day.records
        batch.drops += day.drops
    context.log.info(f"feedback: {batch.tally().metadata()}")
    metadata = {
        **tally_metadata(batch.tally()),
        "counts_by_kind": MetadataValue.json(batch.counts_by_kind()),
        "first_drops": MetadataValue.json([d.detail for d in batch.drops[:FIRST_DROPS]]),
    }
    return Output(batch.table(), metadata=metadata)


@asset(
    ins={"production_feedback": AssetIn(), "verified_traces": AssetIn()},
    description="Each user edit on an episode of a registered environment as a candidate environment "
    "(same S0, oracle and tools; the edited end state as its reference), with its validation verdict; "
    "validated ones are written to artifacts/feedback_candidates/ for review and import.",
    **declared("curation", CANDIDATE_SCHEMA),
)
def feedback_candidates(
    context: AssetExecutionContext,
    workdir: WorkdirResource,
    production_feedback: pa.Table,
    verified_traces: pa.Table,
) -> Output:
    """Link feedback to episodes, keep edits on policy gaps (triage first), derive candidates,
    validate them, write the valid ones."""
    episodes = {e.episode_id: e for e in table_to_episodes(verified_traces)}
    ids, classes = verified_traces["episode_id"].to_pylist(), verified_traces["triage_class"].to_pylist()
    triage = dict(zip(ids, classes, strict=True))
    catalog = EnvironmentCatalog(workdir.environments_dir)
    feedback = table_to_feedback(production_feedback)
    outcome = validate_candidates(candidates_from_feedback(feedback, episodes, catalog.get, triage))
    written = write_validated(outcome, workdir.artifact_dir("feedback_candidates"))
    context.log.info(f"feedback candidates: {outcome.candidate_counts()}, {len(written)} written")
    return Output(outcome.candidates_table(), metadata=_candidate_metadata(outcome, len(written)))


def _candidate_metadata(outcome: FeedbackOutcome, written: int) -> dict:
    tally = outcome.tally()
    return {
        **tally_metadata(tally),
        "linked": tally.kept,
        "unlinked": tally.dropped.get("unknown_episode", 0),
        "candidates": MetadataValue.json(outcome.candidate_counts()),
        "written_for_review": written,
        "candidate_t_div": MetadataValue.json(
            [
                {"episode_id": d.episode_id, "turn_index": d.turn_index, "source": d.source}
                for d in outcome.divergences
            ]
        ),
        "top_ranked": MetadataValue.json(
            [
                {"episode_id": s.episode_id, "score": round(s.score, 4), **s.signals}
                for s in outcome.scores[:TOP_RANKED]
            ]
        ),
    }
