"""Per-day curation: ``verified_traces`` / ``triage_report`` and ``redacted_corpus`` share
``raw_traces``' days, so a new day verifies and redacts only its own episodes.

Episodes are tiny native logs on a real gym fixture (its reference diff is admitted, its S0 is a
hard negative), judged by the real sealed oracle in the sandbox; every oracle run is counted. One
module-scoped workdir carries three days through the real assets, the way ``trajectory-platform
run`` drives them (:func:`~trajectory_platform.commands.run.plan`), so the slow part happens once.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from dagster import (
    AssetKey,
    AssetRecordsFilter,
    BackfillPolicy,
    DagsterInstance,
    evaluate_automation_conditions,
    materialize,
)

import trajectory_platform.curation.verify.dynamic as dynamic
from trajectory_platform.assets.raw import raw_traces
from trajectory_platform.assets.verified import verified_traces
from trajectory_platform.commands.run import plan
from trajectory_platform.curation.day_figures import corpus_redaction, corpus_verification
from trajectory_platform.definitions import bound_to, defs, stage_job
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.resources import build_resources, read_asset_table
from trajectory_platform.resources.facts import latest_metadata, reported_figures
from trajectory_platform.traces.record import Episode, Event, Outcome, TaskIdentity

pytestmark = pytest.mark.filterwarnings("ignore::dagster.PreviewWarning", "ignore::dagster.BetaWarning")

DAYS = ["2024-03-01", "2024-03-02", "2024-03-03"]
EPISODES_PER_DAY = {DAYS[0]: 2, DAYS[1]: 1, DAYS[2]: 1}
CURATION = ("verified_traces", "triage_report", "redacted_corpus")


def _episode(day: str, index: int) -> Episode:
    """A native log on the library's first fixture: even indices fix the bug, odd ones do not."""
    fixture = build_library(0)[0]
    final = fixture.reference_files if index % 2 == 0 else fixture.s0_files
    return Episode(
        episode_id=f"{day}-ep-{index}",
        source_format="native",
        source_file="agent.jsonl",
        source_line=index + 1,
        source_path=None,
        partition_date=None,
        task=TaskIdentity(fixture_id=fixture.fixture_id),
        events=[Event("user", content=fixture.prompt), Event("assistant", content="done")],
        outcome=Outcome(
            terminal_status="completed",
            final_answer="done",
            workspace_diff=unified_diff(fixture.s0_files, final),
        ),
    )


def _write_day(source: Path, day: str) -> None:
    path = source / day / "agent.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(_episode(day, i).to_dict()) for i in range(EPISODES_PER_DAY[day])]
    path.write_text("\n".join(lines) + "\n")


@dataclass
class History:
    """What happened to one workdir: oracle runs per verification run, automation ticks, checks."""

    workdir: Path
    instance: DagsterInstance
    oracle_runs: dict[str, int] = field(default_factory=dict)
    """Sandboxed oracle runs made while a day's ``verified_traces`` ran, by day."""
    requested: list[dict[str, set[str]]] = field(default_factory=list)
    """Each automation tick: asset -> the partitions (or ``{"all"}``) it requested."""
    checks: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    """Check evaluations by (asset, partition, check)."""


