"""Declarative automation: which assets follow their parents by themselves, and the sensor that runs it.

Three regimes, chosen by what an asset sits below and what it costs (docs/operations.md,
"Declarative automation"):

- **The cheap curation chain** (``redacted_corpus``, ``split_assignments``, ``training_mixture``,
  ``preference_pairs``, ``token_masked_dataset``): :data:`CURATION_CONDITION`,
  ``AutomationCondition.eager()`` held while a parent's latest blocking check failed. Their
  parents are unpartitioned, so "no parent missing" means "the parent exists", and eager is
  exactly "rebuild when a parent changes".
- **``verified_traces`` / ``triage_report``** (one multi-asset below the daily-partitioned
  ``raw_traces``, reading every partition): :data:`VERIFY_CONDITION`. ``eager()`` would never fire
  here: its ``~any_deps_missing`` looks at every mapped parent partition, one per day since
  2023-01-01, and most days never had logs. This condition drops that clause and asks instead that
  *some* day exists, so a newly ingested day re-verifies the corpus once (no waiting on days that
  will never come) while an ingestion still running, or a day whose blocking check failed, holds
  it back.
- **Not automated**: ``raw_traces`` / ``ingest_rejects`` and ``production_feedback`` (the new-logs
  and new-feedback sensors know which day folders changed; a condition cannot see files),
  ``checkpoint`` and ``scorecard`` (minutes of training in the single-slot ``train`` pool; the
  retraining sensor decides when new data is worth it, and an eager condition would retrain on
  every new day); ``feedback_candidates`` (materialized on request: candidate environments cost
  sandboxed oracle runs, and they are proposals a person reviews); ``task_environments`` (it reads
  a folder that ``trajectory-platform env import`` changes: materialize it after an import, and
  the verified corpus, downstream of it, follows).

Blocking checks stop a downstream step only inside the run that failed them; across runs, each
condition here asks for them itself, so automation never builds on a parent its checks rejected.
Fixing the parent (a passing re-materialization) releases the hold.
"""

from __future__ import annotations

from dagster import (
    AssetSelection,
    AutomationCondition,
    AutomationConditionSensorDefinition,
    DefaultSensorStatus,
)

NO_DEP_BLOCKING_CHECK_FAILED = ~AutomationCondition.any_deps_match(
    AutomationCondition.any_checks_match(AutomationCondition.check_failed(), blocking_only=True)
).with_label("no_dep_blocking_check_failed")
"""No parent (partition)'s latest blocking check failed. Not Dagster's
``all_deps_blocking_checks_passed``: below the daily ``raw_traces`` that would ask every day since
2023-01-01 for a passed check (the eager trap again), and it would also hold a child whose parent
was materialized without its checks selected."""

CURATION_CONDITION = (AutomationCondition.eager() & NO_DEP_BLOCKING_CHECK_FAILED).with_label(
    "eager_unless_blocked"
)
"""Rebuild when an (unpartitioned) parent updates; never while a parent is missing or running, or
while a parent's latest blocking check failed."""

SOME_DEP_PARTITION_PRESENT = AutomationCondition.any_deps_match(
    ~AutomationCondition.missing() | AutomationCondition.will_be_requested()
).with_label("some_dep_partition_present")
"""At least one parent partition exists (or is being requested): there is something to read."""

VERIFY_CONDITION = (
    AutomationCondition.eager().without(~AutomationCondition.any_deps_missing())
    & SOME_DEP_PARTITION_PRESENT
    & NO_DEP_BLOCKING_CHECK_FAILED
).with_label("eager_over_present_partitions")
"""``eager()`` minus "no parent partition missing", plus "some parent partition present" and "no
parent partition failed a blocking check".

Kept from eager: fire once per parent update since this asset was last requested or updated
(or when it goes missing); not while any parent partition or this asset is in progress (a
backfill of many days ends before the one re-verification); parent updates made by a run that
also materialized this asset (the nightly job) do not fire it again.
"""

AUTOMATION_SENSOR_NAME = "automation_condition_sensor"

automation_condition_sensor = AutomationConditionSensorDefinition(
    AUTOMATION_SENSOR_NAME,
    target=AssetSelection.all(),
    default_status=DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=60,
    description="Evaluates the assets' automation conditions: a new raw_traces day re-verifies the corpus, "
    "a new verified_traces rebuilds the curation chain up to token_masked_dataset. Training stays "
    "with retraining_sensor.",
)
"""Declared here (rather than Dagster's implicit ``default_automation_condition_sensor``) so its
name, interval and default status are the project's: on, like ``new_logs_sensor``, because
without it newly ingested days would never reach ``training_mixture`` (the retraining sensor's
input) unless someone turned the nightly schedule on."""
