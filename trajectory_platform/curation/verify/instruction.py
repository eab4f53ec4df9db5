"""Is a linked log's instruction its environment's task? (``prompt_not_the_tasks``)

A user's log reaches a brought environment by its task id alone (``cascade.adopt_task_identity``),
and the oracle judges the *environment's* task, while training pairs the actions with the texts
the log showed its model (its system prompt, user turns, ``task.prompt``, tool descriptions). A
red team swapped a linked shell log's user turn for "Make mul() return the product plus one." and
it was admitted pristine with the add-fix turns as targets (2026-12-06): success certified for a
task other than the one the trained example asks for. The gym compares the two exactly (its user
turn is the fixture's prompt, ``replay._runtime_log_findings``); a user's log may not, since real
users word their task their own way and a harness wraps it in its template.

A first rule compared only which repository names each text named; a second red team (rtforge7
R2) passed it with other code in prose, look-alike letters, a denied or dismissed statement, a
test taken away and the other task moved into the system prompt, while two honest paraphrases
naming no key name were refused. So every text is read folded (:mod:`instruction_text`: NFKC,
TR39 look-alikes, zero-width characters dropped) for what it asks, against what the environment
says the task is about (:class:`TaskNames`, never the log's own words):

- **supported** (:func:`supports`): the first instruction holds the statement, or says one of the
  task's anchors (:attr:`TaskNames.anchors`: ``add`` in "the *addition* helper"), or names a
  function or test the statement names;
- **nothing else asked** (:func:`asks_otherwise`): no text points at code the task does not
  involve (written as code, a bare word the repository never writes as prose, a name spelt out as
  words), writes a word in another script's look-alike letters, denies the task's repair, sets the
  statement aside, or asks to take the oracle's tests away; and the instruction describes no other
  code in prose (``the multiplication helper``). A harness's texts (system prompt, tool
  descriptions) name no code the instruction does not: a grader's note is a hint.

What it cannot see (docs/verification.md): an instruction naming the task's own code and asking
another change of it ("make add() return a + b + 1"), an extra ask that recalls no code, other
code described in the words its repository's docstrings use; those stay the oracle's and review's.
"""

from __future__ import annotations

import ast
import difflib
import io
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

import trajectory_platform.curation.verify.instruction_text as text_of
from trajectory_platform.curation.verify.instruction_text import folded, normalized
from trajectory_platform.curation.verify.pysource import parse_python
from trajectory_platform.curation.verify.refusals import persons_words
from trajectory_platform.curation.verify.verdicts import Finding
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.python_trees import walked
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
            found = mentions(chunk)
            words.update(w.casefold() for w in found.bare)
            words.update(w.casefold() for w in found.code if w.isalpha() and w.isupper())  # TOML, JSON
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
    return (n for n in walked(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))


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
    """What an environment's task is about, read from the environment (never from a log)."""

    targets: frozenset[str]
    """Every repository name of S0 (:func:`repository_names`)."""
    allowed: frozenset[str]
    """Those the task involves: named by the statement, changed by a reference solution, or a test
    the oracle runs ("make tests/test_ops.py::test_add pass" is the task in other words)."""
    key: frozenset[str]
    """Those the statement names."""
    prose: frozenset[str]
    """The repository's own ordinary words (:func:`prose_words`)."""
    anchors: frozenset[str]
    """The task's own words: the parts of the names the statement names or a reference changes that
    no other file of the repository has in its name (``add``, ``ops``: ``calc`` is every task's),
    common words (:data:`instruction_text.COMMON_WORDS`) aside; the statement's
    longer words where it names no code. A paraphrase of the task says one of them."""
    definitions: frozenset[str]
    """The anchors that are parts of a function's or class's name (``add``), not of a file's
    (``ops``): a clause saying one is about the task's code, one saying only its file may still
    describe another function in that file."""
    others: frozenset[str]
    """The parts of the names the task does not involve that are none of its anchors, no common
    word and no word the repository writes as prose (``mul``): a clause saying none of the anchors
    but one of these (``the multiplication helper``) is about other code."""
    parts: frozenset[str]
    """The parts of every repository name."""
    spelt_out: dict[str, str]
    """Each function's or class's name of several parts, by its parts joined (``parseline``)."""
    tests: frozenset[str]
    """The oracle's tests (their names and files, case-folded): what no text may ask to take away."""

    def pointed(self, text: str, *, code_only: bool = False) -> frozenset[str]:
        """The repository names ``text`` points at: any written as code, a bare word the repository
        never uses as an ordinary word, and a name of several parts spelt out as words (``parse
        line`` for ``parse_line``); ``text`` is folded first (look-alikes are names). A path that
        is itself a name points at it alone (``textkit/wrap.py`` is not ``wrap()``). ``code_only``:
        names written as code alone (a harness's text, see :data:`HARNESS_ROLES`)."""
        found: set[str] = set()
        for token in _TOKEN.findall(folded(text)):
            whole = token.strip("`(").strip(".-")
            forms = mentions(token)
            words = forms.code | (
                set() if code_only else {w for w in forms.bare if w.casefold() not in self.prose}
            )
            found |= {whole} if whole in self.targets and whole in forms.code else words
        if not code_only:
            spelt = text_of.spelt_runs(normalized(text))
            found |= {name for joined, name in self.spelt_out.items() if joined in spelt}
        return frozenset(found) & self.targets

    def foreign(self, text: str, *, code_only: bool = False) -> frozenset[str]:
        """The repository names ``text`` points at that the task does not involve."""
        return self.pointed(text, code_only=code_only) - self.allowed

    def anchored(self, text: str) -> frozenset[str]:
        """The anchors a normalized ``text`` says, by name or in a paraphrase (``addition``)."""
        said = set(text_of.words(text))
        return frozenset(a for a in self.anchors if any(text_of.means(w, a) for w in said))

    def other_code(self, clause: str) -> bool:
        """Does a normalized ``clause`` naming none of the task's functions describe other code? A
        word that is itself a part of a repository name means that name (``tomli`` is not
        ``toml``); any other word may derive from a part (``multiplication`` from ``mul``)."""
        if self.anchored(clause) & self.definitions or not text_of.ASKS.search(clause):
            return False
        return any(
            w in self.others if w in self.parts else any(text_of.points_at(w, o) for o in self.others)
            for w in text_of.words(clause)
        )

    def aims_at_task(self, object_text: str) -> bool:
        """Is a cue's object (normalized) the task's code, or a pointer back at the statement?"""
        return bool(self.anchored(object_text)) or text_of.DEICTIC.search(object_text) is not None

    def aims_at_tests(self, object_text: str) -> bool:
        """Is a cue's object the oracle's tests (one by its name or file, or tests as such)?"""
        said = set(text_of.words(object_text))
        return any(t in object_text for t in self.tests) or bool(said & _TESTS_AS_SUCH)


