"""Adapters on the bundled sample logs: the cases real data lacks (parallel tool calls, OTel
traces in both convention layouts, Anthropic grouped results, Claude Code sessions), written
by hand after the published formats."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.traces.ingest import ingest_paths, sample_logs_root
from trajectory_platform.traces.record import Episode

DAY1, DAY2, DAY3 = (sample_logs_root() / d for d in ("2026-11-01", "2026-11-02", "2026-11-03"))


def only(path, **kwargs) -> Episode:
    result = ingest_paths([path], **kwargs)
    assert result.rejects == [], [r.detail for r in result.rejects]
    (episode,) = result.episodes
    return episode


def by_id(path) -> dict[str, Episode]:
    result = ingest_paths([path])
    assert result.rejects == []
    return {e.episode_id: e for e in result.episodes}


def test_openai_parallel_calls_keep_arrival_order_and_weights():
    episodes = by_id(DAY1 / "openai_chat.jsonl")
    weather = episodes["openai:oa-weather-parallel"]
    assert [c.id for c in weather.events[2].tool_calls] == ["call_paris", "call_oslo"]
    # replies arrived Oslo first: kept as recorded, never re-sorted (fine-tuning 16.3.2)
    assert [e.tool_call_id for e in weather.events if e.kind == "tool"] == ["call_oslo", "call_paris"]
    assert [e.weight for e in weather.events if e.kind == "assistant"] == [1.0, 1.0]
    (tool,) = weather.tools
    assert tool.name == "get_weather" and json.loads(tool.parameters_json)["required"] == ["city"]
    assert weather.partition_date.isoformat() == "2026-11-01"


def test_openai_malformed_arguments_are_data_and_legacy_function_calls():
    episodes = by_id(DAY1 / "openai_chat.jsonl")
    bad = episodes["openai:oa-bad-arguments"]
    assert bad.events[1].tool_calls[0].arguments == '{"value": 12, "from": "in", "to": "cm"'
    assert bad.events[1].weight == 0.0
    legacy = episodes["openai:oa-legacy-function-call"]
    call = legacy.events[1].tool_calls[0]
    assert (call.id, call.name, call.arguments) == (None, "lookup_order", '{"order_id": "A-1042"}')
    assert (legacy.events[2].kind, legacy.events[2].tool_name) == ("tool", "lookup_order")
    assert legacy.tools[0].name == "lookup_order"


def test_anthropic_grouped_parallel_results_thinking_and_errors():
    episode = only(DAY1 / "anthropic_messages.jsonl")
    kinds = [e.kind for e in episode.events]
    assert kinds == ["system", "user", "assistant", "tool", "tool", "assistant"]
    turn = episode.events[2]
    assert turn.reasoning == "Read the Makefile and run the tests at the same time."
    assert [c.id for c in turn.tool_calls] == ["toolu_make", "toolu_test"]
    assert json.loads(turn.tool_calls[1].arguments) == {"cmd": "make test"}
    assert (turn.input_tokens, turn.output_tokens, turn.finish_reason) == (812, 96, "tool_use")
    first, second = episode.events[3], episode.events[4]
    assert (first.tool_call_id, first.status) == ("toolu_test", "error")
    assert (second.tool_call_id, second.status, second.content) == (
        "toolu_make",
        "ok",
        "build:\n\tcc -o app main.c\n",
    )
    assert (first.tool_name, second.tool_name) == ("run", "read_file")  # named after the calls answered
    assert json.loads(episode.lineage.sampling_params_json) == {"max_tokens": 1024, "temperature": 0.0}
    assert json.loads(episode.tools[1].parameters_json)["properties"] == {"cmd": {"type": "string"}}


def test_otel_attribute_layout_tool_spans_give_call_order_and_status():
    episode = only(DAY2 / "otel_genai_attributes.json")
    assert episode.episode_id == "otel:4bf92f3577b34da6a3ce929d0e0e4736"
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    calls = episode.events[2].tool_calls
    assert [(c.id, json.loads(c.arguments)) for c in calls] == [
        ("call_a", {"sku": "SKU-1"}),
        ("call_b", {"sku": "SKU-2"}),
    ]
    assert episode.events[2].reasoning == "Two independent lookups; call both."
    failed, ok = episode.events[3], episode.events[4]
    assert (failed.tool_call_id, failed.status, failed.content) == ("call_b", "error", "warehouse timeout")
    assert (ok.tool_call_id, ok.status, ok.content) == ("call_a", "ok", '{"sku": "SKU-1", "units": 42}')
    first, second = episode.delivered_inputs
    assert first.event_indices == [0, 1] and first.response_event_index == 2
    assert second.event_indices == [0, 1, 2, 3, 4] and second.response_event_index == 5
    assert (
        episode.events[5].input_tokens == 140 and episode.events[2].timestamp == "2026-11-02T09:00:01+00:00"
    )
    assert episode.lineage.model == "gpt-4o-mini-2024-07-18" and episode.tools[0].name == "get_stock"


def test_otel_event_per_message_layout_across_jsonl_export_lines():
    episode = only(DAY2 / "otel_genai_events.jsonl")
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "assistant"]
    assert episode.events[2].tool_calls[0].name == "shell"
    assert (episode.events[3].tool_call_id, episode.events[3].content) == ("call_ls", "a.csv\nb.csv")
    assert episode.events[4].content == "There are two files: a.csv and b.csv."
    assert episode.delivered_inputs[1].event_indices == [0, 1, 2, 3]


def test_otel_rewritten_history_is_a_compacted_delivered_input(tmp_path):
    doc = json.loads((DAY2 / "otel_genai_attributes.json").read_text())
    span = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][4]
    attribute = next(a for a in span["attributes"] if a["key"] == "gen_ai.input.messages")
    # compaction: the opening turns summarized, the turns after them kept (a history reduced to a
    # lone summary continues only when the summary is an answer the run's model wrote:
    # call_trace._summarized; this trace holds no summarizing call)
    history = json.loads(attribute["value"]["stringValue"])
    summary = [{"role": "user", "parts": [{"type": "text", "content": "Summary: stock lookups ran."}]}]
    attribute["value"]["stringValue"] = json.dumps(summary + history[1:])
    (tmp_path / "trace.json").write_text(json.dumps(doc))
    episode = only(tmp_path / "trace.json")
    last = episode.delivered_inputs[-1]
    assert last.compacted and json.loads(last.messages_json)[1]["content"] == "Summary: stock lookups ran."


def test_claude_code_merges_one_response_and_keeps_result_order():
    episode = only(next(DAY3.glob("claude-code-*.jsonl")))
    assert [e.kind for e in episode.events] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]  # the closing summary line is the session's /resume title: metadata, not a compaction
    assert [c.id for c in episode.events[1].tool_calls] == ["tu_lint", "tu_test"]
    assert [(e.tool_call_id, e.status) for e in episode.events[2:4]] == [
        ("tu_test", "ok"),
        ("tu_lint", "error"),
    ]
    assert json.loads(episode.extra_json)["titles"][0]["leafUuid"] == "u6"
    assert episode.lineage.model == "claude-sonnet-4-5"


def test_native_round_trip_is_exact():
    lines = (DAY1 / "native.jsonl").read_text().splitlines()
    episodes = by_id(DAY1 / "native.jsonl")
    for line in lines:
        original = Episode.from_dict(json.loads(line))
        read = episodes[original.episode_id]
        assert (read.source_line, read.source_file.endswith("native.jsonl")) == (lines.index(line) + 1, True)
        read.source_file, read.source_line = original.source_file, original.source_line
        assert read == original
    timeout = episodes["gym:fix-off-by-one:seed-8"]
    assert [e.status for e in timeout.events if e.kind == "tool"] == ["truncated", "error"]
    assert timeout.outcome.terminal_status == "timeout"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "calc-div-zero.traj",
            {"format": "swe-agent", "status": "completed", "compacted": [False, False, True, True]},
        ),
        ("greet-typo.traj.json", {"format": "mini-swe-agent", "status": "completed", "truncated": 1}),
    ],
)
def test_day_two_agent_samples(name, expected):
    episode = only(DAY2 / name)
    assert episode.source_format == expected["format"]
    assert episode.outcome.terminal_status == expected["status"]
    if "compacted" in expected:
        assert [m.compacted for m in episode.delivered_inputs] == expected["compacted"]
        assert "Old environment output: (2 lines omitted)" in episode.delivered_inputs[2].messages_json
    if "truncated" in expected:
        assert sum(e.status == "truncated" for e in episode.events) == expected["truncated"]
        assert episode.lineage.model == "anthropic/claude-sonnet-4-5"


def test_day_three_samples():
    episodes = by_id(DAY3 / "openhands-hello.json")
    hello = episodes["openhands:openhands-hello"]
    failed = next(e for e in hello.events if e.kind == "tool")
    assert (failed.exit_code, failed.status, failed.tool_call_id) == (2, "error", "toolu_1")
    assert hello.outcome.final_answer == "hello.py prints hello."
    tau = only(DAY3 / "tau-bench-airline.json")
    assert [e.status for e in tau.events if e.kind == "tool"] == [
        "error",
        "ok",
        "ok",
    ] and tau.outcome.reward == 1.0
    tool = only(DAY3 / "toolbench" / "1_ChatGPT_DFS_woFilter_w2.json")
    assert tool.outcome.final_answer == "Cats sleep 70% of their lives." and len(tool.delivered_inputs) == 2
    inspect = only(DAY3 / "inspect-count-lines.json")
    assert inspect.delivered_inputs[1].event_indices == [0, 1, 2] and inspect.outcome.final_answer == "3"
    react = only(DAY3 / "fireact-hotpotqa-sample.json")
    assert [c.name for e in react.events for c in e.tool_calls] == ["search", "finish"]


def test_claude_code_resumed_session_starts_with_summaries(tmp_path):
    lines = (next(DAY3.glob("claude-code-*.jsonl"))).read_text().splitlines()
    earlier = json.dumps({"type": "summary", "summary": "Earlier: set up the repo.", "leafUuid": "elsewhere"})
    (tmp_path / "resumed.jsonl").write_text("\n".join([earlier, *lines]) + "\n")
    episode = only(tmp_path / "resumed.jsonl")
    # a summary line is the conversation's title in the /resume list, never shown to the model
    assert "compaction" not in [e.kind for e in episode.events] and len(episode.events) == 5
    titles = json.loads(episode.extra_json)["titles"]
    assert titles[0] == {"title": "Earlier: set up the repo.", "leafUuid": "elsewhere"}


CLAUDE_SNAPSHOT = {
    "type": "file-history-snapshot",
    "messageId": "u1",
    "snapshot": {"messageId": "u1", "trackedFileBackups": {}, "timestamp": "2026-11-03T10:00:00Z"},
    "isSnapshotUpdate": False,
}


def test_claude_code_2x_session_opening_with_bookkeeping_lines_is_one_session(tmp_path):
    """Claude Code 2.x starts a session file with a ``file-history-snapshot`` line and writes
    runtime lines without a ``sessionId`` (``permission-mode``) among the entries: detection looks
    past the first, and each is counted with its session, neither a reject."""
    lines = (next(DAY3.glob("claude-code-*.jsonl"))).read_text().splitlines()
    queued = {"type": "queue-operation", "operation": "enqueue", "sessionId": "5b0c8d2e-sample"}
    mode = {"type": "permission-mode", "permissionMode": "acceptEdits"}
    extra_lines = [json.dumps(CLAUDE_SNAPSHOT), json.dumps(queued)]
    (tmp_path / "session.jsonl").write_text(
        "\n".join([*extra_lines, *lines[:3], json.dumps(mode), *lines[3:]])
    )
    result = ingest_paths([tmp_path / "session.jsonl"])
    assert (result.records_in, len(result.rejects)) == (1, 0), [
        (r.source_line, r.reason) for r in result.rejects
    ]
    (episode,) = result.episodes
    reference = only(next(DAY3.glob("claude-code-*.jsonl")))
    assert [(e.kind, e.content) for e in episode.events] == [(e.kind, e.content) for e in reference.events]
    extra = json.loads(episode.extra_json or "")
    assert extra["cwd"] == "/home/dev/app" and episode.source_line == 1
    assert extra["skipped_entries"] == {
        "file-history-snapshot": 1,
        "permission-mode": 1,
        "queue-operation": 1,
    }


def test_claude_code_entry_without_a_session_is_still_a_reject(tmp_path):
    lines = (next(DAY3.glob("claude-code-*.jsonl"))).read_text().splitlines()
    stray = json.loads(lines[0])
    del stray["sessionId"]
    summary = json.loads(lines[-1])
    orphans = tmp_path / "orphans.jsonl"  # no conversation to count the snapshot with: each line a reject
    orphans.write_text("".join(json.dumps(v) + "\n" for v in (summary, CLAUDE_SNAPSHOT, stray)))
    result = ingest_paths([orphans])
    assert sorted((r.source_line, r.reason, r.source_format) for r in result.rejects) == [
        (1, "summary without conversation", "claude-code"),
        (2, "missing field", "claude-code"),
        (3, "missing field", "claude-code"),
    ]
    assert result.records_in == 3 and not result.episodes


def test_anthropic_text_only_conversation_keeps_its_system_prompt(tmp_path):
    record = {
        "system": "Be terse.",
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
    }
    (tmp_path / "chat.jsonl").write_text(json.dumps(record) + "\n")
    episode = only(tmp_path / "chat.jsonl")
    assert episode.source_format == "anthropic" and episode.events[0].content == "Be terse."


def test_otel_message_events_emitted_as_log_records(tmp_path):
    """The Events API of conventions <= 1.36 wrote messages as log records linked by span id."""
    exports = [json.loads(line) for line in (DAY2 / "otel_genai_events.jsonl").read_text().splitlines()]
    spans = [span for export in exports for span in export["resourceSpans"][0]["scopeSpans"][0]["spans"]]
    logs = [
        {
            "timeUnixNano": event["timeUnixNano"],
            "traceId": span["traceId"],
            "spanId": span["spanId"],
            "eventName": event["name"],
            "body": {"kvlistValue": {"values": event["attributes"]}},
        }
        for span in spans
        for event in span.pop("events", [])
    ]
    lines = [
        {"resourceLogs": [{"scopeLogs": [{"logRecords": logs}]}]},
        {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]},
    ]
    (tmp_path / "export.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    from_logs = only(tmp_path / "export.jsonl")
    from_span_events = only(DAY2 / "otel_genai_events.jsonl")
    assert from_logs.events == from_span_events.events
    assert from_logs.delivered_inputs == from_span_events.delivered_inputs


def test_openhands_actions_of_one_model_response_are_one_turn(tmp_path):
    def action(call_id, command):
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": "execute_bash", "arguments": json.dumps({"command": command})},
        }
        response = {"id": "resp-1", "choices": [{"message": {"role": "assistant", "tool_calls": [call]}}]}
        metadata = {"function_name": "execute_bash", "tool_call_id": call_id, "model_response": response}
        return {
            "source": "agent",
            "action": "run",
            "args": {"command": command, "thought": ""},
            "tool_call_metadata": metadata,
        }

    def observation(call_id, code):
        metadata = {"function_name": "execute_bash", "tool_call_id": call_id}
        return {
            "source": "agent",
            "observation": "run",
            "content": "",
            "extras": {"metadata": {"exit_code": code}},
            "tool_call_metadata": metadata,
        }

    events = [
        {"source": "user", "action": "message", "args": {"content": "check both"}},
        action("t1", "ls a"),
        action("t2", "ls b"),
        observation("t2", 2),
        observation("t1", 0),
    ]
    (tmp_path / "run.json").write_text(json.dumps(events))
    episode = only(tmp_path / "run.json")
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "tool"]
    assert [c.id for c in episode.events[1].tool_calls] == ["t1", "t2"]
    assert [(e.tool_call_id, e.status) for e in episode.events[2:]] == [("t2", "error"), ("t1", "ok")]
