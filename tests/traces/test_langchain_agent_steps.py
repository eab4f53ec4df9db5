"""LangChain ``AgentExecutor`` results logged with ``return_intermediate_steps``
(``adapters/langchain_agent.py``): ``{"input", "output", "intermediate_steps": [[action,
observation], ...]}`` was an ``unrecognized format`` reject.

Development cases here (plain action dicts, a ReAct log, parallel calls of one model message); the
validation case (``dumpd``'s ``ToolAgentAction`` with a call id, in JSONL) was held out and read on
its first measure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

ASK, ANSWER = "What is the weather in Paris?", "It is 18C in Paris."


def action(tool: str, tool_input: Any, log: str, **more: Any) -> dict[str, Any]:
    return {"tool": tool, "tool_input": tool_input, "log": log, "type": "AgentAction", **more}


def result(*steps: list[Any]) -> dict[str, Any]:
    return {"input": ASK, "output": ANSWER, "intermediate_steps": list(steps)}


def _parsed(arguments: str | None) -> Any:
    try:
        return json.loads(arguments or "null")
    except json.JSONDecodeError:
        return arguments


def turns(path: Path) -> list[tuple[Any, ...]]:
    episode = one_episode(path)
    assert (episode.outcome.final_answer, episode.outcome.terminal_status) == (ANSWER, "completed")
    return [
        (
            e.kind,
            e.content,
            [(c.id, c.name, _parsed(c.arguments)) for c in e.tool_calls],
            e.tool_name,
        )
        for e in episode.events
    ]


def test_a_tool_calling_agents_steps_are_calls_and_results_and_its_log_is_not_the_models(tmp_path: Path):
    invoking = "Invoking: `get_weather` with `{'city': 'Paris'}`\n"
    path = write_json(
        tmp_path, "run.json", result([action("get_weather", {"city": "Paris"}, invoking), "18C"])
    )
    assert turns(path) == [
        ("user", ASK, [], None),
        ("assistant", None, [(None, "get_weather", {"city": "Paris"})], None),
        ("tool", "18C", [], "get_weather"),
        ("assistant", ANSWER, [], None),
    ]


def test_a_react_agents_thought_is_the_turns_text(tmp_path: Path):
    log = "Thought: I need the weather.\nAction: get_weather\nAction Input: Paris"
    path = write_json(tmp_path, "run.json", result([action("get_weather", "Paris", log), "18C"]))
    assert turns(path)[1] == (
        "assistant",
        "Thought: I need the weather.",
        [(None, "get_weather", "Paris")],
        None,
    )


def test_actions_one_model_message_chose_are_one_turn(tmp_path: Path):
    chosen = [{"type": "ai", "content": "", "tool_calls": []}]
    steps = [
        [action("get_weather", {"city": "Paris"}, "", tool_call_id="c1", message_log=chosen), "18C"],
        [action("get_weather", {"city": "Rome"}, "", tool_call_id="c2", message_log=chosen), "25C"],
    ]
    read = turns(write_json(tmp_path, "run.json", result(*steps)))
    assert [(kind, [c[0] for c in calls]) for kind, _, calls, _ in read] == [
        ("user", []),
        ("assistant", ["c1", "c2"]),
        ("tool", []),
        ("tool", []),
        ("assistant", []),
    ]


def test_a_step_that_is_not_an_action_and_its_output_is_a_named_reject(tmp_path: Path):
    bad = result([action("get_weather", {"city": "Paris"}, ""), "18C"], ["not", "a", "step"])
    (reject,) = ingest_paths([write_json(tmp_path, "run.json", bad)]).rejects
    assert reject.reason == "wrong type" and "intermediate_steps[1]" in (reject.detail or "")


def test_held_out_dumpd_tool_agent_actions_in_jsonl(tmp_path: Path):
    dumped = {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "agent", "ToolAgentAction"],
        "kwargs": {
            "tool": "get_weather",
            "tool_input": {"city": "Paris"},
            "log": "\nInvoking: `get_weather` with `{'city': 'Paris'}`\n",
            "tool_call_id": "call_7",
            "message_log": [],
        },
    }
    run = {"input": ASK, "chat_history": [], "output": ANSWER, "intermediate_steps": [[dumped, "18C"]]}
    read = turns(write_jsonl(tmp_path, "runs.jsonl", [run]))
    assert read[1][2] == [("call_7", "get_weather", {"city": "Paris"})] and read[2][1] == "18C"
