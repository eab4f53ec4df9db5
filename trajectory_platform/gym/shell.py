"""Sandboxed re-execution of recorded actions: shell commands, and an environment's own tools.

A log from a deployed agent says which commands it ran and what each printed. To check that, and
to rebuild the final workspace from the actions rather than trust a recorded diff, the commands
are run again on a fresh copy of S0, in order, each inside the same bubblewrap sandbox as the
sealed test runner (:mod:`~trajectory_platform.gym.isolation`: no network, its own PID namespace,
a read-only system, the unprivileged uid, ``setrlimit`` bounds). The workspace directory (and, for a
:class:`LiveShell` with ``scratch``, one ``/tmp``) is what commands share, so file state carries
over the way it did in the agent's container; processes do not (each command's sandbox takes its
background jobs with it).

Each command is ``/bin/bash -c COMMAND`` with the workspace root as working directory (at
``/workspace``, or also at the path the agent's container held the repository at: ``mount_at``), stdout and
stderr merged in one pipe, the output kept up to :data:`OUTPUT_LIMIT_BYTES` or the limit the caller
gives (replay's: as long as the recorded answer; the rest is read and counted, and a marker says
how much was cut). A command is bounded by ``timeout_s`` and the run as
a whole by ``total_timeout_s``; a command the total left no time for counts as timed out.

:class:`EditorCall` entries among the commands are calls of the Anthropic-style file editor
(``str_replace_editor``, as SWE-agent >= 1.0 and OpenHands record them), performed in the same
order on the same workspace by the sandboxed driver with the reference tool's semantics; their JSON
arguments are handed to it as data, never put into a shell line. The driver keeps every edit to
the workspace (a path outside it is refused: :data:`EDITOR_ROOTS`); the host keeps the per-file
undo history between calls, as the real tool keeps it between turns. :class:`FileToolCall` entries
are calls of a coding CLI's file tools (Claude Code, Codex, Gemini: ``_file_tools.py``, shipped
beside the driver), performed the same way; the host keeps the text the agent last read or wrote in
each file, since Claude Code edits only what the agent read.

:func:`run_tool_calls` does the same for an environment that brings its own Python implementation
of its function-calling tools: one sandbox, the tools module beside (never inside) the workspace,
``function(name, arguments, root) -> str`` called once per recorded call.

:class:`LiveShell` runs the same actions one at a time on a workspace the caller holds (an
evaluation episode's), so a model can act through a brought environment's tools as its logs did.

Nothing runs unconfined unless the user opted out (:func:`isolation.unsafe_opt_out`), exactly as
for the test runner.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import select
import shlex
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from trajectory_platform.gym import isolation
from trajectory_platform.gym._fingerprint import Fingerprint, fingerprints
from trajectory_platform.gym.sandbox import (
    FILE_SIZE_LIMIT_BYTES,
    MEMORY_LIMIT_BYTES,
    SandboxError,
    Workspace,
    _reap,
    file_bytes,
    file_text,
    owned_prefix,
    temp_root,
    workspace_relative,
)

DRIVER_SOURCE = (Path(__file__).parent / "_replay_driver.py").read_text(encoding="utf-8")
FILE_TOOLS_SOURCE = (Path(__file__).parent / "_file_tools.py").read_text(encoding="utf-8")
"""The coding CLIs' file tools the driver performs, shipped beside it."""
FINGERPRINT_SOURCE = (Path(__file__).parent / "_fingerprint.py").read_text(encoding="utf-8")
"""How an entry is told changed (:func:`fingerprints`), shipped beside the driver for tools mode."""
OUTPUT_LIMIT_BYTES = 64 * 1024
"""Output kept per command (or per tool call); the rest is counted and replaced by a marker."""
SCRATCH_LIMIT_BYTES = 256 << 20
SCRATCH_LIMIT_ENTRIES = 50_000
"""What a session's carried ``/tmp`` (:class:`LiveShell`'s ``scratch``) may hold after any action:
bytes on disk (allocated blocks, so a sparse file counts what it takes) and entries. Beyond either
the session is refused (:class:`ReplayRunError`): the folder lies on the host's disk, where a fresh
``/tmp`` per sandbox was memory that died with it. Within one action the bounds are a workspace's:
each file's size limit, the process budget and the time limit."""
TOTAL_TIMEOUT_S = 300.0
"""Default wall-clock budget of one whole replay."""
STARTUP_ALLOWANCE_S = 1.0
"""Host-side slack over a command's limit for starting its sandbox."""
KILLED = -signal.SIGKILL
COMMAND_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    "LANG": "C.UTF-8",
    "TMPDIR": "/tmp",
    "TERM": "dumb",
    "PYTHONDONTWRITEBYTECODE": "1",
}
"""The whole environment a replayed command sees: nothing of the platform's own (no secrets)."""
EDITOR_ROOTS = ("/testbed", "/workspace", "/repo")
"""Where agent containers mount the repository (SWE-agent: ``/testbed``, OpenHands: ``/workspace``):
an editor path under one of these, or under the sandbox's own workspace path, names the same file
under the replay's workspace root; any other absolute path is refused."""
EDITOR_ERROR_EXIT = 1
"""The exit code an editor call that failed as the real tool fails (no match, file exists...) gets."""
GIT_DIR = ".git"
"""The repository folder a checkout holds at its root: never part of a file map (git never shows
it in a diff), so :func:`collect_files` leaves it out of a checkout's final state."""
CHECKOUT_BRANCH = "main"
CHECKOUT_AUTHOR = ("Developer", "developer@example.com")
CHECKOUT_DATE = "2000-01-01T00:00:00+0000"
CHECKOUT_MESSAGE = "Initial commit"
CHECKOUT_SCRIPT = (
    f"export GIT_AUTHOR_DATE='{CHECKOUT_DATE}' GIT_COMMITTER_DATE='{CHECKOUT_DATE}'"
    f" GIT_CONFIG_NOSYSTEM=1 && git init -q -b {CHECKOUT_BRANCH} ."
    f" && printf '[user]\\n\\tname = %s\\n\\temail = %s\\n'"
    f" '{CHECKOUT_AUTHOR[0]}' '{CHECKOUT_AUTHOR[1]}' >> .git/config"
    f" && git add -A -f && git commit -q --no-verify --allow-empty -m '{CHECKOUT_MESSAGE}'"
)
"""How a workspace becomes the git checkout agents work in (:meth:`LiveShell.make_checkout`): S0
committed on ``main``, by a fixed author at a fixed date, so the commit's hash is the same on every
replay of the same S0, and with that identity in the repository's config, so an agent's own
``git stash`` or ``git commit`` runs as it did. ``-f``: a file S0 holds is tracked even where its
``.gitignore`` matches it, as a checkout tracks what was committed. Run in the sandbox, as the
sandbox user, like any replayed command: git reads the workspace's files, which are not the
platform's. The identity is appended to ``.git/config`` as ``git config`` writes it, not set by two
``git config`` processes: half the checkout's time (about 18 ms of 35; the differential check makes
two per episode and copies them into its second judge's workspaces: :class:`Checkouts`)."""
CHECKOUT_TIMEOUT_S = 60.0
"""Bound on making a checkout (``git add`` hashes every file: about a second for 10,000)."""
IGNORED_SCRIPT = (
    "git -c core.fsmonitor=false -c core.untrackedCache=false"
    " ls-files -z --others --ignored --exclude-standard"
)
"""How the checkout's ignored files are asked of git itself (:meth:`LiveShell.ignored_files`):
untracked files its ignore rules match, every rule it honours included (a ``.gitignore`` in any
folder, written by a tool during the run as ``pytest`` writes ``.pytest_cache/.gitignore``, and
``.git/info/exclude``); a tracked file is never listed, whatever the rules say. The file system
monitor and the untracked cache are off: the answer is read from the files, not from state a
command may have left in ``.git``."""


