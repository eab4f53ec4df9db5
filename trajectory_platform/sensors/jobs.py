"""Named jobs, one per stage: what the platform itself launches runs under.

A run launched with a bare asset selection (``materialize``, a sensor whose target is a
selection) lands in the run list as ``__ephemeral_asset_job__`` or ``__anonymous_asset_job_*``,
which tells a person nothing. Every run the platform starts (``trajectory-platform run``'s
steps, the new-logs / new-feedback / retraining sensors' requests, the schedules) goes through
one of these jobs instead, selecting the stage's assets, so the run list says which stage ran.

The stage jobs cover every asset exactly once (``tests/dagster/test_dagster_jobs.py`` holds them
to it); the retraining job spans three stages because one retraining is one run. Selections by
key string and by group resolve in a code location without some stage too (the sensors' tests).
"""

from __future__ import annotations

from dagster import AssetSelection, define_asset_job

from trajectory_platform.resources.partitions import ROUND_PARTITIONS

INGEST_JOB = define_asset_job(
    "ingest_job",
    selection=AssetSelection.from_string('key:"raw_traces" or key:"ingest_rejects"'),
    description="Ingest trace-source day folders into raw_traces / ingest_rejects, one run per day or range.",
)

FEEDBACK_JOB = define_asset_job(
    "feedback_job",
    selection=AssetSelection.from_string('key:"production_feedback"'),
    description="Ingest feedback-source day folders into production_feedback.",
)

CURATION_JOB = define_asset_job(
    "curation_job",
    selection=AssetSelection.groups("curation"),
    description="Verify, triage, redact, split, mix and pair the corpus (the curation group).",
)

DATASET_JOB = define_asset_job(
    "dataset_job",
    selection=AssetSelection.from_string('key:"token_masked_dataset" or key:"preference_dataset"'),
    description="Tokenize the mixture and the preference pairs into training rows.",
)

TRAINING_JOB = define_asset_job(
    "training_job",
    selection=AssetSelection.from_string('key:"checkpoint"'),
    description="Train the checkpoint (SFT / DPO / LoRA) on the token datasets.",
)

EVALUATION_JOB = define_asset_job(
    "evaluation_job",
    selection=AssetSelection.from_string('key:"scorecard"'),
    description="Closed-loop evaluation of the checkpoint: the scorecard and the release decision.",
)

ROUND_JOB = define_asset_job(
    "round_job",
    selection=AssetSelection.groups("rounds"),
    partitions_def=ROUND_PARTITIONS,
    description="One self-improvement round (a round partition): sample with the last checkpoint, "
    "verify, mix, tokenize, train and score; the round sensor requests it when a round promotes.",
)

STAGE_JOBS = (INGEST_JOB, FEEDBACK_JOB, CURATION_JOB, DATASET_JOB, TRAINING_JOB, EVALUATION_JOB, ROUND_JOB)
"""One job per stage, in pipeline order; together they select every asset exactly once."""

RETRAIN_ASSETS = ("token_masked_dataset", "preference_dataset", "checkpoint", "scorecard")
"""Rebuilt on retraining: the datasets from the current mixture and pairs, the checkpoint, its scorecard."""

RETRAINING_JOB = define_asset_job(
    "retraining_job",
    selection=AssetSelection.from_string(" or ".join(f'key:"{k}"' for k in RETRAIN_ASSETS)),
    description="Rebuild the token datasets, retrain the checkpoint and score it: one retraining.",
)
