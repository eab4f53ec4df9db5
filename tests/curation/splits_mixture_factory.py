"""Hand-built episodes and candidates for the splits / decontamination / mixture / preference tests.

Small, explicit trajectories: each test states the few fields it cares about and the rest is a
plausible fixed agent run (system, user, assistant calls, tool observations, final report).
"""

from __future__ import annotations

import json

import pyarrow as pa

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.traces.record import Episode, Event, Outcome, TaskIdentity, ToolCall, ToolSpec
from trajectory_platform.traces.schema import EPISODE_SCHEMA, episode_row

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
    anchor: bool = False,
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
        anchor=anchor,
    )


def scripted_events(prompt: str, steps: list[tuple[str, dict, str, str]], final: str) -> list[Event]:
    """system, user, then per step (tool, arguments, observation, status) a call and its answer."""
    events = [Event(kind="system", content="You are a careful agent."), Event(kind="user", content=prompt)]
    for i, (name, arguments, observation, status) in enumerate(steps):
        events.append(
            Event(kind="assistant", content=f"Next: {name}.", tool_calls=[call(i, name, **arguments)])
        )
        events.append(
            Event(kind="tool", tool_call_id=f"call_{i}", tool_name=name, content=observation, status=status)
        )
    events.append(Event(kind="assistant", content=final))
    return events


def gym_corpus(fixtures: list, per_fixture_repeats: int = 1) -> tuple[pa.Table, list[str]]:
    """A verified-and-redacted-looking corpus over real gym fixtures.

    Per fixture: a pristine pass, a recovery pass (a missing-file error, diagnosis, fix), and a hard
    negative that shares the pristine run's prefix and then deletes the tests (a pass_vs_fail pair).
    Returns the table (episode columns + sink, role, t_div, t_rec, target_turns) and the episode ids.
    """
    rows, ids = [], []
    for fixture in fixtures:
        target = next((step.path for step in fixture.plan if step.path), "README.md")
        read = ("read_file", {"file_path": target}, f"contents of {target}", "ok")
        edit = ("edit", {"file_path": target, "old": "a", "new": "b"}, "edited", "ok")
        test = ("run_tests", {"selector": "tests"}, "all passed", "ok")
        for r in range(per_fixture_repeats):
            tag = f"{fixture.fixture_id}#{r}"
            variants = {
                "pristine": ([read, edit, test], "admitted", None, None),
                "recovery": (
                    [
                        (
                            "read_file",
                            {"file_path": f"src/missing_{r}.py"},
                            "FileNotFoundError: no such file",
                            "error",
                        ),
                        ("list_dir", {"path": "."}, "src tests setup.cfg", "ok"),
                        read,
                        edit,
                        test,
                        ("run_tests", {"selector": "tests", "verbose": True}, "all passed, 12 tests", "ok"),
                    ],
                    "admitted",
                    2,
                    6,
                ),
                "hard_negative": (
                    [read, ("bash", {"command": "rm -rf tests"}, "removed", "ok")],
                    "hard_negative",
                    4,
                    None,
                ),
            }
            for role, (steps, sink, t_div, t_rec) in variants.items():
                events = scripted_events(fixture.prompt, steps, f"Done with {fixture.fixture_id}.")
                assistant = [i for i, e in enumerate(events) if e.kind == "assistant"]
                targets = None if sink != "admitted" else [i for i in assistant if i != t_div]
                episode_id = f"{role}:{tag}"
                ep = Episode(
                    episode_id=episode_id,
                    source_format="native",
                    source_file="rollout.jsonl",
                    source_line=len(rows) + 1,
                    source_path=None,
                    partition_date=None,
                    task=fixture.task_identity,
                    tools=[ToolSpec(**t.__dict__) for t in TOOLS],
                    events=events,
                    outcome=Outcome(terminal_status="completed", workspace_diff=None),
                )
                rows.append(
                    {
                        **episode_row(ep),
                        "sink": sink,
                        "role": role,
                        "t_div": t_div,
                        "t_rec": t_rec,
                        "target_turns": targets,
                    }
                )
                ids.append(episode_id)
    schema = pa.schema(
        [
            *EPISODE_SCHEMA,
            ("sink", pa.string()),
            ("role", pa.string()),
            ("t_div", pa.int32()),
            ("t_rec", pa.int32()),
            ("target_turns", pa.list_(pa.int32())),
        ]
    )
    return pa.Table.from_pylist(rows, schema=schema), ids
