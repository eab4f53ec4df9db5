"""The schema curriculum (benchmarks/schema_curriculum.py): its views keep the copy under test (the
called tool's renamed name is in the block, nearer the call), and its phases split the steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ablation.corpus import HELD_OUT_FAMILY, expert_corpus, task_numbers
from schema_curriculum import (
    KINDS,
    REWORDINGS,
    VIEWS,
    after_view,
    before_view,
    called_tools,
    compact_view,
    in_view,
    keys_view,
    line_view,
    menu_view,
    parse_stages,
    phase_of,
    probe_rows,
    renamed,
    reworded,
    short_view,
    used_view,
)

from trajectory_platform.gym.library import learnable_fixture
from trajectory_platform.gym.tools import manifest
from trajectory_platform.training.data.masked_dataset import EpisodeInput
from trajectory_platform.training.data.tokenizer import load_tokenizer


@pytest.fixture(scope="module")
def tokenizer(eval_workdir: Path):
    return load_tokenizer(eval_workdir / "models" / "default_base")


@pytest.fixture(scope="module")
def episodes():
    fixtures = [learnable_fixture(HELD_OUT_FAMILY, task, "path", 0) for task in task_numbers(0, 2, KINDS)]
    return [item.episode for item in expert_corpus(fixtures, seed=0)]


def test_views_keep_every_called_tool_and_leave_the_episode_untouched(episodes):
    episode = episodes[0]
    declared = [tool.name for tool in episode.tools]
    assert len(declared) == 5 and called_tools(episode) == {"read_file"}
    for name, view in VIEWS.items():
        shown = view(episode)
        kept = [tool.name for tool in shown.tools]
        every = {"full": declared, "menu": declared, "compact": declared}
        expected = {**every, "after": declared[1:3], "before": declared[:2]}.get(name, ["read_file"])
        assert kept == expected
        assert [e.tool_calls for e in shown.events] == [e.tool_calls for e in episode.events]
    assert [tool.name for tool in episode.tools] == declared  # views copy, never edit


def test_neighbour_views_add_one_distractor_before_or_after_the_called_tool(episodes):
    declared = [tool.name for tool in episodes[0].tools]
    assert [tool.name for tool in after_view(episodes[0]).tools] == declared[1:3]
    assert [tool.name for tool in before_view(episodes[0]).tools] == declared[0:2]
    assert declared[1] == "read_file"


def _first_key(episode) -> str:
    call = next(call for event in episode.events for call in event.tool_calls)
    return next(iter(json.loads(call.arguments)))


def _first_property(tool) -> str:
    return next(iter(json.loads(tool.parameters_json)["properties"]))


def test_used_view_makes_the_first_key_the_first_declared_property(episodes):
    inputs = [EpisodeInput(e, split="train", role="pristine") for e in episodes]
    copies = [item.episode for item in renamed(inputs, seed=0, copies=4)]
    selections = 0
    for episode in copies:
        called = next(t for t in episode.tools if t.name == next(iter(called_tools(episode))))
        selections += _first_property(called) != _first_key(episode)  # the full schema: a selection
        (tool,) = used_view(episode).tools
        schema, full = json.loads(tool.parameters_json), json.loads(called.parameters_json)
        assert _first_property(tool) == _first_key(episode)  # this view: a copy
        assert set(schema["required"]) <= set(schema["properties"]) < set(full["properties"])
        assert all(schema["properties"][key] == full["properties"][key] for key in schema["properties"])
        (short,) = keys_view(episode).tools
        assert list(json.loads(short.parameters_json)["properties"]) == list(schema["properties"])
    assert selections > 0


def test_line_and_menu_views_keep_names_and_descriptions_only(episodes):
    for view, count in ((line_view, 1), (menu_view, 5)):
        shown = view(episodes[0])
        assert len(shown.tools) == count and {tool.parameters_json for tool in shown.tools} == {"{}"}
        assert all(tool.description for tool in shown.tools)
        assert [e.content for e in shown.events if e.kind == "system"] == [""]


@pytest.mark.parametrize("view", [short_view, compact_view])
def test_short_and_compact_views_drop_argument_descriptions_and_the_system_text(episodes, view):
    shown = view(episodes[0])
    for tool in shown.tools:
        schema = json.loads(tool.parameters_json)
        assert set(schema) == {"properties", "required"}
        assert all("description" not in prop for prop in schema["properties"].values())
    assert [e.content for e in shown.events if e.kind == "system"] == [""]
    assert any(e.content for e in episodes[0].events if e.kind == "system")


def test_renamed_draws_are_fresh_and_declare_what_they_call(episodes):
    inputs = [EpisodeInput(e, split="train", role="pristine") for e in episodes]
    copies = renamed(inputs, seed=0, copies=2)
    assert len(copies) == 4
    names = [next(iter(called_tools(c.episode))) for c in copies]
    assert "read_file" not in names and len(set(names)) > 1
    for item in copies:
        assert called_tools(item.episode) <= {tool.name for tool in item.episode.tools}


def test_reordered_copies_declare_the_called_tool_anywhere(episodes):
    """``--reorder``: the same renamed copies, each declaring its tools in another order, so the
    called tool is not always second (the shortcut the ``alias_moved`` probe caught)."""
    inputs = [EpisodeInput(e, split="train", role="pristine") for e in episodes]
    plain, moved = renamed(inputs, seed=0, copies=3), renamed(inputs, seed=0, copies=3, reorder=True)

    def place(item: EpisodeInput) -> int:
        return next(i for i, tool in enumerate(item.episode.tools) if tool.name in called_tools(item.episode))

    assert {place(item) for item in plain} == {1}
    assert len({place(item) for item in moved}) > 1
    for before, after in zip(plain, moved, strict=True):
        assert sorted(t.name for t in before.episode.tools) == sorted(t.name for t in after.episode.tools)
        assert [t.name for t in before.episode.tools] != [t.name for t in after.episode.tools]
        assert [e.tool_calls for e in before.episode.events] == [e.tool_calls for e in after.episode.events]


def test_probe_rows_put_the_called_name_first_in_the_focused_block(tokenizer):
    rows = probe_rows(tokenizer, items=2, seed=0, views=["line", "short", "line"])
    copies = {f"{prefix}_{view}" for prefix in ("renamed", "reordered") for view in ("full", "line", "short")}
    moved = {"alias_moved_line", "alias_moved_short"}
    assert set(rows) == {"path", "alias", "alias_names", "alias_moved", *copies, *moved}
    for ids in rows["renamed_short"]:
        text = tokenizer.decode(ids)
        block_name = text.split("<|tools|>", 1)[1].split(":", 1)[0]
        assert f'{{"name": "{block_name}"' in text
        assert len(ids) < min(map(len, rows["renamed_full"]))
    assert set(probe_rows(tokenizer, items=1, seed=0, views=["full"])) == {
        "path",
        "alias",
        "alias_names",
        "alias_moved",
        "renamed_full",
        "reordered_full",
    }


def test_reordered_probe_copies_are_the_renamed_ones_in_another_order(tokenizer):
    rows = probe_rows(tokenizer, items=4, seed=0, views=["menu"])

    def blocks(name: str) -> list[list[str]]:
        texts = [tokenizer.decode(ids).split("<|tools|>")[1].split("<|end_tools|>")[0] for ids in rows[name]]
        return [[line.split(":")[0] for line in text.strip().splitlines()] for text in texts]

    for view in ("full", "menu"):
        for before, after in zip(blocks(f"renamed_{view}"), blocks(f"reordered_{view}"), strict=True):
            assert sorted(before) == sorted(after) and before != after
    assert [names.index("cat") for names in blocks("alias_moved_menu")] == [2, 3, 4, 0]
    assert [names.index("cat") for names in blocks("alias")] == [2] * 4
    assert "show a document" in tokenizer.decode(rows["alias_moved_menu"][0])


def test_a_mixed_stage_shows_every_copy_in_each_of_its_views(episodes):
    inputs = [EpisodeInput(e, split="train", role="pristine") for e in episodes]
    mixed = in_view(inputs, "after+full")
    assert [len(item.episode.tools) for item in mixed] == [2] * len(inputs) + [5] * len(inputs)
    assert parse_stages("after+full:5,line:2") == [("after+full", 5), ("line", 2)]
    with pytest.raises(ValueError, match="VIEW"):
        parse_stages("after+nope:5")


def test_phases_split_the_steps_in_order():
    stages = parse_stages("line:2,short:1")
    assert stages == [("line", 2), ("short", 1)]
    expected = ["renamed_only:line"] * 2 + ["renamed_only:short"] + ["warmup"] * 3 + ["full"] * 2
    assert [phase_of(s, stages, 3) for s in range(8)] == expected
    assert {phase_of(s, parse_stages(""), 0) for s in range(4)} == {"full"}
    for bad in ("line", "long:5", "short:x"):
        with pytest.raises(ValueError, match="is not VIEW"):
            parse_stages(bad)


def test_reworded_copies_vary_the_familiar_descriptions_never_to_the_reserved_ones(episodes):
    reserved = {tool.description for tool in manifest("alias").tools}
    assert not reserved & {text for texts in REWORDINGS.values() for text in texts}
    seen: set[str] = set()
    for episode in episodes:
        before = [tool.description for tool in episode.tools]
        after = reworded(episode, 0)
        assert [tool.name for tool in after.tools] == [tool.name for tool in episode.tools]
        assert [tool.description for tool in episode.tools] == before  # a copy, not in place
        assert after == reworded(episode, 0)  # drawn per episode and tool: deterministic
        seen |= {tool.description or "" for tool in after.tools} - set(before)
    assert seen and not seen & reserved
