"""The task environment format (version 1): a task a user brings, as one directory on disk.

A deployed agent's own logs can only become verified training data if the task they were recorded
on can be judged again: its start state S0, a sealed oracle, and at least one known-good solution.
This module is that task's one on-disk shape and its one loader; :meth:`TaskEnvironment.fixture`
turns it into the gym's :class:`~trajectory_platform.gym.fixtures.Fixture`, the one shape every
stage judges. ``docs/environments.md`` is the user's page on the format.

Layout of one environment directory::

    environment.json   the spec (format_version, task, tools, oracle, runtime, replay)
    workspace/         S0 (or workspace.tar.gz in its place)
    sealed_tests/      the oracle's test files, laid under oracle.tests_dir at judging time
    references/*.diff  reference solutions, unified diffs against S0 (sorted by file name)
    tools/             the environment's own tool implementation for replay (optional)

Loading is strict, because a typo in a spec silently changes what is judged: unknown keys are
refused, every error names the file and the field, paths that leave the directory and binary
workspace files are refused. Nothing here runs the environment's code (test ids are checked by
compiling the sealed modules, never by importing them).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from trajectory_platform.gym.fixtures import Fixture, ReplaySpec
from trajectory_platform.gym.sandbox import SandboxError, apply_diff
from trajectory_platform.traces.record import canonical_json

FORMAT_VERSION = 1
ENVIRONMENT_FILE = "environment.json"
WORKSPACE_DIR = "workspace"
WORKSPACE_ARCHIVE = "workspace.tar.gz"
SEALED_DIR = "sealed_tests"
REFERENCES_DIR = "references"
TOOLS_DIR = "tools"
SKIPPED_DIRS = frozenset({"__pycache__"})
"""Folders left out when reading a tree: interpreter caches, never part of a task."""

TOP_LEVEL_KEYS = frozenset(
    {
        "format_version",
        "task_id",
        "statement",
        "repo_family",
        "domain",
        "license",
        "tool_family",
        "tools",
        "oracle",
        "runtime",
        "replay",
        "depends_on",
        "reference_answer",
    }
)
ORACLE_KEYS = frozenset({"tests_dir", "fail_to_pass", "pass_to_pass", "timeout_s"})
RUNTIME_KEYS = frozenset({"python", "packages"})
REPLAY_KEYS = frozenset({"shell", "tools_entry_point", "normalize"})
DEFAULT_TIMEOUT_S = 10.0
MAX_TIMEOUT_S = 600.0
_TEST_ID = re.compile(r"^(?P<file>[^:]+\.py)::(?P<func>test_[A-Za-z0-9_]*)$")
_MODULE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_ENTRY_POINT = re.compile(r"^(?P<module>[A-Za-z_][A-Za-z0-9_.]*):(?P<func>[A-Za-z_][A-Za-z0-9_]*)$")


class EnvironmentFormatError(ValueError):
    """An environment directory the format refuses: ``path`` is the file, ``reason`` names the field."""

    def __init__(self, path: Path | str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


@dataclass
class TaskEnvironment:
    """One brought task, as loaded; see the module docstring for the layout it comes from.

    ``sealed_tests`` paths are relative to the workspace root (under ``tests_dir``), as the gym's
    fixtures keep them; ``references`` are unified diffs against ``s0_files``, the first being the
    fixture's reference solution.
    """

    task_id: str
    statement: str
    repo_family: str
    domain: str
    license: str
    tool_family: str
    tools: list[dict]
    s0_files: dict[str, str]
    sealed_tests: dict[str, str]
    tests_dir: str
    fail_to_pass: list[str]
    pass_to_pass: list[str]
    oracle_timeout_s: float
    references: list[str]
    reference_answer: str | None = None
    python: str = ""
    packages: list[str] = field(default_factory=list)
    replay: ReplaySpec = field(default_factory=ReplaySpec)
    depends_on: list[str] = field(default_factory=list)

    def spec(self) -> dict[str, Any]:
        """``environment.json``'s content for this environment (every key written, defaults too)."""
        return {
            "format_version": FORMAT_VERSION,
            "task_id": self.task_id,
            "statement": self.statement,
            "repo_family": self.repo_family,
            "domain": self.domain,
            "license": self.license,
            "tool_family": self.tool_family,
            "tools": self.tools,
            "oracle": {
                "tests_dir": self.tests_dir,
                "fail_to_pass": list(self.fail_to_pass),
                "pass_to_pass": list(self.pass_to_pass),
                "timeout_s": self.oracle_timeout_s,
            },
            "runtime": {"python": self.python, "packages": list(self.packages)},
            "replay": {
                "shell": self.replay.shell,
                "tools_entry_point": self.replay.tools_entry_point,
                "normalize": list(self.replay.normalize),
            },
            "depends_on": list(self.depends_on),
            "reference_answer": self.reference_answer,
        }

    @property
    def digest(self) -> str:
        """Content address (``sha256:<hex>``) of the spec and every file, independent of where the
        directory lies: an environment registered under a task id is exactly this content."""
        content = {
            "spec": self.spec(),
            "workspace": self.s0_files,
            "sealed_tests": self.sealed_tests,
            "references": self.references,
            "tools": self.replay.tools_files,
        }
        return "sha256:" + hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()

    def reference_solutions(self) -> list[dict[str, str]]:
        """Each reference diff applied to S0; :class:`EnvironmentFormatError` names one that fails."""
        solutions = []
        for i, diff in enumerate(self.references):
            try:
                solutions.append(apply_diff(self.s0_files, diff))
            except SandboxError as exc:
                raise EnvironmentFormatError(
                    f"{self.task_id}: references[{i}]", f"does not apply to the workspace: {exc}"
                ) from exc
        if not solutions:
            raise EnvironmentFormatError(
                self.task_id, "references: at least one reference solution is needed"
            )
        return solutions

    def fixture(self) -> Fixture:
        """The gym fixture every stage judges: S0, sealed oracle, references, this env's own tools.

        The plan is empty: a brought task has no scripted expert, only reference end states.
        """
        solutions = self.reference_solutions()
        return Fixture(
            fixture_id=self.task_id,
            repo_family=self.repo_family,
            tool_family=self.tool_family,
            domain=self.domain,
            license=self.license,
            prompt=self.statement,
            s0_files=dict(self.s0_files),
            sealed_tests=dict(self.sealed_tests),
            fail_to_pass=list(self.fail_to_pass),
            pass_to_pass=list(self.pass_to_pass),
            reference_files=solutions[0],
            plan=[],
            reference_answer=self.reference_answer,
            tests_dir=self.tests_dir,
            depends_on=list(self.depends_on),
            source="environment",
            tools=[dict(tool) for tool in self.tools],
            replay=self.replay,
            extra_references=solutions[1:],
            environment_digest=self.digest,
            oracle_timeout_s=self.oracle_timeout_s,
        )


