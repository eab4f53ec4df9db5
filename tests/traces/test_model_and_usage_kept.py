"""The model, token counts and sampling settings a log states are in the episode, not lost or left
only in extra_json (red team s37 class K): the ``openai`` reader's top-level ``model``; Gemini's
``modelVersion``, ``usageMetadata`` and ``generationConfig``, read directly or through ``chat-log``."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import one_episode, write_json, write_jsonl

GEMINI_ANSWER = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "Cats are great."}]}, "finishReason": "STOP"}
    ],
    "usageMetadata": {"promptTokenCount": 6, "candidatesTokenCount": 4},
    "modelVersion": "gemini-2.0-flash-001",
    "responseId": "r-1",
    "createTime": "2025-01-01T00:00:00Z",
}
CONTENTS = [{"role": "user", "parts": [{"text": "Summarize: cats are great."}]}]


def test_the_openai_readers_model_is_the_lineage_model(tmp_path: Path):
    record = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
    }
    episode = one_episode(write_jsonl(tmp_path, "ft.jsonl", [record]))
    assert episode.lineage.model == "gpt-4o-mini"
    assert "model" not in episode.extra()


def test_a_vertex_batch_line_keeps_model_tokens_and_temperature(tmp_path: Path):
    line = {
        "request": {"contents": CONTENTS, "generationConfig": {"temperature": 0.2}},
        "response": GEMINI_ANSWER,
    }
    episode = one_episode(write_jsonl(tmp_path, "batch.jsonl", [line]))
    assert episode.lineage.model == "gemini-2.0-flash-001"
    assert json.loads(episode.lineage.sampling_params_json or "{}") == {"temperature": 0.2}
    assert (episode.events[-1].input_tokens, episode.events[-1].output_tokens) == (6, 4)


def test_a_gemini_api_record_keeps_its_response_fields(tmp_path: Path):
    record = {"model": "gemini-2.5-pro", "contents": CONTENTS, "response": GEMINI_ANSWER}
    episode = one_episode(write_json(tmp_path, "gemini.json", record))
    assert episode.lineage.model == "gemini-2.5-pro"
    assert episode.events[-1].output_tokens == 4
    assert episode.extra() == {"response": {"create_time": "2025-01-01T00:00:00Z"}}
