"""Responses API responses linked by ``previous_response_id`` (traces/adapters/openai_responses.py):
the responses of one file that form a chain are one episode in chain order; a response continuing
one the file does not hold once is rejected naming the link, not as a bare orphan result."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from handwritten_records import RESPONSES_CHAIN
from log_files import one_episode, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

CONVERSATION = [
    ("system", "Be brief."),
    ("user", "Weather in Paris?"),
    ("assistant", None),
    ("tool", "18C"),
    ("assistant", "18C in Paris."),
]


def test_a_chain_of_responses_is_one_episode(tmp_path: Path):
    episode = one_episode(write_jsonl(tmp_path, "responses.jsonl", RESPONSES_CHAIN))
    assert [(e.kind, e.content) for e in episode.events] == CONVERSATION
    assert episode.events[3].tool_call_id == "call_A1" and episode.task.fixture_id == "weather-1"
    assert json.loads(episode.extra_json or "")["chained_responses"] == ["resp_A", "resp_B"]


def test_a_chain_logged_out_of_order_reads_in_chain_order(tmp_path: Path):
    third = {
        "id": "resp_C",
        "previous_response_id": "resp_B",
        "input": [{"role": "user", "content": "Thanks."}],
        "output": [
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Bye."}]}
        ],
    }
    records = [third, RESPONSES_CHAIN[1], RESPONSES_CHAIN[0]]
    episode = one_episode(write_jsonl(tmp_path, "responses.jsonl", records))
    assert [(e.kind, e.content) for e in episode.events] == [
        *CONVERSATION,
        ("user", "Thanks."),
        ("assistant", "Bye."),
    ]


def test_a_response_continuing_one_not_in_the_file_is_rejected_naming_the_link(tmp_path: Path):
    result = ingest_paths([write_jsonl(tmp_path, "responses.jsonl", RESPONSES_CHAIN[1:])])
    (reject,) = result.rejects
    assert reject.reason == "orphan tool result" and "previous_response_id" in (reject.detail or "")


def test_a_branch_links_neither_continuation(tmp_path: Path):
    branch = copy.deepcopy(RESPONSES_CHAIN[1])
    branch["id"] = "resp_B2"
    result = ingest_paths([write_jsonl(tmp_path, "responses.jsonl", [*RESPONSES_CHAIN, branch])])
    assert len(result.episodes) == 1 and len(result.rejects) == 2
    assert all("previous_response_id" in (r.detail or "") for r in result.rejects)