_TESTS_AS_SUCH = frozenset({"test", "tests", "assert", "assertion", "assertions"})


def _parts(names: Iterable[str]) -> set[str]:
    """The words the names are made of (:func:`instruction_text.name_parts`), a file's extension
    aside (``deploy.env`` is not the word "environment")."""
    return {
        p
        for n in names
        for p in text_of.name_parts(re.sub(r"\.[A-Za-z]+$", "", n) if "." in n else n)
        if len(p) >= MIN_NAME
    }


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
    key = mentions(folded(fixture.prompt)).all() & targets
    changed: set[str] = set()
    for solved in (fixture.reference_files, *fixture.extra_references):
        changed |= _changed_names(fixture.s0_files, solved)
    tests: set[str] = set()
    for test_id in (*fixture.fail_to_pass, *fixture.pass_to_pass):
        path, _, test = test_id.partition("::")
        tests |= {*_file_names(path), test}
    prose = prose_words(fixture.s0_files)
    common = text_of.COMMON_WORDS
    involved = key | changed
    stated = {n for n in key if not n.startswith("test")} | changed  # a test's name: its words are prose
    places = {n for n in targets - involved - tests if re.search(r"[./]", n)}  # files and modules
    anchors = _parts(stated) - _parts(places) - common
    if not anchors:  # a statement naming no code the repository holds: its longer words
        said = text_of.words(normalized(fixture.prompt))
        anchors = {w for w in said if len(w) >= 5 and w.isalpha()} - common
    definitions = _parts(n for n in stated if not re.search(r"[./]", n)) & anchors
    elsewhere = _parts(targets - involved - tests)
    prose_stems = {text_of.stem(w) for w in prose}
    others = {p for p in elsewhere - _parts(involved) - common if text_of.stem(p) not in prose_stems}
    stated_runs = text_of.spelt_runs(normalized(fixture.prompt))  # the statement's own words
    spelt_out = {
        joined: n
        for n in targets
        if not re.search(r"[./]", n)
        and len(text_of.name_parts(n)) > 1
        and (joined := text_of.joined_parts(n)) not in stated_runs
    }
    return TaskNames(
        targets=targets,
        allowed=frozenset(key | changed | tests),
        key=key,
        prose=prose,
        anchors=frozenset(anchors),
        definitions=frozenset(definitions),
        others=frozenset(others),
        parts=frozenset(_parts(targets)),
        spelt_out=spelt_out,
        tests=frozenset(t.casefold() for t in tests if len(t) >= MIN_NAME),
    )


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


MIN_ANCHORS = 1
"""Anchors (:attr:`TaskNames.anchors`) an instruction not holding the statement must say. Measured
(``benchmarks/instruction_variants.py``, docs/verification.md): honest paraphrases say one to four
("the *addition* helper returns the difference"), a retelling of another task none, so one
keeps every honest paraphrase and a second would refuse real users' shortest wordings."""


