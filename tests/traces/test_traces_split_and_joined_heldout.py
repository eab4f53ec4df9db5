"""Held out for test_traces_split_and_joined.py, written before the change was run on them: other
layouts and shapes of the same classes (an OTel trace's conversations split, traces joined over
files with conflicts named, Claude Code sessions resumed under new ids)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import episodes_by_id, read_accounted, write_json, write_jsonl

from trajectory_platform.traces.record import Episode


def _texts(episode: Episode) -> list[str | None]:
    return [e.content for e in episode.events]


def _attr(key: str, value: Any) -> dict[str, Any]:
    return {
        "key": key,
        "value": {"intValue": str(value)} if isinstance(value, int) else {"stringValue": value},
    }


def _span(trace: str, span_id: str, start: int, attrs: dict[str, Any], parent: str | None = None) -> dict:
    return {
        "traceId": trace,
        "spanId": span_id,
        **({"parentSpanId": parent} if parent else {}),
        "name": "openai.chat",
        "kind": 3,
        "startTimeUnixNano": str(1_750_000_000 * 10**9 + start * 10**6),
        "endTimeUnixNano": str(1_750_000_000 * 10**9 + start * 10**6 + 500),
        "attributes": [_attr(k, v) for k, v in attrs.items()],
        "status": {},
    }


def _request(spans: list[dict]) -> dict[str, Any]:
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [_attr("service.name", "support-bot")]},
                "scopeSpans": [{"scope": {"name": "opentelemetry.instrumentation.openai"}, "spans": spans}],
            }
        ]
    }


def _openllmetry(turns: list[tuple[str, str]], answer: str) -> dict[str, Any]:
    """An OpenLLMetry chat span's indexed prompt and completion attributes."""
    attrs: dict[str, Any] = {
        "llm.request.type": "chat",
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
    }
    for index, (role, content) in enumerate(turns):
        attrs[f"gen_ai.prompt.{index}.role"] = role
        attrs[f"gen_ai.prompt.{index}.content"] = content
    attrs["gen_ai.completion.0.role"] = "assistant"
    attrs["gen_ai.completion.0.content"] = answer
    attrs["gen_ai.completion.0.finish_reason"] = "stop"
    return attrs


def test_openllmetry_spans_of_two_chats_in_one_trace_export_are_two_episodes(tmp_path: Path):
    system = ("system", "You are the support bot.")
    refund = [system, ("user", "I want a refund for order 7")]
    login = [system, ("user", "I cannot log in")]
    lines = [
        _request([_span("9f", "01", 1, _openllmetry(refund, "Refund started."))]),
        _request([_span("9f", "02", 2, _openllmetry(login, "Reset your password."))]),
        _request(
            [
                _span(
                    "9f",
                    "03",
                    3,
                    _openllmetry(
                        [*refund, ("assistant", "Refund started."), ("user", "When?")], "In 5 days."
                    ),
                )
            ]
        ),
        _request(
            [
                _span(
                    "9f",
                    "04",
                    4,
                    _openllmetry(
                        [*login, ("assistant", "Reset your password."), ("user", "Done, thanks")],
                        "Glad to help.",
                    ),
                )
            ]
        ),
    ]
    write_jsonl(tmp_path, "otlp.jsonl", lines)
    episodes = episodes_by_id(tmp_path)
    assert len(episodes) == 2
    by_last = {e.events[-1].content: e for e in episodes.values()}
    assert set(by_last) == {"In 5 days.", "Glad to help."}
    assert "I want a refund for order 7" in _texts(by_last["In 5 days."])
    assert "I cannot log in" not in _texts(by_last["In 5 days."])
    assert all(len(e.delivered_inputs) == 2 for e in episodes.values())


def _log(trace: str, span_id: str, at: int, name: str, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "timeUnixNano": str(1_750_000_000 * 10**9 + at * 10**6),
        "traceId": trace,
        "spanId": span_id,
        "eventName": name,
        "body": {"kvlistValue": {"values": [_attr(k, v) for k, v in body.items()]}},
    }


