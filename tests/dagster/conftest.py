"""Shared fixtures for the Dagster-layer tests: a trace source with a few dated log files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest


def write_day(source: Path, day: str, good: int, bad: int = 0, name: str = "chat.jsonl") -> Path:
    """Write ``good`` OpenAI-chat records and ``bad`` malformed lines under ``source/day/name``."""
    lines = [
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": f"{day} {name} task {i}"},
                    {"role": "assistant", "content": f"answer {i}"},
                ]
            }
        )
        for i in range(good)
    ]
    lines += ["{this is not json" for _ in range(bad)]
    path = source / day / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def log_writer(tmp_path: Path) -> Callable[..., Path]:
    """``log_writer(day, good, bad=0, name=...)`` writes into ``tmp_path/trace_source``."""
    source = tmp_path / "trace_source"
    return lambda day, good, bad=0, name="chat.jsonl": write_day(source, day, good, bad, name)
