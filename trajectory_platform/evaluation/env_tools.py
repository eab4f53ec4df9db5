"""A brought environment's tools as a live tool surface for the runtime (issue 18: evaluation suites).

A model evaluated on a task environment must act through the tools the environment declares, as
the deployed agent did, not through the gym's tool families. Replay verification already executes
those tools in the sandbox; this module hands the same execution to the runtime
(:class:`~trajectory_platform.gym.runtime.ToolSurface`), one call at a time on the episode's
workspace (:class:`~trajectory_platform.gym.shell.LiveShell`):

- an environment naming a ``tools_entry_point`` has every declared tool called through it;
- a shell environment (``replay.shell``) runs a shell tool's command with ``/bin/bash -c`` and a
  file-editor tool's call through the sandboxed editor, recognized by the names and argument keys
  replay recognizes (:data:`~trajectory_platform.curation.verify.calls.SHELL_TOOLS`, ...), so
  evaluation and verification agree on what a tool does.

An environment whose declared tools cannot all be executed this way (none declared, a tool that
is neither a shell nor an editor tool without an entry point, no live mode at all) has no runnable
surface: :func:`surface_problem` says why, and the harness counts it as skipped instead of scoring
a model on tools that would answer nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trajectory_platform.curation.verify.calls import COMMAND_KEYS, SHELL_TOOLS
from trajectory_platform.curation.verify.replay import EDITOR_TOOLS
from trajectory_platform.gym.faults import Observation
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.shell import EditorCall, LiveShell, ReplayRunError
from trajectory_platform.traces.record import ToolSpec, canonical_json

NO_TOOLS = "no_tools"
NO_LIVE_MODE = "no_live_mode"
UNRUNNABLE_TOOL = "unrunnable_tool"
SKIP_REASONS = (NO_TOOLS, NO_LIVE_MODE, UNRUNNABLE_TOOL)
"""Why an environment is skipped by the evaluation harness (stable keys for the scorecard)."""


def _is_shell_tool(tool: dict[str, Any]) -> bool:
    properties = (tool.get("parameters") or {}).get("properties") or {}
    return tool["name"].lower() in SHELL_TOOLS and any(key in properties for key in COMMAND_KEYS)


def surface_problem(fixture: Fixture) -> tuple[str, str] | None:
    """``(reason, detail)`` when ``fixture`` (a brought environment) has no runnable tool surface."""
    tools, replay = fixture.tools or [], fixture.replay
    if not tools:
        return NO_TOOLS, "the environment declares no tools a model could call"
    if replay is not None and replay.tools_entry_point:
        return None
    if replay is None or not replay.shell:
        return NO_LIVE_MODE, "neither replay.shell nor replay.tools_entry_point: its tools cannot be executed"
    for tool in tools:
        if not _is_shell_tool(tool) and tool["name"].lower() not in EDITOR_TOOLS:
            return UNRUNNABLE_TOOL, (
                f"tool {tool['name']!r} is neither a shell tool ({', '.join(SHELL_TOOLS)} with a "
                f"{'/'.join(COMMAND_KEYS)} argument) nor a file editor, and no tools_entry_point runs it"
            )
    return None


@dataclass(frozen=True)
class _Declared:
    schema: dict[str, Any]

    def parameters(self) -> dict[str, Any]:
        return self.schema


class EnvironmentTools:
    """The declared tools of a brought environment, executed live in the sandbox; a context manager
    holding one :class:`LiveShell` per episode (opened on the first call, closed on exit)."""

    def __init__(self, fixture: Fixture, timeout_s: float):
        problem = surface_problem(fixture)
        if problem is not None:
            raise ValueError(f"{fixture.fixture_id}: {problem[0]}: {problem[1]}")
        self.fixture = fixture
        self.timeout_s = timeout_s
        self._tools = {tool["name"]: tool for tool in fixture.tools or []}
        self._shell: LiveShell | None = None

    def __enter__(self) -> EnvironmentTools:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._shell is not None:
            self._shell.__exit__(*exc)
            self._shell = None

    @property
    def tag(self) -> str:
        return f"{self.fixture.tool_family}@{self.fixture.tool_version}"

    @property
    def digest(self) -> str:
        return self.fixture.tool_manifest_digest

    def specs(self) -> list[ToolSpec]:
        return [
            ToolSpec(
                name=name,
                description=tool.get("description"),
                parameters_json=canonical_json(tool.get("parameters") or {"type": "object"}),
                version=self.tag,
            )
            for name, tool in self._tools.items()
        ]

    def tool(self, name: str) -> _Declared | None:
        tool = self._tools.get(name)
        return None if tool is None else _Declared(tool.get("parameters") or {"type": "object"})

    def call(self, name: str, arguments: dict[str, Any], root: Path) -> Observation:
        """Execute one validated call on the workspace at ``root``; a failure to execute is an
        error observation (the model sees it), never an exception that ends the episode."""
        try:
            return self._execute(self._live(root), name, arguments)
        except ReplayRunError as exc:
            return Observation(f"{name} could not be run: {exc}", "error")

    def _execute(self, shell: LiveShell, name: str, arguments: dict[str, Any]) -> Observation:
        replay = self.fixture.replay
        if replay is not None and replay.tools_entry_point:
            entry = replay.tools_entry_point
            result = shell.call_tool(replay.tools_files, entry, name, arguments, self.timeout_s)
            if result.timed_out:
                return Observation(f"{name} timed out after {self.timeout_s:g}s", "error")
            return Observation(result.output, "error" if result.error else "ok")
        if name.lower() in EDITOR_TOOLS:
            edited = shell.run(EditorCall(arguments), self.timeout_s)
            return Observation(edited.output, "error" if edited.refused else "ok", edited.exit_code)
        command = next((v for k in COMMAND_KEYS if isinstance(v := arguments.get(k), str)), None)
        if command is None:
            return Observation(f"{name}: no command given ({'/'.join(COMMAND_KEYS)})", "error")
        ran = shell.run(command, self.timeout_s)
        if ran.timed_out:
            return Observation(ran.output + f"\n[command timed out after {self.timeout_s:g}s]", "error")
        return Observation(ran.output, "ok", ran.exit_code)

    def _live(self, root: Path) -> LiveShell:
        if self._shell is None or self._shell.root != root:
            self.__exit__(None, None, None)
            self._shell = LiveShell(root).__enter__()
        return self._shell
