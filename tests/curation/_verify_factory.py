"""Builders for verification tests: one small real gym fixture and episodes acting on it.

The fixture is a real :class:`trajectory_platform.gym.fixtures.Fixture` (S0 with a bug, sealed
FAIL_TO_PASS / PASS_TO_PASS tests, a reference solution), so the dynamic stage runs the real sealed
oracle in the real sandbox. Episodes are built the way the gym runtime logs them: tools delivered
with a version, delivered-input manifests naming it, the system prompt's digest in the lineage,
tool observations answering call ids, and, for
an answer given as :data:`GYM`, the observation the gym's runtime really returns for that call
(the cascade replays a gym episode and holds its observations to that). An answer written out is
kept as written: what a test forges on purpose.
"""

from __future__ import annotations

import json

from trajectory_platform.gym.faults import FAULTS_SEAL, FaultSpec, seal_faults
from trajectory_platform.gym.fixtures import Fixture, Step
from trajectory_platform.gym.runtime import SYSTEM_PROMPT, dispatched_calls, replay_calls
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.gym.tools import sha256_digest
from trajectory_platform.traces.record import (
    DeliveredInput,
    Episode,
    Event,
    LineageInputs,
    Outcome,
    TaskIdentity,
    ToolCall,
)

CALC_S0 = {
    "calc/__init__.py": "",
    "calc/ops.py": "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
    "tests/test_ops.py": "from calc.ops import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
    "README.md": "calc\n",
}
SEALED = {
    "tests/test_ops.py": (
        "from calc.ops import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_mul():\n    assert mul(2, 3) == 6\n"
    )
}
FIXED_OPS = CALC_S0["calc/ops.py"].replace("a - b", "a + b")


def make_fixture(fixture_id: str = "calc-add", flaky_tests: bool = False) -> Fixture:
    """A bug-repair fixture; ``flaky_tests`` makes its sealed add test fail at random."""
    sealed = dict(SEALED)
    if flaky_tests:
        sealed["tests/test_ops.py"] = sealed["tests/test_ops.py"].replace(
            "def test_add():\n    assert add(2, 3) == 5",
            "def test_add():\n    import random\n    assert add(2, 3) == 5 and random.random() < 0.5",
        )
    reference = {**CALC_S0, "calc/ops.py": FIXED_OPS}
    return Fixture(
        fixture_id=fixture_id,
        repo_family="calc",
        tool_family="path",
        domain="bug_repair",
        license="MIT",
        prompt="add() subtracts; fix it.",
        s0_files=dict(CALC_S0),
        sealed_tests=sealed,
        fail_to_pass=["tests/test_ops.py::test_add"],
        pass_to_pass=["tests/test_ops.py::test_mul"],
        reference_files=reference,
        plan=[
            Step("read", path="calc/ops.py"),
            Step("edit", path="calc/ops.py", old="a - b", new="a + b"),
            Step("run_tests"),
            Step("answer", answer="fixed add"),
        ],
    )


SYSTEM = SYSTEM_PROMPT
"""The factory's system prompt: the runtime's own (its digest is recorded in the lineage, as the
runtime records it; another prompt needs the runtime's seal, :func:`gym.runtime.prompt_sealed`)."""


def call(name: str, **arguments: object) -> tuple[str, str]:
    return name, json.dumps(arguments, sort_keys=True)


