"""Sandbox: a fresh temp copy of S0 per episode, and sealed test runs inside it.

Workspaces are plain temp directories, memory-backed when ``/dev/shm`` is available (a copy of
S0's few small files takes about a millisecond, well under the seed's 500 ms reset target; the
reset time is measured and reported). Tests run inside the bubblewrap sandbox of
:mod:`~trajectory_platform.gym.isolation`, in a clean interpreter (``python -I -S -B``: isolated
mode, no site-packages, no bytecode), one worker per test behind an authenticated verdict channel
(:mod:`~trajectory_platform.gym._runner`), with ``setrlimit`` bounds on CPU time, address space,
file size, open files, processes and core dumps set before any workspace code runs.

The fixture-aware oracle built on these runs is :mod:`trajectory_platform.gym.oracle`.

Nondeterminism is drawn, not suffered: each test run gets ``GYM_SCHEDULE_SEED``, derived from the
files under test and the caller's label for this run (``verify:2``, ``calibrate:0``...). Code that
models scheduler timing (the flaky family) reads its interleaving from it, so a flaky oracle
still disagrees with itself across runs, yet the same episode verified again, anywhere, gets the
same outcomes, and the pipeline's outputs stay byte-identical.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import hashlib
import importlib.util
import json
import marshal
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path, PurePosixPath

from trajectory_platform.gym.diffs import PatchError, apply_patches, file_lines, parse_unified_diff

RUNNER_SOURCE = (Path(__file__).parent / "_runner.py").read_text(encoding="utf-8")


@functools.cache
def runner_bytecode() -> bytes:
    """The runner compiled once per process, as a ``.pyc`` the sandboxed interpreter runs directly
    (compiling its source would cost every test run about 6 ms)."""
    header = importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little") + (0).to_bytes(8, "little")
    return header + marshal.dumps(compile(RUNNER_SOURCE, "_runner.py", "exec"))


TEMP_PREFIX = "tp-gym-"
STARTUP_ALLOWANCE_S = 5.0
"""Host-side slack over the tests' own time limit for starting the sandbox and the judge."""


def owned_prefix(kind: str = "") -> str:
    """Temp-dir prefix naming this process (``tp-gym-<pid>-``), so the janitor can tell a crashed
    run's leftovers from a live run's."""
    return f"{TEMP_PREFIX}{os.getpid()}-{kind}"


def temp_root() -> str | None:
    """Where sandboxes live: ``$TP_GYM_TMPDIR``, else memory-backed ``/dev/shm`` when writable
    (the seed's tmpfs upper layer: creating and removing a tree there is ~15x cheaper than on
    disk), else the system temp dir."""
    configured = os.environ.get("TP_GYM_TMPDIR")
    if configured:
        return configured
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


MEMORY_LIMIT_BYTES = 1 << 30
FILE_SIZE_LIMIT_BYTES = 16 << 20


class SandboxError(ValueError):
    """A request the sandbox refuses (path escaping the workspace, diff that does not apply)."""


def s0_digest(files: dict[str, str]) -> str:
    """Content address of a file map: sha256 over sorted (path, content) with length prefixes."""

    h = hashlib.sha256()
    for path in sorted(files):
        data = files[path].encode("utf-8")
        p = path.encode("utf-8")
        h.update(b"%d:" % len(p) + p + b"%d:" % len(data) + data)
    return "sha256:" + h.hexdigest()


def workspace_relative(path: str) -> str:
    """The workspace-relative path the gym's tools act on for ``path`` as a call spelled it (``""``
    for the workspace itself): surrounding blanks, ``\\`` read as ``/``, ``.`` components, repeated
    and trailing slashes dropped; case kept. Dedup compares path arguments through this very rule
    (``curation/dedup.py``), so two spellings of one file are one action exactly when the tools
    act on one file. Refuses absolute paths and ``..`` anywhere (never resolved: a ``..`` after a
    symbolic link leads elsewhere than the text says)."""
    cleaned = path.strip().replace("\\", "/")
    if cleaned.startswith("/") or any(part == ".." for part in cleaned.split("/")):
        raise SandboxError(f"path {path!r} is outside the workspace")
    normal = PurePosixPath(cleaned).as_posix()
    return "" if normal == "." else normal


FILE_ENCODING = "utf-8"
FILE_ERRORS = "surrogateescape"
"""How a workspace file's bytes are the platform's text, and back (PEP 383): UTF-8, with each
byte that is not part of valid UTF-8 carried as the lone surrogate U+DC80 + byte. A file map
then holds exactly the bytes the actions produced, so the oracle judges what a real checkout
holds (a raw 0xE9 in a string literal is a module that does not import), never a repaired text
(``errors="replace"`` turned that byte into U+FFFD, which imports: red team, 2026-12-06)."""
_NOT_TEXT = re.compile("[\udc80-\udcff]")


def file_text(data: bytes) -> str:
    """The platform's text of a workspace file's bytes: the one reading of a file every reader of
    a workspace (the gym's snapshot, the shell replay's final state, a search's listing) shares.
    Valid UTF-8 reads as it always did, byte for byte (a BOM, NULs and CR/LF endings are kept);
    anything else is carried, never repaired: :func:`file_bytes` gives the same bytes back."""
    return data.decode(FILE_ENCODING, FILE_ERRORS)


