"""A run (a gateway session, a tracer's trace) that holds more than one conversation
(traces/adapters/call_trace.py): each conversation is its own episode, split by prefix consistency,
so no chat and no sub-agent survives only as answerless inputs; a rewritten history (compaction) or
a handoff stays one conversation; an answer an episode does not hold is listed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import langsmith_llm_run, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Episode


def _gateway_call(session: str, messages: list[dict[str, Any]], answer: str) -> dict[str, Any]:
    """One call as a gateway logs it, naming its session."""
    return {
        "metadata": {"session_id": session},
        "request": {"body": {"model": "gpt-4o", "messages": messages}},
        "response": {
            "body": {
                "object": "chat.completion",
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}
                ],
            }
        },
    }


def _root(output: str) -> dict[str, Any]:
    return {
        "id": "tr",
        "trace_id": "tr",
        "parent_run_id": None,
        "run_type": "chain",
        "name": "LangGraph",
        "inputs": {},
        "outputs": {"output": output},
        "start_time": "2025-01-01T00:00:00",
        "extra": {"metadata": {"task_id": "task-1"}},
    }


def _episodes(path: Path) -> dict[str, Episode]:
    result = ingest_paths([path])
    assert result.rejects == [], [(r.reason, r.detail) for r in result.rejects]
    assert result.records_in == result.normalized == len(result.episodes)
    return {episode.episode_id: episode for episode in result.episodes}


def _said(episode: Episode) -> list[tuple[str, str | None]]:
    return [(e.kind, e.content) for e in episode.events]


SYSTEM = {"role": "system", "content": "You are helpful."}


def test_two_chats_under_one_session_are_two_episodes_each_with_its_answers(tmp_path: Path):
    rename = [{"role": "user", "content": "Rename foo to bar"}]
    sql = [SYSTEM, {"role": "user", "content": "Count orders per day"}]
    calls = [
        _gateway_call("s", rename, "Renamed."),
        _gateway_call("s", sql, "SELECT ..."),
        _gateway_call(
            "s",
            [*rename, {"role": "assistant", "content": "Renamed."}, {"role": "user", "content": "Tests too"}],
            "Done.",
        ),
        _gateway_call(
            "s",
            [*sql, {"role": "assistant", "content": "SELECT ..."}, {"role": "user", "content": "Only 2024"}],
            "SELECT ... 2024",
        ),
    ]
    episodes = _episodes(write_jsonl(tmp_path, "gateway.jsonl", calls))
    assert sorted(episodes) == ["chat-log:s", "chat-log:s/1"]
    assert _said(episodes["chat-log:s/1"]) == [
        ("user", "Rename foo to bar"),
        ("assistant", "Renamed."),
        ("user", "Tests too"),
        ("assistant", "Done."),
    ]
    assert _said(episodes["chat-log:s"])[-1] == ("assistant", "SELECT ... 2024")
    answered = {
        k: [d.response_event_index for d in e.delivered_inputs if not d.compacted]
        for k, e in episodes.items()
    }
    assert answered == {"chat-log:s/1": [1, 3], "chat-log:s": [2, 4]}, "each call saw its own chat's prefix"
    link = episodes["chat-log:s/1"].extra()["run_conversation"]
    assert link == {"run": "chat-log:s", "number": 1, "of": 2, "main": False, "calls": [0, 2]}
    assert episodes["chat-log:s/1"].source_path == "run=s/1"


def test_a_sub_agent_handed_the_task_is_its_own_episode_and_its_calls_are_kept(tmp_path: Path):
    task = {"role": "user", "content": "Find the release date and note it"}
    supervisor = {"role": "system", "content": "You route work to a researcher."}
    researcher = {"role": "system", "content": "You research with web_search."}
    transfer = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "t1", "name": "transfer", "args": {}}],
    }
    search = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "w1", "name": "web_search", "args": {"q": "x"}}],
    }
    found = {"role": "tool", "tool_call_id": "w1", "content": "October 7"}
    runs = [
        _root("Done"),
        langsmith_llm_run("l1", "2025-01-01T00:00:01", [supervisor, task], transfer),
        langsmith_llm_run("l2", "2025-01-01T00:00:02", [researcher, task], search),
        langsmith_llm_run(
            "l3",
            "2025-01-01T00:00:03",
            [researcher, task, search, found],
            {"role": "assistant", "content": "Oct 7"},
        ),
        langsmith_llm_run(
            "l4",
            "2025-01-01T00:00:04",
            [
                supervisor,
                task,
                transfer,
                {"role": "tool", "tool_call_id": "t1", "content": "ok"},
                {"role": "assistant", "content": "Oct 7", "name": "researcher"},
            ],
            {"role": "assistant", "content": "Noted: Oct 7"},
        ),
    ]
    episodes = _episodes(write_jsonl(tmp_path, "runs.jsonl", runs))
    assert sorted(episodes) == ["langsmith:tr", "langsmith:tr/2"]
    main, sub = episodes["langsmith:tr"], episodes["langsmith:tr/2"]
    assert [c.name for e in sub.events for c in e.tool_calls] == ["web_search"]
    assert ("tool", "October 7") in _said(sub) and _said(sub)[-1] == ("assistant", "Oct 7")
    assert not any(d.compacted for d in sub.delivered_inputs)
    assert (main.outcome.final_answer, sub.outcome.final_answer) == ("Done", None), (
        "the run's answer is the main one's"
    )
    assert main.task.fixture_id == sub.task.fixture_id == "task-1"
    assert main.extra()["run_conversation"]["main"] and not sub.extra()["run_conversation"]["main"]


def test_a_compacted_history_and_a_handoff_stay_one_conversation(tmp_path: Path):
    first = [SYSTEM, {"role": "user", "content": "Q1"}]
    a1 = {"role": "assistant", "content": "A1"}
    q2 = {"role": "user", "content": "Q2"}
    a2 = {"role": "assistant", "content": "A2"}
    summary = {"role": "user", "content": "Summary of the chat so far"}
    other = {"role": "system", "content": "You are the billing agent."}
    calls = [
        _gateway_call("c", first, "A1"),
        _gateway_call("c", [*first, a1, q2], "A2"),
        # compaction: same instructions, the early turns summarized, then the history again
        _gateway_call("c", [SYSTEM, summary, q2, a2, {"role": "user", "content": "Q3"}], "A3"),
        # a handoff: another agent's instructions, the whole dialogue carried on
        _gateway_call(
            "c",
            [
                other,
                summary,
                q2,
                a2,
                {"role": "user", "content": "Q3"},
                {"role": "assistant", "content": "A3"},
                {"role": "user", "content": "Q4"},
            ],
            "A4",
        ),
    ]
    (episode,) = _episodes(write_jsonl(tmp_path, "gateway.jsonl", calls)).values()
    assert episode.episode_id == "chat-log:c" and "run_conversation" not in episode.extra()
    assert _said(episode)[-1] == ("assistant", "A4")
    assert len(episode.delivered_inputs) == 4


def test_an_answer_the_episode_does_not_hold_is_listed(tmp_path: Path):
    first = [SYSTEM, {"role": "user", "content": "Q1"}]
    calls = [
        _gateway_call("r", first, "a first try"),
        _gateway_call("r", first, "A1"),  # retried: the conversation went on with this answer
        _gateway_call(
            "r", [*first, {"role": "assistant", "content": "A1"}, {"role": "user", "content": "Q2"}], "A2"
        ),
    ]
    (episode,) = _episodes(write_jsonl(tmp_path, "gateway.jsonl", calls)).values()
    assert episode.extra()["answers_not_kept"] == [0]
    assert json.loads(episode.extra_json or "{}")["calls"] == 3
