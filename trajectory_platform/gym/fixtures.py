"""Task fixtures ``F = <S0, tool manifest, task prompt, reset harness, oracle>`` (curation §Task
fixture design) and their validation.

A :class:`Fixture` is plain data: the S0 file map (content-addressed by :attr:`Fixture.s0_digest`),
the versioned tool manifest of its tool family, the prompt, the sealed test files and the
FAIL_TO_PASS / PASS_TO_PASS ids of its oracle, and a reference solution. The reset harness is
:class:`trajectory_platform.gym.sandbox.Workspace` (a fresh temp copy of S0 per episode).

The expert's plan (:attr:`Fixture.plan`) is stored with the fixture: abstract steps over the
operations of :mod:`trajectory_platform.gym.tools`, from which every scripted policy renders calls in
whatever tool family (and manifest version) was delivered. ``min_tool_calls`` is that plan's length.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trajectory_platform.gym.sandbox import s0_digest, unified_diff
from trajectory_platform.gym.tools import Manifest, manifest, sha256_digest
from trajectory_platform.traces.record import TaskIdentity, canonical_json

DOMAINS = ("bug_repair", "config_fix", "diagnostic_report")


@dataclass(frozen=True)
class Step:
    """One abstract action of the expert's plan (``op`` in :data:`tools.OPS`, or ``answer``)."""

    op: str
    path: str | None = None
    old: str | None = None
    new: str | None = None
    content: str | None = None
    answer: str | None = None
    match: str | None = None

    def roles(self) -> dict[str, str]:
        values = {"path": self.path, "old": self.old, "new": self.new, "content": self.content}
        values["match"] = self.match
        return {k: v for k, v in values.items() if v is not None}


@dataclass(frozen=True)
class ReplaySpec:
    """How a brought environment lets the verifier re-execute a recorded episode (issue 18).

    ``shell``: the recorded shell commands (SWE-agent / mini-swe-agent actions, OpenHands command
    actions, tool calls that run a command) may be re-run on a fresh S0 in the sandbox.
    ``tools_files`` / ``tools_entry_point``: the environment's own Python implementation of its
    function-calling tools (sealed files, never the workspace's), called inside the sandbox as
    ``function(name: str, arguments: dict, root: str) -> str``. ``normalize``: extra regular
    expressions of nondeterministic observation spans, replaced before comparing observations.
    An environment with neither can still be judged from the final state a log records; its per-turn
    observations are then marked unverified.
    """

    shell: bool = False
    tools_files: dict[str, str] = field(default_factory=dict)
    tools_entry_point: str | None = None
    normalize: tuple[str, ...] = ()


@dataclass
class Fixture:
    """One task; see the module docstring. Every field is deterministic in the library seed."""

    fixture_id: str
    repo_family: str
    tool_family: str
    domain: str
    license: str
    prompt: str
    s0_files: dict[str, str]
    sealed_tests: dict[str, str]
    fail_to_pass: list[str]
    pass_to_pass: list[str]
    reference_files: dict[str, str]
    plan: list[Step]
    reference_answer: str | None = None
    tests_dir: str = "tests"
    depends_on: list[str] = field(default_factory=list)
    forked_from: str | None = None
    vendored: list[str] = field(default_factory=list)
    flaky: bool = False
    secrets: list[str] = field(default_factory=list)
    secret_files: list[str] = field(default_factory=list)
    task_kind: str = ""
    learnable: bool = False
    tool_version: str = "1.0"
    source: str = "gym"
    """Where the task comes from: ``gym`` (the generated library) or ``environment`` (one a user
    brought, see :mod:`trajectory_platform.environments`)."""
    tools: list[dict] | None = None
    """A brought environment's own tool manifest (name, description, JSON-Schema parameters,
    version); ``None`` for a gym fixture, whose manifest is its tool family's."""
    replay: ReplaySpec | None = None
    extra_references: list[dict[str, str]] = field(default_factory=list)
    """Further reference solutions (file maps) beyond :attr:`reference_files`; the oracle must
    accept each."""
    environment_digest: str | None = None
    """A brought environment's content digest (format, S0, tests, references); ``None`` in the gym."""
    oracle_timeout_s: float | None = None
    """The oracle's time limit the task declares (a real project's test suite may need more than
    the verifier's default); ``None``: the verifier's own setting."""
    edit_scope: tuple[str, ...] | None = None
    """The paths the task's statement lets an episode edit, when it names them: a configuration
    task ("Fix the data, not the code") may edit its data files only. ``None``: the folders holding
    the files the reference edits (:func:`~trajectory_platform.curation.verify.dynamic.fixture_context`)."""

    @property
    def s0_digest(self) -> str:
        return s0_digest(self.s0_files)

    @property
    def manifest(self) -> Manifest:
        return manifest(self.tool_family, self.tool_version)

    @property
    def tool_manifest(self) -> list[dict]:
        """The versioned JSON-Schema tool list as delivered (name, description, parameters, version)."""
        if self.tools is not None:
            return [dict(tool) for tool in self.tools]
        return [spec.__dict__ for spec in self.manifest.specs()]

    @property
    def tool_manifest_digest(self) -> str:
        if self.tools is not None:
            return sha256_digest(canonical_json(self.tools))
        return self.manifest.digest

    @property
    def task_identity(self) -> TaskIdentity:
        """The trace record's task block for an episode on this fixture."""
        return TaskIdentity(
            fixture_id=self.fixture_id,
            prompt=self.prompt,
            repo_family=self.repo_family,
            tool_family=self.tool_family,
            domain=self.domain,
            license=self.license,
        )

    @property
    def min_tool_calls(self) -> int:
        """The expert's horizon: tool calls in the pristine plan."""
        return sum(1 for s in self.plan if s.op != "answer")

    @property
    def strata(self) -> dict[str, str]:
        """Cell of the task matrix (curation §Task matrix stratification): horizon band, staged
        context size in the seed's bands (every gym fixture is compact: <= 2k tokens) and
        authority (A0 read-only inspection, A1 local sandboxed mutation)."""
        h = self.min_tool_calls
        horizon = "H1" if h <= 1 else "H2-5" if h <= 5 else "H6-9" if h <= 9 else "H10+"
        tokens = sum(len(c) for c in self.s0_files.values()) // 4
        state = "S-compact" if tokens <= 2_000 else "S-intermediate" if tokens <= 16_000 else "S-massive"
        authority = "A0" if not any(s.op in ("edit", "write") for s in self.plan) else "A1"
        return {"horizon": horizon, "state": state, "authority": authority}

    @property
    def reference_diff(self) -> str:
        """The reference solution as a workspace diff against S0."""
        return unified_diff(self.s0_files, self.reference_files)

    @property
    def edited_paths(self) -> list[str]:
        """Files the reference changes: the declared edit scope of the task."""
        return sorted(
            p
            for p in set(self.s0_files) | set(self.reference_files)
            if self.s0_files.get(p) != self.reference_files.get(p)
        )


def is_gym_task(handle: object) -> bool:
    """Whether a matched task is the gym's own (generated, not brought): its logs are the gym
    runtime's, whatever format a record declares. The one rule: the cascade refuses such a log in
    another format, and triage reads its end only under the runtime's seal. Decided from the task,
    because a record's ``source_format`` is its own statement (relabelled, it escaped the seal)."""
    return isinstance(handle, Fixture) and handle.source != "environment"
