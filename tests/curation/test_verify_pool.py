"""Verification on a worker pool: what reaches Parquet is the serial run's, in input order; the
episodes really run at once; an episode that raises still stops the run; ``workers`` is a checked
setting that reaches the ``verify`` flag and the ``verified_traces`` config."""

from __future__ import annotations

import argparse
import threading
from dataclasses import replace

import pytest
from _verify_factory import CALC_S0, fixed_files, make_episode, make_fixture, pristine_turns
from test_verify_cascade import scheduled_flake

from trajectory_platform.cli import main
from trajectory_platform.commands import verify
from trajectory_platform.commands._settings import SettingError, checked_values, settings_from_args
from trajectory_platform.curation.verify import cascade
from trajectory_platform.curation.verify.cascade import (
    CascadeConfig,
    VerifySettings,
    available_cores,
    verify_episodes,
)
from trajectory_platform.curation.verify.tables import verified_table
from trajectory_platform.curation.verify.verdicts import SINKS
from trajectory_platform.gym import judge
from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.traces.schema import episodes_to_table

QUIET = CascadeConfig(progress=False, cost_monolithic=False)


def every_sink() -> tuple[list, dict]:
    """Episodes reaching every sink on the real sandbox (a flaky fixture seeded per run label, so
    its disagreeing runs are the same ones however the episodes are scheduled), and their lookup."""
    flaky = scheduled_flake("calc-flaky", byte=7, modulus=2)
    tests_edited = {**fixed_files(), "tests/test_ops.py": CALC_S0["tests/test_ops.py"] + "\n\nx = 1\n"}
    episodes = [
        make_episode("admitted", pristine_turns(), fixed_files()),
        make_episode("syntax", pristine_turns(), fixed_files(), finish_reason="length"),
        make_episode("static", pristine_turns(), {**CALC_S0, "calc/ops.py": "def add(:\n"}),
        make_episode("negative", pristine_turns()[:1], CALC_S0),
        make_episode("tamper", pristine_turns(), tests_edited),
        make_episode("flaky", pristine_turns(), fixed_files(), fixture=flaky, fixture_id="calc-flaky"),
        make_episode("imported", pristine_turns(), fixed_files(), fixture_id=None),
        make_episode("unknown", pristine_turns(), fixed_files(), fixture_id="not-in-library"),
        make_episode("admitted-2", pristine_turns(), fixed_files()),
    ]
    return episodes, {"calc-add": make_fixture(), "calc-flaky": flaky}


def test_a_pool_stores_exactly_what_one_worker_stores(monkeypatch):
    """One worker starting a sandboxed judge per oracle run and three keeping theirs between runs
    (each worker thread really keeps one) give the same verified table row for row (everything
    that reaches Parquet), verdicts in input order, the same ledger counts (the monolithic order's
    too), and a bar that counts every episode."""
    ticks = []

    class CountingBar(cascade.tqdm):
        def update(self, n=1):
            ticks.append(n)
            return super().update(n)

    monkeypatch.setattr(cascade, "tqdm", CountingBar)
    episodes, lookup = every_sink()  # built first: the factory runs the gym for their answers
    starts: list[list[int]] = []  # per verify call: judges started to be kept, and for one run
    real_start = judge.JudgeServer._start

    def counting_start(self, workspace):
        if self._profile is None:  # the differential check's judge shows a setting: one per check
            starts[-1][workspace is not None] += 1
        return real_start(self, workspace)

    monkeypatch.setattr(judge.JudgeServer, "_start", counting_start)
    fresh_judges = replace(QUIET, workers=1, cost_monolithic=True, keep_judges=False)
    starts.append([0, 0])
    serial = verify_episodes(episodes, lookup, fresh_judges)
    starts.append([0, 0])
    pooled = verify_episodes(episodes, lookup, replace(QUIET, workers=3, cost_monolithic=True))
    # Each of the three workers kept one judge for all the runs a kept judge may serve (a rerun or a
    # calibration run after the first starts an interpreter of its own); without them, none is kept.
    (serial_kept, serial_own), (pooled_kept, pooled_own) = starts
    assert serial_kept == 0 and serial_own > 3 and 1 <= pooled_kept <= 3 and pooled_own < serial_own
    assert [v.episode_id for v in pooled.verdicts] == [e.episode_id for e in episodes]
    assert set(serial.counts("sink")) == set(SINKS)  # every sink, not one trivial outcome
    assert verified_table(episodes, pooled).to_pylist() == verified_table(episodes, serial).to_pylist()
    assert pooled.ledger.oracle_runs == serial.ledger.oracle_runs
    for order in ("stages", "monolithic"):  # the monolithic costing's skipped stage 3 runs on the pool
        counts = [[(s.entered, s.passed) for s in getattr(r.ledger, order)] for r in (pooled, serial)]
        assert counts[0] == counts[1] and counts[0]
    assert ticks == [1] * (2 * len(episodes))  # one tick per episode, in both runs


