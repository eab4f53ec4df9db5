"""The Vercel AI SDK's steps whose first step kept a Responses API request (``ai_sdk_requests.py``):
its ``instructions`` and ``input`` are the run's prompt, read as the Responses reader reads them,
never ``request_missing``. Development half and controls; the validation half is
``test_ai_sdk_responses_requests_heldout.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ai_sdk_requests import CONTROLS, DEV, GEMINI_DEV, OTHERS_DEV, Case, steps

from trajectory_platform.traces.ingest import ingest_paths


def assert_prompt_read(case: Case, tmp_path: Path) -> None:
    """The run is one episode: the body's system turn, earlier exchange and question, then the
    steps' own turns; its prompt the question, or ``request_missing`` where the body holds none."""
    path = tmp_path / "steps.json"
    path.write_text(json.dumps({"steps": steps(case), "text": "It is 18C."}))
    result = ingest_paths([path])
    assert result.rejects == []
    (episode,) = result.episodes
    assert episode.source_format == "ai-sdk-steps"
    system = ["system"] if case.system else []
    earlier = ["user", "assistant", "tool", "assistant"][: case.earlier]
    question = ["user"] if case.prompt is not None else []
    steps_turns = ["assistant", "tool", "assistant"]
    assert [e.kind for e in episode.events] == [*system, *earlier, *question, *steps_turns]
    if case.system:
        assert episode.events[0].content == case.system
    prompt_at = len(system) + len(earlier)
    if case.prompt is None:
        assert "request_missing" in json.loads(episode.extra_json or "{}")
    else:
        assert episode.events[prompt_at].content == case.prompt
        assert "request_missing" not in json.loads(episode.extra_json or "{}")
    if case.earlier:  # the earlier exchange's result answers its call, by id and tool name
        called, shown = episode.events[len(system) + 1 : len(system) + 3]
        (call,) = called.tool_calls
        assert (shown.tool_call_id, shown.tool_name) == (call.id, "clock")
        assert call.name == "clock" and json.loads(call.arguments or "") == {"city": "Rome"}
        assert "10:00" in (shown.content or "")


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_a_responses_request_is_the_runs_prompt(case: Case, tmp_path: Path):
    assert_prompt_read(case, tmp_path)


@pytest.mark.parametrize("case", GEMINI_DEV, ids=lambda case: case.name)
def test_a_gemini_request_is_the_runs_prompt(case: Case, tmp_path: Path):
    assert_prompt_read(case, tmp_path)


@pytest.mark.parametrize("case", CONTROLS, ids=lambda case: case.name)
def test_other_bodies_read_as_before(case: Case, tmp_path: Path):
    assert_prompt_read(case, tmp_path)


@pytest.mark.parametrize("case", OTHERS_DEV, ids=lambda case: case.name)
def test_another_providers_request_is_the_runs_prompt(case: Case, tmp_path: Path):
    """The ``amazon-bedrock`` (Converse), ``cohere`` and ``mistral`` providers' bodies."""
    assert_prompt_read(case, tmp_path)
