"""Builders for verification tests: one small real gym fixture and episodes acting on it.

The fixture is a real :class:`trajectory_platform.gym.fixtures.Fixture` (S0 with a bug, sealed
FAIL_TO_PASS / PASS_TO_PASS tests, a reference solution), so the dynamic stage runs the real sealed
oracle in the real sandbox. Episodes are built the way the gym runtime logs them: tools delivered
with a version, delivered-input manifests naming it, tool observations answering call ids.
"""

from __future__ import annotations

import json

from trajectory_platform.gym.fixtures import Fixture, Step
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.traces.record import (
    DeliveredInput,
    Episode,
    Event,
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
) -> Episode:
    """An episode: each turn is (calls, answers) where an answer is (status, content, exit_code);
    ``status == "refused"`` becomes a runtime refusal event. The workspace diff is S0 -> final_files."""
    fixture = fixture or make_fixture()
    events = [Event("system", content="you fix bugs"), Event("user", content=fixture.prompt)]
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
    return Episode(
        episode_id=episode_id,
        source_format="native",
        source_file="test.jsonl",
        source_line=1,
        source_path=None,
        partition_date=None,
        task=TaskIdentity(fixture_id=fixture_id, repo_family="calc", tool_family="path", domain="bug_repair"),
        tools=fixture.manifest.specs(),
        events=events,
        delivered_inputs=delivered,
        outcome=Outcome(terminal_status="completed", final_answer=final_report, workspace_diff=diff),
    )


OK = ("ok", "", 0)


def pristine_turns() -> list:
    """read -> edit -> run_tests: the expert's plan, every call answered ok."""
    return [
        ([call("read_file", file_path="calc/ops.py")], [("ok", CALC_S0["calc/ops.py"], 0)]),
        ([call("edit_file", file_path="calc/ops.py", old="a - b", new="a + b")], [OK]),
        ([call("run_tests")], [("ok", "2 passed", 0)]),
    ]


def fixed_files() -> dict[str, str]:
    return {**CALC_S0, "calc/ops.py": FIXED_OPS}
