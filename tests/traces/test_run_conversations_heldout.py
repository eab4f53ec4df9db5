"""Held-out validation of splitting a run into conversations (traces/adapters/call_trace.py), kept
apart from the development cases of test_run_conversations.py: other readers (Langfuse, the Agents
SDK, MLflow-free gateway runs, LangSmith) and other shapes of the same class. Written before they
were run; on first measure 4 of 4 read as expected (docs/formats.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from log_files import write_jsonl

from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Episode


def _episodes(path: Path) -> dict[str, Episode]:
    result = ingest_paths([path])
    assert result.rejects == [], [(r.reason, r.detail) for r in result.rejects]
    assert result.records_in == result.normalized
    return {episode.episode_id: episode for episode in result.episodes}


def _texts(episode: Episode) -> list[str | None]:
    return [e.content for e in episode.events]


def _generation(gid: str, start: str, messages: list[dict[str, Any]], answer: str) -> dict[str, Any]:
    return {
        "id": gid,
        "traceId": "lf",
        "type": "GENERATION",
        "startTime": start,
        "parentObservationId": "root",
        "model": "gpt-4o",
        "input": messages,
        "output": {"role": "assistant", "content": answer},
    }


def test_langfuse_two_chats_with_the_same_system_prompt_interleaved(tmp_path: Path):
    system = {"role": "system", "content": "You are a helpful assistant."}
    a = [system, {"role": "user", "content": "Translate 'cat' to French"}]
    b = [system, {"role": "user", "content": "What is 2+2?"}]
    trace = {
        "id": "lf",
        "metadata": {},
        "observations": [
            {"id": "root", "traceId": "lf", "type": "SPAN", "startTime": "2025-01-01T00:00:00Z"},
            _generation("g1", "2025-01-01T00:00:01Z", a, "chat"),
            _generation("g2", "2025-01-01T00:00:02Z", b, "4"),
            _generation(
                "g3",
                "2025-01-01T00:00:03Z",
                [*a, {"role": "assistant", "content": "chat"}, {"role": "user", "content": "And 'dog'?"}],
                "chien",
            ),
            _generation(
                "g4",
                "2025-01-01T00:00:04Z",
                [*b, {"role": "assistant", "content": "4"}, {"role": "user", "content": "Times 3?"}],
                "12",
            ),
        ],
    }
    episodes = _episodes(write_jsonl(tmp_path, "lf.jsonl", [trace]))
    assert len(episodes) == 2
    by_last = {_texts(e)[-1]: e for e in episodes.values()}
    assert set(by_last) == {"chien", "12"}
    assert _texts(by_last["chien"])[1:] == ["Translate 'cat' to French", "chat", "And 'dog'?", "chien"]
    assert _texts(by_last["12"])[1:] == ["What is 2+2?", "4", "Times 3?", "12"]


def _span(sid: str, start: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "object": "trace.span",
        "id": sid,
        "trace_id": "trace_x",
        "parent_id": "agent",
        "started_at": start,
        "ended_at": start,
        "span_data": data,
        "error": None,
    }


def test_agents_sdk_agent_used_as_a_tool_is_its_own_episode(tmp_path: Path):
    orchestrator = {"role": "system", "content": "You orchestrate; call translate_to_spanish."}
    user = {"role": "user", "content": "Say hello in Spanish"}
    ask = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "translate_to_spanish", "arguments": '{"input": "hello"}'},
            }
        ],
    }
    translator = {"role": "system", "content": "You translate to Spanish."}
    records = [
        {"object": "trace", "id": "trace_x", "workflow_name": "w", "metadata": {}},
        _span(
            "g1",
            "2025-01-01T00:00:01+00:00",
            {"type": "generation", "input": [orchestrator, user], "output": [ask], "model": "gpt-4o"},
        ),
        _span(
            "g2",
            "2025-01-01T00:00:02+00:00",
            {
                "type": "generation",
                "input": [translator, {"role": "user", "content": "hello"}],
                "output": [{"role": "assistant", "content": "hola"}],
                "model": "gpt-4o-mini",
            },
        ),
        _span(
            "g3",
            "2025-01-01T00:00:03+00:00",
            {
                "type": "generation",
                "input": [orchestrator, user, ask, {"role": "tool", "tool_call_id": "c1", "content": "hola"}],
                "output": [{"role": "assistant", "content": "Hola!"}],
                "model": "gpt-4o",
            },
        ),
    ]
    episodes = _episodes(write_jsonl(tmp_path, "agents.jsonl", records))
    assert len(episodes) == 2
    sub = next(e for e in episodes.values() if e.episode_id != "openai-agents:trace_x")
    assert _texts(sub) == ["You translate to Spanish.", "hello", "hola"]
    assert sub.lineage.model == "gpt-4o-mini"
    assert _texts(episodes["openai-agents:trace_x"])[-1] == "Hola!"


def _call(messages: list[dict[str, Any]], answer: str) -> dict[str, Any]:
    return {
        "root_span_id": "root-1",
        "input": messages,
        "output": [
            {"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}
        ],
    }


def test_a_sliding_window_history_stays_one_conversation(tmp_path: Path):
    system = {"role": "system", "content": "Be brief."}
    turns = []
    calls = []
    for n in range(1, 6):
        turns.append({"role": "user", "content": f"question {n}"})
        calls.append(_call([system, *turns[-3:]], f"answer {n}"))  # keeps the last three messages
        turns.append({"role": "assistant", "content": f"answer {n}"})
    (episode,) = _episodes(write_jsonl(tmp_path, "spans.jsonl", calls)).values()
    assert _texts(episode)[-1] == "answer 5" and len(episode.delivered_inputs) == 5


def test_langsmith_two_parallel_researchers_and_their_supervisor(tmp_path: Path):
    def run(rid: str, second: int, messages: list[dict[str, Any]], answer: str) -> dict[str, Any]:
        return {
            "id": rid,
            "trace_id": "t",
            "parent_run_id": "t",
            "run_type": "llm",
            "inputs": {"messages": messages},
            "outputs": {
                "generations": [[{"text": answer, "message": {"role": "assistant", "content": answer}}]]
            },
            "start_time": f"2025-01-01T00:00:{second:02d}",
        }

    boss = {"role": "system", "content": "Split the question between two researchers."}
    worker = {"role": "system", "content": "Research the sub-question you are given."}
    q = {"role": "user", "content": "Compare the populations of Paris and Rome"}
    runs = [
        {
            "id": "t",
            "trace_id": "t",
            "parent_run_id": None,
            "run_type": "chain",
            "inputs": {},
            "outputs": {"output": "Paris is larger"},
            "start_time": "2025-01-01T00:00:00",
        },
        run("b1", 1, [boss, q], "Dispatching."),
        run("w1", 2, [worker, {"role": "user", "content": "Population of Paris?"}], "2.1M"),
        run("w2", 3, [worker, {"role": "user", "content": "Population of Rome?"}], "2.8M"),
        run(
            "b2",
            4,
            [
                boss,
                q,
                {"role": "assistant", "content": "Dispatching."},
                {"role": "user", "content": "Paris 2.1M; Rome 2.8M"},
            ],
            "Rome is larger",
        ),
    ]
    episodes = _episodes(write_jsonl(tmp_path, "runs.jsonl", runs))
    assert len(episodes) == 3
    answers = sorted(_texts(e)[-1] or "" for e in episodes.values())
    assert answers == ["2.1M", "2.8M", "Rome is larger"]
    assert episodes["langsmith:t"].outcome.final_answer == "Paris is larger"
