"""Preference pair admission (fine-tuning 16.8): identical conditioning prefix, declared order, spans."""

from __future__ import annotations

import re
from collections import Counter

import pyarrow as pa
from splits_mixture_factory import candidate, run_events

from trajectory_platform.curation.preferences import (
    REFUSAL_REASONS,
    RULE_LOWER_COST,
    RULE_PASS_VS_FAIL,
    admit_pair,
    build_pairs,
)
from trajectory_platform.curation.split_mixture_stage import PreferenceStageResult
from trajectory_platform.traces.drops import Drop
from trajectory_platform.traces.record import DeliveredInput

READ = ("read_file", {"file_path": "src/pool.py"})
FIX = ("edit", {"file_path": "src/pool.py", "patch": "close()"})
TARGETED = ("run_tests", {"selector": "tests/test_pool.py"})
FULL = ("run_tests", {"selector": "tests"})


def test_pass_preferred_to_fail_with_divergent_spans_marked():
    good = candidate("a-good", actions=[READ, FIX, TARGETED])
    bad = candidate(
        "b-bad", role="hard_negative", actions=[READ, ("bash", {"command": "rm tests/test_pool.py"})]
    )
    decision = admit_pair(bad, good)
    assert decision.admitted and decision.rule == RULE_PASS_VS_FAIL
    assert (decision.chosen_episode_id, decision.rejected_episode_id) == ("a-good", "b-bad")
    # system, user, read call, its observation are shared; the branch is the second assistant turn.
    assert decision.branch_event_index == 4
    assert decision.chosen_span == (4, len(good.episode.events))
    assert decision.rejected_span == (4, len(bad.episode.events))
    assert decision.chosen_turns[0] == 4 and decision.rejected_turns[0] == 4
    assert all(good.episode.events[i].kind == "assistant" for i in decision.chosen_turns)
    assert admit_pair(good, bad) == decision  # argument order does not matter


def test_same_outcome_lower_cost_preferred():
    lean = candidate("lean", actions=[READ, FIX, TARGETED])
    wasteful = candidate("wasteful", actions=[READ, FIX, FULL, FULL, TARGETED])
    decision = admit_pair(lean, wasteful)
    assert decision.admitted and decision.rule == RULE_LOWER_COST
    assert decision.chosen_episode_id == "lean"
    assert decision.chosen_cost[0] < decision.rejected_cost[0]


def test_prefix_differing_on_an_observation_is_refused():
    # The same first call saw different observations: the second decisions conditioned on different
    # evidence (fine-tuning 16.8: e2 and e4 cannot be paired).
    events_a = run_events([READ, FIX], observation="ok")
    events_b = run_events([READ, TARGETED], observation="ok")
    events_b[3].content = "PermissionError: [Errno 13]"
    a = candidate("obs-a", events=events_a)
    b = candidate("obs-b", role="hard_negative", events=events_b)
    decision = admit_pair(a, b)
    assert not decision.admitted and decision.refusal is not None
    assert decision.refusal.reason == "prefixes_differ"
    assert "prefixes differ at event 3 (tool vs tool)" in decision.refusal.detail == decision.reason


def test_different_prompt_fixture_tools_or_delivered_input_refused():
    base = candidate("x-pass", actions=[READ, FIX])
    other_prompt = candidate(
        "y-fail", role="hard_negative", prompt="Fix the other bug.", actions=[READ, FULL]
    )
    assert_refused(base, other_prompt, "prefixes_differ", "prefixes differ at event 1 (user vs user)")
    other_fixture = candidate("z-fail", role="hard_negative", fixture_id="fx-other", actions=[READ, FULL])
    assert_refused(base, other_fixture, "different_fixtures", "different fixtures (fx-a-1 vs fx-other)")
    renamed = candidate("w-fail", role="hard_negative", actions=[READ, FULL])
    renamed.episode.tools[0].parameters_json = '{"properties":{"target_uri":{"type":"string"}}}'
    assert_refused(base, renamed, "tool_schemas_differ", "delivered tool schemas differ")
    compacted = candidate("v-fail", role="hard_negative", actions=[READ, FULL])
    compacted.episode.delivered_inputs = [
        DeliveredInput(call_index=1, response_event_index=4, messages_json="[]", compacted=True)
    ]
    assert_refused(base, compacted, "delivered_inputs_differ", "delivered inputs for the call at event 4")


