"""Is a linked log's instruction its environment's task? (``prompt_not_the_tasks``)

A user's log reaches a brought environment by its task id alone (``cascade.adopt_task_identity``),
and the oracle judges the *environment's* task, while training pairs the actions with the
instruction the log records (its user turn, or ``task.prompt`` where it records none). A red team
swapped a linked shell log's user turn for "Make mul() return the product plus one. Do not touch
add()." and it was admitted pristine with the add-fix turns as targets (2026-12-06): success
certified for a task other than the one the trained example asks for. The gym compares the two
exactly (its user turn is the fixture's prompt, ``replay._runtime_log_findings``); a user's log
may not, since real users word their task their own way and a harness wraps it in its template.

So the rule reads *which parts of the repository* each text names, never its prose:

- **supported**: the instruction holds the statement (after :func:`normalized`: NFKC, case, white
  space, backticks: a harness template wrapping the task, the log an environment was made from),
  or it names at least half of the repository names the statement names (its key names: a
  paraphrase that points at the same code); a statement naming none (prose only) needs half of its
  longer words instead;
- **nothing else**: no user turn and no recorded ``task.prompt`` names a repository name that is
  neither named by the statement, nor changed by a reference solution (a file it edits, a function
  or class whose lines it changes), nor one of the oracle's tests: an instruction pointing at
  another part of the code asks for something else, whatever else it says.

A repository name (:func:`repository_names`) is a file of S0 (its path, its base name, its dotted
module) or a function or class S0's Python defines, of three characters or more (``a``, ``id``
would match ordinary words). Identifiers absent from S0 (a harness's ``reproduce.py``, a test
name) are no target, so a template's own words cost nothing. A name written as code (``mul()``,
```mul```, ``ops.mul``, ``calc/ops.py``, ``toposort_flatten``) always points at it; a bare word
(``mul``, ``run``) only when the repository never writes that word as prose (its comments,
docstrings, documents: :func:`prose_words`). Without that, harness templates ("run any checks",
"write a script", "get started") were refused on repositories defining ``run``, ``write`` or
``get``, while a small repository's bare ``mul`` is still a name. What it cannot see is an instruction
that names the same code and asks for a different change ("make add() return a + b + 1"): prose
is not compared, and that stays the oracle's and review's.
"""

from __future__ import annotations

import ast
import difflib
import io
import math
import re
import tokenize
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from trajectory_platform.curation.verify.pysource import parse_python
from trajectory_platform.curation.verify.verdicts import Finding
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.traces.record import Episode

MIN_NAME = 3
"""Shortest repository name that counts (shorter ones are ordinary words and letters)."""

_TOKEN = re.compile(r"`?[A-Za-z_][\w-]*(?:[./][A-Za-z_][\w-]*)*`?\(?")
"""A word as code writes it (identifiers, dotted names, relative paths), with the backtick around
it and the parenthesis after it, when there is one."""
_CODE_SHAPE = re.compile(r"[./_\d`(]|.[A-Z]")
"""What makes a token code rather than a word: a separator, a digit, a backtick, a call's
parenthesis, a capital inside it (``calc/ops.py``, ``toposort_flatten``, ``add()``,
``CircularDependencyError``)."""
_WORD = re.compile(r"[^\W\d_]{5,}")
"""The longer words of prose, for a statement naming no code."""


def normalized(text: str) -> str:
    """``text`` as containment compares it: NFKC, case-folded, backticks dropped, white space one blank."""
    return " ".join(unicodedata.normalize("NFKC", text).replace("`", "").casefold().split())


@dataclass(frozen=True)
class Mentions:
    """The names a text mentions: written as code, or as a bare word (``mul``, ``run``), which may
    be a name or the ordinary word it spells."""

    code: frozenset[str]
    bare: frozenset[str]

    def all(self) -> frozenset[str]:
        return self.code | self.bare


