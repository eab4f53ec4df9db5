"""Closed fields at admission: a record's source format, finish reasons and timestamps must be
values of their kind, and a log's model settings reach the lineage without credentials.

A native record names its own ``source_format``, and it was shown whole in ``raw_traces``' metadata
and the dataset card; a finish reason or a timestamp could carry any text (a key) into the training
data; the OpenAI Agents SDK's ``model_config``, Langfuse's ``modelParameters`` and Inspect's
``model_generate_config`` were copied whole, headers and API keys included (red team)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from handwritten_records import AGENTS_SDK_TRACE, LANGFUSE_TRACE

from trajectory_platform.traces.adapters.base import sampling_params_json
from trajectory_platform.traces.ingest import ingest_paths, sample_logs_root

TOKEN = "ghp_" + "Qw3rTy6uIo9pAs2dFg5hJk8lZx1cVb4nM7qW"


def _native(**overrides: object) -> dict:
    events = [
        {"kind": "user", "content": "hi"},
        {"kind": "assistant", "content": "ok", "finish_reason": "stop"},
    ]
    return {"episode_id": "ep-1", "source_format": "native", "events": events, **overrides}


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        (_native(source_format=f"agent-v2 {TOKEN}"), "unknown source format"),
        (
            _native(events=[{"kind": "user", "content": "hi", "finish_reason": f"stop {TOKEN}"}]),
            "unknown finish reason",
        ),
        (_native(events=[{"kind": "user", "content": "hi", "timestamp": f"2026-{TOKEN}"}]), "bad timestamp"),
    ],
    ids=["source_format", "finish_reason", "timestamp"],
)
def test_a_value_outside_its_field_class_is_a_reject_that_does_not_quote_it(tmp_path, record, reason):
    path = tmp_path / "native.jsonl"
    path.write_text(json.dumps(record) + "\n")
    result = ingest_paths([path], fmt="native")
    assert not result.episodes
    [reject] = result.rejects
    assert reject.reason == reason and reject.source_file == str(path)
    assert TOKEN not in json.dumps(reject.row(), default=str).replace(reject.excerpt or "", "")


def test_provider_spellings_of_a_finish_reason_and_iso_times_are_admitted(tmp_path):
    events = [
        {"kind": "user", "content": "hi", "timestamp": "2025-01-20 20:29:32"},
        {
            "kind": "assistant",
            "content": "a",
            "finish_reason": "MAX_TOKENS",
            "timestamp": "2025-01-20T20:29:35Z",
        },
        {"kind": "assistant", "content": "b", "finish_reason": "tool-calls", "timestamp": "1737404975.5"},
    ]
    path = tmp_path / "native.jsonl"
    path.write_text(json.dumps(_native(events=events)) + "\n")
    assert len(ingest_paths([path], fmt="native").episodes) == 1


def test_every_shipped_sample_log_is_still_admitted():
    result = ingest_paths([sample_logs_root()])
    assert not [r for r in result.rejects if r.reason in ("unknown finish reason", "bad timestamp")]


def test_model_settings_keep_sampling_and_drop_how_the_model_is_reached():
    settings = {
        "temperature": 0.2,
        "maxOutputTokens": 64,
        "extra_headers": {"Authorization": f"Bearer {TOKEN}"},
        "apiKey": TOKEN,
        "base_url": "https://llm.example.com/v1",
        "extra_body": {"seed": 7, "x-api-key": TOKEN},
        "stop": ["END", f"https://svc:{TOKEN}@llm.example.com"],
    }
    assert json.loads(sampling_params_json(settings) or "{}") == {
        "temperature": 0.2,
        "maxOutputTokens": 64,
        "extra_body": {"seed": 7},
        "stop": ["END"],
    }
    assert sampling_params_json({"api_key": TOKEN}) is None


def test_adapters_copying_a_whole_settings_object_leave_credentials_out(tmp_path: Path):
    agents = copy.deepcopy(AGENTS_SDK_TRACE)
    for span in agents:
        config = (span.get("span_data") or {}).get("model_config")
        if isinstance(config, dict):
            config["extra_headers"] = {"Authorization": f"Bearer {TOKEN}"}
    (tmp_path / "agents.json").write_text(json.dumps(agents))
    langfuse = copy.deepcopy(LANGFUSE_TRACE)
    for observation in langfuse["observations"]:
        if observation.get("modelParameters"):
            observation["modelParameters"]["api_key"] = TOKEN
    (tmp_path / "langfuse.jsonl").write_text(json.dumps(langfuse) + "\n")
    result = ingest_paths([tmp_path / "agents.json", tmp_path / "langfuse.jsonl"])
    assert len(result.episodes) == 2
    for episode in result.episodes:
        assert episode.lineage.sampling_params_json and TOKEN not in episode.lineage.sampling_params_json