class ReplayRunError(RuntimeError):
    """The sandbox could not produce results for a replay (the tools module failed to load...)."""


@dataclass(frozen=True)
class EditorCall:
    """One call of the Anthropic-style file editor: its recorded JSON arguments (``command``,
    ``path``, ``file_text``, ``old_str``, ``new_str``, ``insert_line``, ``view_range``) and the
    repository roots the log itself shows besides :data:`EDITOR_ROOTS` (a SWE-agent run's own
    ``/repo__name``), which name the workspace too."""

    arguments: dict[str, Any]
    roots: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """How the call reads in a result: ``str_replace_editor COMMAND PATH``."""
        return f"str_replace_editor {self.arguments.get('command')} {self.arguments.get('path')}"

    @property
    def history_key(self) -> str:
        """The file the real tool keys its undo history by (its path as given, ``Path``-normalized)."""
        path = self.arguments.get("path")
        return str(PurePosixPath(path)) if isinstance(path, str) and path else ""


@dataclass(frozen=True)
class FileToolCall:
    """One call of a coding CLI's file tool, as the sandboxed driver performs it with that tool's
    rules (``_file_tools``): ``operation`` (``write``, ``edit``, ``read``, ``apply_patch``) and its
    ``arguments`` (``path`` as the log wrote it; ``content``; ``edits``, each ``old``, ``new`` and
    ``replace_all`` or ``expected``; ``require_read``; ``patch`` and ``base``, the folder its relative
    paths are under), ``name`` the tool's own, and the repository roots the log shows, which name the
    workspace like :data:`EDITOR_ROOTS`."""

    name: str
    operation: str
    arguments: dict[str, Any]
    roots: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """How the call reads in a result: the tool's name and the file it names."""
        return f"{self.name} {self.arguments.get('path') or self.arguments.get('base', '')}"

    @property
    def path_key(self) -> str:
        """The file the agent's knowledge of its text is kept by (the path as given, normalized)."""
        path = self.arguments.get("path")
        return str(PurePosixPath(path)) if isinstance(path, str) and path else ""


