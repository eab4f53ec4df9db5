"""Schema augmentation: consistent renames, reorder, distractors, optional-argument removal, lineage."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec, canonical_json
from trajectory_platform.training.augment import augment_episodes, augment_inputs, derive, token_expansion
from trajectory_platform.training.masked_dataset import EpisodeInput, build_masked_dataset
from trajectory_platform.training.tokenizer import build_default_tokenizer, load_tokenizer

READ_SCHEMA = {"additionalProperties": False, "properties": {"file_path": {"type": "string"},
                                                             "limit": {"type": "integer"}},
               "required": ["file_path"], "type": "object"}
TESTS_SCHEMA = {"properties": {"target": {"type": "string"}, "verbose": {}}, "type": "object"}


def episode() -> Episode:
    return Episode(
        episode_id="ep1", source_format="native", source_file="t.jsonl", source_line=1, source_path=None,
        partition_date=None,
        tools=[ToolSpec("read_file", "Read a file.", canonical_json(READ_SCHEMA), "1.0"),
               ToolSpec("run_tests", "Run the tests.", canonical_json(TESTS_SCHEMA), "1.0")],
        events=[
            Event("system", "Use read_file to inspect code; pass 'file_path'."),
            Event("user", "Why does the build fail? Check the file path."),
            Event("assistant", "", tool_calls=[ToolCall("c1", "read_file", '{"path": "a.py"}')]),
            Event("refusal", "error: missing required argument 'file_path' for tool 'read_file'",
                  tool_call_id="c1", status="refused"),
            Event("assistant", "", tool_calls=[ToolCall("c2", "read_file", '{"file_path":"a","limit":5}')]),
            Event("tool", "x = 1", tool_call_id="c2", tool_name="read_file", status="ok"),
            Event("assistant", "", tool_calls=[ToolCall("c3", "run_tests", '{"target":"tests/"}')]),
            Event("tool", "ok", tool_call_id="c3", status="ok"),
            Event("assistant", "read_file showed x = 1; fixed."),
        ],
    )


def test_rename_is_consistent_across_schema_calls_observations_and_errors():
    parent = episode()
    child = derive(parent, "rename", seed=1)
    extra = json.loads(child.extra_json)
    mapping = extra["augmentation"]["details"]
    tools, args = mapping["tools"], mapping["arguments"]
    assert set(tools) == {"read_file", "run_tests"}
    assert set(args) == {"file_path", "limit", "target", "verbose"}
    new_read, new_path = tools["read_file"], args["file_path"]
    assert [t.name for t in child.tools] == [tools["read_file"], tools["run_tests"]]
    schema = json.loads(child.tools[0].parameters_json)
    assert schema["required"] == [new_path] and set(schema["properties"]) == {new_path, args["limit"]}
    assert child.events[4].tool_calls[0].name == new_read
    assert json.loads(child.events[4].tool_calls[0].arguments) == {new_path: "a", args["limit"]: 5}
    assert child.events[3].content == f"error: missing required argument '{new_path}' for tool '{new_read}'"
    assert child.events[0].content == f"Use {new_read} to inspect code; pass '{new_path}'."
    assert child.events[1].content == parent.events[1].content  # prose "file path" keeps its meaning
    assert child.events[5].tool_name == new_read
    assert child.events[8].content == f"{new_read} showed x = 1; fixed."
    # No old identifier survives anywhere in the derived record (except inside the lineage note).
    body = canonical_json({**child.to_dict(), "extra_json": None})
    for old in ("read_file", "run_tests", "file_path"):
        assert old not in body, old
    # Lineage: the parent is named the way curation resolves splits; the parent is untouched.
    assert extra["parent_episode_id"] == "ep1" and child.episode_id.startswith("ep1~rename-")
    assert parent.tools[0].name == "read_file"
    assert derive(parent, "rename", seed=1).to_dict() == child.to_dict()  # deterministic


def test_reorder_distractor_and_optional_removal():
    parent = episode()
    assert [t.name for t in derive(parent, "reorder", 0).tools] == ["run_tests", "read_file"]
    with_distractors = derive(parent, "distractor", 0)
    added = json.loads(with_distractors.extra_json)["augmentation"]["details"]["added"]
    assert len(with_distractors.tools) == 4 and [t.name for t in with_distractors.tools[2:]] == added
    called = {c.name for e in with_distractors.events for c in e.tool_calls}
    assert not called & set(added)
    removed = derive(parent, "remove_optional", 0)
    details = json.loads(removed.extra_json)["augmentation"]["details"]
    assert details == {"tool": "run_tests", "removed": "verbose"}  # 'limit' was used by a call: not removable
    result = augment_episodes([parent, Episode("ep2", "native", "t", 1, None, None)], ["reorder", "rename"])
    assert [(i, e.episode_id.split("~")[1].split("-")[0]) for i, e in result.derived] == [(0, "reorder"),
                                                                                          (0, "rename")]
    assert result.skips == {"reorder:fewer_than_two_tools": 1, "rename:no_tools": 1}


def test_optional_argument_used_everywhere_needs_fresh_evidence():
    parent = episode()
    parent.tools = parent.tools[:1]
    result = augment_episodes([parent], ["remove_optional"])
    assert not result.derived and result.skips == {"remove_optional:needs_fresh_evidence": 1}


def test_derived_examples_keep_split_and_report_token_expansion(tmp_path_factory):
    tok = load_tokenizer(build_default_tokenizer(tmp_path_factory.getbasetemp() / "shared_wd"))
    parent = episode()
    inputs, result = augment_inputs([EpisodeInput(parent, target_turns=[4, 6, 8], split="valid")],
                                    ["rename", "distractor"])
    expansion = token_expansion([parent], result, tok)
    assert set(expansion) == {"rename", "distractor"} and expansion["distractor"] > 1.0
    assert [(i.split, i.target_turns) for i in inputs] == [("valid", [4, 6, 8])] * 3
    dataset = build_masked_dataset(inputs, tok)
    assert {labels["split"] for labels in dataset.example_labels.values()} == {"valid"}
    assert len(dataset.result.examples) == 3 and not dataset.drop_reasons()
    targets = [e.n_targets for e in dataset.result.examples]
    assert targets[1] == pytest.approx(targets[0], rel=0.5)
