"""Curation-shaped preference pairs (``PREFERENCE_PAIRS_SCHEMA`` rows with whole episodes per side)
for the preference dataset and DPO tests: four admissible pairs and four refused, each for its own
reason."""

from __future__ import annotations

import pyarrow as pa

from trajectory_platform.curation.split_mixture_stage import PREFERENCE_PAIRS_SCHEMA
from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec, canonical_json
from trajectory_platform.traces.schema import episode_row

SECRET_ANSWER = "the pool leaks in src/pool.py"
"""Record text: it may be in token rows, never in a refusal's detail or the manifest."""


def episode(
    episode_id: str, answer: str, *, system: str = "You fix bugs.", compacted: bool = False
) -> Episode:
    schema = {"properties": {"file_path": {"type": "string"}}, "required": ["file_path"], "type": "object"}
    events = [
        Event("system", system),
        Event("user", "Which file leaks the pool?"),
        Event("assistant", "", tool_calls=[ToolCall("c1", "read_file", '{"file_path":"src/pool.py"}')]),
        Event("tool", "def acquire(): ...", tool_call_id="c1", status="ok"),
    ]
    if compacted:  # history rewritten: the last call saw a summary, not events 2-3
        events.append(Event("compaction", "read src/pool.py", replaces_through=3))
    events.append(Event("assistant", answer))
    return Episode(
        episode_id,
        "native",
        "t.jsonl",
        1,
        None,
        None,
        tools=[ToolSpec("read_file", "Read a file.", canonical_json(schema))],
        events=events,
    )


def pair(index: int, chosen: Episode, rejected: Episode, **overrides) -> dict:
    branch = len(chosen.events) - 1
    return {
        "pair_id": f"p{index}",
        "fixture_id": "fx",
        "split": "train",
        "rule": "pass_vs_fail",
        "chosen_episode_id": chosen.episode_id,
        "rejected_episode_id": rejected.episode_id,
        "branch_event_index": branch,
        "chosen_turns": [branch],
        "rejected_turns": [len(rejected.events) - 1],
        "chosen": episode_row(chosen),
        "rejected": episode_row(rejected),
        **overrides,
    }


def good(index: int) -> dict:
    return pair(index, episode(f"c{index}", SECRET_ANSWER), episode(f"r{index}", "No idea."))


def pairs_table() -> pa.Table:
    """Four admissible pairs and four each refused for another reason."""
    rows = [good(i) for i in range(4)]
    rows.append(pair(4, episode("c4", SECRET_ANSWER), episode("r4", "No idea."), chosen_turns=[]))
    rows.append(
        pair(5, episode("c5", SECRET_ANSWER, compacted=True), episode("r5", "No idea.", compacted=True))
    )
    rows.append(  # curation would not admit it; the stage refuses rather than trusts
        pair(6, episode("c6", SECRET_ANSWER), episode("r6", "No idea.", system="You write docs."))
    )
    rows.append({**pair(7, episode("c7", SECRET_ANSWER), episode("r7", "No idea.")), "chosen": None})
    return pa.Table.from_pylist(rows, schema=PREFERENCE_PAIRS_SCHEMA)


REFUSED = {"no_target": 1, "not_one_transcript": 1, "prefix_tokens_differ": 1, "unreadable_pair": 1}
