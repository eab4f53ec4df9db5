"""Declarative automation evaluated tick by tick, the way the automation sensor does.

Real runs (a day of logs ingested, the corpus verified) land in an in-memory instance; between
them ``evaluate_automation_conditions`` plays the sensor's ticks over the code location's own
definitions and says which assets a tick would request.
"""

from collections.abc import Callable
from pathlib import Path

import pytest
from dagster import (
    AssetCheckResult,
    AssetKey,
    AutomationCondition,
    AutomationConditionSensorDefinition,
    Config,
    DagsterInstance,
    DailyPartitionsDefinition,
    DefaultSensorStatus,
    Definitions,
    asset,
    asset_check,
    evaluate_automation_conditions,
    materialize,
)
from dagster._core.definitions.declarative_automation.automation_condition import AutomationResult

from trajectory_platform.assets.raw import raw_traces
from trajectory_platform.assets.redacted import redacted_corpus
from trajectory_platform.assets.verified import verified_traces
from trajectory_platform.definitions import defs
from trajectory_platform.resources import build_resources
from trajectory_platform.sensors.automation import (
    AUTOMATION_SENSOR_NAME,
    CURATION_CONDITION,
    OVER_DAYS_CONDITION,
    PER_DAY_CONDITION,
)

pytestmark = pytest.mark.filterwarnings("ignore::dagster.PreviewWarning", "ignore::dagster.BetaWarning")

CURATION_CHAIN = {
    "redacted_corpus",
    "redaction_rejects",
    "split_assignments",
    "training_mixture",
    "preference_pairs",
    "token_masked_dataset",
    "preference_dataset",
}
VERIFY_STAGE = {"verified_traces", "triage_report"}
REDACT_STAGE = {"redacted_corpus", "redaction_rejects"}
PER_DAY = VERIFY_STAGE | REDACT_STAGE
"""Partitioned by day like ``raw_traces``: a new day is verified and redacted by itself."""
ACROSS_DAYS = {"split_assignments", "training_mixture", "preference_pairs"}
"""Unpartitioned, right below the daily corpus: they read every day, once the day is curated."""
ROUND_DRIVEN = {
    "policy_rollouts",
    "round_verified",
    "round_dagger",
    "round_mixture",
    "round_dataset",
    "round_checkpoint",
}
SENSOR_DRIVEN = {
    "raw_traces",
    "ingest_rejects",
    "production_feedback",
    "checkpoint",
    "scorecard",
    "round_scorecard",
}
SENSOR_DRIVEN |= ROUND_DRIVEN  # the round sensor starts a round: no automation condition chains rounds
MANUAL = {"feedback_candidates", "task_environments"}
"""Materialized on request (or by ``trajectory-platform run``): no sensor watches the feedback source."""


class Ticker:
    """Successive automation ticks over one instance, carrying the cursor like the sensor does."""

    def __init__(self, definitions: Definitions, instance: DagsterInstance) -> None:
        self.definitions, self.instance, self.cursor, self.last = definitions, instance, None, None

    def __call__(self) -> set[str]:
        """Evaluate once; the asset names this tick requests."""
        self.last = evaluate_automation_conditions(
            defs=self.definitions, instance=self.instance, cursor=self.cursor
        )
        self.cursor = self.last.cursor
        return {r.key.to_user_string() for r in self.last.results if r.true_subset.size}


def _find(result: AutomationResult, label: str) -> AutomationResult | None:
    """The sub-result whose condition carries ``label`` (depth first)."""
    if result.condition.get_label() == label:
        return result
    return next((f for c in result.child_results if (f := _find(c, label)) is not None), None)