def test_message_events_exported_as_logs_in_another_file_join_their_spans(tmp_path: Path):
    span = _span(
        "ab", "c1", 1, {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}, parent="r0"
    )
    root = _span("ab", "r0", 0, {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper"})
    write_json(tmp_path, "spans.json", _request([root, span]))
    logs = {
        "resourceLogs": [
            {
                "scopeLogs": [
                    {
                        "logRecords": [
                            _log("ab", "c1", 1, "gen_ai.system.message", {"content": "Be brief."}),
                            _log("ab", "c1", 2, "gen_ai.user.message", {"content": "Name a prime above 10"}),
                            _log(
                                "ab",
                                "c1",
                                3,
                                "gen_ai.choice",
                                {
                                    "index": 0,
                                    "finish_reason": "stop",
                                    "message": json.dumps({"role": "assistant", "content": "11"}),
                                },
                            ),
                        ]
                    }
                ]
            }
        ]
    }
    write_json(tmp_path, "logs.json", logs)
    (episode,) = episodes_by_id(tmp_path).values()
    assert _texts(episode) == ["Be brief.", "Name a prime above 10", "11"]
    assert episode.lineage.model == "gpt-4o"


def _observation(obs_id: str, start: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": obs_id,
        "traceId": "trace-77",
        "startTime": start,
        "parentObservationId": "root-1",
        **fields,
    }


ASK = {"role": "user", "content": "Book a table for two"}
CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "book", "arguments": '{"n": 2}'}}
    ],
}
BOOKED = {"role": "tool", "tool_call_id": "call_1", "content": "booked 19:00"}


def test_a_langfuse_trace_and_its_later_observations_in_another_file_are_one_episode(tmp_path: Path):
    first = _observation(
        "gen-1",
        "2025-03-01T10:00:01.000Z",
        type="GENERATION",
        name="OpenAI-generation",
        input=[ASK],
        output=CALL,
        model="gpt-4o",
    )
    trace = {
        "id": "trace-77",
        "name": "booking",
        "timestamp": "2025-03-01T10:00:00.000Z",
        "input": "Book a table for two",
        "output": "Booked for 19:00.",
        "metadata": {"task_id": "book-table"},
        "observations": [
            {
                "id": "root-1",
                "traceId": "trace-77",
                "type": "SPAN",
                "name": "agent",
                "startTime": "2025-03-01T10:00:00.000Z",
                "parentObservationId": None,
            },
            first,
        ],
    }
    write_json(tmp_path, "traces-2025-03-01.json", [trace])
    later = [
        _observation(
            "tool-1",
            "2025-03-01T10:00:02.000Z",
            type="TOOL",
            name="book",
            input={"n": 2},
            output="booked 19:00",
        ),
        _observation(
            "gen-2",
            "2025-03-01T10:00:03.000Z",
            type="GENERATION",
            name="OpenAI-generation",
            input=[ASK, CALL, BOOKED],
            output={"role": "assistant", "content": "Booked for 19:00."},
            model="gpt-4o",
        ),
    ]
    write_jsonl(tmp_path, "observations-2025-03-02.jsonl", later)
    (episode,) = episodes_by_id(tmp_path).values()
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "assistant"]
    assert episode.outcome.final_answer == "Booked for 19:00."
    assert episode.task.fixture_id == "book-table"


def test_a_langfuse_observation_in_two_versions_rejects_the_trace_naming_both_files(tmp_path: Path):
    one = _observation(
        "gen-1", "2025-03-01T10:00:01.000Z", type="GENERATION", name="g", input=[ASK], output=CALL
    )
    other = {**one, "output": {"role": "assistant", "content": "No tables left."}}
    write_jsonl(tmp_path, "export-a.jsonl", [one])
    write_jsonl(tmp_path, "export-b.jsonl", [other])
    result = read_accounted(tmp_path)
    assert result.normalized == 0
    (reject,) = result.rejects
    assert "export-a.jsonl" in reject.detail and "export-b.jsonl" in reject.detail