def test_episodes_run_at_once(monkeypatch):
    """Two workers hold two episodes inside the stages at the same moment (a serial loop would
    wait at the barrier alone and break it)."""
    both_inside = threading.Barrier(2, timeout=10)
    real = cascade._run_stages

    def meeting(work, config):
        both_inside.wait()
        return real(work, config)

    monkeypatch.setattr(cascade, "_run_stages", meeting)
    episodes = [make_episode(f"e{i}", pristine_turns(), fixed_files()) for i in range(2)]
    result = verify_episodes(
        episodes,
        {"calc-add": make_fixture()},
        replace(QUIET, workers=2),
    )
    assert [v.sink for v in result.verdicts] == ["admitted", "admitted"]


class Boom(RuntimeError):
    """What a broken stage raises."""


def test_an_episode_that_raises_stops_the_run_with_its_exception(monkeypatch):
    real = cascade.check_static

    def broken_on_one(diff, lint=True):
        if "boom" in diff.text:
            raise Boom("static stage broke")
        return real(diff, lint=lint)

    monkeypatch.setattr(cascade, "check_static", broken_on_one)
    episodes = [make_episode(f"ok{i}", pristine_turns(), fixed_files()) for i in range(3)]
    episodes.insert(1, make_episode("bad", pristine_turns(), {**CALC_S0, "boom.py": "x = 1\n"}))
    with pytest.raises(Boom, match="static stage broke") as raised:
        verify_episodes(episodes, {"calc-add": make_fixture()}, replace(QUIET, workers=3))
    assert "while verifying episode bad" in raised.value.__notes__


@pytest.mark.parametrize("workers", [0, -2, True, 1.5])
def test_workers_is_checked(workers):
    with pytest.raises(ValueError, match=r"workers must be a whole number >= 1"):
        VerifySettings(workers=workers)
    with pytest.raises(ValueError, match=r"workers must be a whole number >= 1"):
        CascadeConfig(workers=workers)


def test_workers_defaults_to_the_cores_and_reaches_the_flag_and_the_asset_config():
    from trajectory_platform.assets.verified import VerifyConfig  # the Dagster layer, loaded here only

    assert VerifySettings().workers == CascadeConfig().workers == available_cores() >= 1
    parser = argparse.ArgumentParser()
    verify.register(parser.add_subparsers())
    args = parser.parse_args(["verify", "t.parquet", "--out", "o", "--workers", "3"])
    assert settings_from_args(VerifySettings, args).cascade(progress=False, master_key=b"k").workers == 3
    field = VerifyConfig.model_fields["workers"]
    assert field.default == available_cores() and "at once" in (field.description or "")
    assert checked_values("verify", {"workers": "4"}, VerifySettings) == {"workers": 4}
    with pytest.raises(SettingError, match="verify: workers must be a whole number >= 1"):
        checked_values("verify", {"workers": 0}, VerifySettings)


def test_the_verify_command_refuses_zero_workers(tmp_path, capsys):
    traces = tmp_path / "t.parquet"
    write_parquet(episodes_to_table([make_episode("e1", pristine_turns(), fixed_files())]), traces)
    assert main(["verify", str(traces), "--out", str(tmp_path / "out"), "--workers", "0"]) != 0
    assert "workers must be a whole number >= 1" in capsys.readouterr().err
