"""Validation half of Strands Agents sessions (``test_strands_sessions.py`` is the development
half): variants held out while the reader was written."""

from __future__ import annotations

import json
from pathlib import Path

from strands_sessions import agent_folder, assistant, long_conversation, result, user

from trajectory_platform.traces.ingest import ingest_paths


def test_two_agents_of_one_session_are_two_episodes(tmp_path: Path):
    agent_folder(tmp_path, "s1", "planner", [user("Plan a trip."), assistant("Go to Rome.")])
    agent_folder(
        tmp_path,
        "s1",
        "booker",
        [
            user("Book Rome."),
            assistant(None, ("b1", "book", {"city": "Rome"})),
            result("b1", "booked"),
            assistant("Booked."),
        ],
    )
    read = ingest_paths([tmp_path])
    assert read.rejects == []
    assert sorted(e.episode_id for e in read.episodes) == [
        "strands-session:s1/booker",
        "strands-session:s1/planner",
    ]


def test_a_redacted_message_is_read_as_the_agent_went_on_with_it(tmp_path: Path):
    messages = [user("My card is 4111 1111 1111 1111, book it."), assistant("Booked.")]
    agent_folder(tmp_path, "s2", "default", messages, m0=user("[User input redacted.]"))
    (episode,) = ingest_paths([tmp_path]).episodes
    assert [e.content for e in episode.events] == ["[User input redacted.]", "Booked."]
    assert json.loads(episode.extra_json or "{}")["redacted_messages"] == 1


def test_one_agents_folder_alone_and_its_messages_without_it(tmp_path: Path):
    folder = agent_folder(tmp_path, "s3", "default", long_conversation(2))
    alone = ingest_paths([folder])
    assert (len(alone.episodes), alone.rejects) == (1, [])
    without = ingest_paths([folder / "messages"])
    assert without.episodes == []
    assert sorted(r.reason for r in without.rejects) == ["companion not ingested"] * 5
    assert all(
        r.detail.startswith(f"message_{i}.json is read with agent.json (")
        for i, r in enumerate(sorted(without.rejects, key=lambda r: r.source_file))
    )


def test_a_message_lost_or_cut_short_rejects_the_agent_naming_the_file(tmp_path: Path):
    lost = agent_folder(tmp_path / "a", "s4", "default", long_conversation(4))
    (lost / "messages" / "message_2.json").unlink()
    (reject,) = ingest_paths([tmp_path / "a"]).rejects
    assert reject.reason == "message missing" and reject.detail.startswith(
        "messages/message_2.json is not in"
    )
    cut = agent_folder(tmp_path / "b", "s5", "default", long_conversation(4))
    path = cut / "messages" / "message_3.json"
    path.write_text(path.read_text()[:20])
    agent, own = sorted(ingest_paths([tmp_path / "b"]).rejects, key=lambda r: r.source_file)
    assert agent.source_file.endswith("agent_default/agent.json") and agent.reason == "truncated JSON"
    assert agent.detail.startswith("messages/message_3.json: ")
    assert own.source_file.endswith("messages/message_3.json") and own.reason == "truncated JSON"


def test_a_failed_tool_result_keeps_its_status(tmp_path: Path):
    messages = [
        user("Weather?"),
        assistant(None, ("t1", "get_weather", {})),
        result("t1", "timeout", "error"),
        assistant("It failed."),
    ]
    agent_folder(tmp_path, "s6", "default", messages)
    (episode,) = ingest_paths([tmp_path]).episodes
    assert [(e.kind, e.status) for e in episode.events if e.kind == "tool"] == [("tool", "error")]