def _run(run_id: str, start: str, system: str, messages: list[dict], answer: dict) -> dict[str, Any]:
    return {
        "id": run_id,
        "trace_id": "t-9",
        "parent_run_id": "t-9",
        "run_type": "llm",
        "name": "ChatAnthropic",
        "inputs": {"messages": [[{"role": "system", "content": system}, *messages]]},
        "outputs": {"generations": [[{"text": "", "message": answer}]]},
        "start_time": start,
        "extra": {"invocation_params": {"model": "claude-3-5-sonnet"}},
    }


def test_a_langsmith_supervisor_and_worker_over_two_files_are_joined_then_split(tmp_path: Path):
    task = {"role": "user", "content": "Compare plans A and B"}
    hand = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "w1", "type": "function", "function": {"name": "analyst", "arguments": "{}"}}],
    }
    worker_ask = {"role": "user", "content": "Price of plan A and plan B"}
    root = {
        "id": "t-9",
        "trace_id": "t-9",
        "parent_run_id": None,
        "run_type": "chain",
        "name": "supervisor",
        "inputs": {},
        "outputs": {"output": "B is cheaper."},
        "start_time": "2025-02-01T00:00:00",
    }
    write_jsonl(
        tmp_path,
        "runs-part-0.jsonl",
        [
            root,
            _run("s1", "2025-02-01T00:00:01", "You supervise.", [task], hand),
            _run(
                "w1r",
                "2025-02-01T00:00:02",
                "You analyse prices.",
                [worker_ask],
                {"role": "assistant", "content": "A 10, B 8"},
            ),
        ],
    )
    back = {"role": "tool", "tool_call_id": "w1", "content": "A 10, B 8"}
    write_jsonl(
        tmp_path,
        "runs-part-1.jsonl",
        [
            _run(
                "s2",
                "2025-02-01T00:00:03",
                "You supervise.",
                [task, hand, back],
                {"role": "assistant", "content": "B is cheaper."},
            )
        ],
    )
    episodes = episodes_by_id(tmp_path)
    assert sorted(episodes) == ["langsmith:t-9", "langsmith:t-9/2"]
    assert episodes["langsmith:t-9"].events[-1].content == "B is cheaper."
    assert episodes["langsmith:t-9"].outcome.final_answer == "B is cheaper."
    assert _texts(episodes["langsmith:t-9/2"])[-1] == "A 10, B 8"


def _entry(session: str, uuid: str, parent: str | None, role: str, text: str, minute: int) -> dict[str, Any]:
    content: Any = text if role == "user" else [{"type": "text", "text": text}]
    message: dict[str, Any] = {"role": role, "content": content}
    if role == "assistant":
        message.update(
            {"id": f"msg_{uuid}", "model": "claude-opus-4", "type": "message", "stop_reason": "end_turn"}
        )
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/work/app",
        "sessionId": session,
        "version": "1.0.70",
        "gitBranch": "main",
        "type": role,
        "message": message,
        "uuid": uuid,
        "timestamp": f"2025-08-10T12:{minute:02d}:00.000Z",
    }


S1, S2, S3 = (
    "f1000000-0000-4000-8000-000000000001",
    "c2000000-0000-4000-8000-000000000002",
    "03000000-0000-4000-8000-000000000003",
)


