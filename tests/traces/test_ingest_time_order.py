"""A message list written newest first (the Assistants API's thread listing) is read in the order
it happened (traces/adapters/openai.py ``_in_time_order``); a tie of ``created_at`` seconds is no
order either way."""

from __future__ import annotations

import copy
from pathlib import Path

from handwritten_records import ASSISTANTS_THREAD_TIED
from log_files import one_episode, write_json


def test_a_newest_first_thread_with_a_tied_second_is_reversed(tmp_path: Path):
    episode = one_episode(write_json(tmp_path, "thread.json", ASSISTANTS_THREAD_TIED))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "Hi"),
        ("user", "What is 6*7? Two messages."),
        ("assistant", "First part: computing."),
        ("assistant", "Second part: 42."),
    ]


def test_ties_alone_keep_the_recorded_order(tmp_path: Path):
    listing = copy.deepcopy(ASSISTANTS_THREAD_TIED)
    listing["data"] = listing["data"][2:]
    for message in listing["data"]:
        message["created_at"] = 1735000001
    episode = one_episode(write_json(tmp_path, "thread.json", listing))
    assert [e.content for e in episode.events] == ["What is 6*7? Two messages.", "Hi"]


def test_a_list_that_rises_and_falls_keeps_its_order(tmp_path: Path):
    listing = copy.deepcopy(ASSISTANTS_THREAD_TIED)
    listing["data"][0]["created_at"] = 1735000000
    episode = one_episode(write_json(tmp_path, "thread.json", listing))
    assert episode.events[0].content == "Second part: 42."
