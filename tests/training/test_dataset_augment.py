"""Schema augmentation: consistent renames, reorder, distractors, optional-argument removal, lineage."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from trajectory_platform.cli import main
from trajectory_platform.curation.split_mixture_stage import SplitSettings
from trajectory_platform.gym import protocol
from trajectory_platform.gym.faults import FaultSpec
from trajectory_platform.gym.fixtures import Fixture, Step
from trajectory_platform.gym.library import build_library, get_fixture
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.runtime import RuntimeConfig, approx_tokens, run_episode
from trajectory_platform.gym.tools import MANIFEST_VERSIONS, OPTIONAL_ROLES, manifest
from trajectory_platform.traces.drops import Drop
from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec, canonical_json
from trajectory_platform.training.data.augment import (
    SKIP_REASONS,
    TRANSFORMATIONS,
    Skip,
    augment_episodes,
    augment_inputs,
    derive,
    token_expansion,
)
from trajectory_platform.training.data.corpus import IDENTIFIER_NOUNS, IDENTIFIER_VERBS, IDENTIFIER_WORDS
from trajectory_platform.training.data.derived_ids import derivations
from trajectory_platform.training.data.mask_settings import Augmentation, DatasetSettings
from trajectory_platform.training.data.masked_dataset import EpisodeInput, build_masked_dataset
from trajectory_platform.training.data.provenance import UNSAFE_FLAG
from trajectory_platform.training.data.serialize import transcript_tokens
from trajectory_platform.training.data.tokenizer import load_tokenizer

READ_SCHEMA = {
    "additionalProperties": False,
    "properties": {"file_path": {"type": "string"}, "limit": {"type": "integer"}},
    "required": ["file_path"],
    "type": "object",
}
TESTS_SCHEMA = {"properties": {"target": {"type": "string"}, "verbose": {}}, "type": "object"}


def episode() -> Episode:
    return Episode(
        episode_id="ep1",
        source_format="native",
        source_file="t.jsonl",
        source_line=1,
        source_path=None,
        partition_date=None,
        tools=[
            ToolSpec("read_file", "Read a file.", canonical_json(READ_SCHEMA), "1.0"),
            ToolSpec("run_tests", "Run the tests.", canonical_json(TESTS_SCHEMA), "1.0"),
        ],
        events=[
            Event("system", "Use read_file to inspect code; pass 'file_path'."),
            Event("user", "Why does the build fail? Check the file path."),
            Event("assistant", "", tool_calls=[ToolCall("c1", "read_file", '{"path": "a.py"}')]),
            Event(
                "refusal",
                "error: missing required argument 'file_path' for tool 'read_file'",
                tool_call_id="c1",
                status="refused",
            ),
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
    assert derivations(child.episode_id) == ["rename"]  # the trainer reads the id's format back
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
    assert [(i, e.episode_id.split("~")[1].split("-")[0]) for i, e in result.derived] == [
        (0, "reorder"),
        (0, "rename"),
    ]
    assert result.skips == {"reorder:fewer_than_two_tools": 1, "rename:no_tools": 1}
    _assert_skips_are_drops(result, parents=2, kinds=2)
    assert result.first_skips["rename:no_tools"] == Drop("no_tools", "ep2: the episode declares no tools")
    with pytest.raises(Skip) as skip:
        derive(Episode("ep2", "native", "t", 1, None, None), "reorder", 0)
    assert skip.value.drop == Drop("fewer_than_two_tools", "0 tool(s) declared")


def test_copies_draw_each_transformation_afresh_and_count_repeats():
    parent = episode()
    result = augment_episodes([parent], ["rename", "reorder"], seed=1, copies=3)
    renames = [child for _, child in result.derived if derivations(child.episode_id) == ["rename"]]
    # Draw 0 is the single copy's record, id included; every further draw has its own renames.
    assert renames[0].to_dict() == derive(parent, "rename", seed=1).to_dict()
    maps = [json.loads(c.extra_json)["augmentation"]["details"]["tools"]["read_file"] for c in renames]
    assert len(renames) == 3 and len({c.episode_id for c in renames}) == 3 and len(set(maps)) > 1
    assert [json.loads(c.extra_json)["augmentation"].get("draw") for c in renames] == [None, 1, 2]
    # Two tools have one other order: the later draws repeat it and are counted, not kept twice.
    orders = [c for _, c in result.derived if derivations(c.episode_id) == ["reorder"]]
    assert len(orders) == 1 and result.skips == {"reorder:same_as_earlier_copy": 2}
    assert result.first_skips["reorder:same_as_earlier_copy"] == Drop(
        "same_as_earlier_copy", "ep1: draw 1 repeats an earlier draw"
    )
    _assert_skips_are_drops(result, parents=1, kinds=2, copies=3)
    again = augment_episodes([parent], ["rename", "reorder"], seed=1, copies=3)
    assert [c.to_dict() for _, c in again.derived] == [c.to_dict() for _, c in result.derived]


def test_a_copy_count_below_one_is_refused_with_the_setting_named(tmp_path, capsys):
    with pytest.raises(ValueError, match="augment_copies must be at least 1, got 0"):
        DatasetSettings(augment=("rename",), augment_copies=0)
    logs = tmp_path / "chat.jsonl"
    logs.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n")
    argv = ["mask", str(logs), "--out", str(tmp_path / "out.jsonl"), "--augment", "rename"]
    assert main([*argv, "--augment-copies", "0", UNSAFE_FLAG]) == 2
    assert "mask: augment_copies must be at least 1, got 0" in capsys.readouterr().err
    assert DatasetSettings(augment=("rename",), augment_copies=4).augmentation() == Augmentation(
        ("rename",), 0, 4
    )


def test_optional_argument_used_everywhere_needs_fresh_evidence():
    parent = episode()
    parent.tools = parent.tools[:1]
    result = augment_episodes([parent], ["remove_optional"])
    assert not result.derived and result.skips == {"remove_optional:needs_fresh_evidence": 1}
    _assert_skips_are_drops(result, parents=1, kinds=1)


def test_derived_examples_keep_split_and_report_token_expansion(default_tokenizer):
    tok = load_tokenizer(default_tokenizer)
    parent = episode()
    inputs, result = augment_inputs(
        [EpisodeInput(parent, target_turns=[4, 6, 8], split="valid")], Augmentation(("rename", "distractor"))
    )
    expansion = token_expansion([parent], result, tok)
    assert set(expansion) == {"rename", "distractor"} and expansion["distractor"] > 1.0
    assert [(i.split, i.target_turns) for i in inputs] == [("valid", [4, 6, 8])] * 3
    dataset = build_masked_dataset(inputs, tok)
    assert {labels["split"] for labels in dataset.example_labels.values()} == {"valid"}
    assert len(dataset.result.examples) == 3 and not dataset.drop_reasons()
    targets = [e.n_targets for e in dataset.result.examples]
    assert targets[1] == pytest.approx(targets[0], rel=0.5)


# ------------------------------------------------------------- remove_optional with a gym replay

GYM_FIXTURE = "textkit/v0/bug-slugify@path"  # path family: read_file(file_path, max_lines?)
DEEP_FIXTURE_HORIZON = 10  # long enough for the runtime to compact a small context


class ShortReads(ScriptedExpert):
    """The expert, except every read passes ``max_lines`` (so the parent's read saw a file head)."""

    name = "test-short-reads"

    def __init__(self, max_lines: int = 3):
        self.max_lines = max_lines

    def render(self, step: Step, reasoning: str | None = None, prose: str = "") -> str:
        if step.op != "read":
            return super().render(step, reasoning, prose)
        name, args = self.known.render("read", {**step.roles(), "max_lines": self.max_lines})
        return protocol.render_turn(content=prose, calls=[(name, args)], reasoning=reasoning)


class GivesUpAfterReading(ShortReads):
    """Reads (with ``max_lines``) and then answers without fixing anything."""

    def start(self, fixture: Fixture, seed: int) -> None:
        super().start(fixture, seed)
        read = next(i for i, s in enumerate(self.plan) if s.op == "read")
        self.plan = [*self.plan[: read + 1], Step("answer", answer="I could not find the bug.")]


def _reads(episode: Episode) -> list[Event]:
    ids = {c.id for e in episode.events for c in e.tool_calls if c.name == "read_file"}
    return [e for e in episode.events if e.kind == "tool" and e.tool_call_id in ids]


def test_removing_a_used_optional_argument_replays_the_calls_in_the_gym(default_tokenizer):
    fixture = get_fixture(GYM_FIXTURE)
    recorded = run_episode(fixture, ShortReads(), seed=0, record_verifier=True).episode
    # Drop the read's unused optional argument (match) first: max_lines is then its only one, and used.
    parent = derive(recorded, "remove_optional", seed=0)
    dropped = json.loads(parent.extra_json)["augmentation"]["details"]
    assert dropped == {"tool": "read_file", "removed": "match"}
    plain = run_episode(fixture, ScriptedExpert(), seed=0).episode  # the runtime without the argument
    child = derive(parent, "remove_optional", seed=0)
    details = json.loads(child.extra_json)["augmentation"]["details"]
    assert details["tool"] == "read_file" and details["removed"] == "max_lines"
    assert details["evidence"] == "gym_replay" and len(details["rewritten_calls"]) == 1
    # The schema no longer offers the argument and no call passes it.
    read_schema = json.loads(next(t for t in child.tools if t.name == "read_file").parameters_json)
    assert "max_lines" not in read_schema["properties"] and "max_lines" in json.dumps(parent.to_dict())
    assert "max_lines" not in canonical_json({**child.to_dict(), "extra_json": None})
    # Fresh evidence: the read now shows what the real tool returns without max_lines (the whole
    # file), which differs from the parent's three-line head.
    [parent_read], [child_read], [plain_read] = _reads(parent), _reads(child), _reads(plain)
    path = json.loads(child.events[child.events.index(child_read) - 1].tool_calls[0].arguments)["file_path"]
    assert child_read.content == plain_read.content == fixture.s0_files[path]
    assert "more lines not shown" in parent_read.content and child_read.content != parent_read.content
    assert details["changed_observations"] == [child.events.index(child_read)]
    # The rest of the transcript (test runs, edit) replays to the same results; outcome holds.
    others = [(e.content, e.status) for e in child.events if e.kind == "tool" and e is not child_read]
    assert others == [
        (e.content, e.status) for e in parent.events if e.kind == "tool" and e is not parent_read
    ]
    assert child.outcome == parent.outcome and not details["workspace_changed"]
    assert json.loads(child.extra_json)["parent_episode_id"] == parent.episode_id
    assert child.lineage.tool_manifest_digest != parent.lineage.tool_manifest_digest
    # Token expansion is reported like the other transformations' (the whole file in, the schema's
    # max_lines declaration and the call's argument out: either may win).
    tok = load_tokenizer(default_tokenizer)
    result = augment_episodes([parent], ["remove_optional"])
    assert [c.to_dict() for _, c in result.derived] == [child.to_dict()]
    ratio = transcript_tokens(child, tok) / transcript_tokens(parent, tok)
    assert ratio != 1.0
    assert token_expansion([parent], result, tok) == {"remove_optional": pytest.approx(ratio)}


def test_replay_that_cannot_stand_for_the_parent_is_refused_not_patched():
    fixture = get_fixture(GYM_FIXTURE)
    # A transient fault before the rewritten read: the replay's first observation is the real one.
    faulted_early = run_episode(fixture, ShortReads(), seed=0, faults=[FaultSpec("http_504", 1)]).episode
    # A fault on the edit after it: the recovery turns were conditioned on an error that no longer occurs.
    faulted_late = run_episode(fixture, ShortReads(), seed=0, faults=[FaultSpec("disk_full", 1)]).episode
    # A log whose recorded outcome (the reference fix) its own calls do not produce: the sealed
    # oracle passes the parent's workspace and fails the replayed one.
    stopped = run_episode(fixture, GivesUpAfterReading(), seed=0)
    assert not stopped.oracle.passed
    claimed = stopped.episode
    claimed.episode_id += "-claimed"
    claimed.outcome.workspace_diff = fixture.reference_diff
    # max_lines=0 is refused by the validator (minimum 1); without it the read would have run.
    invalid = run_episode(fixture, ShortReads(max_lines=0), seed=0).episode
    assert any(e.kind == "refusal" for e in invalid.events)
    # match (unused) dropped first, so the used max_lines is what the replay must stand for
    parents = [derive(p, "remove_optional", seed=0) for p in (faulted_early, faulted_late, claimed, invalid)]
    result = augment_episodes(parents, ["remove_optional"])
    assert not result.derived
    assert result.skips == {
        "remove_optional:replay_diverges_before_rewrite": 1,
        "remove_optional:later_call_outcome_changed": 1,
        "remove_optional:oracle_verdict_changed": 1,
        "remove_optional:refused_call_uses_argument": 1,
    }
    _assert_skips_are_drops(result, parents=4, kinds=1)
    assert result.first_skips["remove_optional:oracle_verdict_changed"].detail == (
        f"{parents[2].episode_id}: fixture {fixture.fixture_id}: the parent passes, the replay does not"
    )


def _assert_skips_are_drops(result, parents: int, kinds: int, copies: int = 1) -> None:
    """Each skip is a Drop with a declared snake_case reason, counted as ``<kind>:<reason>``, and
    every attempt (parent x transformation x copy) was derived or skipped."""
    assert set(result.first_skips) == set(result.skips)
    for key, drop in result.first_skips.items():
        kind, reason = key.split(":")
        assert isinstance(drop, Drop) and drop.reason == reason and kind in TRANSFORMATIONS
        assert reason in SKIP_REASONS and re.fullmatch(r"[a-z]+(_[a-z]+)*", reason) and drop.detail
    tally = result.tally()
    assert tally.balanced and tally.kept == len(result.derived)
    assert tally.records_in == parents * kinds * copies


def _assert_context_coherent(child: Episode) -> None:
    """Each compacted call's messages are the events they index, as rewritten, and every response's
    input-token count is what its delivered events add up to."""
    assert any(d.compacted for d in child.delivered_inputs)
    for delivered in child.delivered_inputs:
        if delivered.compacted:
            messages = json.loads(delivered.messages_json)
            assert messages == [dataclasses.asdict(child.events[i]) for i in delivered.event_indices]
        response = child.events[delivered.response_event_index]
        seen = [child.events[i].content for i in delivered.event_indices]
        assert response.input_tokens == sum(approx_tokens(text) for text in seen)


def test_replay_keeps_compacted_context_and_schema_drift_coherent():
    fixture = next(
        f
        for f in build_library()
        if f.tool_family == "path"
        and not f.flaky
        and f.min_tool_calls >= DEEP_FIXTURE_HORIZON
        and any(s.op == "read" for s in f.plan)
    )
    small_context = RuntimeConfig(compaction_watermark_tokens=300, keep_recent_events=4)
    # Drift after two calls: the notice quotes the schemas, and the expert's next call (a read
    # with max_lines and the stale key) is refused with a message quoting the delivered schema.
    drift = [FaultSpec("schema_drift", 3)]
    parent = run_episode(fixture, ShortReads(), seed=0, config=small_context, faults=drift).episode
    assert any(d.compacted for d in parent.delivered_inputs)
    [refusal] = [e for e in parent.events if e.kind == "refusal"]
    assert "max_lines" in refusal.content and "'target_uri' is a required property" in refusal.content
    summaries = [e.content for e in parent.events if e.kind == "compaction"]
    assert any("max_lines" in s for s in summaries)
    # First the unused optional argument (match: no replay, only the quoted schemas shrink), then
    # the used one (max_lines: a gym replay); each child's context copies agree with its events.
    unused = derive(parent, "remove_optional", seed=0)
    assert json.loads(unused.extra_json)["augmentation"]["details"]["removed"] == "match"
    _assert_context_coherent(unused)
    result = augment_episodes([unused], ["remove_optional"])
    [(_, child)] = result.derived
    _assert_context_coherent(child)
    assert not any("max_lines" in (e.content or "") for e in child.events)
    [child_refusal] = [e for e in child.events if e.kind == "refusal"]
    assert child_refusal.tool_call_id == refusal.tool_call_id
    assert "'target_uri' is a required property" in child_refusal.content
    assert {d.tools_version for d in child.delivered_inputs} == {"path@1.0", "path@2.0"}
    for read, call in _read_calls(child):  # whole files (up to the runtime's truncation marker)
        [path] = json.loads(call.arguments).values()  # file_path, or target_uri after the drift
        whole = fixture.s0_files[path]
        assert read.content[:2400] == whole[:2400] and "more lines not shown" not in read.content


def _read_calls(episode: Episode) -> list[tuple[Event, ToolCall]]:
    calls = {c.id: c for e in episode.events for c in e.tool_calls if c.name == "read_file"}
    return [(e, calls[e.tool_call_id]) for e in _reads(episode)]


def test_renames_draw_one_and_two_piece_names_from_the_inventory_the_renamed_suite_is_built_of():
    """A model writes only what it was trained to write: every identifier of the reserved renamed
    evaluation family must be a name a rename can draw (or an optional argument every family shares,
    ``match``), so the family differs from training by its combination of names, never by a name no
    training target had (issue 17)."""
    inventory = set(IDENTIFIER_VERBS) | set(IDENTIFIER_NOUNS) | set(IDENTIFIER_WORDS)
    shared = {key for options in OPTIONAL_ROLES.values() for key in options}
    for family in SplitSettings().reserved_tool_families:
        for version in MANIFEST_VERSIONS:
            for spec in manifest(family, version).specs():
                keys = set(json.loads(spec.parameters_json)["properties"])
                assert {spec.name, *keys} <= inventory | shared, (family, version, spec.name, keys)
    drawn = set()
    for seed in range(40):
        details = json.loads(derive(episode(), "rename", seed=seed).extra_json)["augmentation"]["details"]
        drawn |= {*details["tools"].values(), *details["arguments"].values()}
    one_piece = {name for name in drawn if "_" not in name}
    assert one_piece and one_piece <= inventory and drawn - one_piece
    for name in drawn - one_piece:
        verb, noun = name.split("_", 1)
        assert verb in IDENTIFIER_VERBS and noun in IDENTIFIER_NOUNS
