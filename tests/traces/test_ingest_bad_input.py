"""Bad input: every unreadable record becomes a reject naming the file, the line (or JSON path)
and a reason; the rest of the file is still read, and records in = normalized + rejected."""

from __future__ import annotations

import json
from pathlib import Path

from trajectory_platform.traces.adapters import ADAPTERS
from trajectory_platform.traces.adapters.base import DETECT_PROBE_LINES, RecordError
from trajectory_platform.traces.ingest import IngestResult, ingest_paths, sample_logs_root
from trajectory_platform.traces.record import Episode, Event

GOOD = {
    "id": "ok",
    "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
}


def write_lines(path: Path, lines: list[bytes | str | dict]) -> Path:
    raw = [
        line if isinstance(line, bytes) else (json.dumps(line) if isinstance(line, dict) else line).encode()
        for line in lines
    ]
    path.write_bytes(b"\n".join(raw) + b"\n")
    return path


def one_reject(result: IngestResult):
    assert result.records_in == len(result.episodes) + len(result.rejects)
    (reject,) = result.rejects
    return reject


def test_invalid_utf8_line_is_rejected_and_the_rest_read(tmp_path):
    path = write_lines(tmp_path / "log.jsonl", [GOOD, b'{"messages": "caf\xe9"}', {**GOOD, "id": "ok2"}])
    result = ingest_paths([path])
    reject = one_reject(result)
    assert (reject.source_line, reject.reason) == (2, "invalid UTF-8")
    assert "byte 17" in reject.detail and reject.source_file == str(path)
    assert sorted(e.episode_id for e in result.episodes) == ["openai:ok", "openai:ok2"]


def test_invalid_utf8_in_a_whole_document(tmp_path):
    path = tmp_path / "run.traj"
    path.write_bytes(b'{"history": [{"role": "user", "content": "\xff"}], "trajectory": []}')
    reject = one_reject(ingest_paths([path], fmt="swe-agent"))
    assert reject.reason == "invalid UTF-8" and reject.source_path == "$"


def test_truncated_line(tmp_path):
    path = write_lines(tmp_path / "log.jsonl", [GOOD, '{"messages": [{"role": "user", "content": "cut here'])
    reject = one_reject(ingest_paths([path]))
    assert (reject.source_line, reject.reason) == (2, "truncated JSON")
    assert reject.excerpt.startswith("sha256:") and "cut here" not in reject.excerpt


def test_wrong_types_name_the_field(tmp_path):
    cases = [
        {"messages": "hello"},
        {"messages": [{"role": "user", "content": 42}]},
        {"messages": [{"role": "assistant", "content": None, "tool_calls": {"id": "x"}}]},
        {"messages": [{"role": "assistant", "content": "x", "weight": "heavy"}]},
    ]
    result = ingest_paths([write_lines(tmp_path / "log.jsonl", [GOOD, *cases])])
    assert [r.reason for r in result.rejects] == ["wrong type"] * 4
    assert [r.detail for r in result.rejects] == [
        "messages is str, expected list",
        "messages[0].content is int, expected string or list of parts",
        "messages[0].tool_calls is dict, expected list",
        "messages[0].weight is str, expected int or float",
    ]


def test_native_value_of_the_wrong_type_is_rejected_before_writing(tmp_path):
    episode = Episode("n1", "native", "x", None, None, None, events=[Event(kind="user", content="hi")])
    broken = episode.to_dict()
    broken["episode_id"] = "n2"
    broken["events"][0]["exit_code"] = "zero"
    path = write_lines(tmp_path / "gym.jsonl", [episode.to_dict(), broken])
    result = ingest_paths([path])
    reject = one_reject(result)
    assert reject.reason == "wrong type" and reject.source_line == 2
    assert [e.episode_id for e in result.episodes] == ["n1"]
    result.to_tables()  # the admitted rows always fit the schema


def test_orphan_tool_result(tmp_path):
    record = {
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "c9", "content": "x"},
        ]
    }
    reject = one_reject(ingest_paths([write_lines(tmp_path / "log.jsonl", [record])]))
    assert reject.reason == "orphan tool result" and "'c9'" in reject.detail