class Pipeline:
    """Real runs on one instance: ``ingest`` a day of logs, ``verify`` the corpus, or both in one run."""

    def __init__(self, instance: DagsterInstance, resources: dict, log_writer: Callable[..., Path]) -> None:
        self.instance, self.resources, self.log_writer = instance, resources, log_writer

    def ingest(self, day: str, verify: bool = False) -> None:
        """Write a log file for ``day`` and run ``raw_traces`` for it (and verification in the same run)."""
        self.log_writer(day, good=2)
        assets = [raw_traces, verified_traces] if verify else [raw_traces]
        assert materialize(
            assets, partition_key=day, resources=self.resources, instance=self.instance
        ).success

    def verify(self, day: str) -> None:
        """Run the real verifier multi-asset over one ingested day, by itself (as from the UI)."""
        result = materialize(
            [raw_traces, verified_traces],
            selection=sorted(VERIFY_STAGE),
            partition_key=day,
            resources=self.resources,
            instance=self.instance,
        )
        assert result.success

    def redact(self, day: str) -> None:
        """Run the real redaction of one verified day, by itself."""
        result = materialize(
            [raw_traces, verified_traces, redacted_corpus],
            selection=sorted(REDACT_STAGE),
            partition_key=day,
            resources=self.resources,
            instance=self.instance,
        )
        assert result.success


@pytest.fixture
def pipeline(instance: DagsterInstance, tmp_path: Path, log_writer: Callable[..., Path]) -> Pipeline:
    return Pipeline(instance, build_resources(tmp_path), log_writer)


def test_dagster_automation_conditions_where_they_fit() -> None:
    graph = defs.resolve_asset_graph()
    condition = {k.to_user_string(): graph.get(k).automation_condition for k in graph.get_all_asset_keys()}
    assert {name for name, c in condition.items() if c is None} == SENSOR_DRIVEN | MANUAL
    assert {name for name, c in condition.items() if c == CURATION_CONDITION} == CURATION_CHAIN - (
        PER_DAY | ACROSS_DAYS
    )
    assert {name for name, c in condition.items() if c == OVER_DAYS_CONDITION} == ACROSS_DAYS
    assert {name for name, c in condition.items() if c == PER_DAY_CONDITION} == PER_DAY


def test_dagster_automation_sensor_is_declared_and_on() -> None:
    """The project's own sensor covers every condition, so Dagster adds no implicit default one."""
    sensor = next(s for s in defs.sensors if s.name == AUTOMATION_SENSOR_NAME)
    assert isinstance(sensor, AutomationConditionSensorDefinition)
    assert sensor.default_status == DefaultSensorStatus.RUNNING
    names = {s.name for s in defs.get_repository_def().sensor_defs}
    assert AUTOMATION_SENSOR_NAME in names and "default_automation_condition_sensor" not in names


def test_dagster_automation_new_day_reverifies_once(pipeline: Pipeline) -> None:
    tick = Ticker(defs, pipeline.instance)
    assert tick() == set()  # nothing ingested: nothing to verify, curation waits on missing parents

    pipeline.ingest("2024-03-01")  # what new_logs_sensor's run does
    requested = tick()
    assert requested >= VERIFY_STAGE  # the multi-asset is requested whole
    assert requested == PER_DAY  # redaction joins that day's request (its parent will be requested)
    assert not requested & SENSOR_DRIVEN  # never raw (new-logs sensor), never training (retraining sensor)

    assert tick() == set()  # that day was handled: no second request

    pipeline.ingest("2024-03-02")  # another day of logs
    assert tick() >= VERIFY_STAGE


def test_dagster_automation_identical_reingest_starts_no_curation(pipeline: Pipeline) -> None:
    """Identical files ingested again (touched, or the new-logs sensor's first tick after
    ``trajectory-platform run``) start no verification, day by day or all at once; new content does."""
    tick = Ticker(defs, pipeline.instance)
    tick()
    pipeline.ingest("2024-03-01")
    pipeline.ingest("2024-03-02")
    assert tick() >= VERIFY_STAGE  # new data: one request
    pipeline.ingest("2024-03-01")  # the same files again, in separate runs with ticks between
    assert tick() == set()
    pipeline.ingest("2024-03-02")
    assert tick() == set()
    assert tick() == set()
    pipeline.log_writer("2024-03-02", good=3)  # a day whose content changed
    assert materialize(
        [raw_traces], partition_key="2024-03-02", resources=pipeline.resources, instance=pipeline.instance
    ).success
    assert tick() >= VERIFY_STAGE


