"""An Assistants API call whose output its run step does not hold (``assistants._tool_messages``):
the API returns a ``file_search`` step's results only when asked to include them, so a thread
saved without them held a call answered by nothing, read silently as an unpaired call (as if the
model had acted on no output). Such a call is answered by a result that is not in the log, with
the status of how its step ended: ``truncated`` (it ran; the log kept nothing of what the model
was shown) for a completed step, ``error`` for a failed one; a step still running leaves it
unanswered. A search saved with its results, even none found, is read as before (the controls).

Development cases here; the validation half (a code interpreter and a function saved without
output, the stream's copies, an expired step) is ``test_assistants_results_not_in_log_heldout.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import one_episode, write_json, write_jsonl
from test_assistants_run_steps import calls, created, message, step


def search(results: list[dict[str, Any]] | None) -> dict[str, Any]:
    body: dict[str, Any] = {"ranking_options": {"ranker": "auto", "score_threshold": 0.0}}
    return {
        "id": "call_fs",
        "type": "file_search",
        "file_search": body | ({} if results is None else {"results": results}),
    }


def thread(call: dict[str, Any], status: str = "completed") -> list[dict[str, Any]]:
    return [
        message("msg_1", "user", "How many days of leave?", 1000),
        step("step_1", 1001, calls(call), status=status),
        step("step_2", 1002, created("msg_2")),
        message("msg_2", "assistant", "25 days.", 1002, "run_1"),
    ]


def results(path: Path) -> list[tuple[Any, ...]]:
    episode = one_episode(path)
    return [(e.tool_call_id, e.content, e.status) for e in episode.events if e.kind == "tool"]


def test_a_file_search_saved_without_its_results_is_answered_by_a_result_not_in_the_log(tmp_path: Path):
    path = write_json(tmp_path, "thread.json", thread(search(None)))
    assert results(path) == [("call_fs", None, "truncated")]
    assert json.loads(one_episode(path).extra_json or "{}") == {"results_not_in_log": 1}


def test_a_failed_steps_search_is_answered_by_an_error(tmp_path: Path):
    failed = thread(search(None), status="failed")
    failed[1]["last_error"] = {"code": "server_error", "message": "search failed"}
    episode = one_episode(write_jsonl(tmp_path, "thread.jsonl", failed))
    assert [(e.tool_call_id, e.content, e.status) for e in episode.events if e.kind == "tool"] == [
        ("call_fs", None, "error")
    ]
    assert episode.outcome.terminal_status == "error"


def test_controls_a_search_with_its_results_or_none_found_is_read_as_before(tmp_path: Path):
    found = [{"file_id": "f1", "score": 0.9, "content": [{"type": "text", "text": "25 days of leave."}]}]
    assert results(write_json(tmp_path, "found.json", thread(search(found)))) == [
        ("call_fs", "25 days of leave.", None)
    ]
    assert results(write_json(tmp_path, "none.json", thread(search([])))) == [("call_fs", "", None)]
