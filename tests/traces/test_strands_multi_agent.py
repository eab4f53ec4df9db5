"""Strands multi-agent sessions (``strands_multi_agent.py``): a ``Swarm`` or ``Graph`` session's
``multi_agent.json`` is one episode, the task then each node's last message named by its node, in
the order the nodes ran (``adapters/strands_session.py``). Development half and controls; the
validation half is ``test_strands_multi_agent_heldout.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from strands_multi_agent import DEV, TASK, Case, agent_result, write
from strands_sessions import agent_folder, assistant, user

from trajectory_platform.traces.ingest import ingest_paths


def assert_read(case: Case, tmp_path: Path) -> None:
    write(tmp_path, case)
    result = ingest_paths([tmp_path])
    assert result.rejects == []
    (episode,) = result.episodes
    assert episode.source_format == "strands-session"
    assert episode.task.prompt == TASK
    assert [(e.kind, e.name, e.content) for e in episode.events] == [
        ("user", None, TASK),
        *(("assistant", node, text) for node, text in case.turns),
    ]
    assert {e.finish_reason for e in episode.events[1:]} == {"end_turn"}
    extra = json.loads(episode.extra_json or "{}")
    assert (extra["type"], extra.get("failed_nodes", []), extra.get("node_runs_not_kept", 0)) == (
        case.state["type"],
        case.failed,
        case.not_kept,
    )
    assert extra["session_id"] == ("run1" if case.with_session else None)
    read_with = sum(sum(r.values()) for r in result.read_with_other_records.values())
    assert read_with == int(case.with_session), "session.json is read with the orchestrator's file"


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_a_multi_agent_session_is_one_episode(case: Case, tmp_path: Path):
    assert_read(case, tmp_path)


def test_a_session_with_an_agent_and_an_orchestrator_is_an_episode_each(tmp_path: Path):
    """Control: a session holding an agent's messages keeps reading them as before."""
    write(tmp_path, DEV[0], session="both")
    agent_folder(tmp_path, "both", "solo", [user("Hi"), assistant("Hello")])
    result = ingest_paths([tmp_path])
    assert result.rejects == []
    assert sorted(e.episode_id for e in result.episodes) == [
        f"strands-session:both/{DEV[0].state['id']}",
        "strands-session:both/solo",
    ]


@pytest.mark.parametrize(
    "change",
    [
        {"type": "pipeline"},  # not an orchestrator Strands writes
        {"node_results": None},
    ],
    ids=["unknown-orchestrator", "no-node-results"],
)
def test_a_file_that_is_not_an_orchestrators_state_is_not_claimed(change: dict, tmp_path: Path):
    state = {**DEV[0].state, **change}
    path = tmp_path / "session_x" / "multi_agents" / "multi_agent_m" / "multi_agent.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(state))
    assert [e.source_format for e in ingest_paths([path]).episodes] != ["strands-session"]


def test_a_node_result_of_an_unknown_type_rejects_the_record_without_its_text(tmp_path: Path):
    case = DEV[0]
    odd = {**agent_result("x"), "result": {"type": "Secret-Value-Type", "message": "x"}}
    state = {**case.state, "node_results": {**case.state["node_results"], "writer": odd}}
    write(tmp_path, Case(case.name, state, case.with_session, case.turns, case.failed, case.not_kept))
    (reject,) = ingest_paths([tmp_path]).rejects
    assert reject.reason == "unknown node result" and "Secret-Value-Type" not in reject.detail