def make_episode(
    episode_id: str,
    turns: list[tuple[list[tuple[str, str]], list[tuple[str, str, int | None]]]],
    final_files: dict[str, str] | None = None,
    fixture: Fixture | None = None,
    final_report: str | None = "done",
    finish_reason: str | None = None,
    fixture_id: str | None = "calc-add",
    tools_version: str = "path@1.0",
    faults: tuple[FaultSpec, ...] = (),
    seal_key: bytes | None = None,
) -> Episode:
    """An episode: each turn is (calls, answers) where an answer is (status, content, exit_code), or
    :data:`GYM` for what the gym answers (under ``faults``, recorded as the runtime records them);
    ``status == "refused"`` becomes a runtime refusal event. The workspace diff is S0 -> final_files.
    ``seal_key``: seal the schedule as the runtime does under that key (none: unsealed)."""
    fixture = fixture or make_fixture()
    events = [Event("system", content=SYSTEM), Event("user", content=fixture.prompt)]
    delivered = []
    for t, (calls, answers) in enumerate(turns):
        tool_calls = [ToolCall(f"c{t}_{i}", name, args) for i, (name, args) in enumerate(calls)]
        delivered.append(DeliveredInput(len(delivered), len(events), tools_version=tools_version))
        events.append(Event("assistant", content=f"turn {t}", tool_calls=tool_calls))
        for i, (status, content, code) in enumerate(answers):
            kind = "refusal" if status == "refused" else "tool"
            events.append(
                Event(
                    kind,
                    content=content,
                    tool_call_id=f"c{t}_{i}",
                    tool_name=calls[i][0],
                    status=status,
                    exit_code=code,
                )
            )
    if final_report is not None:
        delivered.append(DeliveredInput(len(delivered), len(events), tools_version=tools_version))
        events.append(Event("assistant", content=final_report, finish_reason=finish_reason))
    diff = unified_diff(fixture.s0_files, final_files) if final_files is not None else ""
    episode = Episode(
        episode_id=episode_id,
        source_format="native",
        source_file="test.jsonl",
        source_line=1,
        source_path=None,
        partition_date=None,
        task=TaskIdentity(fixture_id=fixture_id, repo_family="calc", tool_family="path", domain="bug_repair"),
        lineage=LineageInputs(prompt_template_digest=sha256_digest(SYSTEM)),
        tools=fixture.manifest.specs(),
        events=events,
        delivered_inputs=delivered,
        outcome=Outcome(terminal_status="completed", final_answer=final_report, workspace_diff=diff),
        extra_json=json.dumps(_schedule(episode_id, fixture_id, faults, seal_key)) if faults else None,
    )
    _answer_from_the_gym(episode, fixture, faults)
    return episode


def _schedule(
    episode_id: str, fixture_id: str | None, faults: tuple[FaultSpec, ...], key: bytes | None
) -> dict:
    schedule: dict = {"faults": [f.to_dict() for f in faults]}
    if key is not None:
        schedule[FAULTS_SEAL] = seal_faults(key, episode_id, fixture_id or "", faults)
    return schedule


def _answer_from_the_gym(episode: Episode, fixture: Fixture, faults: tuple[FaultSpec, ...]) -> None:
    """Fill each :data:`GYM` answer with the observation a replay of the episode's calls gives."""
    pending = {i for i, e in enumerate(episode.events) if e.kind == "tool" and e.status == GYM[0]}
    if not pending:
        return
    dispatched = dispatched_calls(episode)
    replay = replay_calls(fixture, [(tag, call) for _, tag, call in dispatched], faults=faults)
    for (index, _, _), fresh in zip(dispatched, replay.observations, strict=True):
        if index in pending:
            event = episode.events[index]
            event.content, event.status, event.exit_code = fresh.content, fresh.status, fresh.exit_code


GYM = ("gym", None, None)
"""An answer the factory fills with what the gym's runtime returns for the call."""
OK = ("ok", "", 0)
"""A bare success, written out: for tests of a stage that does not replay (or of forged logs)."""


def pristine_turns() -> list:
    """read -> edit -> run_tests: the expert's plan, every call answered ok."""
    return [
        ([call("read_file", file_path="calc/ops.py")], [GYM]),
        ([call("edit_file", file_path="calc/ops.py", old="a - b", new="a + b")], [GYM]),
        ([call("run_tests")], [GYM]),
    ]


def writing_turns(files: dict[str, str]) -> list:
    """The expert's read, a whole-text write of each of ``files`` and a test run, answered by the
    gym: calls that produce exactly the diff from S0 to S0 plus ``files``."""
    read, _, tests = pristine_turns()
    writes = [
        ([call("write_file", file_path=path, content=text)], [GYM]) for path, text in sorted(files.items())
    ]
    return [read, *writes, tests]


def answered_ok(turns: list) -> list:
    """``turns`` with every answer a bare success, whatever the gym would say: a log of calls a
    runtime dispatched though they violate the schema delivered (what stage 1 must catch)."""
    return [(calls, [OK] * len(answers)) for calls, answers in turns]


def fixed_files() -> dict[str, str]:
    return {**CALC_S0, "calc/ops.py": FIXED_OPS}
