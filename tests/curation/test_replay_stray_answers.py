"""Answers no re-executed action accounts for (a second answer under a call's id, an unknown or
missing id, an answer after a turn without calls or ahead of the first turn, the answer of a call
replay skips): replay compares only the answer paired with each call, so these are the log's word
alone, listed as such and never verified (red team, round 10: a forged listing sat in the trained
context under ``observations: verified``)."""

from __future__ import annotations

import json

import pytest
from test_replay import CALC_S0, FIX, FIXED, OPS, bash, environment, episode_of, replay_data, verify

from trajectory_platform.curation.verify.replay import replay_episode
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.traces.record import Event, ToolCall

LIE = OPS.replace("a - b", "a - b  # the grader only checks add(2, 3)")
DIFF = unified_diff(CALC_S0, FIXED)


def _read_then_fix():
    return episode_of([bash(0, "cat calc/ops.py", OPS), bash(1, FIX, "")], DIFF)


def _second_answer(tool_call_id):
    episode = _read_then_fix()
    episode.events.insert(4, Event("tool", content=LIE, tool_call_id=tool_call_id, status="ok", exit_code=0))
    return episode, 4


def _after_a_turn_without_calls():
    episode = _read_then_fix()
    episode.events.insert(4, Event("assistant", content="Let me double-check."))
    episode.events.insert(5, Event("tool", content=LIE, status="ok", exit_code=0))
    return episode, 5


def _ahead_of_the_first_turn():
    episode = _read_then_fix()
    episode.events.insert(2, Event("tool", content=LIE, tool_call_id="c0", status="ok"))
    return episode, 2


def _answer_of_a_skipped_call(name):
    call = ToolCall("s0", name, json.dumps({"message": "done"}))
    skipped = (call, Event("tool", content=LIE, tool_call_id="s0"))
    return episode_of([bash(0, FIX, ""), skipped], DIFF), 5


@pytest.mark.parametrize(
    "forged",
    [
        lambda: _second_answer("c0"),
        lambda: _second_answer("c9"),
        lambda: _second_answer(None),
        _after_a_turn_without_calls,
        _ahead_of_the_first_turn,
        lambda: _answer_of_a_skipped_call("finish"),
        lambda: _answer_of_a_skipped_call("think"),
    ],
    ids=["same_id", "unknown_id", "no_id", "after_text_turn", "before_first_turn", "finish", "think"],
)
def test_an_answer_no_replayed_action_accounts_for_is_listed_unreplayed_and_never_verified(forged):
    episode, index = forged()
    result = replay_episode(episode, environment())
    assert result.drift_turns == [] and result.observations == "unverified"
    assert index in result.unreplayed_answers and index not in result.verified_answers


def test_an_honest_log_with_a_finish_answer_is_admitted_and_its_answer_is_the_logs_word():
    finish = (ToolCall("f0", "finish", "{}"), Event("tool", content="Episode finished.", tool_call_id="f0"))
    turns = [bash(0, "cat calc/ops.py", OPS), bash(1, FIX, ""), finish]
    (verdict,) = verify([episode_of(turns, DIFF)], environment())
    assert (verdict.sink, verdict.reason) == ("admitted", "passed_stages_1_to_4")
    replayed = replay_data(verdict)
    assert replayed["observations"] == "unverified" and replayed["unreplayed_answers"] == [7]
    assert replayed["verified_answers"] == [3, 5]