Action = str | EditorCall | FileToolCall
"""What a replayed action is: a shell command line or a call of a file tool."""


@dataclass(frozen=True)
class CommandResult:
    """One command as it ran again: merged output (capped), exit status, whether it was killed.

    For an :class:`EditorCall`: the editor's message, exit 0 or :data:`EDITOR_ERROR_EXIT`, and
    ``refused`` when its path lies outside the workspace (nothing was touched)."""

    command: str
    output: str
    exit_code: int
    timed_out: bool
    refused: bool = False


@dataclass(frozen=True)
class ShellRun:
    """Every command's result, in order, and the workspace's files after the last one."""

    results: list[CommandResult]
    final_files: dict[str, str]


@dataclass(frozen=True)
class ToolResult:
    """One tool call as the environment's implementation answered it."""

    name: str
    output: str
    error: bool
    timed_out: bool


@dataclass(frozen=True)
class ToolRun:
    """Every call's result, in order, and the workspace's files after the last one; with a
    ``watched`` rule (:func:`run_tool_calls`), for each call the first watched path it changed
    (:func:`first_change`; ``None``: none)."""

    results: list[ToolResult]
    final_files: dict[str, str]
    changed: list[str | None] | None = None


def run_commands(
    files: dict[str, str],
    commands: Sequence[str | EditorCall],
    timeout_s: float = 10.0,
    *,
    total_timeout_s: float = TOTAL_TIMEOUT_S,
    mount_at: str | None = None,
) -> ShellRun:
    """Run ``commands`` in order in the sandbox, on one fresh copy of ``files``: a string with
    ``/bin/bash -c``, an :class:`EditorCall` through the driver's file editor; ``mount_at`` as
    :class:`LiveShell` takes it. Raises :class:`ReplayRunError` when the driver gives no answer for
    an editor call."""
    with Workspace(files) as ws, LiveShell(ws.root, exclusive=True, mount_at=mount_at) as shell:
        shell.make_checkout()
        results = shell.run_all(commands, timeout_s, total_timeout_s)
        return ShellRun(results, collect_files(ws.root, skip=GIT_DIR))


def make_checkout(root: Path) -> None:
    """Make the workspace folder ``root`` a git checkout of what it holds
    (:meth:`LiveShell.make_checkout`, in a sandbox of its own)."""
    with LiveShell(root, exclusive=True) as shell:
        shell.make_checkout()


CHECKOUT_COPY_LIMIT_BYTES = 64 << 20
"""The largest ``.git`` folder :class:`Checkouts` keeps a copy of (a larger one is made by git
every time): the copy lives in this process's memory for as long as its owner keeps it."""


@dataclass(frozen=True)
class _GitEntry:
    """One entry of a made ``.git`` folder: its path under it, permission bits, and bytes
    (``None``: a folder)."""

    rel: str
    mode: int
    data: bytes | None


class Checkouts:
    """Git checkouts (:func:`make_checkout`) of file maps, each made by git once and copied into
    every later workspace of the same files.

    Why: the differential check makes the checkout of the same files twice (the reference's and
    the candidate's, once per judge: ``gym/differential.py``), and a checkout costs a sandbox and
    three git processes where a copy costs a few file writes.

    Why a copy is the same checkout: the file map is all that goes into it. The key is a digest
    of the whole map (every path and every byte a :class:`~trajectory_platform.gym.sandbox.Workspace`
    writes; its files are never executable), and :data:`CHECKOUT_SCRIPT` fixes the rest: branch,
    identity, dates and message, so the commit, its tree and blobs, the refs, reflogs and config
    are the bytes git would write again. The index differs in its stat fields only (each file's
    inode and times, which differ on every checkout anyway); git's commands that read the
    worktree refresh them before they answer.

    Why it is safe beside untrusted code: the copy is bytes in this process, never a folder a
    sandbox sees; each workspace gets new files written from it, so nothing a run does to its
    ``.git`` reaches the next. A map holding a ``.git`` entry of its own is never copied: git
    would run on a repository the files brought (its config, its hooks), and only a ``.git``
    of regular files and folders under :data:`CHECKOUT_COPY_LIMIT_BYTES` is kept (git makes no
    other), read without following a link. Git still runs in the sandbox for the first
    checkout, for the reason :data:`CHECKOUT_SCRIPT` gives."""

    def __init__(self) -> None:
        self._made: dict[str, tuple[_GitEntry, ...] | None] = {}

    def make(self, root: Path, files: dict[str, str]) -> None:
        """Make ``root``, a workspace holding ``files`` and nothing else, a checkout of them."""
        own_repository = any(p == GIT_DIR or p.startswith(GIT_DIR + "/") for p in files)
        key = hashlib.sha256(json.dumps(files, sort_keys=True).encode("utf-8")).hexdigest()
        made = None if own_repository else self._made.get(key)
        if made is not None:
            _write_git_dir(root / GIT_DIR, made)
            return
        make_checkout(root)
        if not own_repository:
            with contextlib.suppress(OSError):  # one that cannot be read whole: git makes it again
                self._made[key] = _read_git_dir(root / GIT_DIR)


