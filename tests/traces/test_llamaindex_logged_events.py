"""LlamaIndex agent workflow events as a deployment's logger dumps them (``llamaindex.event_of``),
development half; the cases are :mod:`llamaindex_dumps`'s, the validation half is
``..._heldout.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llamaindex_dumps import CONTROLS, DEV, Case
from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths


def assert_read_as_the_run(case: Case, folder: Path) -> None:
    """One episode: the question, the call, its result (``error`` where it failed), the answer; the
    stream delta and the call's announcement counted as not read."""
    path = (
        write_jsonl(folder, case.file, case.events)
        if case.lines
        else write_json(folder, case.file, case.events)
    )
    episode = one_episode(path)
    assert episode.source_format == "llamaindex"
    rows = [
        (e.kind, e.content or None, [(c.id, c.name) for c in e.tool_calls], e.status) for e in episode.events
    ]
    assert rows == [
        ("user", "Weather in Paris?", [], None),
        ("assistant", None, [("call_1", "get_weather")], None),
        ("tool", "timeout" if case.failed else "18C", [], "error" if case.failed else "ok"),
        ("assistant", "Done.", [], None),
    ]
    assert json.loads(episode.extra_json or "{}")["events_not_read"] == {"AgentStream": 1, "ToolCall": 1}


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_a_loggers_dump_of_the_events_is_read_as_the_run(case: Case, tmp_path: Path):
    assert_read_as_the_run(case, tmp_path)


@pytest.mark.parametrize("number", range(len(CONTROLS)))
def test_controls_lines_naming_the_classes_without_their_fields_are_not_llamaindex(
    number: int, tmp_path: Path
):
    result = ingest_paths([write_jsonl(tmp_path, "events.jsonl", CONTROLS[number])])
    assert "llamaindex" not in {e.source_format for e in result.episodes} | {
        r.source_format for r in result.rejects
    }