def supports(instruction: str, statement: str, names: TaskNames) -> bool:
    """Does ``instruction`` state the task (it holds the statement, or says its anchors)?"""
    said = normalized(instruction)
    named = {n for n in names.pointed(instruction) & names.key if not re.search(r"[./]", n)}
    return normalized(statement) in said or len(names.anchored(said) | named) >= MIN_ANCHORS


def asks_otherwise(
    text: str, statement: str, names: TaskNames, *, instruction: bool = True, harness: bool = False
) -> str | None:
    """Why a text the model was shown asks for something other than the task, or ``None``: a word
    in look-alike letters, another part of the code by name or in prose, the task denied or set
    aside, the oracle's tests taken away. The statement's own words are the task's, whatever they
    say ("do not change the tests"), so they are read out first.

    Only an ``instruction`` (the first instruction, the recorded task prompt: what an example
    trains with) is read for other code described in prose; a ``harness`` text (a system prompt, a
    tool's description) for names written as code only (no bare words) and the cues. Those and
    later turns are written around every task, or answer the agent, in ordinary words that are
    also some repository's names ("show the output", "finalize the booking": tomli defines
    ``Output`` and ``finalize_pending``), and ask for their own things in them: read as the
    instruction is, 74 of 4,542 honest real linked logs were refused, 0 so."""
    if text_of.disguised(text):
        return "writes a word in look-alike letters of another script"
    foreign = names.foreign(text, code_only=harness)
    if foreign:
        return f"names {len(foreign)} part(s) of the repository the task does not involve"
    rest = normalized(text).replace(normalized(statement), " ")
    denials = [*text_of.NEGATED_REPAIR.finditer(rest), *text_of.LEAVE_ALONE.finditer(rest)]
    if any(names.aims_at_task(m["object"]) for m in denials):
        return "denies the task's repair"
    if text_of.DISMISSED.search(rest) or text_of.REFRAMED.search(rest):
        return "sets the task's statement aside"
    if any(names.aims_at_tests(m["object"]) for m in text_of.DESTRUCTIVE.finditer(rest)):
        return "asks to take away the oracle's tests"
    if instruction and any(names.other_code(clause) for clause in text_of.clauses(rest)):
        return "describes code the task does not involve"
    return None


@dataclass(frozen=True)
class Shown:
    """A text the model was shown that a linked log brings: its role and event index (``None``
    for the recorded task prompt and a tool's description)."""

    role: str
    index: int | None
    text: str


HARNESS_ROLES = frozenset({"system prompt", "tool description"})
"""Texts a harness writes around any task: they may name no code (written as code) the instruction
does not (a "GRADER NOTE: the bug is in calc/ops.py" is a hint, not a harness), and they are read
for code names and cues only (:func:`asks_otherwise`)."""


def shown_texts(episode: Episode) -> list[Shown]:
    """Every text of ``episode`` that instructs the model: system prompts, user turns, compaction
    summaries, a person's words a refusal quotes (:func:`.refusals.persons_words`: a user's
    message inside the harness's template), the recorded task prompt, the tools' descriptions
    (rendered into every example)."""
    roles = {"system": "system prompt", "user": "user turn", "compaction": "summary"}
    shown = [
        Shown(roles[e.kind], i, e.content or "") for i, e in enumerate(episode.events) if e.kind in roles
    ]
    shown += [Shown("refusal's words", i, said) for i, said in persons_words(episode)]
    if episode.task.prompt is not None:
        shown.append(Shown("task prompt", None, episode.task.prompt))
    shown += [Shown("tool description", None, t.description) for t in episode.tools if t.description]
    return shown


def instruction_findings(episode: Episode, fixture: Fixture) -> list[Finding]:
    """``prompt_not_the_tasks`` when a text a linked log shows the model asks for something other
    than its environment's task, or its instruction does not state it; counts and event indices
    only, never the texts."""
    names = task_names(fixture)
    shown = shown_texts(episode)
    users = [s for s in shown if s.role == "user turn"]
    # the task prompt the adapter read, where it is a recorded turn (Codex opens with its own
    # context turns), else the first user turn: what training shows first
    chosen = [u for u in users if u.text == episode.task.prompt]
    first = (chosen or users or [Shown("task prompt", None, episode.task.prompt or fixture.prompt)])[0]
    asked = names.pointed(first.text)
    for text in shown:
        harness = text.role in HARNESS_ROLES
        instruction = text is first or text.role == "task prompt"
        reason = asks_otherwise(text.text, fixture.prompt, names, instruction=instruction, harness=harness)
        if reason is None and harness and names.pointed(text.text, code_only=True) - asked:
            reason = "names code the instruction does not name"
        if reason is not None:
            return [
                Finding("prompt_not_the_tasks", f"the log's {text.role} {reason}", event_index=text.index)
            ]
    if not supports(first.text, fixture.prompt, names):
        return [
            Finding(
                "prompt_not_the_tasks",
                f"the log's first instruction neither holds the task's statement nor says any of its "
                f"{len(names.anchors)} anchor word(s)",
                event_index=first.index,
            )
        ]
    return []