# ------------------------------------------------------------------------------------ loading


def load_environment(path: Path) -> TaskEnvironment:
    """Read and check one environment directory; raises :class:`EnvironmentFormatError`."""
    root = Path(path)
    spec_path = root / ENVIRONMENT_FILE
    if not root.is_dir():
        raise EnvironmentFormatError(root, "not an environment directory (no such folder)")
    if spec_path.is_symlink():
        raise EnvironmentFormatError(spec_path, "must be a plain file (not a link)")
    if not spec_path.is_file():
        raise EnvironmentFormatError(
            spec_path, f"missing: every environment directory has {ENVIRONMENT_FILE}"
        )
    try:
        raw = json.loads(spec_path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise EnvironmentFormatError(spec_path, f"unreadable: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise EnvironmentFormatError(spec_path, f"not UTF-8 text: {exc.reason}") from exc
    except json.JSONDecodeError as exc:
        raise EnvironmentFormatError(
            spec_path, f"not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc
    spec = _Spec(spec_path, raw)
    s0_files = _read_workspace(root)
    env = spec.environment(
        s0_files=s0_files,
        sealed=_read_tree(root / SEALED_DIR, required=True),
        references=_read_references(root / REFERENCES_DIR, s0_files),
        tools_files=_read_tree(root / TOOLS_DIR, required=False),
    )
    _check_tests(root, env)
    _check_tools(root, env)
    return env


class _Spec:
    """``environment.json`` read field by field, each error naming the field's dotted path."""

    def __init__(self, path: Path, raw: object):
        self.path = path
        if not isinstance(raw, dict):
            raise self.error("", "must be a JSON object")
        unknown = sorted(set(raw) - TOP_LEVEL_KEYS)
        if unknown:
            raise self.error(unknown[0], f"unknown key (known: {', '.join(sorted(TOP_LEVEL_KEYS))})")
        version = raw.get("format_version")
        if version != FORMAT_VERSION:
            raise self.error(
                "format_version",
                f"unsupported version {version!r}; this platform reads format_version {FORMAT_VERSION}",
            )
        self.raw = raw

    def error(self, key: str, reason: str) -> EnvironmentFormatError:
        return EnvironmentFormatError(self.path, f"{key}: {reason}" if key else reason)

    def text(self, obj: dict, key: str, where: str = "", required: bool = True) -> str:
        name = where + key
        if key not in obj:
            if required:
                raise self.error(name, "missing")
            return ""
        value = obj[key]
        if not isinstance(value, str) or (required and not value.strip()):
            raise self.error(name, "must be a non-empty string")
        return value

    def section(self, key: str, known: frozenset[str], required: bool) -> dict:
        value = self.raw.get(key)
        if value is None:
            if required:
                raise self.error(key, "missing")
            return {}
        if not isinstance(value, dict):
            raise self.error(key, "must be a JSON object")
        unknown = sorted(set(value) - known)
        if unknown:
            raise self.error(f"{key}.{unknown[0]}", f"unknown key (known: {', '.join(sorted(known))})")
        return value

    def strings(self, obj: dict, key: str, where: str, what: str, non_empty: bool) -> list[str]:
        value = obj.get(key, [])
        ok = isinstance(value, list) and all(isinstance(v, str) and v for v in value)
        if not ok or (non_empty and not value):
            raise self.error(where + key, f"must be a {'non-empty ' if non_empty else ''}list of {what}")
        if len(set(value)) != len(value):
            raise self.error(where + key, "lists an entry twice")
        return list(value)

    def environment(
        self,
        s0_files: dict[str, str],
        sealed: dict[str, str],
        references: list[str],
        tools_files: dict[str, str],
    ) -> TaskEnvironment:
        raw = self.raw
        oracle = self.section("oracle", ORACLE_KEYS, required=True)
        runtime = self.section("runtime", RUNTIME_KEYS, required=False)
        replay = self.section("replay", REPLAY_KEYS, required=False)
        tests_dir = oracle.get("tests_dir", "tests")
        if not isinstance(tests_dir, str) or not tests_dir.strip():
            raise self.error("oracle.tests_dir", "must be a non-empty relative path")
        tests_dir = self.relative(tests_dir, "oracle.tests_dir")
        f2p = self.strings(oracle, "fail_to_pass", "oracle.", "test ids", non_empty=True)
        p2p = self.strings(
            oracle,
            "pass_to_pass",
            "oracle.",
            "test ids (the oracle's dual condition needs at least one test that must keep passing)",
            non_empty=True,
        )
        both = sorted(set(f2p) & set(p2p))
        if both:
            raise self.error("oracle.pass_to_pass", f"{both[0]} is also in oracle.fail_to_pass")
        timeout = oracle.get("timeout_s", DEFAULT_TIMEOUT_S)
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, int | float)
            or not 0 < timeout <= MAX_TIMEOUT_S
        ):
            raise self.error("oracle.timeout_s", f"must be a number of seconds in (0, {MAX_TIMEOUT_S:g}]")
        python = self.text(runtime, "python", "runtime.", required=False)
        try:
            SpecifierSet(python)
        except InvalidSpecifier as exc:
            raise self.error("runtime.python", f"not a version specifier (like '>=3.11'): {exc}") from exc
        packages = self.strings(runtime, "packages", "runtime.", "importable module names", non_empty=False)
        for name in packages:
            if not _MODULE_NAME.match(name):
                raise self.error(
                    "runtime.packages", f"{name!r} is not a module name (like 'yaml' or 'pkg.sub')"
                )
        answer = raw.get("reference_answer")
        if answer is not None and not isinstance(answer, str):
            raise self.error("reference_answer", "must be a string or null")
        return TaskEnvironment(
            task_id=self.task_id(),
            statement=self.text(raw, "statement"),
            repo_family=self.text(raw, "repo_family"),
            domain=self.text(raw, "domain"),
            license=self.text(raw, "license"),
            tool_family=self.text(raw, "tool_family"),
            tools=self.tools(),
            s0_files=s0_files,
            sealed_tests={f"{tests_dir}/{rel}": content for rel, content in sealed.items()},
            tests_dir=tests_dir,
            fail_to_pass=f2p,
            pass_to_pass=p2p,
            oracle_timeout_s=float(timeout),
            references=references,
            reference_answer=answer,
            python=python,
            packages=packages,
            replay=self.replay(replay, tools_files),
            depends_on=self.strings(raw, "depends_on", "", "repo families", non_empty=False),
        )

    def task_id(self) -> str:
        task_id = self.text(self.raw, "task_id")
        if task_id != task_id.strip() or any(ch in task_id for ch in "\n\r\t\0"):
            raise self.error("task_id", "must not hold surrounding spaces or control characters")
        return task_id

    def relative(self, value: str, key: str) -> str:
        cleaned = value.strip().replace("\\", "/").strip("/")
        if value.startswith("/") or any(part in ("", ".", "..") for part in cleaned.split("/")):
            raise self.error(key, f"{value!r} must be a plain relative path inside the workspace")
        return cleaned

    def tools(self) -> list[dict]:
        value = self.raw.get("tools")
        if not isinstance(value, list):
            raise self.error("tools", "must be a list of tool specs ({name, description, parameters})")
        names: set[str] = set()
        for i, tool in enumerate(value):
            where = f"tools[{i}]"
            if not isinstance(tool, dict):
                raise self.error(where, "must be a JSON object")
            name = self.text(tool, "name", f"{where}.")
            if name in names:
                raise self.error(f"{where}.name", f"tool {name!r} is declared twice")
            names.add(name)
            if not isinstance(tool.get("description", ""), str):
                raise self.error(f"{where}.description", "must be a string")
            parameters = tool.get("parameters")
            if not isinstance(parameters, dict) or parameters.get("type", "object") != "object":
                raise self.error(
                    f"{where}.parameters", "must be a JSON Schema object ({'type': 'object', ...})"
                )
        return [dict(tool) for tool in value]

    def replay(self, replay: dict, tools_files: dict[str, str]) -> ReplaySpec:
        shell = replay.get("shell", False)
        if not isinstance(shell, bool):
            raise self.error("replay.shell", "must be true or false")
        entry = replay.get("tools_entry_point")
        if entry is not None and (not isinstance(entry, str) or not _ENTRY_POINT.match(entry)):
            raise self.error("replay.tools_entry_point", "must be 'module:function' or null")
        normalize = self.strings(replay, "normalize", "replay.", "regular expressions", non_empty=False)
        for i, pattern in enumerate(normalize):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise self.error(f"replay.normalize[{i}]", f"not a regular expression: {exc}") from exc
        return ReplaySpec(
            shell=shell, tools_files=tools_files, tools_entry_point=entry, normalize=tuple(normalize)
        )


def _read_workspace(root: Path) -> dict[str, str]:
    folder, archive = root / WORKSPACE_DIR, root / WORKSPACE_ARCHIVE
    if folder.exists() and archive.exists():
        raise EnvironmentFormatError(root, f"holds both {WORKSPACE_DIR}/ and {WORKSPACE_ARCHIVE}: keep one")
    if archive.exists():
        return _read_archive(archive)
    if not folder.is_dir():
        raise EnvironmentFormatError(folder, f"missing: S0 is {WORKSPACE_DIR}/ (or {WORKSPACE_ARCHIVE})")
    return _read_tree(folder, required=True)


def _read_tree(folder: Path, required: bool) -> dict[str, str]:
    """Every text file under ``folder`` by relative path; refuses links, escapes and binaries."""
    if not folder.exists():
        if required:
            raise EnvironmentFormatError(folder, "missing")
        return {}
    if folder.is_symlink() or not folder.is_dir():
        raise EnvironmentFormatError(folder, "must be a plain folder (not a link or a file)")
    files: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        for name in sorted(dirnames):
            if (here / name).is_symlink():
                raise EnvironmentFormatError(here / name, "a link may point outside the directory: refused")
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        for name in sorted(filenames):
            path = here / name
            if path.is_symlink() or not path.is_file():
                raise EnvironmentFormatError(path, "only plain files are allowed (links may point outside)")
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise EnvironmentFormatError(path, f"unreadable: {exc.strerror}") from exc
            files[path.relative_to(folder).as_posix()] = _text(path, data)
    return files


def _text(path: Path | str, data: bytes) -> str:
    if b"\0" in data:
        raise EnvironmentFormatError(path, "binary file: environments hold text files only")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EnvironmentFormatError(path, f"binary file (not UTF-8 text at byte {exc.start})") from exc


def _read_archive(archive: Path) -> dict[str, str]:
    files: dict[str, str] = {}
    try:
        with tarfile.open(archive, "r:gz") as tar:
            for member in tar:
                where = f"{archive}!{member.name}"
                parts = member.name.replace("\\", "/").split("/")
                if member.name.startswith("/") or ".." in parts:
                    raise EnvironmentFormatError(where, "path escapes the workspace: refused")
                if member.isdir():
                    continue
                if not member.isfile():
                    raise EnvironmentFormatError(where, "only plain files are allowed (no links or devices)")
                rel = "/".join(p for p in parts if p not in ("", "."))
                if any(p in SKIPPED_DIRS for p in rel.split("/")[:-1]):
                    continue
                extracted = tar.extractfile(member)
                files[rel] = _text(where, extracted.read() if extracted else b"")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise EnvironmentFormatError(archive, f"not a readable .tar.gz: {exc}") from exc
    return files


def _read_references(folder: Path, s0_files: dict[str, str]) -> list[str]:
    """The top-level ``*.diff`` files in name order, each checked to apply to S0."""
    diffs = _read_tree(folder, required=True)
    names = sorted(name for name in diffs if name.endswith(".diff") and "/" not in name)
    if not names:
        raise EnvironmentFormatError(
            folder, "no reference solution: put at least one unified diff *.diff here"
        )
    for name in names:
        try:
            apply_diff(s0_files, diffs[name])
        except SandboxError as exc:
            raise EnvironmentFormatError(
                folder / name, f"does not apply to the workspace (S0): {exc}"
            ) from exc
    return [diffs[name] for name in names]


def _check_tests(root: Path, env: TaskEnvironment) -> None:
    """Every test id names a module-level ``test_*`` function of a sealed file (compiled, never run)."""
    spec_path = root / ENVIRONMENT_FILE
    functions: dict[str, set[str]] = {}
    for rel, source in env.sealed_tests.items():
        if not rel.endswith(".py"):
            continue
        shown = root / SEALED_DIR / rel[len(env.tests_dir) + 1 :]
        try:
            code = compile(source, str(shown), "exec", dont_inherit=True)
        except SyntaxError as exc:
            raise EnvironmentFormatError(shown, f"line {exc.lineno}: does not parse: {exc.msg}") from exc
        functions[rel] = {c.co_name for c in code.co_consts if hasattr(c, "co_name")}
    for key, ids in (("oracle.fail_to_pass", env.fail_to_pass), ("oracle.pass_to_pass", env.pass_to_pass)):
        for tid in ids:
            match = _TEST_ID.match(tid)
            if not match:
                raise EnvironmentFormatError(
                    spec_path, f"{key}: {tid!r} is not a test id like '{env.tests_dir}/test_x.py::test_name'"
                )
            module = match["file"]
            if module not in functions:
                raise EnvironmentFormatError(
                    spec_path,
                    f"{key}: {tid}: no such sealed test file "
                    f"(expected {SEALED_DIR}/{module.removeprefix(env.tests_dir + '/')})",
                )
            if match["func"] not in functions[module]:
                raise EnvironmentFormatError(
                    spec_path, f"{key}: {tid}: no module-level function {match['func']} in that file"
                )


def _check_tools(root: Path, env: TaskEnvironment) -> None:
    entry, files = env.replay.tools_entry_point, env.replay.tools_files
    if files and entry is None:
        raise EnvironmentFormatError(
            root / ENVIRONMENT_FILE, f"replay.tools_entry_point: missing, yet {TOOLS_DIR}/ holds files"
        )
    if entry is not None:
        module = entry.partition(":")[0].replace(".", "/")
        if f"{module}.py" not in files and f"{module}/__init__.py" not in files:
            raise EnvironmentFormatError(
                root / ENVIRONMENT_FILE,
                f"replay.tools_entry_point: {entry}: no {TOOLS_DIR}/{module}.py (or package) to load",
            )


# ------------------------------------------------------------------------------------ writing


def write_environment(env: TaskEnvironment, path: Path) -> Path:
    """Write ``env`` as an environment directory at ``path`` (which must not exist yet); returns it.

    The directory is built beside ``path`` and renamed into place, so a reader never sees half an
    environment. References are written as ``references/000.diff``, ``001.diff``...: their order
    (the first is the fixture's reference solution) survives a round trip.
    """
    target = Path(path)
    if target.exists():
        raise FileExistsError(f"{target}: already exists")
    outside = sorted(p for p in env.sealed_tests if not p.startswith(env.tests_dir + "/"))
    if outside:
        raise EnvironmentFormatError(target, f"sealed test {outside[0]!r} is not under {env.tests_dir}/")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        (staging / ENVIRONMENT_FILE).write_text(
            json.dumps(env.spec(), indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        sealed = {p[len(env.tests_dir) + 1 :]: c for p, c in env.sealed_tests.items()}
        references = {f"{i:03d}.diff": diff for i, diff in enumerate(env.references)}
        for folder, files in (
            (WORKSPACE_DIR, env.s0_files),
            (SEALED_DIR, sealed),
            (REFERENCES_DIR, references),
            (TOOLS_DIR, env.replay.tools_files),
        ):
            if files or folder != TOOLS_DIR:
                (staging / folder).mkdir()
            for rel, content in files.items():
                _write_file(staging / folder, rel, content)
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def _write_file(folder: Path, rel: str, content: str) -> None:
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise EnvironmentFormatError(folder / rel, "path escapes the environment directory: refused")
    target = folder.joinpath(*parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "w", encoding="utf-8", newline="") as fh:
        fh.write(content)
