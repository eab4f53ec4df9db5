"""Held-out validation of call settings a logger keeps beside the conversation (kept apart from
test_call_settings_beside_the_conversation.py): Anthropic tools under ``properties``, and a single
logged call whose ``metadata`` names its model while the request names none. Written before they
were run; on first measure 1 of 2 as expected: settings in the top-level ``properties`` around a
nested request were not read, and now are (docs/formats.md)."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_jsonl


def test_anthropic_tools_and_model_under_properties(tmp_path: Path):
    record = {
        "properties": {
            "model": "claude-3-5-haiku",
            "tools": [{"name": "ls", "description": "list", "input_schema": {"type": "object"}}],
        },
        "request": {
            "messages": [
                {"role": "user", "content": "List files"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "tu1", "name": "ls", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "a.py"}],
                },
            ]
        },
        "response": {
            "role": "assistant",
            "content": [{"type": "text", "text": "a.py"}],
            "stop_reason": "end_turn",
        },
    }
    episode = one_episode(write_jsonl(tmp_path, "log.jsonl", [record]))
    assert episode.extra()["dialect"] == "anthropic"
    assert episode.lineage.model == "claude-3-5-haiku" and [t.name for t in episode.tools] == ["ls"]


def test_a_single_call_whose_metadata_names_the_model_and_usage_in_metrics(tmp_path: Path):
    record = {
        "input": [{"role": "user", "content": "Hi"}],
        "output": {"role": "assistant", "content": "Hello!"},
        "metadata": {"model": "mistral-large", "top_p": 0.9},
        "metrics": {"input_tokens": 3, "output_tokens": 2},
    }
    episode = one_episode(write_jsonl(tmp_path, "log.jsonl", [record]))
    assert episode.lineage.model == "mistral-large"
    assert episode.lineage.sampling_params_json == '{"top_p":0.9}'
    assert (episode.events[-1].input_tokens, episode.events[-1].output_tokens) == (3, 2)
