"""The Vercel AI SDK's steps saved without their result (``ai_sdk_steps``), development half; the
cases are :mod:`ai_sdk_bare_steps`'s, the validation half is ``..._heldout.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from ai_sdk_bare_steps import DEV, GEMINI_CANDIDATES, Case
from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths


def assert_one_run(case: Case, folder: Path) -> None:
    """One episode: the prompt, the call, its result (``error`` where it failed), the answer."""
    path = (
        write_jsonl(folder, "steps.jsonl", case.steps)
        if case.lines
        else write_json(folder, "steps.json", case.steps)
    )
    episode = one_episode(path)
    assert episode.source_format == "ai-sdk-steps"
    assert [
        (e.kind, e.content or None, [c.name for c in e.tool_calls], e.status) for e in episode.events
    ] == [
        ("user", "Weather in Paris?", [], None),
        ("assistant", None, ["weather"], None),
        ("tool", "timeout" if case.failed else '{"temp":18}', [], "error" if case.failed else "ok"),
        ("assistant", "It is 18C.", [], None),
    ]


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_the_steps_saved_alone_are_one_run(case: Case, tmp_path: Path):
    assert_one_run(case, tmp_path)


def test_control_a_gemini_candidate_is_not_a_step(tmp_path: Path):
    result = ingest_paths([write_jsonl(tmp_path, "candidates.jsonl", GEMINI_CANDIDATES)])
    assert "ai-sdk-steps" not in {e.source_format for e in result.episodes} | {
        r.source_format for r in result.rejects
    }
