"""Rounds as Dagster partitions: the partitions and the job exist, the round assets form the chain
with the collapse watch blocking on the verified samples, and the round sensor starts round i+1 only
when round i's scorecard promotes (and its collapse watch passed), once per round."""

from __future__ import annotations

import dataclasses

import pytest
from dagster import (
    AssetKey,
    AssetMaterialization,
    DagsterInstance,
    SkipReason,
    build_sensor_context,
)

from trajectory_platform.assets.rounds import corpus_verify_settings
from trajectory_platform.curation.verify.cascade import VerifySettings
from trajectory_platform.definitions import defs
from trajectory_platform.resources.partitions import ROUND_PARTITIONS, round_index
from trajectory_platform.resources.stage_config import SETTINGS_KEY
from trajectory_platform.sensors.rounds import round_sensor

pytestmark = pytest.mark.filterwarnings("ignore::dagster.PreviewWarning", "ignore::dagster.BetaWarning")

CHAIN = [
    "policy_rollouts",
    "round_verified",
    "round_mixture",
    "round_dataset",
    "round_checkpoint",
    "round_scorecard",
]


DAGGER = "round_dagger"
"""The round's DAgger records: a third output of the collection step, read by the round's mixture."""


def test_the_round_assets_are_partitioned_by_round_and_run_by_the_round_job() -> None:
    graph = defs.resolve_asset_graph()
    for name in [*CHAIN, DAGGER]:
        assert graph.get(AssetKey(name)).partitions_def == ROUND_PARTITIONS, name
    job = defs.resolve_job_def("round_job")
    assert job.partitions_def == ROUND_PARTITIONS
    assert {k.to_user_string() for k in job.asset_layer.selected_asset_keys} == {*CHAIN, DAGGER}
    for upstream, downstream in zip(CHAIN, CHAIN[1:], strict=False):
        assert AssetKey(upstream) in graph.get(AssetKey(downstream)).parent_keys, downstream
    assert graph.get(AssetKey(DAGGER)).parent_keys == {AssetKey("policy_rollouts")}
    assert AssetKey(DAGGER) in graph.get(AssetKey("round_mixture")).parent_keys
    # round 1 estimates p from its own sampler, not from the corpus's scripted outcomes
    assert AssetKey("verified_traces") not in graph.get(AssetKey("policy_rollouts")).parent_keys
    [check] = [k for k in graph.asset_check_keys if k.asset_key == AssetKey("round_verified")]
    assert check.name == "collapse_watch" and graph.get_check_spec(check).blocking
    assert round_index("3") == 3
    for bad in ("0", "-1", "01", "r1", ""):
        with pytest.raises(ValueError, match="round number"):
            round_index(bad)


def _scorecard(instance: DagsterInstance, key: str, decision: str, halt: bool = False) -> None:
    """A round's verified samples and scorecard as their materializations record them."""
    instance.add_dynamic_partitions(ROUND_PARTITIONS.name, [key])
    verified = {"collapse_halt": halt, "collapse_reasons": ["acceptance fell"] if halt else []}
    instance.report_runless_asset_event(
        AssetMaterialization("round_verified", partition=key, metadata=verified)
    )
    card = {"decision": decision, "reasons": [f"round {key} {decision}"]}
    instance.report_runless_asset_event(AssetMaterialization("round_scorecard", partition=key, metadata=card))


def test_the_round_sensor_starts_the_next_round_only_on_promote_and_once() -> None:
    with DagsterInstance.ephemeral() as instance:
        context = build_sensor_context(instance=instance)
        assert isinstance(round_sensor(context).skip_reason, SkipReason)  # nothing scored yet

        _scorecard(instance, "1", "hold")
        held = round_sensor(build_sensor_context(instance=instance))
        assert not held.run_requests and "round 1 decided hold" in held.skip_reason.skip_message

        _scorecard(instance, "1", "promote")  # a backfill of round 1 that now promotes
        started = round_sensor(build_sensor_context(instance=instance, cursor=held.cursor))
        [request] = started.run_requests
        assert request.partition_key == "2" and request.job_name in (None, "round_job")
        [added] = started.dynamic_partitions_requests
        assert list(added.partition_keys) == ["2"] and added.partitions_def_name == "rounds"

        instance.add_dynamic_partitions(ROUND_PARTITIONS.name, ["2"])  # what the daemon does with it
        quiet = round_sensor(build_sensor_context(instance=instance, cursor=started.cursor))
        assert not quiet.run_requests and quiet.skip_reason.skip_message == "no new round scorecard"

        _scorecard(instance, "1", "promote")  # replaying round 1 again does not start round 2 twice
        again = round_sensor(build_sensor_context(instance=instance, cursor=started.cursor))
        assert not again.run_requests and "round 2 already started" in again.skip_reason.skip_message


def test_a_collapsed_round_starts_nothing_whatever_its_scorecard_says() -> None:
    with DagsterInstance.ephemeral() as instance:
        _scorecard(instance, "1", "promote", halt=True)
        result = round_sensor(build_sensor_context(instance=instance))
        assert not result.run_requests
        assert "halted by the collapse watch: acceptance fell" in result.skip_reason.skip_message


def test_the_round_command_refuses_a_workdir_without_a_checkpoint_and_a_bad_key(tmp_path, capsys) -> None:
    from trajectory_platform.cli import main

    assert main(["round", "--workdir", str(tmp_path)]) == 2
    assert "holds no checkpoint: run `trajectory-platform run" in capsys.readouterr().err
    assert main(["round", "--workdir", str(tmp_path), "--key", "0"]) == 2
    assert "round number" in capsys.readouterr().err
    assert main(["round", "--workdir", str(tmp_path), "--set", "policy_rollouts.queue_bound=0"]) == 2
    assert "queue_bound must be at least 1" in capsys.readouterr().err


def test_a_rounds_verify_settings_are_the_ones_verified_traces_last_ran_with() -> None:
    """The round's cascade is built from ``verified_traces``' recorded settings (the latest
    materialization, any day), not the defaults; a workdir where it never ran has the defaults."""
    with DagsterInstance.ephemeral() as instance:
        assert corpus_verify_settings(instance) == VerifySettings()
        for day, reruns in (("2026-11-02", 5), ("2026-11-01", 2)):  # a backfill of an earlier day last
            ran = dataclasses.asdict(VerifySettings(reruns=reruns, lint=False, workers=3))
            instance.report_runless_asset_event(
                AssetMaterialization("verified_traces", partition=day, metadata={SETTINGS_KEY: ran})
            )
        assert corpus_verify_settings(instance) == VerifySettings(reruns=2, lint=False, workers=3)
