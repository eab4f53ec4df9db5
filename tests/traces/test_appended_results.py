"""Whose results an assistant text holds (``text_conventions.appending_frameworks``), development
half (the cases are :mod:`appended_results`'s; the validation half is ``..._heldout.py``).

A result written inside the model's text is the tool's only where the log shows the framework whose
loop appends it produced the log: its prompt in the system turns opening the conversation, or its
result object in the record. Qwen-Agent's ``✿RESULT✿`` split was read in any log, so a plain chat
whose model wrote ``✿FUNCTION✿ ... ✿RESULT✿ ...`` got a tool event and the fabrication check never
saw the output it made up; and CrewAI's prompt pasted into a user turn made a made-up
``Observation:`` a tool's. Both now stay the model's text, flagged; Qwen-Agent's own logs still
split, and their answers, which restate a real result, are not flagged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from appended_results import DEV, DEV_GENUINE, QWEN_LAYOUTS, qwen_text
from hallucinated_react import Case
from log_files import one_episode, write_json
from test_hallucinated_react_observations import assert_stays_text_and_is_flagged

from trajectory_platform.curation.verify.fabrication import fabricated_turns
from trajectory_platform.traces.adapters.inline_markup import MARKUP_KEY
from trajectory_platform.traces.adapters.text_conventions import MADE_UP_RESULT, qwen_agent_prompt


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_a_result_the_model_wrote_stays_text_and_is_flagged(case: Case, tmp_path: Path):
    assert_stays_text_and_is_flagged(case, tmp_path)


def assert_splits_unflagged(case: Case, layout: int, folder: Path) -> None:
    """A Qwen-Agent log: its text split into its calls, their results in order, and its answer,
    with nothing flagged."""
    episode = one_episode(write_json(folder, case.file, case.record))
    steps, answer = QWEN_LAYOUTS[layout]
    rows = [
        (e.kind, e.content, [(c.name, c.arguments) for c in e.tool_calls], e.tool_name)
        for e in episode.events
        if e.kind not in ("system", "user")
    ]
    expected = []
    for step in steps:
        expected.append(("assistant", step.before or None, list(step.calls), None))
        expected.extend(
            ("tool", result, [], name) for (name, _), result in zip(step.calls, step.results, strict=True)
        )
    assert rows == [*expected, ("assistant", answer, [], None)]
    assert fabricated_turns(episode) == {}


@pytest.mark.parametrize(("case", "layout"), DEV_GENUINE, ids=lambda item: getattr(item, "name", ""))
def test_qwen_agents_own_log_still_splits_into_calls_and_results(case: Case, layout: int, tmp_path: Path):
    assert_splits_unflagged(case, layout, tmp_path)


def test_the_kept_text_is_counted_with_its_reason(tmp_path: Path):
    text = qwen_text(0)
    record = {
        "messages": [{"role": "user", "content": "Run the tests."}, {"role": "assistant", "content": text}]
    }
    episode = one_episode(write_json(tmp_path, "chat.json", record))
    assert json.loads(episode.extra_json or "{}")[MARKUP_KEY]["kept_as_text"] == {MADE_UP_RESULT: 1}


def test_a_call_alone_is_still_read_without_qwen_agents_prompt(tmp_path: Path):
    """Only results in the model's text need the evidence: a call it writes, answered by a later
    ``✿RESULT✿`` turn of the loop's, is read as before."""
    messages = [
        {"role": "user", "content": "Run the tests."},
        {
            "role": "assistant",
            "content": '\u273fFUNCTION\u273f: run_tests\n\u273fARGS\u273f: {"path": "tests"}',
        },
        {"role": "user", "content": "\u273fRESULT\u273f: 3 passed in 0.02s"},
        {"role": "assistant", "content": "All 3 tests pass."},
    ]
    episode = one_episode(write_json(tmp_path, "chat.json", {"messages": messages}))
    assert [(e.kind, [c.name for c in e.tool_calls]) for e in episode.events] == [
        ("user", []),
        ("assistant", ["run_tests"]),
        ("tool", []),
        ("assistant", []),
    ]


def test_qwen_agents_prompt_needs_its_four_markers_in_order():
    lines = [
        "\u273fFUNCTION\u273f: name",
        "\u273fARGS\u273f: input",
        "\u273fRESULT\u273f: out",
        "\u273fRETURN\u273f: reply",
    ]
    assert qwen_agent_prompt("\n".join(lines))
    assert not qwen_agent_prompt("\n".join(lines[:2]))
    assert not qwen_agent_prompt("\n".join([lines[2], *lines[:2], lines[3]]))
    assert not qwen_agent_prompt("Use " + " then ".join(lines))
