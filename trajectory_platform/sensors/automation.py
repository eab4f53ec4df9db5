"""Declarative automation: which assets follow their parents by themselves, and the sensor that runs it.

Four regimes, chosen by what an asset sits below and what it costs (docs/operations.md,
"Declarative automation" and "Per-day curation"):

- **The per-day curation** (``verified_traces`` / ``triage_report``, ``redacted_corpus``,
  partitioned by day like ``raw_traces``): :data:`PER_DAY_CONDITION`, eager day by day, so a new
  or changed day is verified and redacted by itself.
- **The global stages below the daily corpus** (``split_assignments``, ``training_mixture``,
  ``preference_pairs``: unpartitioned, reading every ``redacted_corpus`` day):
  :data:`OVER_DAYS_CONDITION`. ``eager()`` would never fire
  here: its ``~any_deps_missing`` looks at every mapped parent partition, one per day since
  2023-01-01, and most days never had logs. This condition drops that clause and asks instead that
  *some* day exists, so newly curated days rebuild them once (no waiting on days that will never
  come) while a day still running, or a day whose blocking check failed, holds them back.
- **The cheap chain below those** (``token_masked_dataset``, ``preference_dataset``):
  :data:`CURATION_CONDITION`, ``AutomationCondition.eager()`` held while a parent's latest
  blocking check failed. Their parents are unpartitioned, so "no parent missing" means "the parent
  exists", and eager is exactly "rebuild when a parent changes".
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

DEP_DATA_CHANGED = (
    AutomationCondition.data_version_changed() & ~AutomationCondition.executed_with_root_target()
).with_label("data_changed_without_root")
"""A parent (partition) whose data version changed since the last tick, by a run that did not
also build this asset. ``raw_traces`` versions each day by its content, so re-ingesting identical
files (the new-logs sensor's first tick after ``trajectory-platform run``, a touched folder)
changes nothing here; eager's ``newly_updated`` fired on every materialization, and a burst of
re-ingested days ended in one verification per tick that saw some of them land."""

OVER_DAYS_CONDITION = (
    AutomationCondition.eager()
    .without(~AutomationCondition.any_deps_missing())
    .replace("newly_updated_without_root", DEP_DATA_CHANGED)
    & SOME_DEP_PARTITION_PRESENT
    & NO_DEP_BLOCKING_CHECK_FAILED
).with_label("eager_over_present_partitions")
"""``eager()`` minus "no parent partition missing", with "a parent updated" narrowed to "a
parent's data changed" (:data:`DEP_DATA_CHANGED`), plus "some parent partition present" and "no
parent partition failed a blocking check".

Kept from eager: fire once per parent update since this asset was last requested or updated
(or when it goes missing); not while any parent partition or this asset is in progress (a
backfill of many days ends before the one re-verification); parent updates made by a run that
also materialized this asset (the nightly job) do not fire it again.
"""

PER_DAY_CONDITION = (
    AutomationCondition.eager()
    .without(AutomationCondition.in_latest_time_window())
    .replace("newly_updated_without_root", DEP_DATA_CHANGED)
    .replace(
        "any_deps_missing",
        AutomationCondition.any_deps_missing().ignore(AssetSelection.assets("task_environments")),
    )
    & NO_DEP_BLOCKING_CHECK_FAILED
).with_label("eager_per_day")
"""For the per-day curation assets (``verified_traces`` / ``triage_report``, ``redacted_corpus``),
partitioned like their parent day by day: ``eager()`` per day, where "no parent missing" means
that one day's parent (``task_environments``, materialized only after an ``env import``, may be
missing: the gym library still judges). Not limited to the latest day (eager's
``in_latest_time_window``): a log folder of an older day, ingested late, is verified and redacted
too. A day whose parent's data did not change, or whose parent failed a blocking check, is not
requested; a new ``task_environments`` requests every ingested day again."""

AUTOMATION_SENSOR_NAME = "automation_condition_sensor"

automation_condition_sensor = AutomationConditionSensorDefinition(
    AUTOMATION_SENSOR_NAME,
    target=AssetSelection.all(),
    default_status=DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=60,
    description="Evaluates the assets' automation conditions: a new raw_traces day is verified and redacted "
    "by itself, then the global curation stages rebuild up to token_masked_dataset. Training stays "
    "with retraining_sensor.",
)
"""Declared here (rather than Dagster's implicit ``default_automation_condition_sensor``) so its
name, interval and default status are the project's: on, like ``new_logs_sensor``, because
without it newly ingested days would never reach ``training_mixture`` (the retraining sensor's
input) unless someone turned the nightly schedule on."""