def mentions(text: str) -> Mentions:
    """Every form of each token of ``text``: itself, each suffix after a ``/`` and each part between
    ``.`` and ``/`` (``calc/ops.py`` -> ``ops.py``, ``calc``, ``ops``; ``mdurl.decode`` ->
    ``decode``), by whether the token is written as code."""
    code: set[str] = set()
    bare: set[str] = set()
    for written in _TOKEN.findall(text):
        token = written.strip("`(").strip(".-")
        forms = {token}
        parts = token.split("/")
        forms.update("/".join(parts[i:]) for i in range(1, len(parts)))
        forms.update(p for p in re.split(r"[./]", token) if p)
        (code if _CODE_SHAPE.search(written) else bare).update(forms)
    return Mentions(frozenset(code), frozenset(bare))


def _python_prose(source: str) -> list[str]:
    """The comments and string literals of ``source`` (nothing when it does not tokenize)."""
    try:
        return [
            t.string
            for t in tokenize.generate_tokens(io.StringIO(source).readline)
            if t.type in (tokenize.COMMENT, tokenize.STRING)
        ]
    except (tokenize.TokenError, SyntaxError):
        return []


def prose_words(files: dict[str, str]) -> frozenset[str]:
    """The words the repository itself writes as prose (comments, docstrings, documents), case-folded:
    a bare word among them is as likely the ordinary word as a name (``get``, ``run``, ``write``)."""
    words: set[str] = set()
    for path, text in files.items():
        for chunk in _python_prose(text) if path.endswith(".py") else [text]:
            words.update(w.casefold() for w in mentions(chunk).bare)
    return frozenset(words)


def _file_names(path: str) -> set[str]:
    pure = PurePosixPath(path)
    names = {path, pure.name}
    if pure.suffix == ".py":
        module = pure.with_suffix("").parts
        if module and module[-1] == "__init__":
            module = module[:-1]
        if module:
            names.add(".".join(module))
    return names


def _definitions(tree: ast.AST) -> Iterable[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    return (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))


def _changed_lines(before: str, after: str) -> set[int]:
    """1-based lines of ``before`` a change touches (an insertion touches the line it follows)."""
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False)
    lines: set[int] = set()
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag != "equal":
            lines.update(range(max(i1, 1), max(i2, i1 + 1) + 1))
    return lines


@dataclass(frozen=True)
class TaskNames:
    """The repository names an environment's task involves."""

    targets: frozenset[str]
    """Every repository name of S0 (:func:`repository_names`)."""
    allowed: frozenset[str]
    """Those the task involves: named by the statement, changed by a reference solution, or a test
    the oracle runs ("make tests/test_ops.py::test_add pass" is the task in other words)."""
    key: frozenset[str]
    """Those the statement names."""
    prose: frozenset[str]
    """The repository's own ordinary words (:func:`prose_words`)."""

    def foreign(self, text: str) -> frozenset[str]:
        """The repository names ``text`` points at that the task does not involve: any written as
        code, and a bare word the repository never uses as an ordinary word."""
        found = mentions(text)
        pointed = found.code | {w for w in found.bare if w.casefold() not in self.prose}
        return (pointed & self.targets) - self.allowed


def repository_names(files: dict[str, str]) -> dict[str, set[str]]:
    """File -> the repository names it holds: its own names, and the functions and classes its
    Python defines (dunders aside: every module has them)."""
    names: dict[str, set[str]] = {}
    for path, text in files.items():
        own = _file_names(path)
        if path.endswith(".py"):
            tree, _ = parse_python(text)
            if tree is not None:
                own.update(d.name for d in _definitions(tree) if not d.name.startswith("__"))
        names[path] = {n for n in own if len(n) >= MIN_NAME}
    return names


