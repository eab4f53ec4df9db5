"""Strands multi-agent sessions as ``FileSessionManager`` writes them for a ``Swarm`` or a ``Graph``
(``session_<id>/multi_agents/multi_agent_<id>/multi_agent.json``, the orchestrator's
``serialize_state()``, beside ``session.json``), generated over the orchestrator, the task's form
(a string or content blocks) and what its nodes did (each ran once, one ran twice, one failed, one
was a nested orchestrator). Each file was an ``unrecognized format`` reject.

:data:`DEV` is what the reading was developed against, :data:`VALIDATION` was held out (a case is
in one half by a hash of its name)."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TASK = "Write a short weather report for Paris."


def _message(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"text": text}]}


def agent_result(text: str) -> dict[str, Any]:
    """A node's ``NodeResult.to_dict()`` around its agent's last message."""
    return {
        "result": {"type": "agent_result", "message": _message(text), "stop_reason": "end_turn"},
        "execution_time": 120,
        "status": "completed",
        "accumulated_usage": {"inputTokens": 30, "outputTokens": 8, "totalTokens": 38},
        "accumulated_metrics": {"latencyMs": 110},
        "execution_count": 1,
    }


@dataclass(frozen=True)
class Case:
    name: str
    state: dict[str, Any]
    with_session: bool
    turns: list[tuple[str, str]]
    """The turns read after the task: (node name, text)."""
    failed: list[str]
    not_kept: int


def _case(kind: str, task_form: str, shape: str, with_session: bool) -> Case:
    nodes = ["researcher", "writer"]
    ran = list(nodes)
    results = {node: agent_result(f"{node} says 18C.") for node in nodes}
    turns = [(node, f"{node} says 18C.") for node in nodes]
    failed: list[str] = []
    not_kept = 0
    if shape == "repeat":  # the researcher ran again after the writer: its last result is kept
        ran.append("researcher")
        results["researcher"] = agent_result("researcher says 19C.")
        turns = [("writer", "writer says 18C."), ("researcher", "researcher says 19C.")]
        not_kept = 1
    elif shape == "failed":
        ran.append("reviewer")
        results["reviewer"] = {**agent_result(""), "result": {"type": "exception", "message": "timed out"}}
        failed = ["reviewer"]
    elif shape == "nested":
        ran.append("team")
        inner = {"critic": agent_result("critic says fine.")}
        results["team"] = {
            **agent_result(""),
            "result": {"type": "multiagent_result", "status": "completed", "results": inner},
        }
        turns.append(("team/critic", "critic says fine."))
    order = "node_history" if kind == "swarm" else "execution_order"
    state: dict[str, Any] = {
        "type": kind,
        "id": f"default_{kind}",
        "status": "completed",
        order: ran,
        "node_results": results,
        "next_nodes_to_execute": [],
        "current_task": TASK if task_form == "string" else [{"text": TASK}],
        "_internal_state": {"interrupt_state": {"activated": False, "context": {}, "interrupts": {}}},
    }
    if kind == "swarm":
        state["context"] = {"shared_context": {}, "handoff_node": None, "handoff_message": None}
    else:
        state |= {"completed_nodes": [n for n in ran if n not in failed], "failed_nodes": failed}
    name = f"{kind}-{task_form}-{shape}-{'session' if with_session else 'alone'}"
    return Case(name, state, with_session, turns, failed, not_kept)


CASES = [
    _case(*combo)
    for combo in itertools.product(
        ("swarm", "graph"), ("string", "blocks"), ("once", "repeat", "failed", "nested"), (True, False)
    )
]


def _half(case: Case) -> int:
    return hashlib.sha256(case.name.encode()).digest()[0] % 2


DEV = [c for c in CASES if _half(c) == 0]
VALIDATION = [c for c in CASES if _half(c) == 1]


def write(root: Path, case: Case, session: str = "run1") -> Path:
    """``root/session_<session>/``: ``session.json`` (where the case has one) and the orchestrator's
    ``multi_agent.json`` (written as Strands writes it, indented). The ``multi_agent.json``."""
    folder = root / f"session_{session}"
    path = folder / "multi_agents" / f"multi_agent_{case.state['id']}" / "multi_agent.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(case.state, indent=2), encoding="utf-8")
    if case.with_session:
        stamp = "2025-10-01T10:00:00+00:00"
        session_file = {
            "session_id": session,
            "session_type": "MULTI_AGENT",
            "created_at": stamp,
            "updated_at": stamp,
        }
        (folder / "session.json").write_text(json.dumps(session_file, indent=2), encoding="utf-8")
    return path
