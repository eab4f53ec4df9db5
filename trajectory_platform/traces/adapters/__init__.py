"""Format adapters and auto-detection.

``ADAPTERS`` is ordered: detection asks each adapter in turn whether a file's first parsed value
looks like its format, most specific first (a native line also has "events", a tau-bench episode
also holds OpenAI messages), so the first yes wins.
"""

from __future__ import annotations

from pathlib import Path

from trajectory_platform.traces.adapters.base import Adapter, SourceFile
from trajectory_platform.traces.adapters.native import NativeAdapter
from trajectory_platform.traces.adapters.openai import OpenAIAdapter

ADAPTERS: dict[str, Adapter] = {
    adapter.name: adapter
    for adapter in (
        NativeAdapter(),
        OpenAIAdapter(),
    )
}
FORMAT_NAMES: tuple[str, ...] = tuple(ADAPTERS)


def detect_format(src: SourceFile) -> Adapter | None:
    """The adapter for ``src``, judged from its whole document or first parsable JSONL line."""
    sample = src.first_value()
    if sample is None:
        return None
    return next((a for a in ADAPTERS.values() if a.sniff(sample, Path(src.path))), None)


__all__ = ["ADAPTERS", "FORMAT_NAMES", "Adapter", "SourceFile", "detect_format"]