def test_unknown_role(tmp_path):
    record = {"messages": [{"role": "wizard", "content": "abracadabra"}]}
    reject = one_reject(ingest_paths([write_lines(tmp_path / "log.jsonl", [record])]))
    assert reject.reason == "unknown role" and "'wizard'" in reject.detail


def test_empty_conversation(tmp_path):
    reject = one_reject(ingest_paths([write_lines(tmp_path / "log.jsonl", [{"messages": []}])]))
    assert reject.reason == "empty conversation"


def test_oversized_field_with_a_configurable_limit(tmp_path):
    big = {"messages": [{"role": "user", "content": "x" * 5000}, {"role": "assistant", "content": "ok"}]}
    path = write_lines(tmp_path / "log.jsonl", [GOOD, big])
    reject = one_reject(ingest_paths([path], max_field_chars=4096))
    assert reject.reason == "oversized field"
    assert reject.detail == "episode.events[0].content has 5000 characters (limit 4096)"
    assert len(ingest_paths([path]).episodes) == 2  # the default limit admits it


def test_malformed_tool_call_arguments_are_data_not_rejects(tmp_path):
    record = {
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "{oops"}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "invalid arguments"},
        ]
    }
    result = ingest_paths([write_lines(tmp_path / "log.jsonl", [record])])
    assert result.rejects == [] and result.episodes[0].events[1].tool_calls[0].arguments == "{oops"


def test_unrecognized_and_non_trajectory_files(tmp_path):
    (tmp_path / "notes.json").write_text('{"hello": "world"}')
    (tmp_path / "broken.json").write_text('{\n  "history": [\n')
    (tmp_path / "bfcl.json").write_text(json.dumps({"id": "simple_0", "question": [], "function": []}))
    result = ingest_paths([tmp_path])
    reasons = {Path(r.source_file).name: r.reason for r in result.rejects}
    assert reasons == {
        "notes.json": "unrecognized format",
        "broken.json": "truncated JSON",
        "bfcl.json": "not a trajectory",
    }
    assert result.records_in == 3


def test_forced_format_on_the_wrong_file(tmp_path):
    path = write_lines(tmp_path / "log.jsonl", [GOOD])
    reject = one_reject(ingest_paths([path], fmt="swe-agent"))
    assert reject.reason == "wrong type" and reject.source_format == "swe-agent"


def test_bundled_mixed_file_accounts_for_every_line():
    path = sample_logs_root() / "2026-11-03" / "openai_mixed_good_and_bad.jsonl"
    result = ingest_paths([path])
    assert result.records_in == 7 and len(result.episodes) == 2
    assert [(r.source_line, r.reason) for r in result.rejects] == [
        (2, "truncated JSON"),
        (3, "unknown role"),
        (4, "orphan tool result"),
        (5, "empty conversation"),
        (6, "wrong type"),
    ]


def test_unexpected_shapes_are_rejected_and_the_run_goes_on(tmp_path):
    """Arbitrary JSON in a shape the format never uses becomes a reject, never a crash."""
    otel = {
        "resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t1", "attributes": [{"key": ["x"]}]}]}]}]
    }
    (tmp_path / "trace.json").write_text(json.dumps(otel))
    tau = [{"task_id": 1, "trial": 0, "traj": [{"role": {"nested": True}, "content": "x"}]}]
    (tmp_path / "tau.json").write_text(json.dumps(tau))
    write_lines(tmp_path / "ok.jsonl", [GOOD])
    result = ingest_paths([tmp_path])
    assert result.records_in == 3 and len(result.episodes) == 1
    reasons = {Path(r.source_file).name: r.reason for r in result.rejects}
    assert reasons == {"trace.json": "unexpected structure", "tau.json": "unknown role"}


def test_values_outside_the_schema_name_their_field(tmp_path):
    episode = Episode("n1", "native", "x", None, None, None, events=[Event(kind="tool", content="out")])
    rows = []
    for index, (field, value) in enumerate([("exit_code", 2**40), ("weight", True), ("input_tokens", 1.5)]):
        row = episode.to_dict()
        row["episode_id"] = f"n{index}"
        row["events"][0][field] = value
        rows.append(row)
    result = ingest_paths([write_lines(tmp_path / "gym.jsonl", rows)])
    assert [r.detail for r in result.rejects] == [
        "episode.events[0].exit_code is a number of 13 digits, expected a int32 integer",
        "episode.events[0].weight is bool, expected a number",
        "episode.events[0].input_tokens is 1.5, expected a int64 integer",
    ]


