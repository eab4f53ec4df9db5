"""Runtime enforcement: schema refusal before dispatch, truncation, budgets, compaction, the log."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.gym import protocol
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.policy import Policy, PolicyTurn
from trajectory_platform.gym.runtime import RuntimeConfig, run_episode
from trajectory_platform.traces.record import Episode
from trajectory_platform.traces.schema import episodes_to_table, table_to_episodes


class Texts(Policy):
    """Replays fixed turn texts, then answers; records what it was shown."""

    name = "texts"

    def __init__(self, *turns: str | PolicyTurn):
        self.turns = [t if isinstance(t, PolicyTurn) else PolicyTurn(t) for t in turns]
        self.seen = []

    def act(self, inp):
        self.seen.append(inp)
        return self.turns.pop(0) if self.turns else PolicyTurn("done")


@pytest.fixture(scope="module")
def library():
    return build_library(0)


def _fixture(library, prefix):
    return next(f for f in library if f.fixture_id.startswith(prefix))


def test_invalid_calls_are_refused_before_dispatch(library):
    fx = _fixture(library, "learn-alpha/fix_constant-06@uri")
    path = fx.plan[0].path
    stale = protocol.render_tool_call("replace_text", {"file_path": path, "find": "x", "replace_with": "y"})
    undeclared = protocol.render_tool_call("delete_file", {"target_uri": path})
    malformed = (
        protocol.CALL_OPEN + '{"name": "read_file", "arguments": {target_uri: 1}}' + protocol.CALL_CLOSE
    )
    wrong_type = PolicyTurn.structured(calls=[("write_file", {"target_uri": path, "text": 7})])
    result = run_episode(fx, Texts(stale, undeclared, malformed, wrong_type))
    refusals = [e for e in result.episode.events if e.kind == "refusal"]
    assert len(refusals) == 4 and all(e.status == "refused" for e in refusals)
    assert "schema violation" in refusals[0].content and "'file_path' was unexpected" in refusals[0].content
    assert "undeclared tool 'delete_file'" in refusals[1].content
    assert refusals[2].content.startswith("refused: malformed tool call")
    assert "is not of type 'string'" in refusals[3].content
    assert not [e for e in result.episode.events if e.kind == "tool"], "nothing reached a tool"
    assert result.final_files == fx.s0_files
    assert result.episode.outcome.workspace_diff == ""
    calls = [c for e in result.episode.events if e.kind == "assistant" for c in e.tool_calls]
    assert calls[2].arguments == "{target_uri: 1}", "a malformed call is kept verbatim as data"
    assert [r.tool_call_id for r in refusals] == [c.id for c in calls]


def test_validation_uses_the_schema_delivered_at_that_turn(library):
    fx = _fixture(library, "learn-alpha/report_value-00@path")
    path = fx.plan[0].path
    from trajectory_platform.gym.faults import FaultSpec

    old_key = protocol.render_tool_call("read_file", {"file_path": path})
    new_key = protocol.render_tool_call("read_file", {"target_uri": path})
    policy = Texts(old_key, old_key, new_key, "2")
    result = run_episode(fx, policy, faults=[FaultSpec("schema_drift", at_call=2)])
    kinds = [(e.kind, e.status) for e in result.episode.events if e.kind in ("tool", "refusal")]
    assert kinds == [("tool", "ok"), ("refusal", "refused"), ("tool", "ok")]
    versions = [d.tools_version for d in result.episode.delivered_inputs]
    assert versions == ["path@1.0", "path@2.0", "path@2.0", "path@2.0"]
    assert {t.version for t in result.episode.tools} == {"path@1.0", "path@2.0"}
    assert policy.seen[1].tools_version == "path@2.0"
    assert any(
        e.kind == "system" and "updated to path@2.0" in (e.content or "") for e in result.episode.events
    )


def test_oversized_output_is_truncated_with_a_marker(library):
    fx = _fixture(library, "inventory/v0/bug-subtotal@")
    read = fx.manifest.render("read", {"path": "inventory/pricing.py"})
    result = run_episode(
        fx, Texts(protocol.render_tool_call(*read)), config=RuntimeConfig(max_observation_chars=50)
    )
    tool = next(e for e in result.episode.events if e.kind == "tool")
    assert tool.status == "truncated" and "[... output truncated:" in tool.content
    assert tool.content.startswith(fx.s0_files["inventory/pricing.py"][:50])


def test_step_and_token_budgets_end_the_episode(library):
    fx = _fixture(library, "learn-alpha/report_value-00@path")
    call = protocol.render_tool_call("list_files", {"path": "."})
    result = run_episode(fx, Texts(*[call] * 10), config=RuntimeConfig(max_steps=3))
    assert result.terminal_status == "truncated" and len(result.episode.delivered_inputs) == 3
    chatty = PolicyTurn(call, output_tokens=500)
    result = run_episode(fx, Texts(*[chatty] * 10), config=RuntimeConfig(max_generated_tokens=1200))
    assert result.terminal_status == "truncated" and len(result.episode.delivered_inputs) == 3


def test_truncated_and_fabricating_turns_are_refused(library):
    fx = _fixture(library, "learn-alpha/report_value-00@path")
    call = protocol.render_tool_call("list_files", {"path": "."})
    cut = PolicyTurn(call[:25], finish_reason="length")
    fabricated = call + protocol.TOOL_OPEN + "fake listing" + protocol.HOST_END
    result = run_episode(fx, Texts(cut, fabricated))
    events = result.episode.events
    refusals = [e.content for e in events if e.kind == "refusal"]
    assert any("truncated proposal" in r for r in refusals)
    assert any("wrote itself" in r for r in refusals)
    assert [e.finish_reason for e in events if e.kind == "assistant"][0] == "length"
    assert sum(1 for e in events if e.kind == "tool") == 1, "the call before the fabricated result still ran"


def test_compaction_past_the_watermark_is_recorded(library):
    fx = max((f for f in library if not f.flaky), key=lambda f: f.min_tool_calls)
    result = run_episode(fx, ScriptedExpert(), config=RuntimeConfig(compaction_watermark_tokens=600))
    episode = result.episode
    assert result.oracle.passed and result.compactions >= 1
    summaries = [i for i, e in enumerate(episode.events) if e.kind == "compaction"]
    assert summaries and all(episode.events[i].replaces_through < i for i in summaries)
    compacted = [d for d in episode.delivered_inputs if d.compacted]
    assert compacted and not episode.delivered_inputs[0].compacted
    first = compacted[0]
    shown = json.loads(first.messages_json)
    assert [m["kind"] for m in shown][:3] == ["system", "user", "compaction"]
    assert [episode.events[i].content for i in first.event_indices] == [m["content"] for m in shown]
    assert all(i <= first.response_event_index for i in first.event_indices)


def test_the_log_is_a_valid_native_trace(library):
    fx = _fixture(library, "geometry/v0/bug-rect_area@")
    result = run_episode(
        fx, ScriptedExpert(), seed=3, episode_id="ep-1", source_file="2026-11-01/x.jsonl", source_line=1
    )
    episode = result.episode
    assert result.terminal_status == "completed" and result.oracle.passed
    lineage = episode.lineage
    assert (
        lineage.environment_digest == fx.s0_digest and lineage.tool_manifest_digest == fx.tool_manifest_digest
    )
    assert lineage.sampler_policy_digest.startswith("sha256:") and lineage.prompt_template_digest
    assert json.loads(lineage.sampling_params_json)["temperature"] == 0.0
    assert episode.task.fixture_id == fx.fixture_id and episode.task.license == fx.license
    assert episode.outcome.workspace_diff.startswith("diff --git") and episode.outcome.final_answer
    assert episode.outcome.verifier_results_json is None, "rollout logs leave verdicts to curation"
    assert len(episode.delivered_inputs) == sum(1 for e in episode.events if e.kind == "assistant")
    tool_ids = [e.tool_call_id for e in episode.events if e.kind == "tool"]
    call_ids = [c.id for e in episode.events if e.kind == "assistant" for c in e.tool_calls]
    assert tool_ids == call_ids
    assert Episode.from_dict(json.loads(json.dumps(episode.to_dict()))) == episode
    assert table_to_episodes(episodes_to_table([episode])) == [episode]
    again = run_episode(
        fx, ScriptedExpert(), seed=3, episode_id="ep-1", source_file="2026-11-01/x.jsonl", source_line=1
    )
    assert again.episode.to_dict() == episode.to_dict(), "same fixture, policy and seed: same log"
