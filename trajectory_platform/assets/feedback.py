"""``production_feedback`` and ``feedback_candidates``: users' signals on a deployed agent, and the
task environments their edits propose.

``production_feedback`` reads one day of ``<workdir>/feedback_source/<YYYY-MM-DD>/*.jsonl`` (the
``feedback_source`` resource: a tree apart from the trace source, so ingestion never reads
feedback as traces) with :func:`~trajectory_platform.traces.feedback.read_feedback_files`: one row
per record, every bad line a counted drop naming its file and line.

``feedback_candidates`` links all feedback to the episodes of ``redacted_corpus`` (every day, read
as its Parquet files) by ``episode_id`` (feedback on an episode ``redaction_rejects`` names is
counted with that stage's reason), redacts each user's edit with its episode under the
corpus's salt (``secrets_salt``), turns each edit on an episode of a registered environment into a
candidate environment, validates it in the sandbox and writes the validated ones to
``artifacts/feedback_candidates/`` for a person to import
(:func:`~trajectory_platform.curation.feedback_candidates.propose_candidates`). It reads the
redacted corpus, not ``verified_traces``: a candidate's reference is stored and imported, and
secrets reach nothing but the redaction engine. Nothing here feeds the verifier cascade: feedback
never changes a sink.
"""

import datetime as dt
from pathlib import Path

import pyarrow as pa
from dagster import AssetExecutionContext, AssetIn, BackfillPolicy, MetadataValue, Output, asset

from trajectory_platform.assets._house import declared, tally_metadata
from trajectory_platform.curation.feedback_candidates import propose_candidates
from trajectory_platform.environments.from_feedback import CANDIDATE_SCHEMA, FeedbackOutcome, ReviewFolder
from trajectory_platform.environments.registry import EnvironmentCatalog
from trajectory_platform.resources import TraceSourceResource, WorkdirResource
from trajectory_platform.resources.partitions import DAILY_PARTITIONS
from trajectory_platform.resources.secrets import SecretsSaltResource
from trajectory_platform.resources.warehouse import LOAD_KEY, PARQUET_FILES
from trajectory_platform.traces.feedback import (
    FEEDBACK_SCHEMA,
    FeedbackBatch,
    discover_feedback_files,
    read_feedback_files,
)

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
    ins={
        "production_feedback": AssetIn(),
        "redacted_corpus": AssetIn(metadata={LOAD_KEY: PARQUET_FILES}),
        "redaction_rejects": AssetIn(),
    },
    description="Each user edit on an episode of a registered environment as a candidate environment "
    "(same S0, oracle and tools; the edited end state as its reference), built from the redacted corpus "
    "and the edit redacted with its episode, with its validation verdict; validated ones are written to "
    "artifacts/feedback_candidates/ for review and import.",
    **declared("curation", CANDIDATE_SCHEMA),
)
def feedback_candidates(
    context: AssetExecutionContext,
    workdir: WorkdirResource,
    secrets_salt: SecretsSaltResource,
    production_feedback: pa.Table,
    redacted_corpus: list[Path],
    redaction_rejects: pa.Table,
) -> Output:
    """Link feedback to redacted episodes, keep edits on policy gaps (triage first), redact each edit
    with its episode, derive candidates, validate them, write the valid ones."""
    outcome, folder = propose_candidates(
        production_feedback,
        redacted_corpus,
        redaction_rejects,
        EnvironmentCatalog(workdir.environments_dir).get,
        secrets_salt.key(),
        workdir.artifact_dir("feedback_candidates"),
    )
    context.log.info(
        f"feedback candidates: {outcome.candidate_counts()}, {len(folder.written)} for review, "
        f"{len(folder.removed)} stale removed"
    )
    return Output(outcome.candidates_table(), metadata=_candidate_metadata(outcome, folder))


def _candidate_metadata(outcome: FeedbackOutcome, folder: ReviewFolder) -> dict:
    tally = outcome.tally()
    return {
        **tally_metadata(tally),
        "linked": tally.kept,
        "unlinked": tally.dropped.get("unknown_episode", 0) + tally.dropped.get("left_out_by_redaction", 0),
        "candidates": MetadataValue.json(outcome.candidate_counts()),
        "written_for_review": len(folder.written),
        "stale_removed": len(folder.removed),
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
