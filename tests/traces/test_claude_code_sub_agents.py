"""A Claude Code sub-agent's conversation is not its parent's context (the parent saw its report
only) but an episode of its own, its prompt the ``Task`` input, linked to the parent and its call
(``claude_code_sub_agents.py``). Development half and controls; the validation half is
``test_claude_code_sub_agents_heldout.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_code_sub_agents import ASK, CONTROLS, DEV, FINAL, SESSION, Case, write

from trajectory_platform.traces.ingest import ingest_paths


def assert_sub_agents(case: Case, tmp_path: Path) -> None:
    result = ingest_paths([write(case, tmp_path)])
    assert [r.reason for r in result.rejects] == []
    parents = [e for e in result.episodes if "parent" not in e.extra()]
    (parent,) = parents
    assert parent.episode_id == f"claude-code:{SESSION}"
    said = [(e.kind, e.content) for e in parent.events]
    tasks = len(case.prompts) or 1
    assert said[0] == ("user", ASK) and said[-1] == ("assistant", FINAL) and len(said) == 3 + tasks
    assert parent.extra()["skipped_entries"]["sidechain"] == case.sidechain_entries
    calls = {c.id: c for c in parent.events[1].tool_calls}
    subs = sorted((e for e in result.episodes if e is not parent), key=lambda e: e.episode_id)
    assert [s.task.prompt for s in subs] == case.prompts
    assert [(e["episode_id"], e["tool_call_id"]) for e in parent.extra().get("sub_agents", [])] == [
        (s.episode_id, s.extra()["parent"]["tool_call_id"]) for s in subs
    ]
    for sub, report in zip(subs, case.reports, strict=True):
        link = sub.extra()["parent"]
        assert link["episode_id"] == parent.episode_id and link["tool_call_id"] in calls
        assert sub.episode_id.startswith(f"{parent.episode_id}/agent-")
        kinds = [e.kind for e in sub.events]
        assert kinds == (["user", "assistant", "tool", "assistant"] if case.tools else ["user", "assistant"])
        assert sub.events[-1].content == report and "skipped_entries" not in sub.extra()
        assert sub.lineage.model == "claude-sonnet-4-5-20250929"


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_a_sub_agent_is_an_episode_of_its_own_linked_to_its_parent(case: Case, tmp_path: Path):
    assert_sub_agents(case, tmp_path)


@pytest.mark.parametrize("case", CONTROLS, ids=lambda case: case.name)
def test_a_warmup_sidechain_is_no_episode(case: Case, tmp_path: Path):
    assert_sub_agents(case, tmp_path)
