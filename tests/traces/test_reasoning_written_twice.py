"""A turn holding its reasoning both in a reasoning field and as a ``<think>`` block in its text keeps
it once (red team s37 class D); a block that says something else stays text, counted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from log_files import one_episode, write_jsonl


def _answer(tmp_path: Path, turn: dict[str, Any]):
    record = {"messages": [{"role": "user", "content": "2+2?"}, {"role": "assistant", **turn}]}
    return one_episode(write_jsonl(tmp_path, "x.jsonl", [record]))


def test_reasoning_content_repeated_as_a_think_block_is_held_once(tmp_path: Path):
    episode = _answer(
        tmp_path, {"reasoning_content": "2 and 2 make 4.", "content": "<think>\n2 and 2 make 4.\n</think>\n4"}
    )
    answer = episode.events[-1]
    assert (answer.content, answer.reasoning) == ("4", "2 and 2 make 4.")
    assert episode.extra()["inline_markup"]["lifted"] == {"reasoning_repeated": 1}


def test_ollama_thinking_repeated_in_a_thinking_block_is_held_once(tmp_path: Path):
    answer = _answer(
        tmp_path, {"thinking": "add them", "content": "<thinking>add   them</thinking>\n\n4"}
    ).events[-1]
    assert (answer.content, answer.reasoning) == ("4", "add them")


def test_a_block_unlike_the_reasoning_field_stays_text(tmp_path: Path):
    episode = _answer(tmp_path, {"reasoning_content": "add them", "content": "<think>guess</think>4"})
    assert episode.events[-1].content == "<think>guess</think>4"
    assert episode.extra()["inline_markup"]["kept_as_text"] == {
        "reasoning block unlike the reasoning field": 1
    }
