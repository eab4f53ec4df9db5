"""Text UTF-8 cannot hold: a lone UTF-16 surrogate escaped in a record's JSON, a file name whose
bytes are not UTF-8. Either used to fail writing the whole table (no Parquet at all, good files
included); now the text is stored by a documented rule and the run goes on."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.parquet as pq

from trajectory_platform.traces.ingest import ingest_paths, ingest_to

HALF = "@HALF@"  # written as the JSON escape \ud83d: half an emoji, as a JS tool cutting mid-emoji writes
GOOD = {"id": "ok", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}


def chat(record_id: str, *messages: dict, **extra: str) -> dict:
    return {"id": record_id, "messages": list(messages), **extra}


def jsonl(*records: dict) -> str:
    """JSON Lines of ``records``, each ``HALF`` written as a lone surrogate's escape."""
    return "".join(json.dumps(r).replace(HALF, "\\ud83d") + "\n" for r in records)


USER, DONE = {"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}
CALL = {"id": f"call-{HALF}", "type": "function", "function": {"name": "f", "arguments": "{}"}}


def _surrogate_lines() -> str:
    return jsonl(
        GOOD,
        chat("c", {"role": "user", "content": f"emoji half {HALF} here"}, DONE),
        chat(
            f"id-{HALF}",
            USER,
            {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": f"call-{HALF}", "content": "done"},
        ),
        chat("x", USER, DONE, **{f"note {HALF}": f"left {HALF} and {HALF}"}),
    ) + jsonl(chat("p", {"role": "user", "content": "whole @PAIR@"}, DONE)).replace(
        "@PAIR@", "\\ud83d\\ude00"
    )


def test_lone_surrogates_become_u_fffd_counted_per_episode_and_the_tables_are_written(tmp_path):
    log = tmp_path / "logs" / "chat.jsonl"
    log.parent.mkdir()
    log.write_text(_surrogate_lines(), encoding="utf-8")
    result, digests = ingest_to([log.parent], tmp_path / "out")
    assert (result.records_in, result.normalized, len(result.rejects)) == (5, 5, 0)
    assert set(digests) == {"traces.parquet", "rejects.parquet"}
    rows = {r["episode_id"]: r for r in pq.read_table(tmp_path / "out" / "traces.parquet").to_pylist()}
    assert rows["openai:c"]["events"][0]["content"] == "emoji half \ufffd here"
    assert json.loads(rows["openai:c"]["extra_json"]) == {"lone_surrogates_replaced": 1}
    with_ids = rows["openai:id-\ufffd"]  # an id keeps its text around the repair, and its pairing
    call, result_event = with_ids["events"][1]["tool_calls"][0], with_ids["events"][2]
    assert call["id"] == result_event["tool_call_id"] == "call-\ufffd"
    assert json.loads(with_ids["extra_json"])["lone_surrogates_replaced"] == 3
    extra = json.loads(rows["openai:x"]["extra_json"])
    assert extra["note \ufffd"] == "left \ufffd and \ufffd" and extra["lone_surrogates_replaced"] == 3
    assert rows["openai:p"]["events"][0]["content"] == "whole \U0001f600"  # a whole pair is a character
    assert rows["openai:p"]["extra_json"] is None and rows["openai:ok"]["extra_json"] is None
    assert result.summary()["lone_surrogates_replaced"] == 7


def test_a_record_without_an_id_is_kept_and_its_content_id_tells_it_from_its_repair(tmp_path):
    """A record that names no id takes a digest of its content, computed before the repair: it
    must not fail on the surrogate, and a twin holding U+FFFD instead keeps an id of its own."""
    log = tmp_path / "no_ids.jsonl"
    lone = {"messages": [{"role": "user", "content": f"half {HALF}"}, DONE]}
    repaired = {"messages": [{"role": "user", "content": "half \ufffd"}, DONE]}
    log.write_text(jsonl(lone, repaired), encoding="utf-8")
    result = ingest_paths([log])
    assert (result.normalized, [r.reason for r in result.rejects]) == (2, [])
    assert len({e.episode_id for e in result.episodes}) == 2
    assert result.lone_surrogates_replaced == 1


def test_same_input_with_lone_surrogates_gives_the_same_bytes(tmp_path):
    log = tmp_path / "chat.jsonl"
    log.write_text(_surrogate_lines(), encoding="utf-8")
    first = ingest_paths([log]).write(tmp_path / "a")
    assert first == ingest_paths([log]).write(tmp_path / "b")


def test_a_reject_located_by_an_id_with_a_lone_surrogate_is_written(tmp_path):
    session = {"type": "user", "sessionId": f"s-{HALF}", "message": {"role": "user", "content": 5}}
    log = tmp_path / "session.jsonl"
    log.write_text(jsonl(session, session), encoding="utf-8")
    result = ingest_paths([log])
    (reject,) = result.rejects
    assert reject.source_format == "claude-code"
    assert result.rejects_table().column("source_path").to_pylist() == ["sessionId=s-\ufffd"]


def test_a_file_name_that_is_not_utf8_is_stored_with_the_bytes_escaped(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / os.fsdecode(b"log\xff.jsonl")).write_text(jsonl(GOOD))
    (logs / "caf\u00e9.jsonl").write_text(jsonl({**GOOD, "id": "ok2"}))
    (logs / os.fsdecode(b"bad\xfe.jsonl")).write_text('{"messages": "cut\n')
    result, _ = ingest_to([logs], tmp_path / "out")
    assert (result.records_in, result.normalized) == (3, 2)
    names = pq.read_table(tmp_path / "out" / "traces.parquet").column("source_file").to_pylist()
    assert sorted(Path(n).name for n in names) == ["caf\u00e9.jsonl", "log\\xff.jsonl"]
    rejects = pq.read_table(tmp_path / "out" / "rejects.parquet").column("source_file").to_pylist()
    assert [Path(n).name for n in rejects] == ["bad\\xfe.jsonl"]
    relative = ingest_paths([logs], relative_to=logs)
    assert sorted(e.source_file for e in relative.episodes) == ["caf\u00e9.jsonl", "log\\xff.jsonl"]
