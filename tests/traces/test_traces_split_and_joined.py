"""Tracing platforms' traces read as conversations, not as the tracer groups them: an OTel trace
holding several conversations is an episode per conversation (``call_trace.run_episodes``, as the
other trace readers do); a Langfuse, LangSmith or OTel trace exported over several files is joined
into one (``cross_file``), a span two files hold in different versions rejecting it by both names;
a Claude Code session resumed under a new id joins the session it resumes. Development cases; held
out in test_traces_split_and_joined_heldout.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import episodes_by_id, langsmith_llm_run, read_accounted, write_json, write_jsonl

from trajectory_platform.traces.record import Episode


def _said(episode: Episode) -> list[tuple[str, str | None]]:
    return [(e.kind, e.content) for e in episode.events]


# --- OTel (conventions >= 1.37: gen_ai.input.messages / gen_ai.output.messages) -------------------


def _otel_span(span_id: str, start: int, attrs: dict[str, Any], parent: str | None = "root") -> dict:
    return {
        "traceId": "t1",
        "spanId": span_id,
        **({"parentSpanId": parent} if parent else {}),
        "name": attrs.get("gen_ai.operation.name", "span"),
        "startTimeUnixNano": str(start * 10**9),
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()],
    }


def _text(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def _chat(span_id: str, start: int, seen: list[dict], answer: dict, system: str = "You help.") -> dict:
    return _otel_span(
        span_id,
        start,
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.system_instructions": json.dumps([{"type": "text", "content": system}]),
            "gen_ai.input.messages": json.dumps(seen),
            "gen_ai.output.messages": json.dumps([answer]),
        },
    )


def _otlp(spans: list[dict]) -> dict[str, Any]:
    return {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}


ROOT = _otel_span("root", 0, {"gen_ai.operation.name": "invoke_agent"}, parent=None)


def test_two_chats_under_one_otel_trace_are_two_episodes(tmp_path: Path):
    weather, capital = _text("user", "Weather in Oslo?"), _text("user", "Capital of Peru?")
    spans = [
        ROOT,
        _chat("c1", 1, [weather], _text("assistant", "Rainy.")),
        _chat("c2", 2, [capital], _text("assistant", "Lima.")),
        _chat(
            "c3",
            3,
            [weather, _text("assistant", "Rainy."), _text("user", "And tomorrow?")],
            _text("assistant", "Sunny."),
        ),
    ]
    write_json(tmp_path, "trace.json", _otlp(spans))
    episodes = episodes_by_id(tmp_path)
    assert sorted(episodes) == ["otel:t1", "otel:t1/2"]
    assert _said(episodes["otel:t1"])[-2:] == [("user", "And tomorrow?"), ("assistant", "Sunny.")]
    assert _said(episodes["otel:t1/2"]) == [
        ("system", "You help."),
        ("user", "Capital of Peru?"),
        ("assistant", "Lima."),
    ]
    assert episodes["otel:t1/2"].extra()["run_conversation"]["main"] is False


def test_an_otel_sub_agent_is_its_own_episode_with_its_tool_runs(tmp_path: Path):
    task = _text("user", "Summarize the open bugs")
    delegate = {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "d1", "name": "researcher", "arguments": {}}],
    }
    search = {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "s1", "name": "search", "arguments": {}}],
    }
    found = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "s1", "response": "3 bugs"}]}
    spans = [
        ROOT,
        _chat("sup1", 1, [task], delegate, system="You supervise."),
        _chat("sub1", 2, [_text("user", "List open bugs")], search, system="You research."),
        _otel_span(
            "tool1",
            3,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.call.id": "s1",
                "gen_ai.tool.name": "search",
                "gen_ai.tool.call.result": "3 bugs",
            },
        ),
        _chat(
            "sub2",
            4,
            [_text("user", "List open bugs"), search, found],
            _text("assistant", "Three."),
            system="You research.",
        ),
        _chat(
            "sup2",
            5,
            [
                task,
                delegate,
                {"role": "tool", "parts": [{"type": "tool_call_response", "id": "d1", "response": "Three."}]},
            ],
            _text("assistant", "There are three open bugs."),
            system="You supervise.",
        ),
    ]
    write_json(tmp_path, "trace.json", _otlp(spans))
    episodes = episodes_by_id(tmp_path)
    assert sorted(episodes) == ["otel:t1", "otel:t1/2"]
    sub = episodes["otel:t1/2"]
    assert [e.kind for e in sub.events] == ["system", "user", "assistant", "tool", "assistant"]
    assert (sub.events[3].tool_call_id, sub.events[3].content) == ("s1", "3 bugs")
    assert len(sub.delivered_inputs) == 2
    assert episodes["otel:t1"].events[-1].content == "There are three open bugs."


def test_an_otel_trace_over_two_batch_files_is_one_episode(tmp_path: Path):
    ask = _text("user", "17*23?")
    call = {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "k1", "name": "calc", "arguments": {}}],
    }
    result = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "k1", "response": "391"}]}
    write_json(
        tmp_path, "batch-2.json", _otlp([_chat("c2", 3, [ask, call, result], _text("assistant", "391"))])
    )
    write_json(tmp_path, "batch-1.json", _otlp([ROOT, _chat("c1", 1, [ask], call)]))
    (episode,) = episodes_by_id(tmp_path).values()
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "assistant"]
    assert [d.event_indices for d in episode.delivered_inputs] == [[0, 1], [0, 1, 2, 3]]


def test_a_span_two_otel_files_hold_in_two_versions_rejects_the_trace_naming_both(tmp_path: Path):
    ask = _text("user", "17*23?")
    write_json(tmp_path, "a.json", _otlp([ROOT, _chat("c1", 1, [ask], _text("assistant", "391"))]))
    write_json(tmp_path, "b.json", _otlp([_chat("c1", 1, [ask], _text("assistant", "400"))]))
    result = read_accounted(tmp_path)
    (reject,) = result.rejects
    assert result.normalized == 0
    assert reject.reason == "conflicting versions"
    assert "a.json" in reject.detail and "b.json" in reject.detail


# --- LangSmith and Langfuse -----------------------------------------------------------------------


ASK = {"role": "user", "content": "What is 17*23?"}
CALC = {
    "role": "assistant",
    "content": "",
    "tool_calls": [{"id": "k1", "type": "function", "function": {"name": "calc", "arguments": "{}"}}],
}
CALCULATED = {"role": "tool", "tool_call_id": "k1", "content": "391"}
DONE = {"role": "assistant", "content": "17*23 = 391."}


def test_a_langsmith_trace_over_two_day_files_is_one_episode(tmp_path: Path):
    root = {
        "id": "tr",
        "trace_id": "tr",
        "parent_run_id": None,
        "run_type": "chain",
        "name": "agent",
        "inputs": {},
        "outputs": {"output": "17*23 = 391."},
        "start_time": "2025-01-01T23:59:00",
        "extra": {"metadata": {"task_id": "task-1"}},
    }
    write_jsonl(
        tmp_path,
        "day-2.jsonl",
        [langsmith_llm_run("r2", "2025-01-02T00:00:02", [ASK, CALC, CALCULATED], DONE)],
    )
    write_jsonl(tmp_path, "day-1.jsonl", [root, langsmith_llm_run("r1", "2025-01-01T23:59:58", [ASK], CALC)])
    (episode,) = episodes_by_id(tmp_path).values()
    assert _said(episode) == [
        ("user", ASK["content"]),
        ("assistant", ""),
        ("tool", "391"),
        ("assistant", DONE["content"]),
    ]
    assert episode.outcome.final_answer == DONE["content"] and episode.task.fixture_id == "task-1"


def test_a_langsmith_run_in_two_versions_rejects_the_trace_naming_both_files(tmp_path: Path):
    write_jsonl(tmp_path, "a.jsonl", [langsmith_llm_run("r1", "2025-01-01T00:00:01", [ASK], DONE)])
    write_jsonl(tmp_path, "b.jsonl", [langsmith_llm_run("r1", "2025-01-01T00:00:01", [ASK], CALC)])
    (reject,) = read_accounted(tmp_path).rejects
    assert (
        reject.reason == "conflicting versions" and "a.jsonl" in reject.detail and "b.jsonl" in reject.detail
    )


def _generation(obs_id: str, start: str, messages: list[dict], answer: dict) -> dict[str, Any]:
    return {
        "id": obs_id,
        "traceId": "lf1",
        "type": "GENERATION",
        "name": "chat",
        "startTime": start,
        "input": messages,
        "output": answer,
        "model": "gpt-4o",
    }


def test_a_langfuse_trace_whose_observations_come_in_two_files_is_one_episode(tmp_path: Path):
    write_jsonl(tmp_path, "obs-1.jsonl", [_generation("g1", "2025-01-01T00:00:01Z", [ASK], CALC)])
    repeated = _generation("g1", "2025-01-01T00:00:01Z", [ASK], CALC)  # a batch overlapping the last
    write_jsonl(
        tmp_path,
        "obs-2.jsonl",
        [repeated, _generation("g2", "2025-01-01T00:00:03Z", [ASK, CALC, CALCULATED], DONE)],
    )
    (episode,) = episodes_by_id(tmp_path).values()
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "assistant"]
    assert len(episode.delivered_inputs) == 2


# --- Claude Code resumed under a new session id ---------------------------------------------------

OLD, NEW = "aaaaaaaa-0000-4000-8000-000000000001", "0bbbbbbb-0000-4000-8000-000000000002"


def _entry(uuid: str, parent: str | None, role: str, text: str, session: str, stamp: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "content": text}
    if role == "assistant":
        message = {
            "id": f"msg_{uuid}",
            "role": role,
            "model": "claude-sonnet-4",
            "content": [{"type": "text", "text": text}],
        }
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/repo",
        "sessionId": session,
        "version": "1.0.61",
        "type": role,
        "message": message,
        "uuid": uuid,
        "timestamp": f"2025-07-0{stamp}Z",
    }


FIRST = [
    _entry("u1", None, "user", "Fix the flaky test", OLD, "1T10:00:00.000"),
    _entry("a1", "u1", "assistant", "Fixed the race.", OLD, "1T10:00:09.000"),
]


def test_a_session_resumed_under_a_new_id_from_the_old_ones_last_entry_joins_it(tmp_path: Path):
    later = [
        _entry("u2", "a1", "user", "Now add a regression test", NEW, "2T08:00:00.000"),
        _entry("a2", "u2", "assistant", "Added.", NEW, "2T08:00:07.000"),
    ]
    write_jsonl(tmp_path, f"{OLD}.jsonl", FIRST)
    write_jsonl(tmp_path, f"{NEW}.jsonl", later)
    episodes = episodes_by_id(tmp_path)
    assert list(episodes) == [f"claude-code:{OLD}"]
    assert [c for _, c in _said(episodes[f"claude-code:{OLD}"])] == [
        "Fix the flaky test",
        "Fixed the race.",
        "Now add a regression test",
        "Added.",
    ]
    assert episodes[f"claude-code:{OLD}"].extra()["sessions"] == [OLD, NEW]


def test_a_resumed_session_that_copies_the_old_one_is_not_a_second_episode(tmp_path: Path):
    copied = [{**entry, "sessionId": NEW} for entry in FIRST]
    later = [
        {"type": "summary", "summary": "Flaky test fix", "leafUuid": "a1"},
        *copied,
        _entry("u2", "a1", "user", "Now add a regression test", NEW, "2T08:00:00.000"),
        _entry("a2", "u2", "assistant", "Added.", NEW, "2T08:00:07.000"),
    ]
    write_jsonl(tmp_path, f"{OLD}.jsonl", FIRST)
    write_jsonl(tmp_path, f"{NEW}.jsonl", later)
    (episode,) = episodes_by_id(tmp_path).values()
    assert episode.episode_id == f"claude-code:{OLD}"
    assert len(episode.events) == 4
    assert episode.extra()["skipped_entries"] == {"repeated": 2}


def test_a_session_resumed_twice_from_one_point_is_an_episode_per_branch(tmp_path: Path):
    third = "0ccccccc-0000-4000-8000-000000000003"
    tests = [
        _entry("u2", "a1", "user", "Now add a regression test", NEW, "2T08:00:00.000"),
        _entry("a2", "u2", "assistant", "Added.", NEW, "2T08:00:07.000"),
    ]
    docs = [
        _entry("u3", "a1", "user", "Document the fix instead", third, "3T08:00:00.000"),
        _entry("a3", "u3", "assistant", "Documented.", third, "3T08:00:05.000"),
    ]
    write_jsonl(tmp_path, f"{OLD}.jsonl", FIRST)
    write_jsonl(tmp_path, f"{NEW}.jsonl", tests)
    write_jsonl(tmp_path, f"{third}.jsonl", docs)
    episodes = episodes_by_id(tmp_path)
    assert sorted(episodes) == [f"claude-code:{OLD}", f"claude-code:{OLD}/1"]
    assert [c for _, c in _said(episodes[f"claude-code:{OLD}/1"])][2:] == [
        "Now add a regression test",
        "Added.",
    ]
    assert [c for _, c in _said(episodes[f"claude-code:{OLD}"])] == [
        "Fix the flaky test",
        "Fixed the race.",
        "Document the fix instead",
        "Documented.",
    ]
    assert episodes[f"claude-code:{OLD}"].extra()["skipped_entries"] == {"other branch": 2}
    assert episodes[f"claude-code:{OLD}"].extra()["sessions"] == [OLD, third]
    assert episodes[f"claude-code:{OLD}/1"].extra()["sessions"] == [OLD, NEW]
