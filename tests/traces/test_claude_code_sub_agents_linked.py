"""A Claude Code sub-agent's episode has no task link of its own: it shares its parent session's,
which a ``task_ids.json`` names by the session's file. Claude Code 2.x writes the sub-agent's
transcript in a file of its own (``agent-<id>.jsonl`` beside the session, or under
``<session>/subagents/``) carrying the session's id, so the session is read across files; it was
located at whichever file came first, and where that was a sub-agent transcript the map entry
naming the session's file linked neither the session nor its sub-agents (both ``no_task_identity``
at verification). Every session layout of ``claude_code_sub_agents.CASES``, under a session id
whose file sorts before or after ``agent-*``; the map names each session's file. A second session
in the same folder, mapped to another task and delegating nothing, is the control: it keeps its
own link. Development and validation halves by a hash of the case's id (the validation half was
run once, after the fix was written against development)."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import pytest
from claude_code_sub_agents import CASES, SESSION, Case

from trajectory_platform.traces.ingest import ingest_paths

SESSION_IDS = (SESSION, "e41b7c2d-9a0e-4f31-8c55-6d7e8f901a2b")
"""A session id whose file sorts before ``agent-*.jsonl``, and one that sorts after it."""
OTHER = "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"
"""The control session's id: a session of its own, linked to its own task."""
ANSWER = {
    "id": "msg_o1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "All pass."}],
    "stop_reason": "end_turn",
}


def _renamed(case: Case, session: str) -> dict[str, str]:
    return {
        path.replace(SESSION, session): "\n".join(json.dumps(e) for e in entries).replace(SESSION, session)
        for path, entries in case.files.items()
    }


def _control() -> str:
    """A session of its own (its own id and entry uuids) that delegates nothing."""
    said = [("user", {"role": "user", "content": "Run the tests."}), ("assistant", ANSWER)]
    return "\n".join(
        json.dumps(
            {
                "parentUuid": f"{OTHER[:-1]}{n - 1}" if n else None,
                "isSidechain": False,
                "cwd": "/home/dev/app",
                "sessionId": OTHER,
                "type": kind,
                "message": message,
                "uuid": f"{OTHER[:-1]}{n}",
                "timestamp": f"2025-10-02T10:00:0{n}.000Z",
            }
        )
        for n, (kind, message) in enumerate(said)
    )


LINKING = [case for case in CASES if not case.tools]
"""Whether a sub-agent ran a tool does not touch where its session is read: those cases left out
(all 56 passed with them, 24 failing before the fix)."""
IDS = [f"{case.name}-{session[:4]}" for case, session in itertools.product(LINKING, SESSION_IDS)]
ALL = dict(zip(IDS, itertools.product(LINKING, SESSION_IDS), strict=True))
DEV = [i for i in IDS if hashlib.sha256(i.encode()).digest()[0] % 2 == 0]
VALIDATION = [i for i in IDS if i not in DEV]


def _assert_linked(case_id: str, tmp_path: Path) -> None:
    case, session = ALL[case_id]
    for path, text in _renamed(case, session).items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text + "\n", encoding="utf-8")
    (tmp_path / f"{OTHER}.jsonl").write_text(_control() + "\n", encoding="utf-8")
    own = next(p for p in _renamed(case, session) if "/" not in p and not p.startswith("agent-"))
    (tmp_path / "task_ids.json").write_text(json.dumps({own: "calc-add", f"{OTHER}.jsonl": "other-task"}))
    result = ingest_paths([tmp_path])
    assert [r.reason for r in result.rejects] == []
    links = {e.episode_id: (e.task.fixture_id, Path(e.source_file).name) for e in result.episodes}
    assert links.pop(f"claude-code:{OTHER}") == ("other-task", f"{OTHER}.jsonl")
    assert len(links) == 1 + len(case.prompts)
    assert set(links.values()) == {("calc-add", own)}, "the session and its sub-agents share its link"


@pytest.mark.parametrize("case_id", DEV)
def test_sub_agents_share_the_sessions_task_link(case_id: str, tmp_path: Path):
    _assert_linked(case_id, tmp_path)


@pytest.mark.parametrize("case_id", VALIDATION)
def test_sub_agents_share_the_sessions_task_link_heldout(case_id: str, tmp_path: Path):
    _assert_linked(case_id, tmp_path)