def _tick(instance: DagsterInstance, cursor: str | None) -> tuple[dict[str, set[str]], str]:
    """One automation sensor tick over the code location: what it requests, and the next cursor."""
    result = evaluate_automation_conditions(defs=defs, instance=instance, cursor=cursor)
    requested = {
        r.key.to_user_string(): (
            set(r.true_subset.expensively_compute_partition_keys())
            if r.true_subset.is_partitioned
            else {"all"}
        )
        for r in result.results
        if r.true_subset.size
    }
    return requested, result.cursor


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[History]:
    """Days 1 and 2 ingested and curated as ``run`` plans it (raw once over the range, then one run
    per day for verification and redaction); then day 3 arrives, automation is asked what to do,
    and day 3 is curated. Oracle runs are counted per verification run."""
    workdir = tmp_path_factory.mktemp("per_day")
    resources = build_resources(workdir)
    located = bound_to(resources)
    source = workdir / "trace_source"
    with DagsterInstance.ephemeral() as instance:  # the module's tests read it; closed after the last
        record = History(workdir, instance)
        calls: list[int] = []
        real_run_oracle = dynamic.run_oracle

        def counted(*args, **kwargs):
            calls.append(1)
            return real_run_oracle(*args, **kwargs)

        def ingest(days: list[str]) -> None:
            """``raw_traces`` over ``days`` in one run, as ``run`` plans it (its separate Great
            Expectations checks, seconds each, are not this test's subject)."""
            for day in days:
                _write_day(source, day)
            [kwargs] = next(step.runs for step in plan(defs, days) if "raw_traces" in step.names)
            assert materialize([raw_traces], instance=instance, resources=resources, **kwargs).success

        def curate(days: list[str]) -> None:
            for step in plan(defs, days):
                if not set(step.names) & set(CURATION):
                    continue
                for kwargs in step.runs:
                    before = len(calls)
                    result = stage_job(located, step.assets_def.keys).execute_in_process(
                        asset_selection=list(step.assets_def.keys),
                        instance=instance,
                        raise_on_error=False,
                        **kwargs,
                    )
                    assert result.success, (step.names, kwargs)
                    for evaluation in result.get_asset_check_evaluations():
                        assert evaluation.passed or evaluation.check_name == "yield_in_declared_band"
                        key = (
                            evaluation.asset_key.to_user_string(),
                            evaluation.partition,
                            evaluation.check_name,
                        )
                        record.checks[key] += 1
                    if "verified_traces" in step.names:
                        record.oracle_runs[kwargs["partition_key"]] = len(calls) - before

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(dynamic, "run_oracle", counted)
            _, cursor = _tick(instance, None)  # the first evaluation, before any log
            ingest(DAYS[:2])
            curate(DAYS[:2])
            requested, cursor = _tick(instance, cursor)
            record.requested.append(requested)
            ingest(DAYS[2:])
            requested, cursor = _tick(instance, cursor)
            record.requested.append(requested)
            curate(DAYS[2:])
        yield record


def test_per_day_curation_assets_share_raw_days_and_run_one_day_per_backfill_run() -> None:
    graph = defs.resolve_asset_graph()
    raw = graph.get(AssetKey("raw_traces")).partitions_def
    for name in CURATION:
        node = graph.get(AssetKey(name))
        assert node.partitions_def == raw
        assert node.backfill_policy == BackfillPolicy.multi_run(max_partitions_per_run=1)
    for name in ("split_assignments", "training_mixture", "preference_pairs"):
        assert graph.get(AssetKey(name)).partitions_def is None  # global stages read every day


def test_a_new_day_verifies_only_its_own_episodes(history: History) -> None:
    """Every oracle run a day's verification made was for that day's episodes (its own ledger
    accounts for all of them), so days 2 and 3 (one admitted episode each) cost one episode's runs,
    less than day 1 (that episode and a hard negative), whatever was verified before them."""
    runs = history.oracle_runs
    assert 0 < runs[DAYS[1]] == runs[DAYS[2]] < runs[DAYS[0]]
    for day in DAYS:
        [event] = history.instance.fetch_materializations(
            AssetRecordsFilter(asset_key=AssetKey("verified_traces"), asset_partitions=[day]), limit=5
        ).records
        metadata = event.asset_materialization.metadata
        assert metadata["episodes"].value == EPISODES_PER_DAY[day]
        assert metadata["ledger"].data["oracle_runs"] == history.oracle_runs[day]


def test_automation_requests_only_the_new_day_and_nothing_when_nothing_is_new(history: History) -> None:
    nothing_new, new_day = history.requested
    assert not set(nothing_new) & {*CURATION, "raw_traces"}
    assert {name: new_day.get(name) for name in ("verified_traces", "triage_report")} == {
        "verified_traces": {DAYS[2]},
        "triage_report": {DAYS[2]},
    }
    assert new_day.get("redacted_corpus") == {DAYS[2]}  # joins the request; its parent is requested
    assert "raw_traces" not in new_day  # the new-logs sensor's job


def _days_by_run(instance: DagsterInstance, asset: str) -> list[tuple[str, ...]]:
    """The days each run materialized of ``asset``, one sorted tuple per run."""
    records = instance.fetch_materializations(AssetKey(asset), limit=100).records
    runs: dict[str, list[str]] = {}
    for record in records:
        runs.setdefault(record.run_id, []).append(record.partition_key)
    return sorted(tuple(sorted(days)) for days in runs.values())


