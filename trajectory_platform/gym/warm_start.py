"""What the sandbox's judge prepares once per run, so that every per-test worker forked from it
starts warm: the standard-library modules the tests will import, loaded, and the workspace
modules they will import, compiled.

Each test runs in a fresh fork of the judge (``_runner.py``) and imports what it needs again, in a
clean interpreter that writes no bytecode: ``pathlib`` alone costs a worker about 15 ms, and
compiling a fixture's three small workspace modules about 3.5 ms, against 1 ms for the fork and
the holder thread. The judge never runs workspace code, but it may import the *standard library*
(its ``sys.path`` holds only the installation) and it may *compile* workspace source (compiling
runs nothing). So the host names both here, from the test files outward, and the judge does that
work before its first fork: a fork server warmed with what the tests will ask for.

It changes no verdict, because it changes nothing a test can observe:

- **The same modules.** A standard-library name is imported warm only if a fresh worker would
  resolve it to the same installed file: the worker puts the workspace first on ``sys.path``, so
  when any top-level entry of the workspace has the name of a standard-library module
  (``json.py``, ``re/``, ``_json.cpython-311-x86_64-linux-gnu.so``), none is warmed (a warmed
  ``json`` could otherwise have pulled in the installed ``_json`` the workspace shadows).
- **The same code.** A compiled workspace module is used only when the bytes the import reads
  are the bytes the judge compiled, with the flags the import system uses; a file a test changed
  is compiled again as before (``_runner._precompile``).
- **The same state per test.** Each worker is a copy-on-write fork of the judge, so whatever one
  test does to a module is gone for the next, exactly as with a fresh import; ``random`` reseeds
  itself in every fork (``os.register_at_fork``), as a fresh import would seed it.
- **Nothing that weakens the verdict channel.** ``ctypes`` (whose import opens libraries, which
  the holder's audit hook treats as raw memory access) and the modules with import-time side
  effects (``antigravity``, ``this``, the GUI toolkits) are never warmed.

The scan is textual (``import x`` / ``from x import``, a line at a time), not a parse: a name it
misses is imported by the worker as before, and a name it wrongly finds (in a string, say) costs
the judge an import of an installed module or a compile. Reachable means: a top-level workspace
module or package a scanned file names, every ``.py`` file under such a package, and so on from
those files. ``tests/gym/test_warm_start.py`` runs fixtures warm and cold and compares verdicts.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

NEVER_WARMED = frozenset(
    {"antigravity", "this", "__hello__", "__phello__", "ctypes", "_ctypes", "tkinter", "turtle"}
    | {"turtledemo", "idlelib", "webbrowser", "pydoc"}
)
"""Standard-library modules the judge never imports: ``ctypes`` loads libraries (audited events
the holder thread treats as raw memory access), the rest act on import or open windows."""

MAX_SCANNED_BYTES = 2 << 20
"""Python source read per run, at most; what lies past it stays cold (compiled by each worker)."""

_IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)|import[ \t]+([^\n#;]+))", re.MULTILINE)
_WARMABLE = frozenset(sys.stdlib_module_names) - NEVER_WARMED
_SPEC_UNSAFE = re.compile(r"[,\n\r=]")


@dataclass(frozen=True)
class WarmStart:
    """What the judge prepares before its first worker (spec keys ``warm`` and ``precompile``)."""

    modules: tuple[str, ...] = ()
    """Standard-library modules to import, sorted."""
    sources: tuple[str, ...] = ()
    """Workspace-relative ``.py`` files to compile, in the order they were reached."""


def shadowed(workspace: Path) -> set[str]:
    """Standard-library names a top-level entry of ``workspace`` would shadow in a worker (whose
    ``sys.path`` starts with the workspace): the part of each entry's name before its first dot."""
    return {entry.partition(".")[0] for entry in os.listdir(workspace)} & set(sys.stdlib_module_names)


def imported_names(source: str) -> set[str]:
    """Top-level module names ``source`` imports (``import a.b, c as d`` gives ``a`` and ``c``);
    relative imports (``from . import x``) name nothing."""
    names: set[str] = set()
    for from_name, import_list in _IMPORT_LINE.findall(source):
        if from_name:
            names.add(from_name)
        for item in import_list.split(","):
            words = item.split()
            if words:
                names.add(words[0].partition(".")[0].strip("()\\"))
    return names