def _read_git_dir(folder: Path) -> tuple[_GitEntry, ...] | None:
    """``folder`` itself (path ``""``) and every entry under it, folders before what they hold;
    ``None`` where one is neither a regular file nor a folder, or they hold more than
    :data:`CHECKOUT_COPY_LIMIT_BYTES`."""
    mode = folder.lstat().st_mode
    if not stat.S_ISDIR(mode):
        return None
    entries = [_GitEntry("", stat.S_IMODE(mode), None)]
    size = 0
    pending = [""]
    while pending:
        rel = pending.pop()
        with os.scandir(folder / rel) as found:
            children = sorted(found, key=lambda entry: entry.name)
        for child in children:
            path = f"{rel}/{child.name}" if rel else child.name
            info = child.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                entries.append(_GitEntry(path, stat.S_IMODE(info.st_mode), None))
                pending.append(path)
                continue
            if not stat.S_ISREG(info.st_mode):
                return None
            fd = os.open(folder / path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as fh:
                data = fh.read(CHECKOUT_COPY_LIMIT_BYTES + 1)
            size += len(data)
            if size > CHECKOUT_COPY_LIMIT_BYTES:
                return None
            entries.append(_GitEntry(path, stat.S_IMODE(info.st_mode), data))
    return tuple(entries)


def _write_git_dir(folder: Path, entries: tuple[_GitEntry, ...]) -> None:
    """Write ``entries`` (:func:`_read_git_dir`) as new files and folders under ``folder``, with
    their permission bits; folders get theirs after their contents (a read-only one)."""
    folders: list[tuple[Path, int]] = []
    for entry in entries:
        path = folder / entry.rel if entry.rel else folder
        if entry.data is None:
            path.mkdir()
            folders.append((path, entry.mode))
            continue
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(entry.data)
        os.chmod(path, entry.mode)
    for path, mode in reversed(folders):
        os.chmod(path, mode)


def run_tool_calls(
    files: dict[str, str],
    tools_files: dict[str, str],
    entry_point: str,
    calls: list[tuple[str, dict[str, Any]]],
    timeout_s: float = 10.0,
    *,
    total_timeout_s: float = TOTAL_TIMEOUT_S,
    watched: Callable[[str], bool] | None = None,
) -> ToolRun:
    """Call ``entry_point`` (``module:function`` among ``tools_files``) once per ``(name, arguments)``
    in the sandbox, on one fresh copy of ``files``; raises :class:`ReplayRunError` when the module
    cannot be loaded or the run yields no complete set of results. With ``watched``, the driver
    fingerprints (:func:`fingerprints`) after every call the watched paths of ``files`` and every
    path ``files`` lacks (the rule is the host's; the driver needs only the names), and
    :attr:`ToolRun.changed` says what each call left otherwise."""
    with Workspace(files) as ws, _RunnerDir() as private, isolation.sandbox_user() as user:
        view = isolation.sandbox(ws.root, private, user=user)
        watch = None
        if watched is not None:
            s0 = fingerprints(str(ws.root), watched)
            watch = {"watch": sorted(s0), "known": sorted(files)}
        results, prints = _call_tools(
            view, private, tools_files, entry_point, calls, timeout_s, total_timeout_s, watch
        )
        changed = None
        if watched is not None:
            states = [s0, *({p: f for p, f in after.items() if watched(p)} for after in prints)]
            changed = [first_change(before, after) for before, after in zip(states, states[1:], strict=False)]
        return ToolRun(results, collect_files(ws.root), changed)


def first_change(before: dict[str, Fingerprint], after: dict[str, Fingerprint]) -> str | None:
    """The first path (in order) whose entry differs between two fingerprint maps (one side
    lacking it included), or ``None``."""
    return min((p for p in set(before) | set(after) if before.get(p) != after.get(p)), default=None)


def _call_tools(
    view: isolation.Isolation,
    private: Path,
    tools_files: dict[str, str],
    entry_point: str,
    calls: list[tuple[str, dict[str, Any]]],
    timeout_s: float,
    total_timeout_s: float,
    watch: dict[str, list[str]] | None = None,
) -> tuple[list[ToolResult], list[dict[str, Fingerprint]]]:
    """One sandboxed driver run (``view``) calling ``entry_point`` once per call on its workspace;
    with ``watch`` (``watch``: paths to fingerprint, ``known``: those not new) each call's
    fingerprints too."""
    module, _, function = entry_point.partition(":")
    if not module or not function:
        raise ReplayRunError(f"tools entry point {entry_point!r} is not 'module:function'")
    budget = min(total_timeout_s, timeout_s * max(len(calls), 1))
    tools_dir = private / "tools"
    for rel, content in tools_files.items():
        target = tools_dir / workspace_relative(rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    spec = {
        **_limits(view, budget),
        "mode": "tools",
        "tools_dir": f"{view.runner_path}/tools",
        "entry_point": entry_point,
        "calls": [[name, arguments] for name, arguments in calls],
        "call_timeout_s": timeout_s,
        "output_limit": OUTPUT_LIMIT_BYTES,
        **(watch or {}),
    }
    proc = _start(view, private, spec)
    try:
        out, _ = proc.communicate(timeout=budget + STARTUP_ALLOWANCE_S)
    except subprocess.TimeoutExpired as exc:
        raise ReplayRunError(f"the tools replay ran past its {budget:.0f} s budget") from exc
    finally:
        _reap(proc)
    return _tool_results(out, calls)


def _tool_results(
    out: bytes, calls: list[tuple[str, dict[str, Any]]]
) -> tuple[list[ToolResult], list[dict[str, Fingerprint]]]:
    records = [json.loads(line) for line in out.decode("utf-8", "replace").splitlines() if line.strip()]
    if records and "fatal" in records[0]:
        raise ReplayRunError(f"tools module failed to load: {records[0]['fatal']}")
    if len(records) != len(calls):
        raise ReplayRunError(f"the tools driver answered {len(records)} of {len(calls)} calls")
    results = [
        ToolResult(name, str(r["output"]), bool(r["error"]), bool(r["timed_out"]))
        for (name, _), r in zip(calls, records, strict=True)
    ]
    prints = [
        {p: (f[0], f[1], f[2], f[3], f[4], f[5]) for p, f in r.get("prints", {}).items()} for r in records
    ]
    return results, prints


class LiveShell:
    """A workspace that is acted on live, one action at a time, each in its own sandbox: how an
    evaluation episode on a brought environment executes the environment's tools (replay runs a
    recorded list through the same session). ``root`` is the workspace folder the caller owns; the
    driver's private folder and the editor's undo history live as long as the session.

    Run as root, a sandbox gets the workspace handed to the session's sandbox uid, leased for the
    whole session (every entry chowned, a walk that costs ~0.25 s per action on a 1,000-file tree).
    ``exclusive`` says nothing but this session's sandboxes writes the workspace while it is open
    (run from the sandbox user, they can only create its files), so it is handed over once, before
    the first action; otherwise before every action, since the caller may have written files of its
    own in between.

    ``mount_at`` is the absolute path the recorded agent's container held the repository at
    (:func:`isolation.mount_refusal` must allow it): every action then sees the workspace there
    too, as its working directory, so a recorded ``python3 /testbed/x.py`` or ``cd /testbed`` runs
    as it did. :attr:`workspace_path` is where the actions see the workspace.

    ``scratch``: every action sees one ``/tmp`` (and ``$HOME``, which is ``/tmp`` here) for the whole
    session, a host folder removed with it, rather than a fresh one each: the agent's container (or
    machine) kept what a call left there for the calls after it, in every harness replay runs in
    shell mode (SWE-agent's, OpenHands' and mini-swe-agent's container for the episode, a coding
    CLI's machine). Bounded by :data:`SCRATCH_LIMIT_BYTES` and :data:`SCRATCH_LIMIT_ENTRIES`."""

    def __init__(
        self, root: Path, *, exclusive: bool = False, mount_at: str | None = None, scratch: bool = False
    ):
        self.root = root
        self.exclusive = exclusive
        self.mount_at = mount_at
        self.scratch: Path | None = None
        self._carries_tmp = scratch
        self.workspace_path = mount_at or isolation.WORKSPACE_MOUNT
        self._handed_over = False
        self._runner = _RunnerDir()
        self._history: dict[str, list[str]] = {}
        self._seen: dict[str, str] = {}

    def __enter__(self) -> LiveShell:
        with contextlib.ExitStack() as stack:
            self._user = stack.enter_context(isolation.sandbox_user())
            self._private = stack.enter_context(self._runner)
            if self._carries_tmp:
                self.scratch = Path(tempfile.mkdtemp(prefix=owned_prefix("scratch-"), dir=temp_root()))
                stack.callback(shutil.rmtree, self.scratch, ignore_errors=True)
                self.scratch.chmod(0o1777)
            self._held = stack.pop_all()
        return self

    def __exit__(self, *exc: object) -> None:
        self._held.close()

    def run(self, command: Action, timeout_s: float, output_limit: int = OUTPUT_LIMIT_BYTES) -> CommandResult:
        """``command`` with ``/bin/bash -c`` (its output kept up to ``output_limit`` bytes), an
        :class:`EditorCall` through the file editor, or a :class:`FileToolCall` through its coding
        CLI's tool."""
        if isinstance(command, EditorCall):
            result = _run_editor(self._view(), self._private, command, self._history, timeout_s)
        elif isinstance(command, FileToolCall):
            result = _run_file_tool(self._view(), self._private, command, self._seen, timeout_s)
        else:
            result = _run_command(self._view(), self._private, command, timeout_s, output_limit)
        if self.scratch is not None and _over_limits(self.scratch):
            raise ReplayRunError(
                f"the session's /tmp holds more than {SCRATCH_LIMIT_BYTES >> 20} MiB"
                f" or {SCRATCH_LIMIT_ENTRIES} entries"
            )
        return result

    def make_checkout(self, folder: str = "") -> None:
        """Make the workspace (or its ``folder``, where the repository lies) a git checkout of what
        it holds now (:data:`CHECKOUT_SCRIPT`), as the repository the recorded agent worked in was:
        its ``git diff``, ``git status``, ``git checkout FILE`` and ``git stash`` run again as they
        ran there. Raises :class:`ReplayRunError` when git fails (or is not installed)."""
        path = shlex.quote(f"{self.workspace_path}/{folder}")
        start = f"mkdir -p -- {path} && cd -- {path} && " if folder else ""
        result = _run_command(self._view(), self._private, start + CHECKOUT_SCRIPT, CHECKOUT_TIMEOUT_S)
        if result.exit_code != 0:
            said = result.output.strip().splitlines()[-1:] or [f"exit {result.exit_code}"]
            raise ReplayRunError(f"the workspace could not be made a git checkout: {said[0][:200]}")

    def ignored_files(self, folder: str = "") -> frozenset[str] | None:
        """The files of the checkout (:meth:`make_checkout`; in its ``folder``) that git ignores now
        (:data:`IGNORED_SCRIPT`), relative to the checkout's root; ``None`` when git cannot say (the
        actions removed or broke ``.git``). Asked in the sandbox like any replayed command, since
        git reads the workspace's files, and written to a file of an unguessable name in ``.git``
        and read back without following a link, so no output cap cuts a long list."""
        answer = f"{GIT_DIR}/ignored-{secrets.token_hex(8)}"
        path = shlex.quote(f"{self.workspace_path}/{folder}")
        start = f"cd -- {path} && " if folder else ""
        script = f"{start}{IGNORED_SCRIPT} > {answer}"
        result = _run_command(self._view(), self._private, script, CHECKOUT_TIMEOUT_S)
        listing = self.read(f"{folder}/{answer}" if folder else answer) if result.exit_code == 0 else None
        return None if listing is None else frozenset(p for p in listing.split("\0") if p)

    def run_all(
        self,
        commands: Sequence[Action],
        timeout_s: float,
        total_timeout_s: float = TOTAL_TIMEOUT_S,
        after_each: Callable[[int], None] | None = None,
        output_limits: Sequence[int] | None = None,
    ) -> list[CommandResult]:
        """:meth:`run` for each of ``commands`` in order, the whole bounded by ``total_timeout_s`` (a
        command it left no time for counts as timed out); ``after_each(i)`` is called once command
        ``i`` is over, before the next starts (replay measures what each one changed);
        ``output_limits``: each command's (else :data:`OUTPUT_LIMIT_BYTES`)."""
        start = time.monotonic()
        results: list[CommandResult] = []
        for command in commands:
            label = command if isinstance(command, str) else command.label
            left = total_timeout_s - (time.monotonic() - start)
            if left <= 0:
                results.append(CommandResult(label, "", KILLED, timed_out=True))
            else:
                limit = output_limits[len(results)] if output_limits is not None else OUTPUT_LIMIT_BYTES
                results.append(self.run(command, min(timeout_s, left), limit))
            if after_each is not None:
                after_each(len(results) - 1)
        return results

    def read(self, rel: str) -> str | None:
        """The text of the regular file at workspace-relative ``rel`` as :func:`collect_files`
        reads it, or ``None`` where that leaves it out (missing, a link on the way, not a regular
        file, a path outside): one file, where reading the whole workspace back costs a walk."""
        try:
            fd = _open_inside(self.root, rel, os.O_RDONLY | os.O_NONBLOCK)
        except (OSError, SandboxError):
            return None
        return _read_regular(fd)

    def restore(self, rel: str, text: str) -> None:
        """Put ``text`` back into the existing regular file at ``rel`` (as :meth:`read` found it,
        byte for byte), in place: it stays the sandbox user's, so the workspace needs no new hand-over. Raises
        :class:`ReplayRunError` when it is no longer such a file."""
        try:  # non-blocking: a FIFO a sandboxed command left there must not hang the host
            fd = _open_inside(self.root, rel, os.O_WRONLY | os.O_NONBLOCK)
        except (OSError, SandboxError) as exc:
            raise ReplayRunError(f"{rel} cannot be restored ({type(exc).__name__})") from exc
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise ReplayRunError(f"{rel} cannot be restored (not a regular file)")
        with os.fdopen(fd, "wb") as fh:
            fh.truncate()
            fh.write(file_bytes(text))

    def call_tool(
        self,
        tools_files: dict[str, str],
        entry_point: str,
        name: str,
        arguments: dict[str, Any],
        timeout_s: float,
    ) -> ToolResult:
        """One call of an environment's own tool implementation (see :func:`run_tool_calls`)."""
        calls = [(name, arguments)]
        results, _ = _call_tools(
            self._view(), self._private, tools_files, entry_point, calls, timeout_s, timeout_s
        )
        return results[0]

    def _view(self) -> isolation.Isolation:
        """The isolation of the next action, handing the workspace over as :class:`LiveShell` says."""
        view = isolation.sandbox(
            self.root,
            self._private,
            user=self._user,
            hand_over=not (self.exclusive and self._handed_over),
            mount_at=self.mount_at,
            scratch=self.scratch,
        )
        self._handed_over = True
        self.workspace_path = view.workspace_path
        return view


def _over_limits(folder: Path) -> bool:
    """Whether ``folder`` holds more than :data:`SCRATCH_LIMIT_BYTES` or
    :data:`SCRATCH_LIMIT_ENTRIES` (never following a link)."""
    size = entries = 0
    folders = [str(folder)]
    while folders:
        try:
            with os.scandir(folders.pop()) as found:
                for entry in found:
                    entries += 1
                    size += entry.stat(follow_symlinks=False).st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(entry.path)
        except OSError:
            continue
        if size > SCRATCH_LIMIT_BYTES or entries > SCRATCH_LIMIT_ENTRIES:
            return True
    return False


class _RunnerDir:
    """The private directory beside the workspace holding the driver and its spec (removed on exit)."""

    def __enter__(self) -> Path:
        self.path = Path(tempfile.mkdtemp(prefix=owned_prefix("replay-"), dir=temp_root()))
        (self.path / "_replay_driver.py").write_text(DRIVER_SOURCE, encoding="utf-8")
        (self.path / "_file_tools.py").write_text(FILE_TOOLS_SOURCE, encoding="utf-8")
        (self.path / "_fingerprint.py").write_text(FINGERPRINT_SOURCE, encoding="utf-8")
        return self.path

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _limits(view: isolation.Isolation, timeout_s: float) -> dict[str, Any]:
    return {
        "workspace": view.workspace_path,
        "cpu_s": int(timeout_s) + 1,
        "memory_bytes": MEMORY_LIMIT_BYTES,
        "file_bytes": FILE_SIZE_LIMIT_BYTES,
        "max_files": isolation.OPEN_FILES,
        "max_processes": view.max_processes or "",
        "drop_uid": view.drop_uid,
    }


def _start(view: isolation.Isolation, private: Path, spec: dict[str, Any]) -> subprocess.Popen[bytes]:
    """Write the spec and start the driver in the sandbox; stdout and stderr share one pipe."""
    (private / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    for child in private.rglob("*"):
        child.chmod(0o755 if child.is_dir() else 0o644)
    argv = [
        *view.prefix,
        isolation.interpreter(),
        "-I",
        "-S",
        "-B",
        f"{view.runner_path}/_replay_driver.py",
        f"{view.runner_path}/spec.json",
    ]
    return subprocess.Popen(
        argv,
        cwd=str(private),
        env=COMMAND_ENV,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _run_command(
    view: isolation.Isolation,
    private: Path,
    command: str,
    timeout_s: float,
    output_limit: int = OUTPUT_LIMIT_BYTES,
) -> CommandResult:
    proc = _start(view, private, {**_limits(view, timeout_s), "mode": "shell", "command": command})
    try:
        output, timed_out = _read_capped(
            proc, time.monotonic() + timeout_s + STARTUP_ALLOWANCE_S, output_limit
        )
        exit_code = KILLED if timed_out else proc.wait(timeout=STARTUP_ALLOWANCE_S)
    except subprocess.TimeoutExpired:
        exit_code, timed_out = KILLED, True
    finally:
        _reap(proc)
    return CommandResult(command, output, exit_code, timed_out)


def _run_editor(
    view: isolation.Isolation,
    private: Path,
    call: EditorCall,
    history: dict[str, list[str]],
    timeout_s: float,
) -> CommandResult:
    """One editor call in the sandbox; ``history`` (file -> texts an undo restores) is updated."""
    edits = history.get(call.history_key, [])
    spec = {
        **_limits(view, timeout_s),
        "mode": "editor",
        "arguments": call.arguments,
        "editor_roots": [*EDITOR_ROOTS, *call.roots],
        "undo_text": edits[-1] if edits and call.arguments.get("command") == "undo_edit" else None,
        "output_limit": OUTPUT_LIMIT_BYTES,
    }
    record = _driver_answer(view, private, spec, call.label, timeout_s)
    if record is None:
        return CommandResult(call.label, "", KILLED, timed_out=True)
    if record.get("undone"):
        edits.pop()
    elif isinstance(added := record.get("history"), str):
        history.setdefault(call.history_key, []).append(added)
    return _answered(call.label, record)


def _run_file_tool(
    view: isolation.Isolation, private: Path, call: FileToolCall, seen: dict[str, str], timeout_s: float
) -> CommandResult:
    """One coding-CLI file tool call in the sandbox; ``seen`` (file -> the text the agent last read
    or wrote there) is handed to the call and updated from its answer."""
    arguments = {**call.arguments, "seen": seen.get(call.path_key)}
    spec = {
        **_limits(view, timeout_s),
        "mode": "file_tool",
        "operation": call.operation,
        "arguments": arguments,
        "editor_roots": [*EDITOR_ROOTS, *call.roots],
        "output_limit": OUTPUT_LIMIT_BYTES,
    }
    record = _driver_answer(view, private, spec, call.label, timeout_s)
    if record is None:
        return CommandResult(call.label, "", KILLED, timed_out=True)
    if isinstance(text := record.get("seen"), str):
        seen[call.path_key] = text
    return _answered(call.label, record)


def _driver_answer(
    view: isolation.Isolation, private: Path, spec: dict[str, Any], label: str, timeout_s: float
) -> dict[str, Any] | None:
    """Run the driver on ``spec`` and read its one JSON answer line (``None``: it timed out)."""
    proc = _start(view, private, spec)
    try:
        out, _ = proc.communicate(timeout=timeout_s + STARTUP_ALLOWANCE_S)
    except subprocess.TimeoutExpired:
        return None
    finally:
        _reap(proc)
    lines = out.decode("utf-8", "replace").strip().splitlines()
    try:
        record = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        record = None
    if not isinstance(record, dict):
        raise ReplayRunError(f"the replay driver gave no result for {label} (exit {proc.returncode})")
    return record


def _answered(label: str, record: dict[str, Any]) -> CommandResult:
    """An editor or file tool call's result from the driver's answer."""
    return CommandResult(
        label,
        str(record.get("output", "")),
        EDITOR_ERROR_EXIT if record.get("error") else 0,
        timed_out=False,
        refused=bool(record.get("refused")),
    )


def _read_capped(
    proc: subprocess.Popen[bytes], deadline: float, limit: int = OUTPUT_LIMIT_BYTES
) -> tuple[str, bool]:
    """Read the merged output until the command ends or ``deadline``; keep the first ``limit``
    bytes, count the rest. Returns (text, timed out).

    A command found ended is read once more before the loop stops: it may have written its output
    and exited after the last ``select`` came back empty and before ``poll`` looked (a window the
    host widens when it is busy, e.g. another thread holding the GIL), and stopping there lost the
    whole output, which replay then read as drift."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    kept = bytearray()
    dropped = 0
    ended = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return _capped_text(kept, dropped), True
        ready, _, _ = select.select([fd], [], [], 0 if ended else min(left, 0.05))
        if not ready:
            if ended:  # ended and nothing left; a pipe still held open by an unconfined child
                break
            ended = proc.poll() is not None
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        room = limit - len(kept)
        kept += chunk[:room]
        dropped += max(0, len(chunk) - room)
    return _capped_text(kept, dropped), False


def _capped_text(kept: bytearray, dropped: int) -> str:
    text = kept.decode("utf-8", "replace")
    return text + f"\n[output truncated: {dropped} more bytes]" if dropped else text


def collect_files(root: Path, skip: str | None = None) -> dict[str, str]:
    """The regular files under ``root`` as a file map; symbolic links and special files are left
    out and never followed (a command may have pointed one at a host path). ``skip`` names a
    folder (``root``-relative) whose files are left out, unread (a checkout's :data:`GIT_DIR`)."""
    files: dict[str, str] = {}
    for folder, subfolders, names in os.walk(root):
        here = Path(folder).relative_to(root)
        subfolders[:] = [name for name in subfolders if (here / name).as_posix() != skip]
        for name in names:
            path = Path(folder, name)
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue
            text = _read_regular(fd)
            if text is not None:
                files[workspace_relative(path.relative_to(root).as_posix())] = text
    return dict(sorted(files.items()))


def _read_regular(fd: int) -> str | None:
    """The text of the file open at ``fd`` (closed here; :func:`sandbox.file_text`: bytes that are
    not UTF-8 are carried, never repaired), ``None`` unless it is a regular file."""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as fh:
            return file_text(fh.read())
    finally:
        os.close(fd)


def _open_inside(root: Path, rel: str, flags: int) -> int:
    """Open workspace-relative ``rel`` under ``root`` without following a symbolic link anywhere
    on the way (a sandboxed command may have planted one pointing at a host path)."""
    *folders, name = workspace_relative(rel).split("/")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for folder in folders:
            inner = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
        return os.open(name, flags | os.O_NOFOLLOW, dir_fd=fd)
    finally:
        os.close(fd)
