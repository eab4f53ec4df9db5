"""Fault injection at the tool boundary on a configured schedule (curation §Fault-injection synthesis).

The classes of curation table 5 plus schema-version drift:

========================  ==========================================  =================================
class                     injected anomaly                            recovery the expert shows
========================  ==========================================  =================================
``exit_127``              test runner: command not found (exit 127)   inspect the workspace, retry
``exit_126``              test runner: permission denied (exit 126)   inspect the workspace, retry
``exit_1``                test runner crashed (exit 1)                retry
``missing_file``          read: No such file or directory             locate the file (list), re-read
``disk_full``             edit/write: ENOSPC                          inspect free space (list), retry
``conflict_markers``      merge-conflict markers written into a file  rewrite the file resolved, go on
``http_429``              any call: 429 Too Many Requests             honour Retry-After, retry
``http_504``              any call: 504 Gateway Timeout               back off, retry
``dropped_connection``    any call: connection reset                  retry
``malformed_output``      read: garbled JSON payload                  re-issue the call
``truncated_output``      read: output cut off mid-stream             re-request the output
``schema_drift``          manifest moves to version 2.0 mid-episode   read the new schema, re-emit
========================  ==========================================  =================================

A :class:`FaultSpec` fires on the ``at_call``-th call of its target operation. Faults that need a
diagnosis stay active until the policy makes a diagnostic call (``list``); ``persistent`` faults
never clear (an unrecoverable profile). Whether a schedule leaves the goal reachable is decided
above the runtime, in :mod:`trajectory_platform.gym.reachability`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trajectory_platform.gym.sandbox import Workspace, shown_text
from trajectory_platform.gym.seals import seal
from trajectory_platform.gym.tools import Manifest, drifted

if TYPE_CHECKING:
    from trajectory_platform.gym.fixtures import Fixture


@dataclass
class Observation:
    """What a tool (or a fault standing in for it) returns: text, status, optional exit code."""

    content: str
    status: str = "ok"
    exit_code: int | None = None


@dataclass(frozen=True)
class FaultClass:
    target: str
    needs_diagnosis: bool
    message: str
    status: str = "error"
    exit_code: int | None = None


FAULT_CLASSES: dict[str, FaultClass] = {
    "exit_127": FaultClass("run_tests", True, "bash: run-tests: command not found", exit_code=127),
    "exit_126": FaultClass("run_tests", True, "bash: ./scripts/run-tests: Permission denied", exit_code=126),
    "exit_1": FaultClass(
        "run_tests",
        False,
        "error: test collection crashed: OSError: [Errno 5] Input/output "
        "error while reading the runner cache",
        exit_code=1,
    ),
    "missing_file": FaultClass(
        "read",
        True,
        "FileNotFoundError: [Errno 2] No such file or directory: '{path}' (the checkout looks incomplete)",
    ),
    "disk_full": FaultClass("mutate", True, "OSError: [Errno 28] No space left on device: '{path}'"),
    "conflict_markers": FaultClass("read", False, ""),
    "http_429": FaultClass(
        "any", False, "HTTP 429 Too Many Requests: tool service rate limit exceeded. Retry-After: 2"
    ),
    "http_504": FaultClass("any", False, "HTTP 504 Gateway Timeout: the tool service did not answer in time"),
    "dropped_connection": FaultClass(
        "any", False, "ConnectionResetError: [Errno 104] Connection reset by peer"
    ),
    "malformed_output": FaultClass(
        "read",
        False,
        '{{"path": "{path}", "content": "\\u0000\\ufffd{head}\n'
        "JSONDecodeError: Unterminated string starting at line 1 column 30",
    ),
    "truncated_output": FaultClass(
        "read", False, "{head}\n[stream closed: output truncated by the transport]", status="truncated"
    ),
    "schema_drift": FaultClass("any", False, ""),
}
FAULT_KINDS = tuple(FAULT_CLASSES)


@dataclass(frozen=True)
class FaultSpec:
    """Inject ``kind`` on the ``at_call``-th call of its target op (1-based); see the module doc."""

    kind: str
    at_call: int = 1
    persistent: bool = False

    def __post_init__(self) -> None:
        if self.kind not in FAULT_CLASSES:
            raise ValueError(f"unknown fault class {self.kind!r}; known: {', '.join(FAULT_KINDS)}")

    def to_dict(self) -> dict:
        return {"kind": self.kind, "at_call": self.at_call, "persistent": self.persistent}


FAULTS_SEAL = "faults_seal"
"""``extra_json`` key of the runtime's seal over the fault schedule it injected (:func:`seal_faults`)."""


def seal_faults(key: bytes, episode_id: str, fixture_id: str, faults: Sequence[FaultSpec]) -> str:
    """The runtime's seal (:func:`gym.seals.seal`) of the schedule it injected into one episode. The
    replay injects the schedule a log records, so a log that declared a fault its run never had (and
    wrote the injector's text for it) turned a clean run into a recovery demonstration (red team,
    2026-12-06)."""
    return seal(key, episode_id, fixture_id, "faults", [f.to_dict() for f in faults])


def _matches(target: str, op: str) -> bool:
    return target == "any" or target == op or (target == "mutate" and op in ("edit", "write"))


