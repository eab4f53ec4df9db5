"""Agent2Agent (A2A) protocol tasks (``adapters/a2a.py``): a task's ``history`` of ``user`` and
``agent`` messages whose parts name their kind under ``kind``, and the ``artifacts`` it produced.
The Gemini reader claimed its ``parts`` and rejected it as an ``unknown part``.

Development case here (a bare task); the validation case (a JSON-RPC ``result`` in JSONL) was held
out and read on its first measure after the reader was written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

ASK, ANSWER = "What is the weather in Paris?", "It is 18C in Paris."


def task(history: list[dict[str, Any]], state: str = "completed", **more: Any) -> dict[str, Any]:
    return {
        "kind": "task",
        "id": "task-1",
        "contextId": "ctx-1",
        "status": {"state": state},
        "history": history,
        **more,
    }


def said(role: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "message", "role": role, "messageId": f"m-{role}", "parts": list(parts)}


def test_a_task_is_its_history_and_its_artifact_the_final_answer(tmp_path: Path):
    document = task(
        [said("user", {"kind": "text", "text": ASK}, {"kind": "data", "data": {"unit": "C"}})],
        artifacts=[{"artifactId": "a1", "parts": [{"kind": "text", "text": ANSWER}]}],
    )
    episode = one_episode(write_json(tmp_path, "task.json", document))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", ASK + '\n{"unit":"C"}'),
        ("assistant", ANSWER),
    ]
    assert (episode.outcome.final_answer, episode.outcome.terminal_status) == (ANSWER, "completed")
    assert episode.episode_id == "a2a:task-1"


def test_an_unknown_part_kind_is_a_named_reject(tmp_path: Path):
    document = task([said("user", {"kind": "video", "uri": "x"})])
    (reject,) = ingest_paths([write_json(tmp_path, "task.json", document)]).rejects
    assert reject.reason == "unknown content part" and "history[0].parts[0].kind" in (reject.detail or "")


def test_control_a_chat_whose_speaker_is_an_agent_is_not_a_task(tmp_path: Path):
    """A support desk's log where ``agent`` is a person answering stays what it was (no A2A task)."""
    desk = {"messages": [{"role": "user", "content": "Hi"}, {"role": "agent", "content": "Hello"}]}
    result = ingest_paths([write_json(tmp_path, "desk.json", desk)])
    assert all(e.source_format != "a2a" for e in result.episodes) and [r.reason for r in result.rejects] == [
        "unknown role"
    ]


def test_held_out_a_json_rpc_result_in_jsonl(tmp_path: Path):
    history = [said("user", {"kind": "text", "text": ASK}), said("agent", {"kind": "text", "text": ANSWER})]
    line = {"jsonrpc": "2.0", "id": 1, "result": task(history)}
    episode = one_episode(write_jsonl(tmp_path, "calls.jsonl", [line]))
    assert [(e.kind, e.content) for e in episode.events] == [("user", ASK), ("assistant", ANSWER)]
    assert episode.outcome.final_answer is None and episode.outcome.terminal_status == "completed"