def test_jsonl_named_json_with_a_bad_first_line_is_read_line_by_line(tmp_path):
    path = write_lines(tmp_path / "log.json", ['{"messages": [{"role": "us', GOOD, {**GOOD, "id": "ok2"}])
    result = ingest_paths([path])
    assert [(r.source_line, r.reason) for r in result.rejects] == [(1, "truncated JSON")]
    assert len(result.episodes) == 2
    pretty = tmp_path / "run.json"
    pretty.write_text(json.dumps({"history": [{"role": "user", "content": "x"}]}, indent=2)[:-10])
    reject = one_reject(ingest_paths([pretty]))
    assert (reject.reason, reject.source_path) == ("truncated JSON", "$")


def test_a_record_error_while_framing_a_file_is_its_reject_not_a_crash(tmp_path, monkeypatch):
    def refuse(src):
        raise RecordError("wrong type", "the export is not a list of spans")
        yield  # a generator, as frames are

    monkeypatch.setattr(ADAPTERS["otel"], "frame", refuse)
    path = write_lines(tmp_path / "trace.jsonl", [{"resourceSpans": []}])
    result = ingest_paths([path, write_lines(tmp_path / "chat.jsonl", [GOOD])])
    assert [(r.reason, r.detail) for r in result.rejects] == [
        ("wrong type", "the export is not a list of spans")
    ]
    assert len(result.episodes) == 1 and result.records_in == 2


def test_a_sniff_that_raises_on_an_odd_shape_claims_nothing_and_the_next_format_reads_it(
    tmp_path, monkeypatch
):
    def confused(sample, path):
        raise TypeError("unhashable type: 'dict'")

    monkeypatch.setattr(ADAPTERS["native"], "sniff", confused)
    result = ingest_paths([write_lines(tmp_path / "chat.jsonl", [GOOD])])
    assert result.rejects == [] and [e.source_format for e in result.episodes] == ["openai"]


def test_lines_no_format_claims_do_not_hide_the_format_of_the_lines_after_them(tmp_path):
    """Detection looks past leading lines no adapter recognizes (a header a logger writes first);
    each such line is its own reject, located by its line, and the records after it are read."""
    header = {"version": "1.0", "created": "2025-01-01", "agent": "myagent"}
    path = write_lines(tmp_path / "log.jsonl", [header, b"{not json", GOOD, {**GOOD, "id": "ok2"}])
    result = ingest_paths([path])
    assert sorted(e.episode_id for e in result.episodes) == ["openai:ok", "openai:ok2"]
    assert [(r.source_line, r.reason, r.source_format) for r in result.rejects] == [
        (1, "missing field", "openai"),
        (2, "malformed JSON", "openai"),
    ]
    assert result.records_in == 4


def test_detection_looks_at_a_bounded_number_of_leading_lines(tmp_path):
    header = {"version": "1.0"}
    path = write_lines(tmp_path / "log.jsonl", [header] * DETECT_PROBE_LINES + [GOOD])
    reject = one_reject(ingest_paths([path]))
    assert (reject.reason, reject.source_path) == ("unrecognized format", "$")


def test_an_unrecognized_file_is_rejected_at_its_first_readable_line_saying_what_it_holds(tmp_path):
    secret_key = "AKIAQWERTYUIOP234567"
    lines = [
        "{not json",
        json.dumps({"prompt": "x", "n_predict": 5, secret_key: 1}),
        json.dumps({"prompt": "y"}),
    ]
    path = tmp_path / "completions.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = ingest_paths([path])
    (reject,) = result.rejects
    assert (reject.reason, reject.source_line, reject.source_path) == ("unrecognized format", 2, "$")
    assert (reject.detail or "").startswith(
        "line 2 (the first readable one) is an object of 3 keys with fields prompt, n_predict, <key>: "
        "no supported format reads it, nor any of the first 100 readable lines"
    )
    assert secret_key not in (reject.detail or "")
