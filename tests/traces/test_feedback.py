"""Production feedback records: every rule of a line, drops that name file and line (never the
text), the rating scales, and a table that does not depend on the order files were read in."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from trajectory_platform.traces.drops import Drop
from trajectory_platform.traces.feedback import (
    FEEDBACK_DROP_REASONS,
    FEEDBACK_KINDS,
    FEEDBACK_SCHEMA,
    FeedbackRecord,
    discover_feedback_files,
    read_feedback,
    read_feedback_files,
    table_to_feedback,
)

DIFF = (
    "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1,2 +1,2 @@\n"
    " def add(a, b):\n-    return a - b\n+    return a + b\n"
)
SECRET = "sk-live-DO-NOT-LEAK-0123456789"


def write_lines(path: Path, lines: list[object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = [line if isinstance(line, str) else json.dumps(line) for line in lines]
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    return path


GOOD = [
    {"episode_id": "ep-1", "kind": "accepted", "timestamp": "2024-03-01T10:00:00Z"},
    {"episode_id": "ep-1", "kind": "edited", "edit_diff": DIFF},
    {"episode_id": "ep-2", "kind": "reverted"},
    {"episode_id": "ep-2", "kind": "reverted", "edit_diff": DIFF},
    {"episode_id": "ep-3", "kind": "correction", "turn_index": 4},
    {"episode_id": "ep-3", "kind": "retry", "turn_index": 6},
    {"episode_id": "ep-4", "kind": "abandoned"},
    {"episode_id": "ep-4", "kind": "rating", "rating": 0.25},
    {"episode_id": "ep-5", "kind": "rating", "stars": 5},
    {"episode_id": "ep-5", "kind": "rating", "stars": 1, "user_agent": "ignored"},
]


def test_every_kind_reads_with_its_fields_and_the_star_scale_is_normalized(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "fb" / "a.jsonl", GOOD)
    batch = read_feedback_files([path], relative_to=tmp_path / "fb", partition_date=dt.date(2024, 3, 1))
    assert not batch.drops
    assert batch.tally().metadata()["records_in"] == len(GOOD) and batch.tally().balanced
    assert set(batch.counts_by_kind()) == set(FEEDBACK_KINDS)
    assert batch.counts_by_kind()["rating"] == 3
    by_line = {r.source_line: r for r in batch.records}
    assert by_line[1].timestamp == "2024-03-01T10:00:00Z" and by_line[1].source_file == "a.jsonl"
    assert by_line[2].edit_diff == DIFF
    assert by_line[3].edit_diff is None and by_line[4].edit_diff == DIFF
    assert by_line[5].turn_index == 4
    assert [by_line[n].rating for n in (8, 9, 10)] == [0.25, 1.0, 0.0]
    assert all(r.partition_date == dt.date(2024, 3, 1) for r in batch.records)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"\xff\xfe not utf8", "not_utf8"),
        ("{not json", "not_json"),
        ("[1, 2]", "not_an_object"),
        ({"kind": "accepted"}, "missing_episode_id"),
        ({"episode_id": "  ", "kind": "accepted"}, "missing_episode_id"),
        ({"episode_id": "e", "kind": "liked"}, "unknown_kind"),
        ({"episode_id": "e"}, "unknown_kind"),
        ({"episode_id": "e", "kind": "edited"}, "missing_edit_diff"),
        ({"episode_id": "e", "kind": "edited", "edit_diff": f"{SECRET} is no diff"}, "bad_edit_diff"),
        ({"episode_id": "e", "kind": "edited", "edit_diff": 3}, "bad_edit_diff"),
        ({"episode_id": "e", "kind": "accepted", "edit_diff": DIFF}, "unexpected_field"),
        ({"episode_id": "e", "kind": "correction"}, "missing_turn_index"),
        ({"episode_id": "e", "kind": "correction", "turn_index": -1}, "bad_turn_index"),
        ({"episode_id": "e", "kind": "correction", "turn_index": 2.5}, "bad_turn_index"),
        ({"episode_id": "e", "kind": "correction", "turn_index": True}, "bad_turn_index"),
        ({"episode_id": "e", "kind": "rating"}, "bad_rating"),
        ({"episode_id": "e", "kind": "rating", "rating": 1.5}, "bad_rating"),
        ({"episode_id": "e", "kind": "rating", "rating": "good"}, "bad_rating"),
        ({"episode_id": "e", "kind": "rating", "stars": 0}, "bad_rating"),
        ({"episode_id": "e", "kind": "rating", "stars": 3.5}, "bad_rating"),
        ({"episode_id": "e", "kind": "rating", "rating": 0.5, "stars": 3}, "bad_rating"),
        ('{"episode_id": "e", "kind": "rating", "rating": NaN}', "bad_rating"),
        ({"episode_id": "e", "kind": "accepted", "rating": 0.5}, "unexpected_field"),
        ({"episode_id": "e", "kind": "accepted", "timestamp": "yesterday"}, "bad_timestamp"),
    ],
)
def test_a_bad_line_is_dropped_naming_file_line_and_reason_never_its_text(
    tmp_path: Path, line: object, reason: str
) -> None:
    path = tmp_path / "day" / "f.jsonl"
    path.parent.mkdir(parents=True)
    good = json.dumps(GOOD[0]).encode()
    bad = line if isinstance(line, bytes) else (line if isinstance(line, str) else json.dumps(line)).encode()
    path.write_bytes(good + b"\n\n" + bad + b"\n" + good + b"\n")
    items = list(read_feedback(path, relative_to=tmp_path))
    assert [type(i) for i in items] == [FeedbackRecord, Drop, FeedbackRecord]
    drop = items[1]
    assert isinstance(drop, Drop)
    assert drop.reason == reason and reason in FEEDBACK_DROP_REASONS
    assert drop.detail.startswith("day/f.jsonl:3: ")
    assert SECRET not in drop.detail and "liked" not in drop.detail


def test_the_table_is_sorted_and_the_same_whatever_order_files_are_read_in(tmp_path: Path) -> None:
    first = write_lines(tmp_path / "a.jsonl", GOOD[5:])
    second = write_lines(tmp_path / "b" / "c.jsonl", GOOD[:5])
    write_lines(tmp_path / ".hidden" / "x.jsonl", GOOD)
    (tmp_path / "notes.txt").write_text("not feedback")
    files = discover_feedback_files(tmp_path)
    assert files == [first, second]
    forward = read_feedback_files(files, relative_to=tmp_path).table()
    backward = read_feedback_files(files[::-1], relative_to=tmp_path).table()
    assert forward.schema == FEEDBACK_SCHEMA
    assert forward.equals(backward)
    keys = list(zip(forward["episode_id"].to_pylist(), forward["source_file"].to_pylist(), strict=True))
    assert keys == sorted(keys) and forward.num_rows == len(GOOD)
    assert sorted(table_to_feedback(forward), key=FeedbackRecord.sort_key) == sorted(
        read_feedback_files(files, relative_to=tmp_path).records, key=FeedbackRecord.sort_key
    )


def test_a_missing_folder_has_no_feedback(tmp_path: Path) -> None:
    assert discover_feedback_files(tmp_path / "nope") == []
    assert read_feedback_files([]).table().num_rows == 0