def test_refusals_without_a_declared_preference():
    a = candidate("same-a", actions=[READ, FIX, TARGETED])
    b = candidate("same-b", actions=[READ, FIX, ("run_tests", {"selector": "tests/test_other.py"})])
    assert_refused(a, b, "equal_cost", "same outcome at equal cost")
    f1 = candidate("fail-1", role="hard_negative", actions=[READ, FULL])
    f2 = candidate("fail-2", role="hard_negative", actions=[READ, FIX, FULL])
    assert_refused(f1, f2, "both_failed", "both alternatives failed")
    unverified = candidate("unverified", sink="unverifiable", actions=[READ, FULL])
    assert_refused(a, unverified, "outcome_unverified", "an outcome was never verified")
    twin = candidate("same-c", actions=[READ, FIX, TARGETED])
    assert_refused(a, twin, "identical_trajectories", "identical trajectories")
    cut = candidate("same-cut", events=a.episode.events[:-1])
    assert_refused(a, cut, "prefix_of_other", "one trajectory is a prefix of the other")


def assert_refused(left, right, key: str, detail_start: str) -> None:
    """The pair is refused under reason ``key``, with a detail for a person starting ``detail_start``."""
    decision = admit_pair(left, right)
    assert decision.refusal is not None and not decision.admitted, decision
    assert decision.refusal.reason == key and decision.refusal.detail.startswith(detail_start), decision
    assert decision.reason == decision.refusal.detail


def test_every_refusal_is_a_drop_with_a_declared_key_and_the_stage_counts_them_by_key():
    ok = candidate("k-ok", actions=[READ, FIX, TARGETED])
    group = [
        ok,
        candidate("k-equal", actions=[READ, FIX, ("run_tests", {"selector": "tests/test_other.py"})]),
        candidate("k-twin", actions=[READ, FIX, TARGETED]),
        candidate("k-cut", events=ok.episode.events[:-1]),
        candidate("k-fail-1", role="hard_negative", actions=[READ, FULL]),
        candidate("k-fail-2", role="hard_negative", actions=[READ, FIX, FULL]),
        candidate("k-unverified", sink="unverifiable", actions=[READ, FULL]),
        candidate("k-prompt", role="hard_negative", prompt="Fix the other bug.", actions=[READ, FULL]),
    ]
    decisions = build_pairs(group)
    refused = [d for d in decisions if not d.admitted]
    assert refused and all(isinstance(d.refusal, Drop) for d in refused)
    keys = Counter(d.refusal.reason for d in refused if d.refusal is not None)
    assert set(keys) <= set(REFUSAL_REASONS)
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", key) for key in REFUSAL_REASONS)
    assert {"equal_cost", "identical_trajectories", "prefix_of_other", "both_failed"} <= set(keys)
    assert {"outcome_unverified", "prefixes_differ"} <= set(keys)
    # The stage's accounting (the preference_pairs asset's metadata) counts refusals by key.
    tally = PreferenceStageResult(pa.table({}), decisions, {}).tally()
    assert tally.balanced and tally.records_in == len(decisions) == 28
    assert tally.kept == len(decisions) - len(refused) and tally.dropped == keys


def test_tool_call_ids_and_timestamps_do_not_break_identity():
    a = candidate("ids-a", actions=[READ, FIX])
    b = candidate("ids-b", role="hard_negative", actions=[READ, FULL])
    for event in b.episode.events:
        event.timestamp = "2026-01-01T00:00:00Z"
        for call in event.tool_calls:
            call.id = "toolu_" + call.id
        if event.tool_call_id:
            event.tool_call_id = "toolu_" + event.tool_call_id
    assert admit_pair(a, b).admitted


def test_build_pairs_enumerates_within_fixture_only_and_accounts_every_pair():
    group = [
        candidate("g1", actions=[READ, FIX, TARGETED]),
        candidate("g2", role="hard_negative", actions=[READ, FULL]),
        candidate("g3", actions=[READ, FIX, FULL, TARGETED]),
        candidate("h1", fixture_id="fx-h", actions=[READ]),
    ]
    decisions = build_pairs(group)
    assert len(decisions) == 3  # C(3, 2) within fx-a-1; the lone fx-h episode has no partner
    admitted = {(d.chosen_episode_id, d.rejected_episode_id) for d in decisions if d.admitted}
    assert admitted == {("g1", "g2"), ("g1", "g3"), ("g3", "g2")}
    assert len({d.pair_id for d in decisions}) == 3
