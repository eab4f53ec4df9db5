"""``dspy.ReAct`` predictions (``adapters/dspy_react.py``) were an ``unrecognized format`` reject:
each step of the ``trajectory`` is a turn (thought, call) and its tool result, the fields logged
before it the task, those after it the extract step's answer."""

from __future__ import annotations

import copy
from pathlib import Path

import framework_records as fr
from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths


def test_a_react_run_reads_its_steps_task_and_answer(tmp_path: Path):
    episode = one_episode(write_json(tmp_path, "run.json", fr.DSPY_REACT))
    assert episode.task.prompt == fr.ASK
    assert [e.reasoning for e in episode.events if e.kind == "assistant"] == [
        "I should look the weather up.",
        "I have the answer.",
        "The tool said 18C.",
    ]
    assert episode.events[1].tool_calls[0].arguments == '{"city":"Paris"}'
    assert [e.tool_name for e in episode.events if e.kind == "tool"] == ["get_weather", "finish"]
    assert (episode.outcome.final_answer, episode.outcome.terminal_status) == ("18C in Paris.", "completed")


def test_a_failing_tool_is_an_error_result_and_a_run_without_finish_is_not_completed(tmp_path: Path):
    run = copy.deepcopy(fr.DSPY_REACT)
    run["trajectory"] = {
        "thought_0": "Look it up.",
        "tool_name_0": "get_weather",
        "tool_args_0": {"city": "Paris"},
        "observation_0": "Execution error in get_weather: timeout",
    }
    episode = one_episode(write_jsonl(tmp_path, "runs.jsonl", [run]))
    assert [(e.kind, e.status) for e in episode.events if e.kind == "tool"] == [("tool", "error")]
    assert episode.outcome.terminal_status is None


def test_a_trajectory_key_of_another_kind_is_a_named_reject(tmp_path: Path):
    run = copy.deepcopy(fr.DSPY_REACT)
    run["trajectory"]["critique_0"] = "looks fine"
    (reject,) = ingest_paths([write_json(tmp_path, "run.json", run)]).rejects
    assert reject.reason == "unknown trajectory key" and "critique_0" in (reject.detail or "")
