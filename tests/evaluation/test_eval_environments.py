"""Held-out task environments in the evaluation suites (issue 18: "every downstream stage treats
both alike ... evaluation suites").

Small environments are written with ``write_environment`` and loaded back as a user's would be.
A scripted policy acts through the environment's *own* declared tool (a shell tool, or a tool the
environment implements in ``tools/``), executed live in the sandbox on the episode's workspace, and
the sealed oracle judges the end state: applying the reference solution is accepted, doing nothing
is not. The pool follows the split plan (the default plan pins ``learn-delta`` to test; a family
outside the library trains), and a held-out environment without runnable tools is skipped with its
reason.
"""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path

import pytest

from trajectory_platform.curation.splits import TEST, TRAIN
from trajectory_platform.environments.format import TaskEnvironment, load_environment, write_environment
from trajectory_platform.evaluation.env_tools import NO_LIVE_MODE, NO_TOOLS, UNRUNNABLE_TOOL
from trajectory_platform.evaluation.harness import HeldOut, build_items, held_out, run_arm
from trajectory_platform.evaluation.report import environment_rows
from trajectory_platform.evaluation.scorecard import build_scorecard
from trajectory_platform.evaluation.settings import SuiteSpec
from trajectory_platform.gym.fixtures import Fixture, ReplaySpec
from trajectory_platform.gym.policy import Policy, PolicyInput, PolicyTurn
from trajectory_platform.gym.runtime import RuntimeConfig
from trajectory_platform.gym.sandbox import unified_diff

BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
FIXED = BUGGY.replace("return a - b", "return a + b")
S0 = {"calc/__init__.py": "", "calc/ops.py": BUGGY}
SEALED = {
    "tests/test_ops.py": (
        "from calc.ops import add, mul\n\n\n"
        "def test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_mul():\n    assert mul(2, 3) == 6\n"
    )
}
BASH = {
    "name": "bash",
    "description": "Run a bash command in the repository root.",
    "parameters": {
        "type": "object",
        "properties": {"command": {"type": "string"}},
        "required": ["command"],
        "additionalProperties": False,
    },
}
WRITE_FILE = {
    "name": "write_file",
    "description": "Replace a file's content.",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
}
TOOLS_MODULE = (
    "import os\n\n\n"
    "def call(name, arguments, root):\n"
    "    path = os.path.join(root, arguments['path'])\n"
    "    with open(path, 'w') as handle:\n"
    "        handle.write(arguments['content'])\n"
    "    return 'wrote ' + arguments['path']\n"
)
HELD_OUT_FAMILY = "learn-delta"
"""The default split plan pins this gym family to test."""
RUNTIME = RuntimeConfig(max_steps=4, test_timeout_s=20.0, wall_timeout_s=60.0)


def _environment(task_id: str, family: str, **changes: object) -> TaskEnvironment:
    env = TaskEnvironment(
        task_id=task_id,
        statement="add() returns the wrong sum; fix it.",
        repo_family=family,
        domain="bug_repair",
        license="MIT",
        tool_family="acme-shell",
        tools=[BASH],
        s0_files=dict(S0),
        sealed_tests=dict(SEALED),
        tests_dir="tests",
        fail_to_pass=["tests/test_ops.py::test_add"],
        pass_to_pass=["tests/test_ops.py::test_mul"],
        oracle_timeout_s=20.0,
        references=[unified_diff(S0, {**S0, "calc/ops.py": FIXED})],
        replay=ReplaySpec(shell=True),
    )
    return dataclasses.replace(env, **changes)


def _brought(tmp_path: Path, env: TaskEnvironment) -> Fixture:
    """Written to disk in the environment format and loaded back, as a user's environment is."""
    return load_environment(write_environment(env, tmp_path / env.task_id.replace("/", "_"))).fixture()


class ApplyReference(Policy):
    """Writes the reference solution's files through the environment's declared tool, then answers."""

    name = "apply-reference"

    def start(self, fixture: Fixture, seed: int) -> None:
        self.fixture = fixture

    def act(self, inp: PolicyInput) -> PolicyTurn:
        if inp.step > 0:
            return PolicyTurn.structured("Fixed add().")
        (path,) = self.fixture.edited_paths
        content = self.fixture.reference_files[path]
        tool = inp.tools[0].name
        if tool == "write_file":
            return PolicyTurn.structured(calls=[(tool, {"path": path, "content": content})])
        command = f"printf %s {shlex.quote(content)} > {shlex.quote(path)}"
        return PolicyTurn.structured(calls=[(tool, {"command": command})])