def test_a_session_resumed_twice_under_new_ids_is_one_episode_whatever_the_file_order(tmp_path: Path):
    u1, a1 = "11111111-aaaa-4000-8000-000000000001", "11111111-aaaa-4000-8000-000000000002"
    u2, a2 = "22222222-bbbb-4000-8000-000000000001", "22222222-bbbb-4000-8000-000000000002"
    u3, a3 = "33333333-cccc-4000-8000-000000000001", "33333333-cccc-4000-8000-000000000002"
    write_jsonl(
        tmp_path,
        f"{S1}.jsonl",
        [
            _entry(S1, u1, None, "user", "Add logging", 0),
            _entry(S1, a1, u1, "assistant", "Logging added.", 1),
        ],
    )
    write_jsonl(
        tmp_path,
        f"{S2}.jsonl",
        [_entry(S2, u2, a1, "user", "Make it JSON", 10), _entry(S2, a2, u2, "assistant", "Now JSON.", 11)],
    )
    write_jsonl(
        tmp_path,
        f"{S3}.jsonl",
        [_entry(S3, u3, a2, "user", "Add a test", 20), _entry(S3, a3, u3, "assistant", "Test added.", 21)],
    )
    (episode,) = episodes_by_id(tmp_path).values()
    assert episode.episode_id == f"claude-code:{S1}"
    assert _texts(episode) == [
        "Add logging",
        "Logging added.",
        "Make it JSON",
        "Now JSON.",
        "Add a test",
        "Test added.",
    ]
    assert episode.extra()["sessions"] == [S1, S2, S3]


def test_a_new_session_holding_a_title_line_of_another_stays_its_own_episode(tmp_path: Path):
    u1, a1 = "44444444-aaaa-4000-8000-000000000001", "44444444-aaaa-4000-8000-000000000002"
    u2, a2 = "55555555-bbbb-4000-8000-000000000001", "55555555-bbbb-4000-8000-000000000002"
    write_jsonl(
        tmp_path,
        f"{S1}.jsonl",
        [
            _entry(S1, u1, None, "user", "Add logging", 0),
            _entry(S1, a1, u1, "assistant", "Logging added.", 1),
        ],
    )
    # Claude Code writes the /resume titles of other sessions into the file it has open
    title = {"type": "summary", "summary": "Logging setup", "leafUuid": a1}
    write_jsonl(
        tmp_path,
        f"{S2}.jsonl",
        [
            title,
            _entry(S2, u2, None, "user", "Unrelated: bump version", 30),
            _entry(S2, a2, u2, "assistant", "Bumped.", 31),
        ],
    )
    episodes = episodes_by_id(tmp_path)
    assert sorted(episodes) == sorted([f"claude-code:{S1}", f"claude-code:{S2}"])
    assert _texts(episodes[f"claude-code:{S2}"]) == ["Unrelated: bump version", "Bumped."]


def test_a_chain_of_resumptions_and_a_second_resumption_of_its_start_are_two_episodes(tmp_path: Path):
    ids = [f"66666666-0000-4000-8000-00000000000{i}" for i in range(8)]
    write_jsonl(
        tmp_path,
        f"{S1}.jsonl",
        [
            _entry(S1, ids[0], None, "user", "Start a CLI", 0),
            _entry(S1, ids[1], ids[0], "assistant", "CLI started.", 1),
        ],
    )
    write_jsonl(
        tmp_path,
        f"{S2}.jsonl",
        [
            _entry(S2, ids[2], ids[1], "user", "Add --help", 10),
            _entry(S2, ids[3], ids[2], "assistant", "Help added.", 11),
        ],
    )
    write_jsonl(
        tmp_path,
        f"{S3}.jsonl",
        [
            _entry(S3, ids[4], ids[3], "user", "Add --version", 20),
            _entry(S3, ids[5], ids[4], "assistant", "Version added.", 21),
        ],
    )
    other = "0d000000-0000-4000-8000-000000000004"
    write_jsonl(
        tmp_path,
        f"{other}.jsonl",
        [
            _entry(other, ids[6], ids[1], "user", "Use click instead", 30),
            _entry(other, ids[7], ids[6], "assistant", "Switched to click.", 31),
        ],
    )
    result = read_accounted(tmp_path)
    assert result.rejects == [] and result.normalized == 2
    by_last = {e.events[-1].content: e for e in result.episodes}
    assert _texts(by_last["Version added."]) == [
        "Start a CLI",
        "CLI started.",
        "Add --help",
        "Help added.",
        "Add --version",
        "Version added.",
    ]
    assert _texts(by_last["Switched to click."]) == [
        "Start a CLI",
        "CLI started.",
        "Use click instead",
        "Switched to click.",
    ]
    assert by_last["Version added."].extra()["sessions"] == [S1, S2, S3]