class FaultInjector:
    """Stateful per-episode injector; the runtime consults it around every dispatch."""

    def __init__(self, schedule: list[FaultSpec], fixture: Fixture):
        self.schedule = list(schedule)
        self.fixture = fixture
        self.counts: dict[FaultSpec, int] = {}
        self.calls = 0
        self.active: list[FaultSpec] = []
        self.fired: set[FaultSpec] = set()
        self.injected: list[dict] = []

    def manifest_for_turn(self, current: Manifest, step: int) -> Manifest:
        """Apply a scheduled schema drift once ``at_call - 1`` calls have been dispatched."""
        for spec in self.schedule:
            if spec.kind == "schema_drift" and spec not in self.fired and self.calls >= spec.at_call - 1:
                self.fired.add(spec)
                self.injected.append(
                    {**spec.to_dict(), "call_index": self.calls, "step": step, "tool": None, "version": "2.0"}
                )
                return drifted(current)
        return current

    def intercept(self, op: str, roles: dict[str, str], workspace: Workspace) -> Observation | None:
        """A fault observation replacing this call's result, or ``None`` to execute it normally."""
        self.calls += 1
        for spec in self.schedule:
            cls = FAULT_CLASSES[spec.kind]
            if spec.kind == "schema_drift" or not _matches(cls.target, op):
                continue
            self.counts[spec] = self.counts.get(spec, 0) + 1
            if spec in self.active:
                return self._observe(spec, cls, roles, workspace, repeat=True)
            if spec not in self.fired and self.counts[spec] == spec.at_call:
                if spec.kind == "conflict_markers" and not self._conflictable(roles, workspace):
                    self.counts[spec] -= 1
                    continue
                self.fired.add(spec)
                if cls.needs_diagnosis or spec.persistent:
                    self.active.append(spec)
                self.injected.append(
                    {**spec.to_dict(), "call_index": self.calls, "tool": op, "path": roles.get("path")}
                )
                return self._observe(spec, cls, roles, workspace, repeat=False)
        return None

    def observe(self, op: str) -> None:
        """After a dispatch: a diagnostic ``list`` clears faults that only needed a diagnosis."""
        if op == "list":
            self.active = [s for s in self.active if s.persistent]

    def _conflictable(self, roles: dict[str, str], workspace: Workspace) -> bool:
        path = roles.get("path", "")
        return path.endswith(".py") and workspace.exists(path)

    def _observe(
        self, spec: FaultSpec, cls: FaultClass, roles: dict[str, str], workspace: Workspace, repeat: bool
    ) -> Observation | None:
        path = roles.get("path", "")
        if spec.kind == "conflict_markers":
            text = workspace.read(path)
            lines = text.splitlines(keepends=True)
            theirs = "".join(lines[: max(1, len(lines) // 2)]).replace("return", "return None  #", 1)
            workspace.write(path, f"<<<<<<< HEAD\n{text}=======\n{theirs}>>>>>>> feature/refactor\n")
            return None
        head = ""
        if spec.kind in ("malformed_output", "truncated_output"):
            try:
                head = shown_text(workspace.read(path))[:48]
            except FileNotFoundError:
                head = ""
        return Observation(cls.message.format(path=path, head=head), cls.status, cls.exit_code)


def _calls_until_fix(fixture: Fixture, before_fix: bool) -> list:
    """The plan's tool steps, cut after the first mutation when ``before_fix`` (so a policy that
    gives up at the fault has not already solved the task)."""
    steps = [s for s in fixture.plan if s.op != "answer"]
    if before_fix:
        first = next((i for i, s in enumerate(steps) if s.op in ("edit", "write")), None)
        if first is not None:
            steps = steps[: first + 1]
    return steps


def _targets(kind: str, steps: list) -> int:
    cls = FAULT_CLASSES[kind]
    if kind == "schema_drift":
        return max(0, len(steps) - 1)
    if kind == "conflict_markers":
        return sum(1 for s in steps if s.op == "read" and (s.path or "").endswith(".py"))
    return sum(1 for s in steps if _matches(cls.target, s.op))


def applicable_kinds(fixture: Fixture, before_fix: bool = False) -> list[str]:
    """Fault classes whose target operation occurs on the expert's path (before its first edit
    when ``before_fix``)."""
    steps = _calls_until_fix(fixture, before_fix)
    return [kind for kind in FAULT_CLASSES if _targets(kind, steps) > 0]


def schedule_faults(
    fixture: Fixture, rng: random.Random, kinds: list[str] | None = None, before_fix: bool = True
) -> list[FaultSpec]:
    """One fault for ``fixture`` drawn from ``kinds`` (default: every applicable class).

    With ``before_fix`` the fault fires no later than the expert's first edit, so the goal is
    still ahead when it strikes (what a recovery measurement needs).
    """
    applicable = applicable_kinds(fixture, before_fix)
    choices = [k for k in (kinds or applicable) if k in applicable]
    if not choices:
        return []
    kind = rng.choice(choices)
    n = _targets(kind, _calls_until_fix(fixture, before_fix))
    if kind == "schema_drift":
        return [FaultSpec(kind, at_call=rng.randint(2, n + 1))]
    return [FaultSpec(kind, at_call=rng.randint(1, n))]
