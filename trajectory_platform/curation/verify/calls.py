"""Reading an episode's tool calls: which schema was delivered at each turn, what answered a call.

Shared by the syntactic stage (validate each call against the schema the model actually saw), the
delta audit (attempted writes), roles (which turns drew errors) and triage (refusal rates per tool).
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jsonschema

from trajectory_platform.curation.verify.sweagent_commands import COMMANDS as SWEAGENT_COMMANDS
from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec

_WRITE_WORDS = (
    "write",
    "edit",
    "create",
    "patch",
    "replace",
    "delete",
    "remove",
    "move",
    "apply",
    "append",
    "insert",
    "save",
)
_SHELL_WRITE = re.compile(
    r"((?<![\d&])>>?\s*(?!/dev/null)[\w./~'\"]|\btee\b|\bsed\s+-i|\brm\b|\bmv\b|\bcp\b|\btouch\b|\bchmod\b|\bchown\b|\bmkdir\b|"
    r"\bpatch\b|\bgit\s+(apply|checkout|reset|commit)|\bpip\s+install\b|\btruncate\b|\bln\b)"
)
SHELL_TOOLS: tuple[str, ...] = ("bash", "execute_bash", "shell", "run", "terminal", "cmd")
SHELL_TOOLS += ("run_shell_command", "exec_command", "developer__shell", "container.exec", "local_shell")
"""Tool names whose call runs a shell command line (under one of :data:`COMMAND_KEYS`): the agent
scaffolds' shells, and the coding CLIs' (the Gemini CLI's ``run_shell_command``, Codex's
``exec_command`` and its argv-list ``shell`` / ``container.exec`` / ``local_shell``, Goose's
``developer__shell``; Claude Code's ``Bash`` by its lowercased name)."""
COMMAND_KEYS = ("command", "cmd", "script")
SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
"""Shells whose ``-c`` / ``-lc`` argument is the line an argv-list call runs."""


def argv_line(argv: list[str]) -> str:
    """The command line an argv list runs (Codex records ``["bash", "-lc", LINE]``, or a program's
    own argv): the shell's script when the argv is a shell's ``-c``, else the words quoted as bash
    would need them."""
    if len(argv) == 3 and posixpath.basename(argv[0]) in SHELLS and argv[1] in ("-c", "-lc"):
        return argv[2]
    return shlex.join(argv)


def after_cd(words: list[str]) -> list[str]:
    """``words`` without the ``cd DIR &&`` steps leading them: the command an agent ran in another
    folder of the repository."""
    while words[1:3] and words[0] == "cd" and words[2:3] == ["&&"]:
        words = words[3:]
    return words


AGENT_COMMANDS = (*SWEAGENT_COMMANDS, "insert", "filemap", "set_cursors", "str_replace_editor")
"""SWE-agent's own commands (its tool bundles, installed in its container): a text action naming
one is not a program a plain shell has, so it is never a shell line. The editor
(:func:`replay.editor_call`), the pre-1.0 commands (:mod:`sweagent_commands`) and 1.0's file tools
(:mod:`sweagent_tools`, ``insert`` and ``filemap`` included) are re-executed as those tools;
cursor mode's ``set_cursors`` (0.x, its edits bound to a selection the log does not record) stays
unsupported."""
_OP_KEYS = ("op", "mode", "action", "command")
"""Where a call that runs no shell line names what it does (``command``: the file editor's
``view`` / ``create`` / ``str_replace``...)."""


@dataclass
class CallRecord:
    """One proposed call with where it sits and how the environment answered it."""

    turn: int
    call: ToolCall
    arguments: dict[str, Any] | None
    parse_error: str | None
    answer: Event | None
    refused: bool
    tools_version: str | None
    specs: list[ToolSpec] = field(default_factory=list)

    @property
    def status(self) -> str | None:
        """ok / error / refused / truncated, or ``None`` when nothing answered."""
        if self.refused:
            return "refused"
        return self.answer.status if self.answer is not None else None

    @property
    def failed(self) -> bool:
        return self.status in ("error", "refused")

    @property
    def signature(self) -> str:
        """Tool name plus canonical arguments: equal signatures are the same action repeated."""
        args = self.arguments if self.arguments is not None else self.call.arguments
        return f"{self.call.name}:{json.dumps(args, sort_keys=True)}"

    @property
    def shell_command(self) -> str | None:
        """The command line the call runs in a shell, or ``None`` when the call is not a shell
        command: the one rule replay (what it re-runs as a shell line), roles (which program
        answered), dedup and the write audit read.

        A JSON-arguments call counts when its tool is a shell tool (:data:`SHELL_TOOLS`, the line
        under one of :data:`COMMAND_KEYS`, or an argv list there: :func:`argv_line`); another
        tool's ``command`` is its sub-command (the editor's ``create``), never a shell line. A call
        whose arguments are not a JSON object is a text action (mini-swe-agent's ``bash`` blocks,
        SWE-agent's action lines, named after their first word) and its arguments are the command
        line as written, unless it names one of SWE-agent's own commands (:data:`AGENT_COMMANDS`).
        """
        name = self.call.name or ""
        raw = self.call.arguments or ""
        if self.arguments is not None and raw.strip().startswith("{"):
            if name.lower() not in SHELL_TOOLS:
                return None
            for key in COMMAND_KEYS:
                value = self.arguments.get(key)
                if isinstance(value, str):
                    return value
                if isinstance(value, list) and value and all(isinstance(word, str) for word in value):
                    return argv_line(value)
            return None
        text_action = raw.split(maxsplit=1)[:1] == [name] and name not in AGENT_COMMANDS
        if name.lower() in SHELL_TOOLS or text_action:
            return raw
        return None

    @property
    def is_write(self) -> bool:
        """Does the call change the workspace (by the shell verbs of its command line, else by what
        it says it does: an ``op`` / ``mode`` / ``action`` / sub-``command`` argument, else its name)?"""
        command = self.shell_command
        if command is not None:
            return _SHELL_WRITE.search(command) is not None
        args = self.arguments or {}
        op = next((v for k in _OP_KEYS if isinstance(v := args.get(k), str) and v), "").lower()
        if op:
            return any(w in op for w in _WRITE_WORDS)
        return any(w in (self.call.name or "").lower() for w in _WRITE_WORDS)

    @property
    def is_read_only(self) -> bool:
        """A diagnostic probe: reads state (or runs tests) without changing it."""
        return not self.is_write

    def string_values(self) -> list[tuple[str, str]]:
        """Every (key, string value) in the arguments, nested keys flattened."""
        out: list[tuple[str, str]] = []

        def walk(value: Any, key: str) -> None:
            if isinstance(value, str):
                out.append((key, value))
            elif isinstance(value, dict):
                for k, v in value.items():
                    walk(v, str(k))
            elif isinstance(value, list):
                for v in value:
                    walk(v, key)

        walk(self.arguments or {}, "")
        return out


def assistant_tools_versions(episode: Episode) -> dict[int, str | None]:
    """Map assistant event index -> tools_version of the delivered input that produced it."""
    return {
        d.response_event_index: d.tools_version
        for d in episode.delivered_inputs
        if d.response_event_index is not None
    }


def specs_for(episode: Episode, name: str | None, version: str | None) -> list[ToolSpec]:
    """The delivered specs a call to ``name`` may be judged against at a turn with ``version``.

    When the turn's version is known only specs of that version count; otherwise every delivered
    version of the tool does (the log does not say which one the model saw).
    """
    same_name = [t for t in episode.tools if t.name == name]
    if version is not None:
        versioned = [t for t in same_name if t.version == version]
        if versioned or any(t.version is not None for t in episode.tools):
            return versioned
    return same_name


def _answers(episode: Episode, turn: int) -> list[Event]:
    """Tool observations and refusals after assistant ``turn`` up to the next assistant event."""
    out = []
    for event in episode.events[turn + 1 :]:
        if event.kind == "assistant":
            break
        if event.kind in ("tool", "refusal"):
            out.append(event)
    return out


def call_records(episode: Episode) -> list[CallRecord]:
    """Every tool call of the episode in order, with its parsed arguments and answer."""
    versions = assistant_tools_versions(episode)
    records: list[CallRecord] = []
    for index, event in enumerate(episode.events):
        if event.kind != "assistant" or not event.tool_calls:
            continue
        answers = _answers(episode, index)
        unmatched = [a for a in answers if a.tool_call_id is None]
        for position, call in enumerate(event.tool_calls):
            answer = next((a for a in answers if call.id and a.tool_call_id == call.id), None)
            if answer is None and position < len(unmatched):
                answer = unmatched[position]
            arguments, error = parse_arguments(call.arguments)
            version = versions.get(index)
            records.append(
                CallRecord(
                    turn=index,
                    call=call,
                    arguments=arguments,
                    parse_error=error,
                    answer=answer,
                    refused=answer is not None and (answer.kind == "refusal" or answer.status == "refused"),
                    tools_version=version,
                    specs=specs_for(episode, call.name, version),
                )
            )
    return records


def parse_arguments(raw: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """Parse a recorded arguments string; returns (object, None) or (None, why it is not one)."""
    if raw is None or raw.strip() == "":
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"arguments are not JSON: {exc.msg} at char {exc.pos}"
    if not isinstance(value, dict):
        return None, f"arguments are a JSON {type(value).__name__}, not an object"
    return value, None


@lru_cache(maxsize=512)
def _validator(parameters_json: str) -> Any:
    schema = json.loads(parameters_json)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def schema_errors(record: CallRecord) -> list[str] | None:
    """Schema violations of the call against its delivered specs.

    Returns ``None`` when no spec with parameters was delivered (nothing to judge against), an
    empty list when at least one delivered spec accepts the arguments, otherwise the violations of
    the closest spec.
    """
    specs = [s for s in record.specs if s.parameters_json]
    if not specs or record.arguments is None:
        return None
    best: list[str] | None = None
    for spec in specs:
        try:
            errors = [e.message for e in _validator(spec.parameters_json).iter_errors(record.arguments)]
        except (json.JSONDecodeError, jsonschema.SchemaError) as exc:
            errors = [f"delivered schema for {spec.name!r} is unusable: {exc}"]
        if not errors:
            return []
        if best is None or len(errors) < len(best):
            best = errors
    return best