class DoNothing(Policy):
    name = "do-nothing"

    def act(self, inp: PolicyInput) -> PolicyTurn:
        return PolicyTurn.structured("Nothing to do.")


@pytest.fixture(scope="module")
def plan_pool(tmp_path_factory: pytest.TempPathFactory) -> HeldOut:
    root = tmp_path_factory.mktemp("envs")
    fixtures = [
        _brought(root, _environment("acme/held-out-shell", HELD_OUT_FAMILY)),
        _brought(root, _environment("acme/trained", "acme-calc")),
        _brought(
            root,
            _environment(
                "acme/held-out-tools",
                HELD_OUT_FAMILY,
                tools=[WRITE_FILE],
                replay=ReplaySpec(
                    tools_files={"acme_tools.py": TOOLS_MODULE}, tools_entry_point="acme_tools:call"
                ),
            ),
        ),
        _brought(root, _environment("acme/held-out-lookup", HELD_OUT_FAMILY, tools=[WRITE_FILE])),
        _brought(root, _environment("acme/held-out-final-state", HELD_OUT_FAMILY, replay=ReplaySpec())),
        _brought(root, _environment("acme/held-out-no-tools", HELD_OUT_FAMILY, tools=[])),
    ]
    return held_out(SuiteSpec(), environments=fixtures)


def test_the_pool_holds_out_test_side_environments_and_skips_unrunnable_ones_with_a_reason(plan_pool):
    assert plan_pool.environment_splits["acme/held-out-shell"] == TEST
    assert plan_pool.environment_splits["acme/trained"] == TRAIN
    pooled = {f.fixture_id: regime for f, regime in plan_pool.environments}
    assert pooled == {"acme/held-out-shell": "familiar", "acme/held-out-tools": "familiar"}
    assert all(f.source == "gym" for f, _ in plan_pool.gym)
    skipped = {s.task_id: s.reason for s in plan_pool.skipped}
    assert skipped == {
        "acme/held-out-lookup": UNRUNNABLE_TOOL,
        "acme/held-out-final-state": NO_LIVE_MODE,
        "acme/held-out-no-tools": NO_TOOLS,
    }
    summary = plan_pool.summary()
    assert summary["evaluated"] == 2 and summary["by_split"] == {TEST: 5, TRAIN: 1}
    assert summary["skipped_by_reason"] == {NO_LIVE_MODE: 1, NO_TOOLS: 1, UNRUNNABLE_TOOL: 1}


def test_environment_items_are_paired_acceptance_items_tagged_by_source(plan_pool):
    spec = SuiteSpec(episodes=0, recovery_episodes=0, retention_episodes=0, attempts=2)
    items = build_items([], spec, plan_pool.environments)
    assert sorted((i.fixture_id, i.suite, i.source, i.seed) for i in items) == sorted(
        (f.fixture_id, "acceptance", "environment", spec.seed + a)
        for f, _ in plan_pool.environments
        for a in (0, 1)
    )
    assert len({i.item_id for i in items}) == 4


def test_the_sealed_oracle_accepts_the_reference_applied_through_the_tools_and_not_a_do_nothing(plan_pool):
    items = build_items(
        [], SuiteSpec(episodes=0, recovery_episodes=0, retention_episodes=0), plan_pool.environments
    )
    fixtures = plan_pool.fixtures()
    solved = run_arm("candidate", ApplyReference(), items, RUNTIME, progress=False, environments=fixtures)
    idle = run_arm("baseline", DoNothing(), items, RUNTIME, progress=False, environments=fixtures)
    assert [m.accepted for m in solved.measures] == [True, True]
    assert [m.accepted for m in idle.measures] == [False, False]
    for episode in solved.episodes:  # the call ran through the environment's own tool, live
        (tool_event,) = [e for e in episode.events if e.kind == "tool"]
        assert tool_event.status == "ok" and episode.lineage.tool_manifest_digest.startswith("sha256:")
        assert "return a + b" in episode.outcome.workspace_diff
    card = build_scorecard(
        solved.measures,
        idle.measures,
        training_keys=set(),
        training_keys_source="test",
        sources={i.item_id: i.source for i in items},
    )
    assert card["acceptance"]["by_source"] == {
        "environment": {"trials": 2, "candidate": 1.0, "baseline": 0.0}
    }
    card["environments"] = plan_pool.summary()
    rows = {r.label: r for r in environment_rows(card)}
    assert rows["acceptance, environment tasks (2 trials)"].candidate == "1.000"
    assert rows["task environments"].baseline.startswith("2 evaluated of 6")
    assert "unrunnable_tool: 1" in rows["task environments"].baseline
