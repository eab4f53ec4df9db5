"""Hand-built episodes and candidates for the splits / decontamination / mixture / preference tests.

Small, explicit trajectories: each test states the few fields it cares about and the rest is a
plausible fixed agent run (system, user, assistant calls, tool observations, final report).
"""

from __future__ import annotations

import json

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.traces.record import Episode, Event, Outcome, TaskIdentity, ToolCall, ToolSpec

TOOLS = [
    ToolSpec(name="read_file", parameters_json='{"properties":{"file_path":{"type":"string"}}}', version="1")
]


def call(index: int, name: str, **arguments) -> ToolCall:
    return ToolCall(id=f"call_{index}", name=name, arguments=json.dumps(arguments))


def run_events(
    actions: list[tuple[str, dict]], prompt: str = "Fix the bug.", observation: str = "ok"
) -> list[Event]:
    """system, user, then per action an assistant call and its observation, then a final report."""
    events = [Event(kind="system", content="You are a careful agent."), Event(kind="user", content=prompt)]
    for i, (name, arguments) in enumerate(actions):
        events.append(Event(kind="assistant", content=f"step {i}", tool_calls=[call(i, name, **arguments)]))
        events.append(
            Event(kind="tool", tool_call_id=f"call_{i}", tool_name=name, content=observation, status="ok")
        )
    events.append(Event(kind="assistant", content="Done: the tests pass now."))
    return events


def episode(
    episode_id: str,
    fixture_id: str | None = "fx-a-1",
    repo_family: str | None = "fam-a",
    tool_family: str | None = "read_file_v1",
    domain: str | None = "bug_repair",
    prompt: str = "Fix the bug.",
    actions: list[tuple[str, dict]] | None = None,
    diff: str | None = None,
    events: list[Event] | None = None,
    extra: dict | None = None,
) -> Episode:
    actions = actions if actions is not None else [("read_file", {"file_path": f"src/{episode_id}.py"})]
    return Episode(
        episode_id=episode_id,
        source_format="native",
        source_file="test.jsonl",
        source_line=1,
        source_path=None,
        partition_date=None,
        task=TaskIdentity(
            fixture_id=fixture_id,
            prompt=prompt,
            repo_family=repo_family,
            tool_family=tool_family,
            domain=domain,
        ),
        tools=[ToolSpec(**t.__dict__) for t in TOOLS],
        events=events if events is not None else run_events(actions, prompt),
        outcome=Outcome(terminal_status="completed", workspace_diff=diff),
        extra_json=json.dumps(extra) if extra else None,
    )


def candidate(
    episode_id: str,
    role: str = "pristine",
    sink: str | None = None,
    target_turns: list[int] | None = None,
    t_div: int | None = None,
    **episode_fields,
) -> Candidate:
    ep = episode(episode_id, **episode_fields)
    if sink is None:
        sink = "hard_negative" if role == "hard_negative" else "admitted"
    if target_turns is None:
        target_turns = [i for i, e in enumerate(ep.events) if e.kind == "assistant"]
    extra = json.loads(ep.extra_json) if ep.extra_json else {}
    return Candidate(
        episode=ep,
        sink=sink,
        role=role,
        t_div=t_div,
        target_turns=target_turns,
        parent_episode_id=extra.get("parent_episode_id"),
        anchor=bool(extra.get("anchor")),
    )
