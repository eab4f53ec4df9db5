"""Optional tool arguments the runtime honours (read_file's max_lines, every family's read match)
and the runtime's replay of recorded calls (the fresh evidence schema augmentation builds on)."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.gym.faults import FaultSpec
from trajectory_platform.gym.library import get_fixture
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.runtime import RuntimeConfig, replay_calls, run_episode
from trajectory_platform.gym.tools import TOOL_FAMILIES, manifest
from trajectory_platform.traces.record import ToolCall, canonical_json

FIXTURE = "textkit/v0/bug-slugify@path"
PATH = "textkit/slug.py"


def _read(call_id: str, **args: object) -> tuple[str, ToolCall]:
    return "path@1.0", ToolCall(call_id, "read_file", canonical_json({"file_path": PATH, **args}))


def test_read_file_max_lines_is_optional_and_honoured():
    fixture = get_fixture(FIXTURE)
    for version in ("1.0", "2.0"):
        schema = manifest("path", version).tool("read_file").parameters()
        assert schema["properties"]["max_lines"]["type"] == "integer"
        assert "max_lines" not in schema["required"]
    keys = {f: manifest(f).keys() for f in TOOL_FAMILIES}
    assert [f for f, declared in keys.items() if "max_lines" in declared] == ["path"]
    whole = fixture.s0_files[PATH]
    lines = whole.splitlines(keepends=True)
    assert len(lines) > 2
    replay = replay_calls(fixture, [_read("a"), _read("b", max_lines=2), _read("c", max_lines=len(lines))])
    default, head, enough = (o.content for o in replay.observations)
    assert default == enough == whole
    assert head == "".join(lines[:2]) + f"[... {len(lines) - 2} more lines not shown (max_lines=2) ...]"
    with pytest.raises(ValueError, match="minimum"):
        replay_calls(fixture, [_read("d", max_lines=0)])


def test_read_match_is_optional_in_every_family_and_shows_only_matching_lines():
    fixture = get_fixture(FIXTURE)
    for family in TOOL_FAMILIES:
        for version in ("1.0", "2.0"):
            known = manifest(family, version)
            schema = known.tool_for_op("read").parameters()
            assert schema["properties"]["match"]["type"] == "string"
            assert "match" not in schema["required"]
            name, args = known.render("read", {"path": PATH, "match": "def"})
            assert known.interpret(name, args) == ("read", {"path": PATH, "match": "def"})
    # the multiplexed fs tool takes match for its read only: another op drops it
    fs = manifest("fs")
    assert fs.render("list", {"path": "textkit", "match": "def"})[1] == {"op": "list", "path": "textkit"}
    listing = {"op": "list", "path": "textkit", "match": "def"}
    assert fs.interpret("fs", listing) == ("list", {"path": "textkit"})
    whole = fixture.s0_files[PATH]
    wanted = "".join(line for line in whole.splitlines(keepends=True) if "def " in line)
    assert 0 < wanted.count("\n") < whole.count("\n")
    replay = replay_calls(fixture, [_read("a", match="def "), _read("b", match="no such text")])
    matched, nothing = (o.content for o in replay.observations)
    assert matched == wanted
    assert nothing == "(no line contains 'no such text')"


def test_replay_reproduces_a_recorded_episode_across_schema_drift():
    fixture = get_fixture(FIXTURE)
    result = run_episode(fixture, ScriptedExpert(), seed=0, faults=[FaultSpec("schema_drift", 2)])
    episode = result.episode
    assert {d.tools_version for d in episode.delivered_inputs} == {"path@1.0", "path@2.0"}
    tags = {d.response_event_index: d.tools_version for d in episode.delivered_inputs}
    calls = {c.id: (tags[i], c) for i, e in enumerate(episode.events) for c in e.tool_calls}
    tools = [e for e in episode.events if e.kind == "tool"]
    config = RuntimeConfig(**json.loads(episode.extra_json)["runtime"])
    replay = replay_calls(fixture, [calls[e.tool_call_id] for e in tools], config)
    assert [(o.content, o.status, o.exit_code) for o in replay.observations] == [
        (e.content, e.status, e.exit_code) for e in tools
    ]
    assert replay.final_files == result.final_files != fixture.s0_files
