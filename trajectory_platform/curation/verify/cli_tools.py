"""The tools of coding CLIs (Claude Code, the Codex CLI, the Gemini CLI, Goose) as replay re-executes them.

A session of one of these CLIs changes files through the CLI's own tools, not only the shell: Claude
Code's ``Write``, ``Edit`` and ``MultiEdit``, Gemini's ``write_file`` and ``replace``, Codex's
``apply_patch``. Replay performs each of them in the sandbox with the tool's own rules
(:class:`gym.shell.FileToolCall`, ``gym/_file_tools.py``: an edit the real tool refused is refused
again), and compares whether it failed, not its text (the tool's own rendering). Shell tools run as
shell commands: Claude Code's ``Bash``, Codex's ``shell`` / ``exec_command`` (an argument vector, in
the call's ``workdir``) and Gemini's ``run_shell_command`` (in its ``directory``), whose output and
exit code are compared through the CLI's framing of them (:func:`cli_observation`); a Gemini answer
in another shape than the labelled fields leaves its turn unchecked, its effect counted.

Tools that only read or annotate (``Read``'s listing, ``Grep``, ``LS``, Gemini's and Codex's
readers, a to-do list, a web search) change nothing in the workspace: they are not re-run. Those
whose answers show the workspace (a row of :data:`read_tools.READ_TOOLS`) are checked: replay lists
the paths the answer names at that point of the session and compares what it shows, line by line
(:func:`read_tools.claims_contradict`; a line the tool could not have printed is drift, an error
answer must be the tool's own); the others are unchecked. Claude Code's ``Read`` is performed,
though, since Claude Code edits only files the agent read, and its numbered listing is compared
with the file read (:func:`read_listing`), as is the snippet an ``Edit`` / ``Write`` answer shows
of the file it changed (:func:`edit_snippet`), by the same reader and rule. A file
tool's call on a path outside the repository (a plan written to ``/tmp``) changes nothing replay
judges: it is skipped the same way, and a later command that depended on that file drifts. Any
other tool (a sub-agent, a notebook edit, a background shell, an MCP tool) cannot be re-executed
here: the episode is not replayable, never judged from half its actions.

Goose's developer extension is read the same way: ``developer__shell`` runs the command, and each
line its answer shows must be a line of the replayed output (:func:`read_tools.output_claims`);
``developer__text_editor`` writes a file or replaces one occurrence (its ``view`` does nothing).

Which CLI a call belongs to is the episode's source format, never guessed from a tool's name: a
``replace`` tool of another agent may mean anything.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import shlex
from dataclasses import dataclass, replace
from typing import Any

from trajectory_platform.curation.verify.calls import CallRecord, argv_line
from trajectory_platform.curation.verify.read_tools import (
    CLAUDE_ERRORS,
    READ_TOOLS,
    VIEW,
    LineShape,
    ReadClaims,
    ReadConvention,
    listing_script,
    output_claims,
    read_claims,
    relative,
)
from trajectory_platform.gym.shell import EDITOR_ROOTS, FileToolCall
from trajectory_platform.traces.record import Episode, Event

SHELL, FILE, NO_EFFECT, UNSUPPORTED = "shell", "file", "no_effect", "unsupported"


@dataclass(frozen=True)
class CliCall:
    """What replay does with one call of a coding CLI's tool: run a shell command (``action`` the
    line; ``compared``: whether its output can be compared with the log's), perform a file tool
    (``action`` the :class:`FileToolCall`), skip a call that changes nothing in the repository (it
    only reads, or it writes outside it), or give up."""

    kind: str
    action: str | FileToolCall | None = None
    compared: bool = True
    claims: ReadClaims | None = None
    """For a read tool's call (:data:`read_tools.READ_TOOLS`): what its answer says of the workspace,
    checked against the files ``action`` prints in the sandbox at that point of the replay; for a
    shell whose output is shown line by line (Goose's), what the command's own output must hold."""


CLI_FORMATS = frozenset({"claude-code", "codex", "gemini-cli", "goose"})
"""The source formats whose calls are read here."""
NO_EFFECT_TOOLS = {
    "claude-code": frozenset(
        {
            "Glob",
            "Grep",
            "LS",
            "TodoWrite",
            "TodoRead",
            "WebFetch",
            "WebSearch",
            "ExitPlanMode",
            "NotebookRead",
        }
        | {"TaskCreate", "TaskUpdate", "TaskList", "TaskGet", "ListMcpResourcesTool", "ReadMcpResourceTool"}
        | {"AskUserQuestion", "EnterPlanMode", "Skill"}
    ),
    "codex": frozenset(
        {"update_plan", "view_image", "web_search", "read_file", "list_dir", "grep_files"}
        | {"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"}
    ),
    "gemini-cli": frozenset(
        {"read_file", "read_many_files", "list_directory", "glob", "search_file_content"}
        | {"google_web_search", "web_fetch", "save_memory", "write_todos"}
    ),
    "goose": frozenset(
        {"developer__list_windows", "developer__screen_capture", "developer__image_processor"}
    ),
}
"""Each CLI's tools that change nothing in the workspace: they read, search, plan, ask the user, or
load instructions (Claude Code's ``Skill``); Gemini's ``save_memory`` writes the user's own memory
file, outside it."""
_STILL_RUNNING = re.compile(r"^Process running with session ID \d+$", re.MULTILINE)
"""What Codex's ``exec_command`` answers when the command is still running when the call returns."""


def cli_call(record: CallRecord, source_format: str, root: str | None) -> CliCall | None:
    """What replay does with ``record``, a call in a session of ``source_format`` whose repository
    root is ``root`` (:func:`replay.repository_root`); ``None`` for a format not read here."""
    if source_format not in CLI_FORMATS:
        return None
    name = record.call.name or ""
    convention = READ_TOOLS.get((source_format, name))
    if convention is not None and record.answer is not None:
        given = record.arguments if isinstance(record.arguments, dict) else {}
        failed = record.answer.status == "error"
        claims = read_claims(convention, given, record.answer.content or "", root, failed)
        if claims is not None:
            return CliCall(SHELL, listing_script(claims), claims=claims)
    if name in NO_EFFECT_TOOLS[source_format]:
        return CliCall(NO_EFFECT)
    arguments = record.arguments if isinstance(record.arguments, dict) else None
    roots = (root,) if root else ()
    answer = record.answer.content if record.answer is not None else None
    if source_format == "claude-code":
        found = _claude_code(name, arguments, roots)
    elif source_format == "codex":
        found = _codex(name, arguments, record.call.arguments or "", root, answer)
    elif source_format == "goose":
        found = _goose(name, arguments, roots, record.answer)
    else:
        found = _gemini(name, arguments, roots, answer)
    return found or CliCall(UNSUPPORTED)


def _claude_code(name: str, arguments: dict[str, Any] | None, roots: tuple[str, ...]) -> CliCall | None:
    if arguments is None:
        return None
    path = arguments.get("file_path")
    if name == "Bash":
        command = arguments.get("command")
        if not isinstance(command, str) or arguments.get("run_in_background"):
            return None  # a background shell answers later, through BashOutput
        return CliCall(SHELL, command)
    if not isinstance(path, str):
        return None
    if _outside(path, roots):
        return CliCall(NO_EFFECT) if name in ("Read", "Write", "Edit", "MultiEdit") else None
    if name == "Read":
        return _file(name, "read", {"path": path}, roots)
    if name == "Write" and isinstance(content := arguments.get("content"), str):
        return _file(name, "write", {"path": path, "content": content, "require_read": True}, roots)
    edits = [arguments] if name == "Edit" else arguments.get("edits") if name == "MultiEdit" else None
    if not isinstance(edits, list) or not edits:
        return None
    steps = [_edit(e, "old_string", "new_string", replace_all=True) for e in edits]
    if any(step is None for step in steps):
        return None
    return _file(name, "edit", {"path": path, "edits": steps, "require_read": True}, roots)


def _codex(
    name: str, arguments: dict[str, Any] | None, raw: str, root: str | None, answer: str | None
) -> CliCall | None:
    if name == "apply_patch":  # a custom tool: its input is the patch itself, or {"input": patch}
        patch = arguments.get("input") if arguments is not None else raw
        return _patch(patch, None, root)
    if arguments is None:
        return None
    workdir = arguments.get("workdir")
    if name in ("shell", "container.exec", "local_shell"):
        argv = arguments.get("command")
        if not (isinstance(argv, list) and argv and all(isinstance(word, str) for word in argv)):
            return None
        if (patched := patch_invocation(argv)) is not None:  # Codex applies it itself, never a shell
            folder, body = patched
            return _patch(body, _moved(workdir if isinstance(workdir, str) else root, folder), root)
        return _in_folder(argv_line(argv), workdir, root)
    if name == "exec_command" and isinstance(command := arguments.get("cmd"), str):
        if (patched := patch_invocation(["bash", "-lc", command])) is not None:
            folder, body = patched
            return _patch(body, _moved(workdir if isinstance(workdir, str) else root, folder), root)
        if _STILL_RUNNING.search(answer or ""):
            return None  # it went on in the background, fed through write_stdin: not one command's run
        return _in_folder(command, workdir, root)
    return None


PATCH_COMMANDS = ("apply_patch", "applypatch")
"""The names Codex intercepts a patch under (``codex-rs/apply-patch``: ``APPLY_PATCH_COMMANDS``)."""
_PATCH_SCRIPT = re.compile(
    r"\A\s*(?:cd\s+(?P<folder>[^\s;&|<>'\"`$\\]+)\s*&&\s*)?(?:apply_patch|applypatch)\s*"
    r"<<\s*(?P<quote>['\"]?)(?P<delimiter>[A-Za-z_][A-Za-z0-9_]*)(?P=quote)[ \t]*\n"
    r"(?P<body>.*?)\n?^(?P=delimiter)[ \t]*\n?\s*\Z",
    re.DOTALL | re.MULTILINE,
)
"""A shell script that is one patch written as a heredoc (``apply_patch <<'EOF'`` ... ``EOF``),
optionally after ``cd <folder> &&``: what Codex reads as a patch in a ``bash -lc`` script."""


def patch_invocation(argv: list[str]) -> tuple[str | None, str] | None:
    """The folder (``None``: the call's) and patch of a shell call that the Codex CLI intercepts and
    applies itself, never running a shell (``codex-rs/apply-patch``'s ``maybe_parse_apply_patch``):
    ``[apply_patch, PATCH]`` (``applypatch`` too), or ``[bash|sh|zsh, -lc|-c, SCRIPT]`` whose script
    is one ``apply_patch`` heredoc (:data:`_PATCH_SCRIPT`). Replayed as a shell line, the command
    is not found there: the patch was never applied, and each later call saw another workspace than
    the agent's. ``None`` for any other call."""
    if len(argv) == 2 and argv[0] in PATCH_COMMANDS:
        return None, argv[1]
    if (
        len(argv) != 3
        or posixpath.basename(argv[0]) not in ("bash", "sh", "zsh")
        or argv[1] not in ("-lc", "-c")
    ):
        return None
    found = _PATCH_SCRIPT.match(argv[2])
    return (found["folder"], found["body"]) if found else None


def _moved(base: str | None, folder: str | None) -> str | None:
    """The folder a patch's relative paths are under: ``base``, or ``folder`` (a ``cd`` before the
    patch) taken from it."""
    if folder is None or base is None:
        return base
    return posixpath.normpath(posixpath.join(base, folder))


def _gemini(
    name: str, arguments: dict[str, Any] | None, roots: tuple[str, ...], answer: str | None
) -> CliCall | None:
    if arguments is None:
        return None
    if name == "run_shell_command" and isinstance(command := arguments.get("command"), str):
        folder = arguments.get("directory")
        if folder is not None and not (isinstance(folder, str) and relative(folder) is not None):
            return None
        line = f"cd -- {shlex.quote(folder)} || exit; {command}" if folder else command
        return CliCall(SHELL, line, compared=_gemini_output(answer or "") is not None)
    path = arguments.get("file_path")
    if not isinstance(path, str):
        return None
    if _outside(path, roots) and name in ("write_file", "replace"):
        return CliCall(NO_EFFECT)
    if name == "write_file" and isinstance(content := arguments.get("content"), str):
        return _file(name, "write", {"path": path, "content": content}, roots)
    if name == "replace":
        step = _edit(arguments, "old_string", "new_string", replace_all=False)
        expected = arguments.get("expected_replacements", 1)
        if step is None or not (
            isinstance(expected, int) and not isinstance(expected, bool) and expected > 0
        ):
            return None
        return _file(name, "edit", {"path": path, "edits": [{**step, "expected": expected}]}, roots)
    return None


def _outside(path: str, roots: tuple[str, ...]) -> bool:
    """Whether a file tool's path is known to lie outside the repository: the session's root is
    known (``roots``) and the path is under neither it nor a root agent containers hold a repository
    at (:data:`gym.shell.EDITOR_ROOTS`). A file written there (a plan in ``/tmp``) is not part of the
    final state, and a later command that depends on it drifts. Without a known root nothing is
    outside: the driver refuses a path it cannot place, and the episode is not replayed."""
    inside = any(path == root or path.startswith(f"{root.rstrip('/')}/") for root in (*roots, *EDITOR_ROOTS))
    return bool(roots) and not inside


def _goose(
    name: str, arguments: dict[str, Any] | None, roots: tuple[str, ...], answer: Event | None
) -> CliCall | None:
    """Goose's developer extension: ``shell`` runs a command; its answer gives the model the output
    (stderr merged), or a long one's last lines after a note, with no exit code, so each line it
    shows must be a line of the replayed output (:func:`read_tools.output_claims`); a failure's
    answer is Goose's own message, unchecked (its status is checked). ``text_editor`` views
    (nothing to do), writes a whole file, or replaces one occurrence; its ``insert`` and
    ``undo_edit`` are not reproduced."""
    if arguments is None:
        return None
    if name == "developer__shell" and isinstance(command := arguments.get("command"), str):
        if answer is not None and answer.status == "ok":
            return CliCall(SHELL, command, claims=output_claims(answer.content or ""))
        return CliCall(SHELL, command, compared=False)
    path, command = arguments.get("path"), arguments.get("command")
    if name != "developer__text_editor" or not isinstance(path, str):
        return None
    if command == "view" or (command in ("write", "str_replace") and _outside(path, roots)):
        return CliCall(NO_EFFECT)
    if command == "write" and isinstance(text := arguments.get("file_text"), str):
        return _file(name, "write", {"path": path, "content": text}, roots)
    step = _edit(arguments, "old_str", "new_str", replace_all=False) if command == "str_replace" else None
    return _file(name, "edit", {"path": path, "edits": [{**step, "expected": 1}]}, roots) if step else None


def _edit(edit: object, old_key: str, new_key: str, replace_all: bool) -> dict[str, Any] | None:
    """One search-and-replace step of an edit call, or ``None`` when its strings are missing."""
    if not isinstance(edit, dict):
        return None
    old, new = edit.get(old_key), edit.get(new_key)
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    step: dict[str, Any] = {"old": old, "new": new}
    if replace_all:
        step["replace_all"] = edit.get("replace_all") is True
    return step


def _file(name: str, operation: str, arguments: dict[str, Any], roots: tuple[str, ...]) -> CliCall:
    return CliCall(FILE, FileToolCall(name, operation, arguments, roots))


def _patch(patch: object, workdir: object, root: str | None) -> CliCall | None:
    """Codex's ``apply_patch``: relative paths are under the call's folder (the session's root)."""
    base = workdir if isinstance(workdir, str) and workdir else root
    if not isinstance(patch, str) or base is None:
        return None
    roots = (root,) if root else ()
    return CliCall(FILE, FileToolCall("apply_patch", "apply_patch", {"patch": patch, "base": base}, roots))


def _in_folder(command: str, workdir: object, root: str | None) -> CliCall | None:
    """A shell line run in the call's working folder: the root itself or a folder under it."""
    if workdir is None or workdir == root:
        return CliCall(SHELL, command)
    if not isinstance(workdir, str) or root is None or not workdir.startswith(f"{root.rstrip('/')}/"):
        return None
    folder = workdir[len(root.rstrip("/")) + 1 :]
    if relative(folder) is None:
        return None
    return CliCall(SHELL, f"cd -- {shlex.quote(folder)} || exit; {command}")


def command_session_calls(
    records: list[CallRecord], sessions: Any, cli: dict[int, CliCall], root: str | None
) -> dict[int, CliCall]:
    """Codex commands that outlived their call (``exec_command`` answered ``Process running with
    session ID N``), each with the ``write_stdin`` calls that fed it, as ingest linked them
    (``extra_json.command_sessions``: ``traces/adapters/codex.py``), replayed as the one run they
    were: the command at its call, the writes' ``chars`` piped to its stdin, each write then no
    call of its own. Only a session the log saw end (its exit code, now its command's result's) and
    between whose command and last write no other call changes the workspace (the command ran
    alone: replayed at its start it sees what it saw); its output is not compared (the log shows it
    in chunks across the writes), its status is (:func:`replay._claimed_failure_drift`). Others stay
    unsupported. Keyed as ``cli`` is: by the id of the call object."""
    at = {record.call.id: index for index, record in enumerate(records) if record.call.id}
    linked: dict[int, CliCall] = {}
    for session in sessions if isinstance(sessions, list) else []:
        if not isinstance(session, dict) or not isinstance(session.get("exit_code"), int):
            continue
        ids = [session.get("command"), *(session.get("writes") or [])]
        if not all(isinstance(i, str) and i in at for i in ids):
            continue
        command, *writes = (records[at[i]] for i in ids)
        given = [w.arguments.get("chars", "") if isinstance(w.arguments, dict) else None for w in writes]
        line = command.arguments.get("cmd") if isinstance(command.arguments, dict) else None
        between = records[at[ids[0]] + 1 : at[ids[-1]]]
        alone = all(
            r.call.id in ids or (c := cli.get(id(r.call))) is not None and c.kind == NO_EFFECT
            for r in between
        )
        if not isinstance(line, str) or not alone or not all(isinstance(g, str) for g in given):
            continue
        fed = "".join(g for g in given if isinstance(g, str))
        piped = f"printf %s {shlex.quote(fed)} | {{ {line}\n}}" if fed else line
        run = _in_folder(piped, command.arguments.get("workdir") if command.arguments else None, root)
        if run is None:
            continue
        linked[id(command.call)] = replace(run, compared=False)
        linked.update({id(w.call): CliCall(NO_EFFECT) for w in writes})
    return linked


def session_root(episode: Episode) -> str | None:
    """The folder a coding CLI's session ran in, where the log proves it: Claude Code, Codex and Goose
    record it (``cwd``, Goose's ``working_dir``); a Gemini CLI session records its SHA-256
    (``projectHash``, which names the folder the CLI keeps the session in), so the one folder among
    those its calls' absolute paths lie in whose hash that is. ``None`` otherwise."""
    extra = episode.extra()
    if episode.source_format in ("claude-code", "codex", "goose"):
        cwd = extra.get("cwd")
        return (cwd.rstrip("/") or "/") if isinstance(cwd, str) and cwd.startswith("/") else None
    project = extra.get("projectHash")
    if episode.source_format != "gemini-cli" or not isinstance(project, str):
        return None
    folders = {
        folder
        for event in episode.events
        for call in event.tool_calls
        for path in _absolute_paths(call.arguments)
        for folder in _ancestors(path)
    }
    return next((f for f in sorted(folders) if hashlib.sha256(f.encode()).hexdigest() == project), None)


def _absolute_paths(arguments: str | None) -> list[str]:
    """The absolute paths among a call's argument values."""
    try:
        value = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return []
    values = value.values() if isinstance(value, dict) else []
    return [v for v in values if isinstance(v, str) and v.startswith("/") and "\n" not in v]


def _ancestors(path: str) -> list[str]:
    """``path`` and every folder above it, ``/`` excluded."""
    found = []
    while path not in ("", "/"):
        found.append(path)
        path = posixpath.dirname(path.rstrip("/"))
    return found


# ------------------------------------------------------------------------ how they frame outputs

_CLAUDE_CODE_EXIT = re.compile(r"\AExit code (\d+)(?:\n|\Z)")
"""What Claude Code's ``Bash`` puts before a failed command's output (the result marked an error)."""
_CODEX_FRAMES = (
    re.compile(
        r"\AExit code: (-?\d+)\nWall time: [\d.]+ seconds\n(?:Total output lines: \d+\n)?Output:\n(.*)\Z",
        re.DOTALL,
    ),
    re.compile(
        r"\A(?:Chunk ID: [0-9a-f]{1,64}\n)?Wall time: [\d.]+ seconds\nProcess exited with code (-?\d+)\n"
        r"(?:Original token count: \d+\n)?Output:\n(.*)\Z",
        re.DOTALL,
    ),
)
"""How the Codex CLI frames a command's output for the model: its ``shell`` tool's text form and its
``exec_command`` (unified exec) form; each gives the exit code, then the output.

A frame is stripped before the output is compared, so every field of it must be pure framing: a
fixed grammar a sentence cannot fit (a hex chunk id, numbers, ``(none)``), or a field replay
compares (Gemini's ``Command:`` and ``Directory:``, :func:`frame_call`). Free text in a stripped field was an
unchecked channel: an instruction in a ``Chunk ID``, a Gemini ``Directory:``/``Error:``/``Signal:``
line or a Codex JSON key was replay-verified and trained as context (red team rtforge9 F10,
2026-12-06). An answer whose frame does not fit is no frame: its whole text is compared, a drift."""
_GEMINI_HEAD = re.compile(
    r"\ACommand: (?P<command>[^\n]*)\nDirectory: (?P<directory>\(root\)|[\w.@+-]+(?:/[\w.@+-]+)*/?)\nOutput: "
)
_GEMINI_TAIL = re.compile(
    r"\nError: \(none\)\nExit Code: (-?\d+|\(none\))\nSignal: (?:\(none\)|-?\d+|SIG[A-Z0-9]+)\n"
    r"Background PIDs: (?:\(none\)|\d+(?:, ?\d+)*)\nProcess Group PGID: (?:\(none\)|\d+)\Z"
)
"""How the Gemini CLI's ``run_shell_command`` answers the model: eight labelled fields, the output
(``(empty)`` for none) and the exit code among them. The output runs from its label to the last
``Error:`` line (found from the end: linear however the output looks). ``Directory:`` is ``(root)``
or a relative path, ``Error:`` only ``(none)`` (a spawn error's text is not re-derived: such an
answer is compared whole), the signal, PIDs and group numbers or ``(none)``; the command is
:func:`frame_call`'s to compare with the call's."""
CODEX_JSON_KEYS = frozenset({"output", "metadata"})
CODEX_METADATA_KEYS = frozenset({"exit_code", "duration_seconds"})
"""The keys a Codex JSON answer holds: any other is free text no replay re-derives."""


def _gemini_output(text: str) -> tuple[str, int | None] | None:
    """The output and exit code of a Gemini ``run_shell_command`` answer, or ``None``."""
    head = _GEMINI_HEAD.match(text)
    tail = _GEMINI_TAIL.match(text, text.rfind("\nError: ")) if head else None
    if head is None or tail is None or tail.start() < head.end():
        return None
    output, code = text[head.end() : tail.start()], tail.group(1)
    return ("" if output == "(empty)" else output), (None if code == "(none)" else int(code))


READ_LINE_LIMIT = 2000
"""Claude Code's ``Read`` cuts a line longer than this many characters."""
CLAUDE_VIEW = ReadConvention(
    VIEW,
    numbered=re.compile(r" *(\d+)(?:\u2192|\t)(.*)"),
    trailer=True,
    errors=CLAUDE_ERRORS,
    shape=LineShape(cut_at=READ_LINE_LIMIT),
)
"""How Claude Code's ``Read`` shows a file: each line numbered (right-aligned, then an arrow, a tab
in older releases), a line over :data:`READ_LINE_LIMIT` characters cut."""


READ_FILE = "."
"""The path :func:`read_listing`'s claims name: the file replay read (the call names no other
target, so :func:`read_tools.read_claims` reads its lines as lines of the folder read, ``.``)."""


def read_listing(answer: str, failed: bool) -> ReadClaims:
    """What a Claude Code ``Read`` result (``failed``: recorded as an error) claims of the file replay
    read (:data:`READ_FILE`), every line read by :func:`read_tools.read_claims`: replay holds that
    file, so a listing showing other lines than it has (an injected
    instruction, another body, free text among the numbered lines) is a fabricated observation."""
    claims = read_claims(CLAUDE_VIEW, {}, answer, None, failed)
    assert claims is not None  # no target: the file read, never a folder outside the workspace
    return claims


CLAUDE_SNIPPET = replace(
    CLAUDE_VIEW,
    head=re.compile(
        r"The file (?P<path>/[^\n]*) has been updated\. Here's the result of running `cat -n` on a snippet "
        r"of the edited file:\n"
    ),
)
"""How Claude Code's ``Edit`` and ``Write`` show the file they changed: a header naming it, then a
snippet of the result numbered as ``Read`` numbers it."""
SNIPPET_TOOLS = frozenset({"Edit", "MultiEdit", "Write"})


def edit_snippet(arguments: dict[str, Any], answer: str) -> ReadClaims | None:
    """What a Claude Code file tool's successful answer claims of the file it changed: the snippet
    under :data:`CLAUDE_SNIPPET`'s header naming the call's own file, every line read as a line of
    :data:`READ_FILE` after the call (like :func:`read_listing`, since it is context the policy is
    trained on); ``None`` for an answer that shows no snippet ("The file X has been updated.")."""
    assert CLAUDE_SNIPPET.head is not None
    head = CLAUDE_SNIPPET.head.match(answer)
    if head is None or head.group("path") != arguments.get("file_path"):
        return None
    claims = read_claims(CLAUDE_SNIPPET, {}, answer, None)
    assert claims is not None  # no target: the file changed, never a folder outside the workspace
    return claims


def frame_call(text: str) -> tuple[str, str] | None:
    """The command and folder a Gemini ``run_shell_command`` frame says it ran, or ``None`` for
    another answer: replay holds them to the call's own ``command`` and ``directory`` (``(root)``
    without one), since they are stripped with the frame."""
    head = _GEMINI_HEAD.match(text)
    if head is None or _gemini_output(text) is None:
        return None
    return head.group("command"), head.group("directory")


def cli_observation(text: str, failed: bool) -> tuple[str, int | None] | None:
    """A command's output and exit code from a coding CLI's framing of it (``failed``: the log
    marked the result an error, as Claude Code does a failed command's), or ``None`` when ``text``
    is in none of them: a Codex JSON ``{"output", "metadata": {"exit_code"}}`` or text frame, the
    Gemini CLI's labelled fields, Claude Code's ``Exit code N`` line."""
    for frame in _CODEX_FRAMES:
        if found := frame.match(text):
            return found.group(2), int(found.group(1))
    if (wrapped := _codex_json_output(text)) is not None:
        return wrapped
    if (gemini := _gemini_output(text)) is not None:
        return gemini
    if failed and (claude := _CLAUDE_CODE_EXIT.match(text)):
        return text[claude.end() :], int(claude.group(1))
    return None


def _codex_json_output(text: str) -> tuple[str, int] | None:
    """A Codex output of the form ``{"output": ..., "metadata": {"exit_code": N, ...}}``, unwrapped."""
    if not text.startswith('{"output"'):
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    metadata = value.get("metadata") if isinstance(value, dict) else None
    if not isinstance(metadata, dict) or set(value) - CODEX_JSON_KEYS or set(metadata) - CODEX_METADATA_KEYS:
        return None
    code, duration = metadata.get("exit_code"), metadata.get("duration_seconds", 0.0)
    numeric = isinstance(duration, int | float) and not isinstance(duration, bool)
    if (
        not isinstance(code, int)
        or isinstance(code, bool)
        or not numeric
        or not isinstance(value.get("output"), str)
    ):
        return None
    return value["output"], code