def _changed_names(s0: dict[str, str], solved: dict[str, str]) -> set[str]:
    """The names a reference solution changes: each file it edits, adds or removes, the folders and
    packages holding it, and the functions and classes whose lines it touches (all of a new file's)."""
    changed: set[str] = set()
    for path in sorted(set(s0) | set(solved)):
        before, after = s0.get(path), solved.get(path)
        if before == after:
            continue
        parents = PurePosixPath(path).parent.parts
        changed |= _file_names(path)  # and the packages holding it: "fix calc" points there too
        changed.update(sep.join(parents[: i + 1]) for i in range(len(parents)) for sep in "/.")
        source = after if before is None else before
        tree, _ = parse_python(source or "") if path.endswith(".py") else (None, None)
        if tree is None:
            continue
        lines = None if before is None or after is None else _changed_lines(before, after)
        for node in _definitions(tree):
            end = node.end_lineno or node.lineno
            if lines is None or any(node.lineno <= n <= end for n in lines):
                changed.add(node.name)
    return changed


def _task_names(fixture: Fixture) -> TaskNames:
    by_file = repository_names(fixture.s0_files)
    targets = frozenset(n for names in by_file.values() for n in names)
    key = mentions(fixture.prompt).all() & targets
    changed: set[str] = set()
    for solved in (fixture.reference_files, *fixture.extra_references):
        changed |= _changed_names(fixture.s0_files, solved)
    for test_id in (*fixture.fail_to_pass, *fixture.pass_to_pass):
        path, _, test = test_id.partition("::")
        changed |= {*_file_names(path), test}
    return TaskNames(targets, key | changed, key, prose_words(fixture.s0_files))


_BY_DIGEST: dict[tuple[str, str], TaskNames] = {}
"""A registered environment's :class:`TaskNames` by (task id, content digest): S0 is parsed once."""


def task_names(fixture: Fixture) -> TaskNames:
    """:class:`TaskNames` of ``fixture``; once per registered content (a fixture without a digest,
    built in memory, is read each time: its id alone does not name one content)."""
    if fixture.environment_digest is None:
        return _task_names(fixture)
    key = (fixture.fixture_id, fixture.environment_digest)
    if key not in _BY_DIGEST:
        _BY_DIGEST[key] = _task_names(fixture)
    return _BY_DIGEST[key]


def supports(instruction: str, statement: str, names: TaskNames) -> bool:
    """Does ``instruction`` ask for the task ``statement`` states (see the module docstring)?"""
    if normalized(statement) in normalized(instruction):
        return True
    if names.key:
        return len(names.key & mentions(instruction).all()) >= math.ceil(len(names.key) / 2)
    wanted = {w.casefold() for w in _WORD.findall(statement)}
    have = {w.casefold() for w in _WORD.findall(instruction)}
    return bool(wanted) and len(wanted & have) >= math.ceil(len(wanted) / 2)


def instruction_findings(episode: Episode, fixture: Fixture) -> list[Finding]:
    """``prompt_not_the_tasks`` when the instruction a linked log trains with is not its
    environment's task; counts and event indices only, never the texts."""
    names = task_names(fixture)
    users: list[tuple[int | None, str]] = [
        (i, e.content or "") for i, e in enumerate(episode.events) if e.kind == "user"
    ]
    texts = [*users, *([(None, episode.task.prompt)] if episode.task.prompt is not None else [])]
    for index, text in texts:
        foreign = names.foreign(text)
        if foreign:
            return [
                Finding(
                    "prompt_not_the_tasks",
                    f"the log's instruction names {len(foreign)} part(s) of the repository the task's "
                    "statement does not name and no reference solution changes",
                    event_index=index,
                )
            ]
    # the task prompt the adapter read, where it is a recorded turn (Codex opens with its own
    # context turns), else the first user turn: what training shows first
    chosen = [u for u in users if u[1] == episode.task.prompt]
    index, instruction = (chosen or users or [(None, episode.task.prompt or fixture.prompt)])[0]
    if not supports(instruction, fixture.prompt, names):
        return [
            Finding(
                "prompt_not_the_tasks",
                f"the log's first instruction does not hold the task's statement nor name its "
                f"{len(names.key)} key name(s) of the repository",
                event_index=index,
            )
        ]
    return []