def test_a_multi_day_range_is_one_run_per_day_with_per_partition_checks(history: History) -> None:
    """Days 1-2 arrived together: ingest ran them as one range, curation as one run per day."""
    assert _days_by_run(history.instance, "raw_traces") == [tuple(DAYS[:2]), (DAYS[2],)]
    for name in CURATION:
        assert _days_by_run(history.instance, name) == [(day,) for day in DAYS], name
    for asset in ("verified_traces", "redacted_corpus"):
        judged = {(day, check) for a, day, check in history.checks if a == asset}
        names = {check for _, check in judged}
        assert len(names) >= 4 and judged == {(day, name) for day in DAYS for name in names}


def test_rows_carry_their_day_and_a_global_stage_reads_every_day(history: History) -> None:
    for name in ("verified_traces", "redacted_corpus"):
        table = read_asset_table(history.workdir, name, columns=["episode_id", "partition_date"])
        days = Counter(d.date().isoformat() for d in table["partition_date"].to_pylist())
        assert days == Counter(EPISODES_PER_DAY), name
    located = bound_to(build_resources(history.workdir))
    key = AssetKey("split_assignments")  # unpartitioned, through the (daily) curation job as run does
    result = stage_job(located, [key]).execute_in_process(asset_selection=[key], instance=history.instance)
    assert result.success
    splits = read_asset_table(history.workdir, "split_assignments")
    ids = sorted(splits["episode_id"].to_pylist())
    assert ids == sorted(f"{day}-ep-{i}" for day, n in EPISODES_PER_DAY.items() for i in range(n))


def test_a_range_run_of_a_per_day_asset_is_refused_with_the_range(
    history: History, instance: DagsterInstance
) -> None:
    tags = {"dagster/asset_partition_range_start": DAYS[0], "dagster/asset_partition_range_end": DAYS[1]}
    result = materialize(
        [raw_traces, verified_traces],
        selection=["verified_traces", "triage_report"],
        tags=tags,
        resources=build_resources(history.workdir),
        instance=instance,
        raise_on_error=False,
    )
    assert not result.success
    [failure] = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert "runs one day per run, not 2 (2024-03-01..2024-03-02)" in str(failure.step_failure_data.error)


def test_corpus_wide_readers_see_every_day_figures(history: History) -> None:
    """The scorecard's and export's ``upstream_facts`` add the days up instead of taking the last day."""
    verified = reported_figures(history.instance, "verified_traces")
    assert verified["days"] == 3 and verified["episodes"] == sum(EPISODES_PER_DAY.values())
    assert sum(verified["sinks"].values()) == verified["records_in"] == verified["episodes"]
    redacted = reported_figures(history.instance, "redacted_corpus")
    per_day = [
        latest_metadata(history.instance, "redacted_corpus", day)["canaries"]["injected"] for day in DAYS
    ]
    assert redacted["canaries"]["injected"] == sum(per_day) > 0 and redacted["leak_rate"] == 0.0
    assert redacted["leak_sample_records"] == sum(EPISODES_PER_DAY.values())  # small days: every record


def test_pooled_r_flake_and_leak_interval_over_days() -> None:
    """R_flake pools episodes (1 of 2 judged + 0 of 8 is 0.1, not the days' mean 0.25); Λ_leak's
    interval comes from all canaries (narrower than either day's)."""
    days = [
        {"episodes": 2, "c_attempt_s": 1.0, "ledger": {"dynamic_verified": 2, "inconsistent": 1}},
        {"episodes": 8, "c_attempt_s": 0.5, "ledger": {"dynamic_verified": 8, "inconsistent": 0}},
    ]
    figures = corpus_verification(days)
    assert figures["r_flake"] == 0.1 and figures["c_attempt_s"] == 0.6
    one_day = {"canaries": {"injected": 200, "leaked": 0, "records_planted": 40}}
    both = corpus_redaction([one_day, one_day])
    single = corpus_redaction([one_day])
    assert both["canaries"]["injected"] == 400 and both["leak_sample_records"] == 80
    assert both["leak_rate_interval"][1] < single["leak_rate_interval"][1]