_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+\(?([^\n#;)]*)", re.MULTILINE)
_PLAIN_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#;]+)", re.MULTILINE)


def imports_of_tests(workspace: Path, tests_dir: str) -> tuple[str, ...]:
    """Every module the test files under ``tests_dir`` name in an import, dotted, with the modules
    around it (``from unittest import mock`` gives ``unittest`` and ``unittest.mock``), sorted.

    The comparison probe (``_runner._compares_anything``) lets these modules' own installed classes
    compare as they like: a test may compare with ``mock.ANY``, which equals anything. The same
    class met when only workspace code imported its module voids a pass. A module of the workspace
    (a top-level name it holds) is never listed. Textual like :func:`plan`'s scan: a name it misses
    makes the probe stricter, never laxer.
    """
    names: set[str] = set()
    budget = MAX_SCANNED_BYTES
    workspace_modules = _top_level_modules(workspace)  # the workspace's are never vouched for
    for rel in _python_files(workspace, tests_dir):
        text = read_own_file(workspace / rel, budget)
        budget -= len(text) + 1
        dotted = [
            f"{module}.{item}" for module, items in _FROM_IMPORT.findall(text) for item in _words(items)
        ]
        dotted += [item for line in _PLAIN_IMPORT.findall(text) for item in _words(line)]
        for name in dotted:
            parts = name.split(".")
            if all(part.isidentifier() for part in parts) and parts[0] not in workspace_modules:
                names.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return tuple(sorted(names))


def _words(import_list: str) -> list[str]:
    """The names an import list gives, before any ``as``: ``a.b as c, d`` gives ``a.b`` and ``d``."""
    return [item.split()[0] for item in import_list.split(",") if item.split()]


def plan(workspace: Path, tests_dir: str) -> WarmStart:
    """The warm start for tests under ``tests_dir`` of ``workspace``: the standard-library modules
    and workspace sources reachable from the test files (see the module docstring). Symbolic links
    are neither followed nor read: the scan sees only the workspace's own regular files."""
    modules_of = _top_level_modules(workspace)
    budget = MAX_SCANNED_BYTES
    names: set[str] = set()
    sources: list[str] = []
    queue = [*_python_files(workspace, tests_dir), "conftest.py"]
    visited: set[str] = set()
    while queue and budget > 0:
        rel = queue.pop(0)
        text = read_own_file(workspace / rel, budget)
        budget -= len(text) + 1
        if not rel.startswith(tests_dir.rstrip("/") + "/") and text and not _SPEC_UNSAFE.search(rel):
            sources.append(rel)
        for name in sorted(imported_names(text) - names):
            names.add(name)
            if name not in visited and name in modules_of:
                visited.add(name)
                queue.extend(modules_of[name])
    warm = () if shadowed(workspace) else tuple(sorted(names & _WARMABLE))
    return WarmStart(modules=warm, sources=tuple(sources))


def _top_level_modules(workspace: Path) -> dict[str, list[str]]:
    """Each top-level module of the workspace (``name.py``, or a folder ``name/``) with the ``.py``
    files that make it up, workspace-relative and sorted."""
    modules: dict[str, list[str]] = {}
    for entry in sorted(os.listdir(workspace)):
        path = workspace / entry
        if entry.endswith(".py") and not path.is_symlink():
            modules[entry[:-3]] = [entry]
        elif path.is_dir() and not path.is_symlink() and entry.isidentifier():
            modules[entry] = _python_files(workspace, entry)
    return modules


def _python_files(workspace: Path, folder: str) -> list[str]:
    """The ``.py`` files under ``workspace/folder``, workspace-relative, sorted (links not followed)."""
    found: list[str] = []
    for parent, dirs, files in os.walk(workspace / folder):
        dirs.sort()
        base = Path(parent).relative_to(workspace)
        found.extend(str(base / name) for name in sorted(files) if name.endswith(".py"))
    return found


def read_own_file(path: Path, limit: int) -> str:
    """At most ``limit`` bytes of the regular file at ``path`` ("" for a link, a missing file or
    anything else that cannot be read as one)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ""
    try:
        return os.read(fd, limit).decode("utf-8", "replace") if stat.S_ISREG(os.fstat(fd).st_mode) else ""
    except OSError:
        return ""
    finally:
        os.close(fd)
