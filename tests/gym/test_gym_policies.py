"""The wire protocol, and the policies whose scores the evaluation tier relies on exactly."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.gym import protocol
from trajectory_platform.gym.faults import FaultSpec
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policies import (
    BEHAVIOURS,
    ErrorProfile,
    FabricatingStub,
    NeverRecoveringStub,
    NoEndTokenStub,
    ProfiledPolicy,
    ScriptedExpert,
    StaleKeyStub,
    make_policy,
)
from trajectory_platform.gym.runtime import RuntimeConfig, run_episode
from trajectory_platform.gym.tools import manifest


@pytest.fixture(scope="module")
def library():
    return build_library(0)


def test_protocol_round_trip_and_errors():
    text = protocol.render_turn("Looking.", [("read_file", {"file_path": "a.py"})], reasoning="why")
    parsed = protocol.parse_turn(text + protocol.END_TURN)
    assert parsed.reasoning == "why" and parsed.content == "Looking."
    assert [(c.name, json.loads(c.arguments)) for c in parsed.calls] == [("read_file", {"file_path": "a.py"})]
    assert parsed.calls[0].id == "call_0"
    two = protocol.render_tool_call("a", {}) + protocol.render_tool_call("b", {"x": "1"})
    assert [c.name for c in protocol.parse_tool_calls(two, id_prefix="t")] == ["a", "b"]
    assert protocol.parse_tool_calls("just an answer") == []
    tail = protocol.parse_turn("Before." + protocol.render_tool_call("a", {}) + " after")
    assert tail.content == "Before. after", "prose after a call is kept, never dropped"
    bad = protocol.parse_tool_calls(
        protocol.CALL_OPEN + '{"name": "a", "arguments": {x}}' + protocol.CALL_CLOSE
    )
    assert isinstance(bad, protocol.ParseError) and bad.category == "malformed"
    assert bad.calls[0].name == "a" and bad.calls[0].arguments == "{x}"
    cut = protocol.parse_tool_calls(protocol.CALL_OPEN + '{"name": "a", "argu', truncated=True)
    assert isinstance(cut, protocol.ParseError) and cut.category == "truncated"
    assert (
        protocol.find_fabricated_observation("x" + protocol.TOOL_OPEN + "fake" + protocol.HOST_END) == "fake"
    )


def test_protocol_matches_the_training_chat_template():
    """The runtime parses exactly what the training template renders for a call."""
    from trajectory_platform.training.data import chat_template

    assert (protocol.CALL_OPEN, protocol.CALL_CLOSE, protocol.END_TURN) == (
        chat_template.CALL_OPEN,
        chat_template.CALL_CLOSE,
        chat_template.END_TURN,
    )
    assert (protocol.REASONING_OPEN, protocol.REASONING_CLOSE) == (
        chat_template.REASONING_OPEN,
        chat_template.REASONING_CLOSE,
    )
    assert chat_template.ROLE_TOKENS["tool"] == protocol.TOOL_OPEN


def _calls(result):
    return [c for e in result.episode.events if e.kind == "assistant" for c in e.tool_calls]


def test_expert_is_pristine_on_every_tool_family(library):
    for fx in [f for f in library if f.fixture_id.startswith("learn-beta/fix_constant-06@")]:
        result = run_episode(fx, ScriptedExpert())
        assert result.oracle.passed and result.refusals == 0
        assert result.tool_calls == fx.min_tool_calls


def test_stale_key_stub_is_always_refused_with_training_keys(library):
    fx = next(f for f in library if f.fixture_id.startswith("learn-beta/fix_constant-06@alias"))
    result = run_episode(fx, StaleKeyStub("path"))
    calls = _calls(result)
    training_keys = manifest("path").keys()
    delivered_keys = fx.manifest.keys()
    assert calls and result.tool_calls == 0 and result.refusals == len(calls)
    for call in calls:
        keys = set(json.loads(call.arguments))
        assert keys & training_keys and not keys <= delivered_keys
    assert not result.oracle.passed


def test_fabricating_stub_fabricates_on_every_call_turn(library):
    fx = next(f for f in library if f.fixture_id.startswith("learn-beta/fix_constant-06@path"))
    result = run_episode(fx, FabricatingStub())
    turns = [e for e in result.episode.events if e.kind == "assistant" and e.tool_calls]
    assert turns and all(protocol.TOOL_OPEN in (e.content or "") for e in turns)
    assert sum("wrote itself" in (e.content or "") for e in result.episode.events) == len(turns)


def test_never_recovering_stub_stops_at_the_first_fault(library):
    fx = next(f for f in library if f.fixture_id.startswith("learn-beta/fix_constant-06@path"))
    recovered = run_episode(fx, ScriptedExpert(), faults=[FaultSpec("http_504", at_call=2)])
    stopped = run_episode(fx, NeverRecoveringStub(), faults=[FaultSpec("http_504", at_call=2)])
    assert recovered.oracle.passed and not stopped.oracle.passed
    assert stopped.terminal_status == "completed" and stopped.tool_calls == 2


def test_no_end_token_stub_runs_away(library):
    fx = next(f for f in library if f.fixture_id.startswith("learn-beta/fix_constant-06@path"))
    result = run_episode(fx, NoEndTokenStub(), config=RuntimeConfig(max_steps=5))
    assistant = [e for e in result.episode.events if e.kind == "assistant"]
    assert result.terminal_status == "truncated" and len(assistant) == 5
    assert all(e.finish_reason == "length" for e in assistant) and result.tool_calls == 0


@pytest.mark.parametrize(
    "behaviour",
    ["malformed_call", "stale_schema", "truncated_turn", "undeclared_tool", "lucky_pass", "secret_echo"],
)
def test_noisy_profiles_that_still_solve(library, behaviour):
    fx = next(f for f in library if f.fixture_id.startswith("ledger/v0/bug-balance@"))
    result = run_episode(fx, make_policy(behaviour), seed=5)
    assert result.oracle.passed
    if behaviour in ("malformed_call", "stale_schema", "truncated_turn", "undeclared_tool"):
        assert result.refusals == 1
    if behaviour == "lucky_pass":
        assert not any(
            c.name in ("read_file", "cat") or '"read"' in (c.arguments or "") for c in _calls(result)
        )
    if behaviour == "secret_echo":
        text = json.dumps(result.episode.to_dict())
        echoed = [e.content or "" for e in result.episode.events if e.kind == "assistant"]
        assert all(s in text for s in fx.secrets) and any(fx.secrets[0] in c for c in echoed)


@pytest.mark.parametrize("behaviour", ["loop", "flail", "wrong_fix", "abandoned"])
def test_noisy_profiles_that_fail(library, behaviour):
    fx = next(f for f in library if f.fixture_id.startswith("ledger/v0/bug-balance@"))
    result = run_episode(fx, make_policy(behaviour), seed=5)
    assert not result.oracle.passed
    if behaviour == "abandoned":
        assert result.terminal_status == "abandoned"
    if behaviour == "loop":
        calls = [c.arguments for c in _calls(result)]
        assert max(calls.count(a) for a in calls) >= 5


def test_every_behaviour_has_a_policy():
    assert {make_policy(b).name for b in BEHAVIOURS} >= {
        "scripted-expert",
        "noisy-tamper",
        "stub-fabricating",
    }


def test_profiled_policy_draws_mistakes_from_its_error_profile(library):
    fx = next(f for f in library if f.fixture_id.startswith("textkit/v0/bug-6x-"))
    quiet = run_episode(fx, ProfiledPolicy(ErrorProfile(0, 0, 0, 0)), seed=1)
    noisy = run_episode(fx, ProfiledPolicy(ErrorProfile(0.5, 0.2, 0.1, 0.1, max_mistakes=3)), seed=1)
    assert quiet.refusals == 0 and quiet.oracle.passed
    assert noisy.refusals == 3 and noisy.oracle.passed, "every mistake is refused, then recovered"
    reasons = " ".join(e.content for e in noisy.episode.events if e.kind == "refusal")
    assert "malformed" in reasons or "schema" in reasons or "undeclared" in reasons or "truncated" in reasons
