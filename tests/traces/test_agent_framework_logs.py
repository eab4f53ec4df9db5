"""Agent-framework logs that were rejected whole (``unrecognized format``, or a role read as
``None``) are read as the turns, calls and results they record, whatever framework wrote them: the
development cases (framework_records.py). Each names the format that reads it, the kinds of its
events in order, its calls ``(id, name)`` and the calls its results answer. Held-out shapes of the
same families are in ``test_agent_framework_logs_heldout.py``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import framework_records as fr
import pytest
from log_files import write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Episode

WEATHER = "user assistant tool assistant"


@dataclass
class Case:
    """A log (``lines``: one JSON value a line), and what it must read as."""

    log: Any
    fmt: str
    kinds: str = WEATHER
    calls: list[tuple[str | None, str]] = field(default_factory=list)
    answered: list[str | None] = field(default_factory=list)
    lines: bool = False


CASES = {
    "langgraph-state": Case(fr.LANGGRAPH_STATE, "langgraph", calls=[("w1", "get_weather")], answered=["w1"]),
    "langgraph-checkpoints": Case(
        fr.LANGGRAPH_CHECKPOINTS, "langgraph", calls=[("w1", "get_weather")], answered=["w1"], lines=True
    ),
    "langgraph-updates": Case(
        fr.LANGGRAPH_UPDATES,
        "langgraph",
        "assistant tool assistant",
        [("w1", "get_weather")],
        ["w1"],
        lines=True,
    ),
    "smolagents-steps": Case(
        fr.SMOLAGENTS_STEPS,
        "smolagents",
        "system user assistant tool assistant tool",
        [("s1", "get_weather"), ("s2", "final_answer")],
        ["s1", "s2"],
    ),
    "smolagents-memory": Case(
        fr.SMOLAGENTS_MESSAGES, "openai", calls=[("s1", "get_weather")], answered=["s1"]
    ),
    "adk-session": Case(fr.ADK_SESSION, "adk", calls=[("a1", "get_weather")], answered=["a1"]),
    "adk-stream": Case(fr.ADK_EVENTS, "adk", calls=[("a1", "get_weather")], answered=["a1"], lines=True),
    "letta": Case(fr.LETTA, "openai", calls=[("l1", "get_weather")], answered=["l1"]),
    "haystack-underscore": Case(fr.HAYSTACK, "openai", calls=[("y1", "get_weather")], answered=["y1"]),
    "semantic-kernel-dotnet": Case(
        fr.SK_DOTNET, "openai", calls=[("k1", "Weather-GetWeather")], answered=["k1"]
    ),
    "continue": Case(fr.CONTINUE_SESSION, "continue", calls=[("t1", "get_weather")], answered=["t1"]),
    "agno-tools-that-ran": Case(fr.AGNO_RUN, "openai", calls=[("g1", "get_weather")], answered=["g1"]),
    "openhands-events-page": Case(
        fr.OPENHANDS_PAGE, "openhands", calls=[("o1", "execute_bash")], answered=["o1"]
    ),
    "openhands-sdk": Case(fr.OPENHANDS_SDK, "openhands-sdk", calls=[("v1", "terminal")], answered=["v1"]),
    "bedrock-agents": Case(
        fr.BEDROCK_AGENT_TRACE,
        "bedrock-agents",
        "system user assistant tool assistant",
        [(None, "get_weather")],
        [None],
        lines=True,
    ),
    "llamaindex": Case(
        fr.LLAMAINDEX_EVENTS, "llamaindex", calls=[("q1", "get_weather")], answered=["q1"], lines=True
    ),
    "phoenix-rows": Case(fr.PHOENIX_ROWS, "otel", calls=[("p1", "get_weather")], answered=["p1"], lines=True),
    "mistral": Case(
        fr.MISTRAL_HISTORY, "mistral-conversations", calls=[("m1", "get_weather")], answered=["m1"]
    ),
    "ag2-events": Case(
        fr.AG2_EVENTS, "ag2-events", calls=[("g2", "get_weather")], answered=["g2"], lines=True
    ),
    "dspy-react": Case(
        fr.DSPY_REACT,
        "dspy-react",
        "user assistant tool assistant tool assistant",
        [(None, "get_weather"), (None, "finish")],
        [None, None],
    ),
}


def _read(name: str, case: Case, folder: Path) -> list[Episode]:
    path = (
        write_jsonl(folder, f"{name}.jsonl", case.log)
        if case.lines
        else write_json(folder, f"{name}.json", case.log)
    )
    result = ingest_paths([path])
    assert result.rejects == [], [(r.source_line, r.reason, r.detail) for r in result.rejects]
    return result.episodes


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_framework_log_is_read_as_its_turns_calls_and_results(name: str, tmp_path: Path):
    case = CASES[name]
    (episode,) = _read(name, case, tmp_path)
    assert episode.source_format == case.fmt
    assert " ".join(e.kind for e in episode.events) == case.kinds
    assert [(c.id, c.name) for e in episode.events for c in e.tool_calls] == case.calls
    assert [e.tool_call_id for e in episode.events if e.kind == "tool"] == case.answered
    assert episode.events[-1].content == "18C in Paris."


def test_a_langgraph_thread_is_its_latest_snapshot_with_tokens_and_task(tmp_path: Path):
    (state,) = _read("state", CASES["langgraph-state"], tmp_path)
    assert (state.episode_id, state.task.fixture_id) == ("langgraph:th-1", "weather-paris")
    assert (state.events[1].input_tokens, state.events[1].output_tokens) == (30, 8)
    (thread,) = _read("checkpoints", CASES["langgraph-checkpoints"], tmp_path)
    assert thread.source_path == "thread_id=th-2" and len(thread.events) == 4


def test_reasoning_said_as_a_message_of_its_own_joins_the_turn_after_it(tmp_path: Path):
    (letta,) = _read("letta", CASES["letta"], tmp_path)
    assert letta.events[1].reasoning == "Call the weather tool."
    (session,) = _read("continue", CASES["continue"], tmp_path)
    assert session.events[1].reasoning == "Use the tool." and session.lineage.model == "gpt-4o"


def test_a_streamed_fragment_is_counted_not_read_twice(tmp_path: Path):
    (run,) = _read("adk", CASES["adk-stream"], tmp_path)
    assert '"partial_events":1' in (run.extra_json or "")
    assert run.events[1].name == "weather_agent" and run.events[1].input_tokens == 50


def test_tools_that_ran_stay_data_and_are_not_read_as_definitions(tmp_path: Path):
    (run,) = _read("agno", CASES["agno-tools-that-ran"], tmp_path)
    assert run.tools == [] and '"tool_args"' in (run.extra_json or "")


def test_each_retry_attempt_is_an_episode_of_its_own(tmp_path: Path):
    result = ingest_paths([write_json(tmp_path, "fix-1.traj", fr.SWE_RETRY)])
    assert result.rejects == []
    assert [(e.source_path, e.outcome.workspace_diff) for e in result.episodes] == [
        ("attempts[0]", "diff a"),
        ("attempts[1]", "diff b"),
    ]
    assert {e.episode_id for e in result.episodes} == {
        "swe-agent:fix-1:attempt-0",
        "swe-agent:fix-1:attempt-1",
    }


def test_the_final_answers_these_formats_record_are_kept(tmp_path: Path):
    (steps,) = _read("steps", CASES["smolagents-steps"], tmp_path)
    (agent,) = _read("agent", CASES["bedrock-agents"], tmp_path)
    assert steps.outcome.final_answer == agent.outcome.final_answer == "18C in Paris."
    assert agent.events[2].reasoning == "Use the weather action."


def test_a_crewai_task_log_is_named_as_no_trajectory(tmp_path: Path):
    result = ingest_paths([write_json(tmp_path, "crew.json", fr.CREWAI_LOG)])
    (reject,) = result.rejects
    assert reject.reason == "not a trajectory" and "CrewAI" in reject.detail


def test_a_kind_no_reader_knows_is_a_reject_naming_it(tmp_path: Path):
    entries = [*fr.MISTRAL_HISTORY["entries"], {"object": "entry", "type": "agent.dance"}]
    result = ingest_paths([write_json(tmp_path, "m.json", {**fr.MISTRAL_HISTORY, "entries": entries})])
    (entry,) = result.rejects
    assert entry.reason == "unknown entry" and entry.detail.startswith("entries[4].type is")
    letta = {"messages": [{"message_type": "approval_message", "content": "x"}]}
    (reject,) = ingest_paths([write_json(tmp_path, "l.json", letta)]).rejects
    assert reject.reason == "unknown role" and reject.detail.startswith(
        "messages[0].message_type is 'approval_message'"
    )


def test_shapes_near_a_framework_message_are_not_taken_for_one(tmp_path: Path):
    """A list of tool definitions (``{"type": "function"}``: no content) is no conversation, and a
    null message is still a reject, never a message folded away."""
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    assert ingest_paths([write_json(tmp_path, "tools.json", tools)]).episodes == []
    chat = {"messages": [{"role": "user", "content": "hi"}, None, {"role": "assistant", "content": "yo"}]}
    (reject,) = ingest_paths([write_json(tmp_path, "chat.json", chat)]).rejects
    assert (reject.reason, reject.detail) == (
        "wrong type",
        "messages[1] is NoneType, expected dict "
        "(the file is a bare list, read as the openai format's messages)",
    )


def test_a_log_no_format_reads_is_rejected_naming_what_its_first_record_holds(tmp_path: Path):
    """The reject says which fields the first record has (a field that does not read as a word,
    which may be a key, as ``<key>``), so the log can be told without opening it."""
    lines = [{"job_id": "r1", "payload": {}, "AKIAQWERTYUIOP234567": 1}, {"job_id": "r2"}]
    (reject,) = ingest_paths([write_jsonl(tmp_path, "jobs.jsonl", lines)]).rejects
    assert reject.reason == "unrecognized format"
    assert reject.detail.startswith(
        "line 1 (the first readable one) is an object of 3 keys with fields job_id, payload, <key>: "
    )


def test_the_values_a_langgraph_run_streams_are_one_episode_per_run(tmp_path: Path):
    """Each value holds the one before it and more: one run, its last value the episode; a value
    that does not continue the one before starts the next run."""
    result = ingest_paths([write_jsonl(tmp_path, "values.jsonl", fr.LANGGRAPH_VALUES)])
    assert result.rejects == []
    assert [(e.source_format, e.source_line, len(e.events)) for e in result.episodes] == [
        ("langgraph", 1, 4),
        ("langgraph", 5, 1),
    ]
    assert '"snapshots":4' in (result.episodes[0].extra_json or "")
