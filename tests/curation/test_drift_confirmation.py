"""Replay drift is confirmed by a second replay before it is a verdict (``cascade.replay_confirmed``)."""

from __future__ import annotations

import dataclasses
import json

from test_replay import CALC_S0, FIXED, QUIET, bash, environment, episode_of, honest_turns, verify

from trajectory_platform.curation.verify import cascade as cascade_module
from trajectory_platform.curation.verify.cascade import verify_episodes
from trajectory_platform.curation.verify.tables import verdict_row
from trajectory_platform.gym.sandbox import unified_diff

RANDOM = "python3 -c 'import os; print(os.urandom(8).hex())'"


def counting_replays(monkeypatch, first_episode=None) -> list[str]:
    """Record every replay the cascade runs; with ``first_episode``, the first replay re-executes
    that episode instead (a real replay whose outputs differ from the record, once: what a refused
    fork or a starved command does to an honest log)."""
    calls: list[str] = []
    real = cascade_module.check_replay

    def replay(episode, fixture, diff, timeout_s):
        calls.append(episode.episode_id)
        if first_episode is not None and len(calls) == 1:
            episode = first_episode
        return real(episode, fixture, diff, timeout_s)

    monkeypatch.setattr(cascade_module, "check_replay", replay)
    return calls


def test_the_same_drift_twice_is_replay_drift(monkeypatch):
    calls = counting_replays(monkeypatch)
    turns = honest_turns()
    turns[2] = bash(2, "grep -n 'a + b' calc/ops.py", "2:    return a - b\n")
    (verdict,) = verify([episode_of(turns, unified_diff(CALC_S0, FIXED))], environment())
    assert (verdict.sink, verdict.reason) == ("unverifiable", "replay_drift")
    assert calls == ["e1", "e1"], "drift is replayed once more before it is a verdict"


def test_two_replays_that_drift_differently_are_nondeterministic(monkeypatch):
    calls = counting_replays(monkeypatch)
    turns = [*honest_turns(), bash(4, RANDOM, "0011223344556677\n")]
    (verdict,) = verify([episode_of(turns, unified_diff(CALC_S0, FIXED))], environment())
    assert (verdict.sink, verdict.reason) == ("unverifiable", "replay_nondeterministic")
    assert verdict.stage("dynamic").findings[0].event_index == 10
    assert len(calls) == 2


def test_a_drift_the_second_replay_does_not_repeat_lets_the_episode_go_on_with_a_note(monkeypatch):
    honest = episode_of(honest_turns(), unified_diff(CALC_S0, FIXED))
    turns = honest_turns()
    turns[0] = bash(0, "cat calc/ops.py calc/ops.py", turns[0][1].content or "")  # prints it twice
    calls = counting_replays(
        monkeypatch, first_episode=dataclasses.replace(honest, events=episode_of(turns, None).events)
    )
    fixture = environment()
    result = verify_episodes([honest], {fixture.fixture_id: fixture}, QUIET)
    (verdict,) = result.verdicts
    assert (verdict.sink, verdict.reason) == ("admitted", "passed_stages_1_to_4")
    assert len(calls) == 2
    (retry,) = verdict.stage("dynamic").retries
    assert retry.code == "replay_retried" and retry.event_index == 2
    assert "a second on a fresh S0 matched the record" in retry.detail
    # The machine's doing, not the episode's: counted for the run, kept out of the stored verdict,
    # whose bytes are the ones an honest log replayed once gets.
    assert result.tallies.replays_retried == 1
    assert "replay_retried" not in json.dumps(verdict_row(verdict))
    once = verify_episodes([honest], {fixture.fixture_id: fixture}, QUIET).verdicts[0]
    assert verdict_row(verdict) == verdict_row(once)


def test_an_honest_log_is_replayed_once(monkeypatch):
    calls = counting_replays(monkeypatch)
    (verdict,) = verify([episode_of(honest_turns(), unified_diff(CALC_S0, FIXED))], environment())
    assert verdict.sink == "admitted" and calls == ["e1"]