def file_bytes(text: str) -> bytes:
    """The bytes a file of the platform's text :func:`file_text` holds (its inverse). A lone
    surrogate that stands for no byte (outside U+DC80..U+DCFF: text no reader made, a library
    caller's record) is written as its UTF-8-style bytes, which no decoder accepts: a file that is
    not text, judged as such, where raising aborted a whole verification batch for one record
    (red team, 2026-12-06)."""
    try:
        return text.encode(FILE_ENCODING, FILE_ERRORS)
    except UnicodeEncodeError:
        return text.encode(FILE_ENCODING, "surrogatepass")


def not_text(text: str) -> bool:
    """Whether a file's text (:func:`file_text`) carries bytes that are not UTF-8: a state the
    platform cannot show as text (a recorded diff, a Parquet string) nor parse as source."""
    return _NOT_TEXT.search(text) is not None


def shown_text(text: str) -> str:
    """A file's text as a tool shows it to an agent (a terminal, an editor, Node's and Python's
    decoders): each invalid byte sequence as U+FFFD. For display only; the state keeps the bytes."""
    return file_bytes(text).decode(FILE_ENCODING, "replace") if not_text(text) else text


class Workspace:
    """A temp-dir copy of a file map. Use as a context manager: the directory is always removed.
    Files are written and read as :func:`file_bytes` / :func:`file_text` say, so a file map that
    went through a workspace comes back byte for byte."""

    def __init__(self, files: dict[str, str]):
        start = time.perf_counter()
        self.root = Path(tempfile.mkdtemp(prefix=owned_prefix(), dir=temp_root()))
        for rel, content in files.items():
            target = self.root / workspace_relative(rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(file_bytes(content))
        self.reset_s = time.perf_counter() - start

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def resolve(self, rel: str) -> Path:
        """Absolute path of ``rel`` inside the workspace (symlinks cannot escape either)."""
        target = (self.root / workspace_relative(rel)).resolve()
        if target != self.root.resolve() and self.root.resolve() not in target.parents:
            raise SandboxError(f"path {rel!r} is outside the workspace")
        return target

    def exists(self, rel: str) -> bool:
        return self.resolve(rel).is_file()

    def read(self, rel: str) -> str:
        target = self.resolve(rel)
        if not target.is_file():
            raise FileNotFoundError(f"No such file or directory: {rel}")
        return file_text(target.read_bytes())

    def write(self, rel: str, content: str) -> None:
        target = self.resolve(rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(file_bytes(content))

    def listing(self, rel: str = "") -> list[str]:
        base = self.resolve(rel)
        if not base.is_dir():
            raise FileNotFoundError(f"No such directory: {rel or '.'}")
        root = self.root.resolve()
        return sorted(p.relative_to(root).as_posix() for p in base.rglob("*") if p.is_file())

    def snapshot(self) -> dict[str, str]:
        """The current file map (what the oracle and the workspace diff are computed from)."""
        return {rel: self.read(rel) for rel in self.listing("")}


def derive_schedule_seed(files: dict[str, str], run_label: str) -> str:
    """The seed of one test run: the files under test and the caller's name for the run."""
    digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode("utf-8"))
    digest.update(b"\0" + run_label.encode("utf-8"))
    return digest.hexdigest()


# ---------------------------------------------------------------------------------- diffs


def unified_diff(before: dict[str, str], after: dict[str, str]) -> str:
    """A git-style unified diff from ``before`` to ``after`` (created / deleted files included).

    A diff is text a record stores: bytes that are not UTF-8 show as U+FFFD (:func:`shown_text`,
    as git's output read as UTF-8 shows them). It is what a log records, never what is judged:
    the oracle judges the file map itself, and curation finds such a file by replaying the actions
    (``final_state_not_text``)."""
    chunks: list[str] = []
    for path in sorted(set(before) | set(after)):
        old, new = (shown_text(t) if t is not None else None for t in (before.get(path), after.get(path)))
        if old == new:
            continue
        lines = difflib.unified_diff(
            file_lines(old or ""),
            file_lines(new or ""),
            fromfile=f"a/{path}" if old is not None else "/dev/null",
            tofile=f"b/{path}" if new is not None else "/dev/null",
            n=3,
        )
        chunks.append(f"diff --git a/{path} b/{path}\n")
        for line in lines:
            chunks.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(chunks)


def apply_diff(files: dict[str, str], diff: str) -> dict[str, str]:
    """Apply a unified diff to a file map; context must match (``gym.diffs``: the one reading of a
    diff, which the verifier cascade shares, so both see the same file names).

    Raises :class:`SandboxError` naming the file and hunk when the diff is malformed or does not apply.
    """
    try:
        return apply_patches(files, parse_unified_diff(diff))
    except PatchError as exc:
        raise SandboxError(str(exc)) from exc


# ---------------------------------------------------------------------------------- test runs


def _reap(proc: subprocess.Popen) -> None:
    """Kill the sandbox's whole process group (bwrap takes its PID namespace along) and collect it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        proc.wait(timeout=5)
