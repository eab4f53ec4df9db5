"""The next round's mix: staleness retirement by sampler round, anchors stay, dedup by action sequence."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.rounds.mix import SOURCES, next_mix, source_of, source_token_shares
from trajectory_platform.rounds.settings import RoundSettings
from trajectory_platform.traces.record import Episode, Event, TaskIdentity, ToolCall


def _admitted(
    episode_id: str, round_index: int | None, path: str = "a.py", anchor: bool = False
) -> Candidate:
    extra = None if round_index is None else json.dumps({"round": round_index})
    call = ToolCall("call_0_0", "read_file", json.dumps({"path": path}))
    episode = Episode(
        episode_id,
        "native",
        "gym",
        None,
        None,
        None,
        task=TaskIdentity(fixture_id="task"),
        events=[Event(kind="assistant", tool_calls=[call])],
        extra_json=extra,
    )
    return Candidate(episode, sink="admitted", anchor=anchor)


def test_trajectories_older_than_r_rounds_retire_and_anchors_stay():
    previous = [
        _admitted("r0", 0, "0.py"),
        _admitted("r1", 1, "1.py"),
        _admitted("r2", 2, "2.py"),
        _admitted("unrounded", None, "u.py"),  # the scripted corpus the loop started from: round 0
        _admitted("anchor", 0, "anchor.py", anchor=True),
    ]
    mix = next_mix(
        previous, [_admitted("r3", 3, "3.py")], 3, RoundSettings(staleness_rounds=1, cap_per_fixture=10)
    )
    assert sorted(c.episode_id for c in mix.kept) == ["anchor", "r2", "r3"]
    assert {i: d.reason for i, d in mix.dropped.items()} == {
        "r0": "stale_sampler",
        "r1": "stale_sampler",
        "unrounded": "stale_sampler",
    }
    assert "round 1" in mix.dropped["r1"].detail
    tally = mix.tally()
    assert (tally.records_in, tally.kept, dict(tally.dropped)) == (6, 3, {"stale_sampler": 3})
    longer = next_mix(previous, [], 3, RoundSettings(staleness_rounds=3, cap_per_fixture=10))
    assert len(longer.kept) == 5


def test_duplicate_action_sequences_across_rounds_count_once():
    mix = next_mix([_admitted("old", 2)], [_admitted("new", 3), _admitted("new2", 3)], 3, RoundSettings())
    assert len(mix.kept) == 1
    assert sorted(d.reason for d in mix.dropped.values()) == ["duplicate_action_sequence"] * 2


def test_only_admitted_trajectories_join():
    rejected = Candidate(_admitted("neg", 3).episode, sink="hard_negative")
    with pytest.raises(ValueError, match="neg"):
        next_mix([], [rejected], 3, RoundSettings())


def test_each_source_weighs_its_selected_target_tokens_only():
    own, corpus = _admitted("own", 3, "o.py"), _admitted("corpus", None, "c.py")
    learner_read, expert_read = (
        _admitted("x", 3, "l.py").episode.events + _admitted("y", 3, "e.py").episode.events
    )
    dagger = _admitted("dag", 3, "d.py")
    dagger.episode.events = [learner_read, expert_read]
    dagger.episode.extra_json = json.dumps({"round": 3, "dagger": {"state_of": "x", "label_event": 1}})
    dagger.target_turns = [1]  # the learner's turn is context
    assert [source_of(c.episode) for c in (own, corpus, dagger)] == ["round", "corpus", "dagger"]
    shares = source_token_shares([own, corpus, dagger])
    assert set(shares) == set(SOURCES) and shares["teacher"] == 0.0
    assert shares["round"] == shares["corpus"] == shares["dagger"] == pytest.approx(1 / 3)
