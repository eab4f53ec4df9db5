"""AG2 (AutoGen 0.2) chat histories lost who spoke on the turns AutoGen writes without a ``name``:
a tool-call message (the acting agent names only the others) and the results of a tool message
(``tool_responses``, named by the agent that ran the tools). Every event now carries its speaker
(``openai._speaker_roles``, ``openai.AUTOGEN_RESULTS``); AgentChat tool results carry their source."""

from __future__ import annotations

from pathlib import Path

import framework_records as fr
from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

CALLS = [
    {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}},
    {"id": "c2", "type": "function", "function": {"name": "weather", "arguments": "{}"}},
]


def test_a_proxys_history_names_every_speaker(tmp_path: Path):
    history = [
        {"content": "Weather in Paris and Oslo?", "role": "assistant", "name": "user_proxy"},
        {"content": "", "role": "assistant", "tool_calls": CALLS},
        {
            "content": "18C\n\n4C",
            "role": "tool",
            "name": "user_proxy",
            "tool_responses": [
                {"tool_call_id": "c1", "role": "tool", "content": "18C"},
                {"tool_call_id": "c2", "role": "tool", "content": "4C"},
            ],
        },
        {"content": "18C and 4C. TERMINATE", "role": "user", "name": "forecaster"},
    ]
    episode = one_episode(write_json(tmp_path, "chat.json", {"chat_history": history, "summary": "ok"}))
    assert [(e.kind, e.name) for e in episode.events] == [
        ("user", "user_proxy"),
        ("assistant", "forecaster"),
        ("tool", "user_proxy"),
        ("tool", "user_proxy"),
        ("assistant", "forecaster"),
    ]
    assert [(e.tool_call_id, e.tool_name) for e in episode.events if e.kind == "tool"] == [
        ("c1", "weather"),
        ("c2", "weather"),
    ]


def test_agentchat_tool_results_carry_their_source(tmp_path: Path):
    messages = [
        {"type": "TextMessage", "source": "user", "content": "Weather?"},
        {
            "type": "ToolCallRequestEvent",
            "source": "forecaster",
            "content": [{"id": "c1", "name": "weather", "arguments": "{}"}],
        },
        {
            "type": "ToolCallExecutionEvent",
            "source": "forecaster",
            "content": [{"call_id": "c1", "name": "weather", "content": "18C", "is_error": False}],
        },
        {"type": "TextMessage", "source": "forecaster", "content": "18C."},
    ]
    episode = one_episode(write_json(tmp_path, "result.json", {"messages": messages, "stop_reason": None}))
    assert [e.name for e in episode.events] == [None, "forecaster", "forecaster", "forecaster"]


def test_an_ag2_run_streamed_as_events_names_every_speaker(tmp_path: Path):
    episode = one_episode(write_jsonl(tmp_path, "run.jsonl", fr.AG2_EVENTS))
    assert [(e.kind, e.name) for e in episode.events] == [
        ("user", "user_proxy"),
        ("assistant", "forecaster"),
        ("tool", "user_proxy"),
        ("assistant", "forecaster"),
    ]
    assert episode.outcome.terminal_status == "completed"
    assert '"execute_function":1' in (episode.extra_json or "")


def test_an_ag2_run_whose_calls_come_from_two_agents_is_rejected(tmp_path: Path):
    second = {**fr.AG2_EVENTS[1], "content": {**fr.AG2_EVENTS[1]["content"], "sender": "critic"}}
    (reject,) = ingest_paths([write_jsonl(tmp_path, "run.jsonl", [*fr.AG2_EVENTS, second])]).rejects
    assert reject.reason == "ambiguous speaker roles"


def test_an_ag2_event_of_an_unknown_type_rejects_the_run_naming_it(tmp_path: Path):
    odd = {"type": "teleport", "content": {"uuid": "u-9", "sender": "forecaster"}}
    (reject,) = ingest_paths([write_jsonl(tmp_path, "run.jsonl", [*fr.AG2_EVENTS, odd])]).rejects
    assert reject.reason == "unknown event type" and "teleport" in (reject.detail or "")


def test_a_group_chat_whose_speakers_are_all_users_trains_the_one_that_calls_tools(tmp_path: Path):
    """An AG2 group chat's ``messages`` write every speaker as ``user`` and say who spoke only in
    ``name``: the speaker that calls tools is the agent, the others its users, whatever they are
    called and however many speak."""
    for agent, others in (("Engineer", ("Admin", "Planner")), ("coder", ("boss", "critic", "writer"))):
        history = [{"content": f"{other} says go.", "role": "user", "name": other} for other in others]
        history += [
            {"content": "", "role": "user", "name": agent, "tool_calls": CALLS[:1]},
            {"content": "18C", "role": "tool", "name": "Executor", "tool_responses": [
                {"tool_call_id": "c1", "role": "tool", "content": "18C"}
            ]},
            {"content": "It is 18C. TERMINATE", "role": "user", "name": agent},
        ]  # fmt: skip
        episode = one_episode(write_json(tmp_path, f"{agent}.json", {"chat_history": history}))
        assert [(e.kind, e.name) for e in episode.events] == [
            *[("user", other) for other in others],
            ("assistant", agent),
            ("tool", "Executor"),
            ("assistant", agent),
        ]
        assert episode.events[-2].tool_call_id == "c1"


def test_a_chat_of_users_without_tool_calls_keeps_its_roles(tmp_path: Path):
    """Control: named ``user`` messages that call no tools are a multi-user chat as recorded."""
    history = [
        {"content": "hi", "role": "user", "name": "ann"},
        {"content": "hello", "role": "user", "name": "bob"},
        {"content": "Hi both.", "role": "assistant"},
    ]
    episode = one_episode(write_json(tmp_path, "chat.json", {"messages": history}))
    assert [(e.kind, e.name) for e in episode.events] == [
        ("user", "ann"),
        ("user", "bob"),
        ("assistant", None),
    ]
