"""An OpenAI Agents SDK trace whose model calls include ``response`` spans holding a response id
only (the SDK's own export of a Responses API call). A bare call that a later call saw loses
nothing (that call's input holds its answer); bare calls after the last call that kept its messages
would end the episode before them, silently: the trace is a ``no model messages`` reject that names
its file, the line it begins at and its id. Cases: which calls are bare (none, the first: controls
that stay episodes; the last, all), the trace after another in one file, written one export per
line or as the exporter's ``{"data": [...]}`` batch."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path

import pytest
from handwritten_records import AGENTS_SDK_TRACE

from trajectory_platform.traces.ingest import ingest_paths

BARE = {"none": (), "first": ("span_g1",), "last": ("span_g2",), "all": ("span_g1", "span_g2")}
"""Which generation spans are written as bare ``response`` spans."""
REJECTED = {"last", "all"}


def _trace(trace_id: str, bare: tuple[str, ...]) -> list[dict]:
    records = copy.deepcopy(AGENTS_SDK_TRACE)
    records[0]["id"] = trace_id
    for span in records[1:]:
        span["trace_id"] = trace_id
        if span["id"] in bare:
            span["span_data"] = {"type": "response", "response_id": f"resp_{span['id']}"}
    return records


@pytest.mark.parametrize(("bare", "batch"), itertools.product(BARE, (False, True)))
def test_bare_response_spans_no_later_call_saw_reject_the_trace_at_its_line(
    bare: str, batch: bool, tmp_path: Path
):
    honest, tested = _trace("trace_ok", ()), _trace("trace_t", BARE[bare])
    lines = [{"data": honest}, {"data": tested}] if batch else [*honest, *tested]
    path = tmp_path / "traces.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = ingest_paths([path])
    kept = {e.episode_id: e for e in result.episodes}
    first_line = 2 if batch else len(honest) + 1
    if bare in REJECTED:
        assert list(kept) == ["openai-agents:trace_ok"]
        (reject,) = result.rejects
        assert (reject.source_file, reject.source_line, reject.source_path, reject.reason) == (
            str(path),
            first_line,
            "trace_id=trace_t",
            "no model messages",
        )
        assert "response id only" in (reject.detail or "")
    else:
        assert result.rejects == [] and sorted(kept) == ["openai-agents:trace_ok", "openai-agents:trace_t"]
        said = [(e.kind, e.content) for e in kept["openai-agents:trace_t"].events]
        assert said == [(e.kind, e.content) for e in kept["openai-agents:trace_ok"].events]
        assert kept["openai-agents:trace_t"].outcome.final_answer == "Fixed."
