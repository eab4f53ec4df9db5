"""Files of JSON values written one after another but not one a line: pretty-printed JSON Lines
(``jq .`` output, ``json.dump(..., indent=2)`` per record) and objects run together
(``{...}{...}``). Each value is a record located by the line it starts on and its index in the
file, as a person expects, instead of the whole file being one ``malformed JSON`` reject."""

from __future__ import annotations

import json
from pathlib import Path

from trajectory_platform.traces.ingest import ingest_paths

USER = {"role": "user", "content": "Weather in Paris?"}
ANSWER = {"role": "assistant", "content": "It is 9C."}


def chat(record_id: str) -> dict:
    return {"id": record_id, "messages": [USER, ANSWER]}


def starts(text: str, marker: str) -> int:
    """The line ``marker`` first appears on (1-based)."""
    return text[: text.index(marker)].count("\n") + 1


def located(result) -> list[tuple]:
    assert result.records_in == len(result.episodes) + len(result.rejects)
    found = [(e.source_line, e.source_path, e.episode_id) for e in result.episodes]
    found += [(r.source_line, r.source_path, r.reason) for r in result.rejects]
    return sorted(found, key=lambda row: (row[0], row[1]))


def test_pretty_printed_jsonl_is_one_record_per_object(tmp_path: Path):
    text = "".join(json.dumps(chat(f"conv-{i}"), indent=2) + "\n" for i in range(3))
    (tmp_path / "pretty.jsonl").write_text(text)
    assert located(ingest_paths([tmp_path / "pretty.jsonl"])) == [
        (starts(text, f'"conv-{i}"') - 1, f"[{i}]", f"openai:conv-{i}") for i in range(3)
    ]


def test_objects_run_together_are_one_record_each(tmp_path: Path):
    one_line = "".join(json.dumps(chat(f"c{i}")) for i in range(3))
    (tmp_path / "concat.jsonl").write_text(one_line + "\n")
    (tmp_path / "mixed.json").write_text(
        f"{json.dumps(chat('m0'))} {json.dumps(chat('m1'))}\n{json.dumps(chat('m2'))}"
    )
    result = ingest_paths([tmp_path / "concat.jsonl"])
    assert located(result) == [(1, f"[{i}]", f"openai:c{i}") for i in range(3)]
    assert located(ingest_paths([tmp_path / "mixed.json"])) == [
        (1, "[0]", "openai:m0"),
        (1, "[1]", "openai:m1"),
        (2, "[2]", "openai:m2"),
    ]


def test_a_broken_value_in_a_stream_is_its_own_reject_and_the_rest_is_read(tmp_path: Path):
    good = [json.dumps(chat(f"p{i}"), indent=2) for i in range(3)]
    cut = good[1][: good[1].index('"content": "It is')]  # the writer died mid-record, then went on
    text = "\n".join([good[0], cut, good[2], "{not json at all\n}", good[0].replace("p0", "p3")]) + "\n"
    (tmp_path / "pretty.jsonl").write_text(text)
    result = ingest_paths([tmp_path / "pretty.jsonl"])
    lines = text.splitlines()
    braces = [n for n, line in enumerate(lines, start=1) if line in ("{", "{not json at all")]
    assert located(result) == [
        (braces[0], "[0]", "openai:p0"),
        (braces[1], "[1]", "malformed JSON"),
        (braces[2], "[2]", "openai:p2"),
        (braces[3], "[3]", "malformed JSON"),
        (braces[4], "[4]", "openai:p3"),
    ]
    assert all(r.excerpt.startswith("sha256:") for r in result.rejects)


def test_json_lines_read_whole_keep_reading_line_by_line(tmp_path: Path):
    """A UTF-16 JSONL file is read whole; its values stand one a line, so it stays JSON Lines:
    a bad line is one reject located by its line alone, as before."""
    text = "\n".join([json.dumps(chat("u0")), '{"messages": [{"role": "us', json.dumps(chat("u1"))]) + "\n"
    (tmp_path / "wide.jsonl").write_bytes(text.encode("utf-16"))
    assert located(ingest_paths([tmp_path / "wide.jsonl"])) == [
        (1, None, "openai:u0"),
        (2, None, "truncated JSON"),
        (3, None, "openai:u1"),
    ]
