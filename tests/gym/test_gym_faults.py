"""Every fault class fires on schedule and the expert's recovery still reaches the goal."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.gym.faults import FAULT_KINDS, FaultSpec, applicable_kinds
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.reachability import check_reachability
from trajectory_platform.gym.runtime import run_episode

EXPECTED_OBSERVATION = {
    "exit_127": ("error", 127, "command not found"),
    "exit_126": ("error", 126, "Permission denied"),
    "exit_1": ("error", 1, "crashed"),
    "missing_file": ("error", None, "No such file or directory"),
    "disk_full": ("error", None, "No space left on device"),
    "conflict_markers": ("ok", None, "<<<<<<< HEAD"),
    "http_429": ("error", None, "429 Too Many Requests"),
    "http_504": ("error", None, "504 Gateway Timeout"),
    "dropped_connection": ("error", None, "Connection reset by peer"),
    "malformed_output": ("error", None, "JSONDecodeError"),
    "truncated_output": ("truncated", None, "output truncated by the transport"),
}


@pytest.fixture(scope="module")
def fixture():
    """A multi-file repair task whose plan exercises every operation (so every class applies)."""
    return next(
        f
        for f in build_library(0)
        if f.domain == "bug_repair" and not f.flaky and set(applicable_kinds(f)) == set(FAULT_KINDS)
    )


@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_fault_fires_and_expert_recovers(fixture, kind):
    schedule = [FaultSpec(kind, at_call=1 if kind != "schema_drift" else 2)]
    result = run_episode(fixture, ScriptedExpert(), faults=schedule)
    assert [f["kind"] for f in result.faults] == [kind]
    assert result.oracle.passed and result.terminal_status == "completed"
    events = result.episode.events
    if kind == "schema_drift":
        assert any(e.kind == "refusal" and "schema violation" in e.content for e in events)
        return
    status, code, text = EXPECTED_OBSERVATION[kind]
    faulted = next(e for e in events if e.kind == "tool" and text in (e.content or ""))
    assert faulted.status == status and faulted.exit_code == code
    after = events[events.index(faulted) + 1 :]
    recovery = [e for e in after if e.kind == "assistant"]
    assert recovery[0].reasoning, "the recovery turn explains its diagnosis"
    if kind in ("exit_127", "exit_126", "missing_file", "disk_full"):
        diagnostic = recovery[0].tool_calls[0]
        assert fixture.manifest.interpret(diagnostic.name, json.loads(diagnostic.arguments))[0] == "list"


def test_reachability_accepts_recoverable_and_refuses_unrecoverable(fixture):
    assert check_reachability(fixture, [FaultSpec("http_429", at_call=2)]).ok
    stuck = check_reachability(fixture, [FaultSpec("exit_127", at_call=1, persistent=True)])
    assert not stuck.ok and "does not reach the goal" in stuck.reason
    never = check_reachability(fixture, [FaultSpec("disk_full", at_call=99)])
    assert not never.ok and "never fired" in never.reason


def test_unknown_fault_class_is_rejected():
    with pytest.raises(ValueError, match="unknown fault class"):
        FaultSpec("cosmic_ray")