def test_dagster_automation_eager_trap_below_daily_partitions(pipeline: Pipeline) -> None:
    """Plain ``eager()`` on an unpartitioned child of a daily asset (the global stages below
    ``redacted_corpus``) never fires: most of its ~1400 parent days are missing."""

    @asset(deps=[raw_traces], automation_condition=AutomationCondition.eager())
    def eager_child() -> None:
        return None

    @asset(deps=[raw_traces], automation_condition=OVER_DAYS_CONDITION)
    def across_days_child() -> None:
        return None

    tick = Ticker(
        Definitions(assets=[raw_traces, eager_child, across_days_child], resources=pipeline.resources),
        pipeline.instance,
    )
    tick()
    pipeline.ingest("2024-03-01")
    assert tick() == {"across_days_child"}
    trapped = next(r for r in tick.last.results if r.key == AssetKey("eager_child"))
    blocking = _find(trapped, "any_deps_missing")
    assert blocking is not None and blocking.true_subset.size == 1  # blocked by the days without logs


def test_dagster_automation_verified_update_rebuilds_curation_not_training(pipeline: Pipeline) -> None:
    tick = Ticker(defs, pipeline.instance)
    pipeline.ingest("2024-03-01")
    assert tick() == set()  # the first evaluation takes what already exists as handled
    pipeline.verify("2024-03-01")  # a verified day materialized (e.g. from the UI with another config)
    assert tick() == REDACT_STAGE  # that day's redaction; not verified again
    pipeline.redact("2024-03-01")
    assert tick() == CURATION_CHAIN - REDACT_STAGE  # the global stages, once; not checkpoint
    assert tick() == set()


def test_dagster_automation_nightly_style_run_does_not_reverify(pipeline: Pipeline) -> None:
    """A run that ingested a day AND verified (the nightly job) leaves no verification to request."""
    tick = Ticker(defs, pipeline.instance)
    tick()
    pipeline.ingest("2024-03-01", verify=True)
    requested = tick()
    assert not requested & VERIFY_STAGE and requested == REDACT_STAGE


class GateConfig(Config):
    rows: int = 1


def _gated_definitions(condition: AutomationCondition, partitions: DailyPartitionsDefinition | None):
    """A parent with a blocking check (fails when ``rows`` < 1) and a child under ``condition``."""

    @asset(partitions_def=partitions)
    def parent(config: GateConfig) -> int:
        return config.rows

    @asset_check(asset=parent, blocking=True, partitions_def=partitions)
    def parent_has_rows(parent: int) -> AssetCheckResult:
        return AssetCheckResult(passed=parent >= 1)

    @asset(deps=[parent], automation_condition=condition)
    def child() -> None:
        return None

    return parent, parent_has_rows, child, Definitions(assets=[parent, child], asset_checks=[parent_has_rows])


@pytest.mark.parametrize("partitioned", [False, True], ids=["curation", "verify"])
def test_dagster_automation_holds_children_of_a_failed_blocking_check(
    partitioned: bool, instance: DagsterInstance
) -> None:
    """Across runs, a parent whose blocking check failed is not built upon until it is fixed."""
    days = DailyPartitionsDefinition(start_date="2024-01-01") if partitioned else None
    parent, check, child, definitions = _gated_definitions(
        OVER_DAYS_CONDITION if partitioned else CURATION_CONDITION, days
    )

    def load(rows: int, day: str) -> None:
        materialize(
            [parent, check],
            instance=instance,
            partition_key=day if partitioned else None,
            run_config={"ops": {"parent": {"config": {"rows": rows}}}},
            raise_on_error=False,
        )

    def build_child() -> None:  # the run the sensor would launch for a request
        assert materialize([parent, child], selection=[child], instance=instance).success

    tick = Ticker(definitions, instance)
    tick()
    load(1, "2024-01-01")
    assert tick() == {"child"}
    build_child()
    assert tick() == set()
    load(0, "2024-01-02")  # the check fails: the child's trigger waits (plain eager would fire)
    assert tick() == set()
    assert tick() == set()
    load(3, "2024-01-02")  # the same parent (day) fixed: one rebuild
    assert tick() == {"child"}
