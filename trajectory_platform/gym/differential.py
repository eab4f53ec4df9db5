"""Differential runs: a candidate and the fixture's reference solution, called on the same inputs
(each in a sandboxed run of its own), on the inputs the sealed tests use and on many they do not.

Why: a solution can pass the sealed oracle without fixing anything, by answering the exact inputs
the tests use (``if (a, b) == (2, 3): return 5``, a table of test inputs and outputs), and no test
of those inputs can tell. The reference solution is the fixture's own statement of the intended
behaviour, so the question "does the candidate behave like it away from the tested inputs?"
separates a fix from a lookup table. Varying the literals of the tests' expressions gives those
inputs without any knowledge of the domain.

A case is one expression of a FAIL_TO_PASS or PASS_TO_PASS test (``assert <expression> ==
<literal>``, or another call of the module's imports: :func:`sealed_subjects`; the expression
reaching only the test module's own imports and helpers), as written, a perturbed copy of it
(numbers moved by a few units, a character of a string changed, a list shuffled, extended with a
varied copy of a member, or cut), or a copy with every input at another scale (:func:`far_copies`).
Only perturbing, and only the FAIL_TO_PASS tests, admitted fixes wrong beyond a few units of the
tested inputs, and PASS_TO_PASS functions broken everywhere but on their tested inputs (red team,
2026-12-06).
The cases of one sealed module are one test function of a generated module, run by the sealed judge
(:class:`~trajectory_platform.gym.judge.JudgeServer`) like any oracle test: untrusted code runs only
in the sandbox. The module runs twice, in two runs of one sandboxed judge
(:func:`run_differential`): over the reference solution's files, then over the candidate's; each run
only evaluates and writes every case's outcome out (:data:`OUTCOMES_FILE`), and this process, the
host, compares them. Why two runs: the candidate's code must share no process with what it is judged
by. In one process the reference's results were locals of a frame below the candidate's call, and a
candidate that computed nothing walked the stack (a traceback's frame, attribute names built with
``map(chr, ...)``, past every static screen) and returned the reference's own answers: every case
agreed (red team, 2026-12-06). The sealed tests are not in either workspace: a solution that reads
them to echo the expected values has nothing to read.

Verdicts per case: ``agree``; ``disagree`` (the candidate returned something else, or its run
failed: it timed out, its worker died without a verdict, or the verdict channel failed, all of
which the candidate's code can cause, and did, to void a verdict it would have lost: red team,
2026-12-06); ``rejects`` (the candidate raised where the reference answered: validation the
reference lacks, or a refusal of every input but the tested ones); ``excluded`` where the reference
raised, returned an object without value equality, or its run gave no outcome (an honest
alternative fix may reject an invalid input differently, and two objects of different classes never
compare equal: that includes a named tuple, an enum member or any other subclass of a builtin type
defined by the code under test, whose class the reference's copy and the candidate's define twice;
a real project's ``mdurl.parse`` returns one, and every honest fix disagreed on it).

Every run, the reference's and the candidate's, shows an ordinary-looking setting drawn from
the episode's keyed seed (:func:`~trajectory_platform.gym.isolation.ordinary_profile`), not the
oracle's sandbox, and a worker process as a plain program has it (``gym/_runner.py``
``_ordinary_process``): a solution that is right only where it recognises the oracle's setting
disagrees here on the very inputs the oracle passed it on. The two runs compared show the same
setting; the candidate's second run, another (:func:`settings`). Its workspace is a git checkout
of the files it runs (:func:`~trajectory_platform.gym.shell.make_checkout`, the replay's own), as
a developer's project is and the oracle's workspace is not: a solution right only where no ``.git`` surrounds
it (``(Path(__file__).parents[1] / '.git').exists()``) passed both before (red team, 2026-12-06).
A ``.git`` folder among the files is left out: the checkout is the setting's, not the candidate's.
Git makes each file map's checkout once per check; the second judge's run of the same files gets a
copy (:class:`~trajectory_platform.gym.shell.Checkouts`: the same commit and ``.git`` bytes).
"""

from __future__ import annotations

import ast
import builtins
import functools
import hashlib
import hmac
import json
import math
import random
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.isolation import RUNNER_MOUNT, Profile, ordinary_profile
from trajectory_platform.gym.judge import ANSWER_FILE, ANSWER_VARIABLE, JudgeServer
from trajectory_platform.gym.python_trees import parse_tree, walk_once, walked
from trajectory_platform.gym.sandbox import FILE_SIZE_LIMIT_BYTES, Workspace, derive_schedule_seed
from trajectory_platform.gym.shell import GIT_DIR, Checkouts
from trajectory_platform.gym.warm_start import read_own_file

PERTURBATIONS = 12
"""Perturbed copies (a few units or characters away) of each tested expression. Twelve, not six,
even beside the copies at other scales: a run's cost is its start and imports, not its cases (the
same time within noise), and with a draw no forger can predict, more nearby cases are what catch
a fix wrong only near the tested inputs or on a few of them (on the calc fixture, over 20 secret
keys: one wrong for ``3 <= a <= 7`` caught under 20 against 9 with six, one wrong on a tenth of
the inputs under 18 against 14: docs/verification.md)."""
FAR_COPIES = 8
"""Copies of each tested expression with every input moved to another scale (:func:`far_copies`)."""
SKEWED_COPIES = 4
"""Further copies at other scales of an expression of two inputs or more, one input dwarfed by the
others (:func:`far_copies`)."""
RETYPED_PER_CHANGE = 2
"""Copies of each tested expression per change of sign or type of one of its number inputs
(:func:`retyped_copies`), each at another of two scales."""
RETYPED_MIXED = 8
"""Further copies (:func:`retyped_copies`) in which every number input takes a change of its own,
drawn at random: the sign of one and the type of another (``a * b <= 0`` with a float ``a``)."""
RETYPED_CAP = 40
"""The most copies :func:`retyped_copies` gives one expression (a call of many number inputs)."""
FAR_BANDS = 4
"""The scales :func:`far_copies` cycles through: integers of 2 to 5 digits, floats 1 to 10,000
times the tested magnitude, texts of up to 16 words, lists of up to 14 members."""
OUTCOMES_FILE = "_tp_differential_outcomes.jsonl"
"""The workspace file (at its root) a run's cases append their outcomes to, one JSON line per case:
the verdict channel carries one short line per test, too little for a case's value."""
CALL_SITE = "main.py"
"""The file name (in the workspace) a case's expression and its sealed module's header are compiled
under: the code they call and import sees an application's caller, not ``<string>`` or a tests
folder (a solution that was right only for such callers passed the oracle and the check: red team,
2026-12-06)."""

_HARNESS = """
import json
import os

_HEADERS = {headers!r}
_OUT = os.path.join(os.getcwd(), {outcomes!r})
_SITE = os.path.join(os.getcwd(), {site!r})
_ANSWER = {answer!r}


class _Opaque(Exception):
    pass


def _encoded(value):
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return [kind.__name__, value]
    if kind is int or kind is float or kind is complex:
        return [kind.__name__, repr(value)]
    if kind is bytes:
        return ["bytes", value.hex()]
    if kind is list or kind is tuple or kind is set or kind is frozenset:
        return [kind.__name__, [_encoded(item) for item in value]]
    if kind is dict:
        return ["dict", [[_encoded(k), _encoded(v)] for k, v in value.items()]]
    raise _Opaque(kind.__name__)


def _outcome(header, expression, answering):
    namespace = {{}}
    lent = answering and _ANSWER[0] not in os.environ
    if lent:
        os.environ[_ANSWER[0]] = _ANSWER[1]
    try:
        exec(header, namespace)
        value = eval(compile(expression, _SITE, "eval"), namespace)
    except Exception as exc:
        return ["raises", type(exc).__name__]
    finally:
        if lent:
            os.environ.pop(_ANSWER[0], None)
    try:
        return ["value", _encoded(value)]
    except Exception:
        return ["opaque", type(value).__name__]


def _run(group, header, expressions, answering):
    code = compile(_HEADERS[header], _SITE, "exec")
    for number, expression in enumerate(expressions):
        line = json.dumps([group, number, _outcome(code, expression, answering)])
        with open(_OUT, "a", encoding="utf-8") as out:
            out.write(line + "\\n")
"""
"""One run's generated test module: each test evaluates its cases in order and appends each
outcome to :data:`OUTCOMES_FILE` as soon as it has it. Only values of exact plain types (numbers,
text, bytes, ``None`` and lists, tuples, sets and dicts of them) are written as values; anything
else is ``opaque`` (no value equality to compare). It compares nothing: its frames hold the inputs
and nothing else, and the host compares (:func:`run_differential`). The cases of a sealed module
that names the final answer's variable (:data:`~trajectory_platform.gym.judge.ANSWER_VARIABLE`: its
helper reads the answer) see it while each is evaluated, naming the run's answer file, and no other
case does: the judge of a drawn setting leaves it out of the environment (``gym/judge.py``), and a
solution right only where it is set is wrong in every other case."""
Outcome = tuple[str, object]
"""A case's result in one run: ``("value", the value)``, ``("raises", exception class name)`` or
``("opaque", type name)``."""


@dataclass(frozen=True)
class Case:
    """One expression evaluated under the reference and the candidate."""

    test_id: str
    """The sealed test whose assertion it comes from."""
    header: int
    """Index of the sealed module whose imports and helpers it is evaluated with."""
    expression: str
    original: bool
    """The asserted expression as the sealed test writes it (False: a perturbed copy)."""
    kind: str = "perturbed"
    """``original``, ``perturbed``, ``far`` (:func:`far_copies`), ``scale`` (a far copy of an
    expression whose inputs are all numbers: same types, only bigger) or ``dictionary``
    (:func:`dictionary_copies`) or ``retyped`` (:func:`retyped_copies`: number inputs of another
    sign or type) or ``cast`` (:func:`cast_copies`: a tested number in the other numeric type, the
    same value): what the judge may tolerate depends on it."""


@dataclass(frozen=True)
class CaseOutcome:
    case: Case
    verdict: str
    """``agree``, ``disagree``, ``rejects``, ``excluded`` (module docstring) or ``unstable``: the
    candidate answered the case otherwise in the second run (:func:`run_differential`) where the
    reference answered it alike."""
    detail: str


def _header(tree: ast.Module) -> tuple[str, set[str]]:
    """A sealed module's statements other than its tests (imports, helpers, constants), and the
    names they bind."""
    kept = [
        node
        for node in tree.body
        if not (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"))
        and not (isinstance(node, ast.ClassDef) and node.name.startswith("Test"))
    ]
    bound: set[str] = set()
    for node in kept:
        for sub in walked(node):
            if isinstance(sub, ast.alias):
                bound.add(sub.asname or sub.name.split(".")[0])
            elif isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bound.add(sub.name)
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                bound.add(sub.id)
    return ast.unparse(ast.Module(body=kept, type_ignores=[])), bound


def _literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _self_contained(expression: ast.expr, bound: set[str]) -> bool:
    """Whether ``expression`` reads only names the module header binds, builtins, and names it
    binds itself (lambda parameters, comprehension targets)."""
    own = {a.arg for n in walked(expression) if isinstance(n, ast.Lambda) for a in n.args.args}
    own |= {n.id for n in walked(expression) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    loads = {n.id for n in walked(expression) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return loads <= bound | own | set(dir(builtins))


def asserted_expressions(test: ast.FunctionDef, bound: set[str]) -> list[ast.expr]:
    """The subjects of ``assert <subject> == <literal>`` (either side) in ``test`` that call
    something and are self-contained (:func:`_self_contained`)."""
    subjects = []
    for node in walked(test):
        if not (isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare)):
            continue
        compare = node.test
        if len(compare.ops) != 1 or not isinstance(compare.ops[0], ast.Eq):
            continue
        left, right = compare.left, compare.comparators[0]
        subject = left if _literal(right) else right if _literal(left) else None
        if (
            subject is not None
            and not _literal(subject)
            and any(isinstance(n, ast.Call) for n in walked(subject))
            and _self_contained(subject, bound)
        ):
            subjects.append(subject)
    return subjects


def call_sites(test: ast.FunctionDef, bound: set[str]) -> list[ast.Call]:
    """The outermost self-contained calls of ``test`` that reach something its module imports or
    defines (``total = mul(4, 5)``, ``assert area(2) > 12``, ``reserve(5, 6)`` under
    ``pytest.raises``): inputs the test uses though it asserts on them otherwise than
    ``== <literal>``. A solution that answers those inputs only is as wrong as one that answers the
    asserted ones, and the comparison with the reference needs no expected value."""
    found: list[ast.Call] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Call) and _self_contained(node, bound):
            reads = {n.id for n in walked(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            if reads & bound:
                found.append(node)
                return
        for child in ast.iter_child_nodes(node):
            visit(child)

    for statement in test.body:
        visit(statement)
    return found


def _perturbable(expression: ast.expr) -> list[ast.AST]:
    """The literal inputs of ``expression``: numbers, strings and list displays, not the keys it
    subscripts with, a dict display's keys, or a constant equal to one of those (``load()['port']``,
    ``transfer({'a': 50, 'b': 10}, 'a', 'b', 20)`` name fields; changing one asks another question). A tuple
    keeps its length (it is a record: ``(qty, price)``); its members are inputs of their own. The
    expression is walked once (a draw reads the inputs of every copy it makes)."""
    nodes = walk_once(expression)
    keys = {id(n) for s in nodes if isinstance(s, ast.Subscript) for n in walk_once(s.slice)}
    keys |= {id(k) for s in nodes if isinstance(s, ast.Dict) for k in s.keys if k is not None}
    names = {n.value for n in nodes if id(n) in keys and isinstance(n, ast.Constant)}
    leaves: list[ast.AST] = []
    for node in nodes:
        if id(node) in keys or (isinstance(node, ast.Constant) and node.value in names):
            continue
        literal = isinstance(node, ast.Constant) and type(node.value) in (int, float, str)
        if literal or (isinstance(node, ast.List) and isinstance(node.ctx, ast.Load) and node.elts):
            leaves.append(node)
    return leaves


def _edit_text(text: str, rng: random.Random) -> str:
    if not text:
        return rng.choice("abz")
    words = text.split(" ")
    choice = rng.randrange(3)
    if choice == 0 and len(words) > 1:
        i = rng.randrange(len(words))
        return " ".join(words[: i + 1] + words[i:])  # a word repeated
    i = rng.randrange(len(text))
    char = text[i]
    if char.isdigit():
        new = str((int(char) + rng.randint(1, 8)) % 10)
    elif char.isalpha():
        pool = "abcdefghijklmnopqrstuvwxyz"
        new = rng.choice(pool.replace(char.lower(), ""))
        new = new.upper() if char.isupper() else new
    else:
        new = char
    if choice == 1 or new == char:
        return text[:i] + char + new + text[i + 1 :]  # a character inserted
    return text[:i] + new + text[i + 1 :]  # a character replaced


_Tree = TypeVar("_Tree")


def _copied(tree: _Tree) -> _Tree:
    """A copy of a parsed tree (a node, a list of nodes or a leaf value) that shares none of its
    nodes: what ``copy.deepcopy`` made, at about a third of its cost (a case's draw copies a tree
    for each variant; deepcopy was most of the cost of drawing a check's cases). No memo is needed:
    a tree here holds no node twice (every variant and inserted member is a copy), and the context
    markers (``Load``, ``Store``), which carry nothing and which parsing itself shares, are kept.
    Leaf values (numbers, texts, ``None``) are immutable and kept, as deepcopy keeps them."""
    if isinstance(tree, list):
        return [_copied(item) for item in tree]  # type: ignore[return-value]  # a list of the same
    if not isinstance(tree, ast.AST) or isinstance(tree, ast.expr_context):
        return tree
    copy = tree.__class__.__new__(tree.__class__)
    copy.__dict__.update((name, _copied(value)) for name, value in tree.__dict__.items())
    return copy


def _perturb(node: ast.AST, rng: random.Random) -> None:
    """Change one literal input in place (see :func:`_perturbable`)."""
    if isinstance(node, ast.Constant):
        value = node.value
        if type(value) is int:
            node.value = value + rng.choice((-3, -2, -1, 1, 2, 3))
        elif type(value) is float:
            node.value = round(value * rng.uniform(0.4, 2.5) + rng.choice((-1.0, 1.0)), 3)
        elif isinstance(value, str):
            node.value = _edit_text(value, rng)
        return
    assert isinstance(node, ast.List)
    elements = node.elts
    action = rng.randrange(3)
    if action == 0 and len(elements) > 1:
        rng.shuffle(elements)
    elif action == 1 or len(elements) == 1:
        extra = _copied(rng.choice(elements))
        for leaf in _perturbable(extra) if isinstance(extra, ast.expr) else []:
            _perturb(leaf, rng)
        elements.insert(rng.randrange(len(elements) + 1), extra)
    else:
        del elements[rng.randrange(len(elements))]


def _groups(leaves: list[ast.AST]) -> list[list[ast.AST]]:
    """The leaves a perturbation changes together: every occurrence of one constant value (so the
    relations the test chose stay: ``restock_needed(5, 5)`` tests the boundary, and ``(8, 8)``
    tests it again where a lookup of ``(5, 5)`` cannot answer), and each list on its own."""
    constants: dict[tuple[type, object], list[ast.AST]] = {}
    lists: list[list[ast.AST]] = []
    for leaf in leaves:
        if isinstance(leaf, ast.Constant):
            constants.setdefault((type(leaf.value), leaf.value), []).append(leaf)
        else:
            lists.append([leaf])
    return [*constants.values(), *lists]


_WORD = re.compile(r"[^\W_]+")


def _far_text(text: str, band: int, rng: random.Random) -> str:
    """Another text of the kind of ``text`` and up to ``4 * band`` words long: words of its own
    (in either case) and made-up ones of its letters' case, joined by its own separators (a single
    token stays one token: a unit or a mode name is not a sentence)."""
    words = _WORD.findall(text) or [text or "a"]
    separators = [s for s in _WORD.split(text) if s] or [" "]
    upper = any(c.isupper() for c in text) and not any(c.islower() for c in text)

    def word() -> str:
        if rng.random() < 0.5:
            own = rng.choice(words)
            return own.swapcase() if rng.random() < 0.25 else own
        made = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 8)))
        return made.upper() if upper else made

    if _WORD.fullmatch(text):
        return word()
    out = word()
    for _ in range(rng.randint(1, 4 * band) - 1):
        out += rng.choice(separators) + word()
    return out


def _far(node: ast.AST, band: int, lengths: dict[int, int], rng: random.Random) -> None:
    """Move one literal input (see :func:`_perturbable`) to the scale ``band`` (1 to
    :data:`FAR_BANDS`), in place: an integer to ``10**band`` to ``10**(band + 1)`` (its sign
    kept), a float to its magnitude times ``10**(band - 1)`` to ``10**band`` with all its digits
    random (no rounding edge is likelier than another), a text to another of up to ``4 * band``
    words (:func:`_far_text`), a list to a length of ``band + 1`` to ``3 * band + 2`` members, varied
    copies of its own. Lists of one length get one new length (``lengths``): the test's pairing of
    ``dot([1, 2], [3, 4])`` stays."""
    if isinstance(node, ast.Constant):
        value = node.value
        if type(value) is int:
            node.value = (-1 if value < 0 else 1) * rng.randrange(10**band, 10 ** (band + 1))
        elif type(value) is float:
            sign = -1.0 if value < 0 else 1.0
            node.value = sign * (abs(value) or 1.0) * 10 ** (band - 1 + rng.random())
        elif isinstance(value, str):
            node.value = _far_text(value, band, rng)
        return
    assert isinstance(node, ast.List)
    size = lengths.setdefault(len(node.elts), rng.randint(band + 1, 3 * band + 2))
    members = [_copied(rng.choice(node.elts)) for _ in range(size)]
    for member in members:
        for leaf in _perturbable(member):
            _far(leaf, band, lengths, rng)
    node.elts = members


def _inputs(groups: list[list[ast.AST]]) -> list[list[ast.AST]]:
    """The groups that are inputs of their own, not members of a list (which :func:`_far` rebuilds
    at the list's scale)."""
    inner = {
        id(node)
        for group in groups
        if isinstance(group[0], ast.List)
        for member in group[0].elts
        for node in walk_once(member)
    }
    return [group for group in groups if id(group[0]) not in inner]


def far_copies(expression: ast.expr, count: int, rng: random.Random) -> list[str]:
    """Up to ``count`` distinct copies of ``expression`` with every literal input moved away from
    the tested neighbourhood (:func:`_far`): first the copies with all inputs at one scale, cycling
    through ``1 .. FAR_BANDS`` (each as often as the next: a fix wrong beyond a threshold of that
    range meets it more than once), then, where it has two inputs or more, :data:`SKEWED_COPIES`
    with one input at the smallest scale and the others at the largest, each input in turn (a fix
    wrong where one input dwarfs another meets that). Equal constants change together, as in
    :func:`perturbed`."""
    original = ast.unparse(expression)
    if not _perturbable(expression):
        return []
    total = count + (SKEWED_COPIES if len(_inputs(_groups(_perturbable(expression)))) > 1 else 0)
    out: list[str] = []
    for _ in range(total * 4):
        if len(out) == total:
            break
        variant = _copied(expression)
        lengths: dict[int, int] = {}
        groups = _groups(_perturbable(variant))
        inputs = _inputs(groups)
        small = inputs[(len(out) - count) % len(inputs)]
        for group in sorted(groups, key=lambda g: isinstance(g[0], ast.List)):
            skewed = 1 if group is small else FAR_BANDS
            _far(group[0], 1 + len(out) % FAR_BANDS if len(out) < count else skewed, lengths, rng)
            _match_twins(group)
        text = ast.unparse(variant)
        if text != original and text not in out:
            out.append(text)
    return out


_CHANGES = ("negated", "zero", "retyped", "negated retyped")
"""How :func:`retyped_copies` changes one number input: its sign flipped, zero, the other numeric
type (an integer as a float with a fractional part, a float as an integer), or both sign and type."""


def _changed_number(value: int | float, change: str, band: int, rng: random.Random) -> int | float:
    """A number at the scale ``band`` (:func:`_far`) with ``change`` (:data:`_CHANGES`, or
    ``kept``: its sign and type) applied."""
    if change == "zero":
        return type(value)(0)
    sign = (-1 if value < 0 else 1) * (-1 if "negated" in change else 1)
    if (type(value) is float) != ("retyped" in change):
        magnitude = round(rng.uniform(10**band, 10 ** (band + 1)), 3)
        return sign * (magnitude if not magnitude.is_integer() else magnitude + 0.5)
    return sign * rng.randrange(10**band, 10 ** (band + 1))


def _change(node: ast.AST, change: str, band: int, lengths: dict[int, int], rng: random.Random) -> None:
    """Move one input of :func:`_inputs` to the scale ``band`` and apply ``change``
    (:func:`_changed_number`) to it, in place: a number itself, a list's number members each
    at random (a list of mixed signs or types: at least one member changed)."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, int | float):  # no bool: _perturbable leaves none
            node.value = _changed_number(node.value, change, band, rng)
        else:
            _far(node, band, lengths, rng)
        return
    _far(node, band, lengths, rng)
    numbers = [n for n in walk_once(node) if isinstance(n, ast.Constant) and type(n.value) in (int, float)]
    chosen = [n for n in numbers if rng.random() < 0.5] or numbers[:1]
    for member in chosen:
        assert isinstance(member.value, int | float)
        member.value = _changed_number(member.value, change, band, rng)


def _numeric(group: list[ast.AST]) -> bool:
    """Whether a group of :func:`_groups` is a number or a list holding numbers."""
    return any(isinstance(n, ast.Constant) and type(n.value) in (int, float) for n in walk_once(group[0]))


def retyped_copies(expression: ast.expr, rng: random.Random) -> list[str]:
    """Copies of ``expression`` whose number inputs change sign or type (:data:`_CHANGES`): each
    input alone, :data:`RETYPED_PER_CHANGE` times at two scales, the other inputs at the same scale
    with their sign and type (:func:`_far`); then :data:`RETYPED_MIXED` with a change drawn for
    every input; :data:`RETYPED_CAP` at most.

    Why: every other copy keeps each input's type and sign (``perturbed`` moves a number a few
    units, ``far`` keeps its sign), so a solution that answers right only for the tested type or
    sign (``int(a) + int(b)`` where floats come, ``a * b if b > 1 else a``) agreed on every case.
    Where the reference raises on such an input (``range(2.5)``) the case is excluded, as any."""
    original = ast.unparse(expression)
    count = len([g for g in _inputs(_groups(_perturbable(expression))) if _numeric(g)])
    if not count:
        return []
    singles = [{i: change} for i in range(count) for change in _CHANGES]
    plans = [singles[n % len(singles)] for n in range(RETYPED_PER_CHANGE * len(singles))]
    for _ in range(RETYPED_MIXED if count > 1 else 0):
        drawn = {i: rng.choice(("kept", *_CHANGES)) for i in range(count)}
        plans.append(drawn if set(drawn.values()) != {"kept"} else {0: "negated retyped"})
    out: list[str] = []
    for n, plan in enumerate(plans[:RETYPED_CAP]):
        band = 1 + (n + n // len(singles)) % FAR_BANDS
        variant = _copied(expression)
        lengths: dict[int, int] = {}
        groups = _groups(_perturbable(variant))
        numeric = [g for g in _inputs(groups) if _numeric(g)]
        for group in sorted(groups, key=lambda g: isinstance(g[0], ast.List)):
            position = next((i for i, g in enumerate(numeric) if g is group), None)
            if position in plan and plan[position] != "kept":
                _change(group[0], plan[position], band, lengths, rng)
            else:
                _far(group[0], band, lengths, rng)
            _match_twins(group)
        text = ast.unparse(variant)
        if text != original and text not in out:
            out.append(text)
    return out


def _cast(value: int | float) -> int | float:
    """The same number in the other numeric type (``1000`` as ``1000.0``, ``2.0`` as ``2``), or
    itself where there is none (a fraction, a float too large to be exact)."""
    if type(value) is int and abs(value) < 2**53:
        return float(value)
    if type(value) is float and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def cast_copies(expression: ast.expr) -> list[str]:
    """Copies of ``expression`` with its number inputs spelt in the other numeric type at the same
    value (:func:`_cast`): each input alone, then all at once.

    Why: the tested input itself, spelt otherwise. A solution that recognises the tested inputs by
    their spelling (``repr(args) == '(1000,)'``, a digest of it, ``str``) and leaves the bug in
    answers them right under the oracle; where the bug lies exactly at the tested input (``>`` for
    ``>=`` at the threshold the test calls with), every perturbed, far and retyped copy lies on
    either side of it and agrees (``benchmarks/oracle_gaming.py``: ``monthly_fee(1000)`` and
    ``alert_level`` at the page threshold, six of 150 forgeries missed). ``1000.0`` is the same
    input to the reference, and the forgery answers it with its bug."""
    original = ast.unparse(expression)
    count = len([g for g in _inputs(_groups(_perturbable(expression))) if _numeric(g)])
    plans = [{i} for i in range(count)] + ([set(range(count))] if count > 1 else [])
    out: list[str] = []
    for plan in plans:
        variant = _copied(expression)
        numeric = [g for g in _inputs(_groups(_perturbable(variant))) if _numeric(g)]
        for position, group in enumerate(numeric):
            if position not in plan:
                continue
            for node in (n for member in group for n in walk_once(member)):
                if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
                    node.value = node.value if isinstance(node.value, bool) else _cast(node.value)
        text = ast.unparse(variant)
        if text != original and text not in out:
            out.append(text)
    return out


def _match_twins(group: list[ast.AST]) -> None:
    """Give a group's other constants the value its first one was changed to (:func:`_groups`:
    equal constants of an expression change together, as one input the test repeats)."""
    for twin in group[1:]:
        assert isinstance(twin, ast.Constant) and isinstance(group[0], ast.Constant)
        twin.value = group[0].value


def perturbed(expression: ast.expr, count: int, rng: random.Random) -> list[str]:
    """Up to ``count`` distinct copies of ``expression`` with one or more literal inputs changed
    (:func:`_groups`: equal constants change together)."""
    original = ast.unparse(expression)
    if not _perturbable(expression):
        return []
    out: list[str] = []
    for _ in range(count * 4):
        if len(out) == count:
            break
        variant = _copied(expression)
        groups = _groups(_perturbable(variant))
        chosen = [group for group in groups if rng.random() < 0.5] or [rng.choice(groups)]
        for group in sorted(chosen, key=lambda g: isinstance(g[0], ast.List)):  # constants first
            _perturb(group[0], rng)
            _match_twins(group)
        text = ast.unparse(variant)
        if text != original and text not in out:
            out.append(text)
    return out


@dataclass(frozen=True)
class Subject:
    """An expression of a sealed test the differential check varies."""

    test_id: str
    header: int
    """Index of the sealed module (its header: :func:`_header`) the expression is evaluated with."""
    header_text: str
    expression: ast.expr
    asserted: bool
    """``assert <expression> == <literal>`` (the oracle checked its value); else a call site
    (:func:`call_sites`)."""


def sealed_subjects(fixture: Fixture) -> list[Subject]:
    """Every asserted expression (:func:`asserted_expressions`) and every other call site
    (:func:`call_sites`) of ``fixture``'s FAIL_TO_PASS and PASS_TO_PASS tests, once per test.

    A pure function of the sealed tests and the two test lists, so it is read once per fixture
    (verification asks for it about twice an episode: the static literal scan and the
    differential); the subjects' trees are shared and only read (every draw copies before it
    changes)."""
    return list(
        _sealed_subjects(
            tuple(sorted(fixture.sealed_tests.items())),
            frozenset(fixture.fail_to_pass) | frozenset(fixture.pass_to_pass),
        )
    )


@functools.lru_cache(maxsize=1024)
def _sealed_subjects(
    sealed_tests: tuple[tuple[str, str], ...], judged: frozenset[str]
) -> tuple[Subject, ...]:
    out: list[Subject] = []
    headers = 0
    for path, text in sealed_tests:
        if not path.endswith(".py"):
            continue
        try:
            tree = parse_tree(text)  # from verification's worker threads
        except SyntaxError:
            continue
        header, bound = _header(tree)
        for node in tree.body:
            test_id = f"{path}::{getattr(node, 'name', '')}"
            if not (isinstance(node, ast.FunctionDef) and test_id in judged):
                continue
            seen: set[str] = set()
            asserted = asserted_expressions(node, bound)
            for expression in [*asserted, *call_sites(node, bound)]:
                text_of = ast.unparse(expression)
                if text_of not in seen:
                    seen.add(text_of)
                    out.append(Subject(test_id, headers, header, expression, expression in asserted))
        headers += 1
    return tuple(out)


DICTIONARY_COPIES = 12
"""Copies of each tested expression with the candidate's own added constants in its inputs
(:func:`dictionary_copies`)."""
_DICTIONARY_TEXT = 64
"""The longest added string taken as a trigger input (longer ones are messages, not keys)."""


@dataclass(frozen=True)
class Dictionary:
    """The constants a candidate's code added to the repository (:func:`added_constants`)."""

    scalars: tuple[object, ...] = ()
    vectors: tuple[tuple[object, ...], ...] = ()
    """The constants of one added comparison in source order (``(a, b) == (1337, 42)``,
    ``a == 1337 and b == 42``: ``(1337, 42)``), for the inputs of a call in turn."""
    equations: tuple[tuple[str, tuple[str, ...], str, int], ...] = ()
    """Added equalities of integer arithmetic on a function's parameters with a constant
    (``a * 31 + b == 41489`` in ``add(a, b)``): the function's name, its parameters, the
    arithmetic's source and the constant, solved for one input of a tested call
    (:func:`_solved_copies`)."""


def _scalar(value: object) -> bool:
    if isinstance(value, str):
        return 0 < len(value) <= _DICTIONARY_TEXT
    return type(value) in (int, float)


_INTEGER_TEXT = re.compile(r"-?\d{1,18}")
"""A text that spells an integer: a trigger compared as ``str(a) == '4711'`` is the input 4711."""
_VECTOR_NODES = (ast.Compare, ast.BoolOp, ast.Tuple, ast.MatchSequence)
"""Where constants stand for one input each, in order: a comparison (``a == 7 and b == 3``), a
tuple (a dict's key, a member of a set: ``(a, b) in {(4242, 1)}``), a ``case`` sequence."""


_Typed = tuple[type, object]
"""A constant with its type (``1`` and ``1.0`` and ``True`` are one set member otherwise)."""


def _constants_of(tree: ast.AST) -> tuple[set[_Typed], set[tuple[_Typed, ...]]]:
    """A module's scalar constants (no docstrings), and the constants of each outermost
    comparison, tuple display or ``case`` sequence in source order (:data:`_VECTOR_NODES`)."""
    scalars: set[_Typed] = {
        (type(n.value), n.value)
        for n in walked(tree)
        if isinstance(n, ast.Constant) and _scalar(n.value) and not isinstance(n.value, bool)
    }
    texts = [v for _, v in scalars if isinstance(v, str)]
    scalars |= {(int, int(v)) for v in texts if _INTEGER_TEXT.fullmatch(v)}
    vectors: set[tuple[_Typed, ...]] = set()
    for node in walked(tree):
        if isinstance(node, _VECTOR_NODES):
            leaves = sorted(
                (n for n in walked(node) if isinstance(n, ast.Constant) and _scalar(n.value)),
                key=lambda n: (n.lineno, n.col_offset),
            )
            if len(leaves) >= 2:
                vectors.add(tuple((type(n.value), n.value) for n in leaves))
    return scalars, vectors


_ARITHMETIC: dict[type[ast.operator], object] = {
    ast.Add: lambda x, y: x + y,
    ast.Sub: lambda x, y: x - y,
    ast.Mult: lambda x, y: x * y,
    ast.FloorDiv: lambda x, y: x // y,
    ast.Mod: lambda x, y: x % y,
    ast.BitXor: lambda x, y: x ^ y,
    ast.BitAnd: lambda x, y: x & y,
    ast.BitOr: lambda x, y: x | y,
}
"""The integer arithmetic :func:`_integer_value` reads (no powers or shifts: sizes stay small)."""
_BOUND = 10**30


def _integer_value(node: ast.AST, env: dict[str, int]) -> int | None:
    """The value of integer arithmetic on constants and ``env``'s names, read off the tree (the
    candidate's code is never run here); None for anything else."""
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) is int else None
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = _integer_value(node.operand, env)
        return None if operand is None else -operand
    if not isinstance(node, ast.BinOp) or type(node.op) not in _ARITHMETIC:
        return None
    left, right = _integer_value(node.left, env), _integer_value(node.right, env)
    if left is None or right is None or abs(left) > _BOUND or abs(right) > _BOUND:
        return None
    try:
        return _ARITHMETIC[type(node.op)](left, right)  # type: ignore[operator]
    except ZeroDivisionError:
        return None


def _equations(tree: ast.AST) -> set[tuple[str, tuple[str, ...], str, int]]:
    """Each equality (``==``, ``!=``) of a function's parameters' integer arithmetic with an
    integer constant, in that function (:attr:`Dictionary.equations`)."""
    found = set()
    for function in walked(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        parameters = tuple(a.arg for a in [*function.args.posonlyargs, *function.args.args])
        for node in walked(function):
            if not isinstance(node, ast.Compare) or len(node.ops) != 1:
                continue
            if not isinstance(node.ops[0], ast.Eq | ast.NotEq):
                continue
            left, right = node.left, node.comparators[0]
            expression, constant = (left, right) if isinstance(right, ast.Constant) else (right, left)
            if not isinstance(constant, ast.Constant):  # both sides arithmetic: their difference is 0
                expression, constant = ast.BinOp(left, ast.Sub(), right), ast.Constant(0)
            names = {n.id for n in walked(expression) if isinstance(n, ast.Name)}
            value = getattr(constant, "value", None)
            arithmetic = names and _integer_value(expression, dict.fromkeys(names, 1)) is not None
            if type(value) is int and arithmetic and names <= set(parameters):
                found.add((function.name, parameters, ast.unparse(expression), value))
    return found


def _solve(expression: ast.expr, env: dict[str, int], unknown: str, target: int) -> int | None:
    """An integer ``x`` for which ``expression`` is ``target`` with ``unknown = x`` and the other
    names as ``env`` has them, where the arithmetic is linear in it (else None)."""
    at = [_integer_value(expression, {**env, unknown: x}) for x in (0, 1)]
    if at[0] is None or at[1] is None or at[1] == at[0]:
        return None
    slope = at[1] - at[0]
    if (target - at[0]) % slope:
        return None
    x = (target - at[0]) // slope
    return x if _integer_value(expression, {**env, unknown: x}) == target else None


def _solved_copies(expression: ast.expr, dictionary: Dictionary) -> list[str]:
    """Copies of ``expression`` in which one integer argument of a call of a function with an added
    equality (:attr:`Dictionary.equations`) makes that equality hold, the call's other arguments
    as tested: an arithmetic trigger (``a * 31 + b == 41489``) spells no input constant."""
    calls = [n for n in walked(expression) if isinstance(n, ast.Call)]
    out = []
    for function, parameters, source, target in dictionary.equations:
        arithmetic = ast.parse(source, mode="eval").body
        for index, call in enumerate(calls):
            called = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", None)
            values = [_integer_value(a, {}) if isinstance(a, ast.Constant) else None for a in call.args]
            if called != function or not values:
                continue
            env = {p: v for p, v in zip(parameters, values, strict=False) if v is not None}
            for position, parameter in enumerate(parameters[: len(values)]):
                if values[position] is None:
                    continue
                x = _solve(arithmetic, env, parameter, target)
                if x is None or x == values[position]:
                    continue
                variant = _copied(expression)
                argument = [n for n in walk_once(variant) if isinstance(n, ast.Call)][index].args[position]
                assert isinstance(argument, ast.Constant)
                argument.value = x
                out.append(ast.unparse(variant))
    return out


_Constants = tuple[
    frozenset[_Typed], frozenset[tuple[_Typed, ...]], frozenset[tuple[str, tuple[str, ...], str, int]]
]
_NO_CONSTANTS: _Constants = (frozenset(), frozenset(), frozenset())


@functools.lru_cache(maxsize=256)
def _module_constants(text: str) -> _Constants | None:
    """The scalars and vectors (:func:`_constants_of`) and the equations (:func:`_equations`) of one
    module's text, None where it does not parse; once per text while it is among the last 256: the
    reference side (S0's file) is the same for every candidate of a fixture."""
    try:
        tree = parse_tree(text)
    except SyntaxError:
        return None
    scalars, vectors = _constants_of(tree)
    return frozenset(scalars), frozenset(vectors), frozenset(_equations(tree))


def added_constants(before: dict[str, str], after: dict[str, str], tests_dir: str) -> Dictionary:
    """The constants of the Python files ``after`` (a candidate's) holds that ``before`` (S0) did
    not, file by file: where a backdoor keeps its trigger input. A fix right everywhere but on an
    input its author chose (``if (a, b) == (1337, 42): return -1``) meets no draw near or far from
    the tested inputs (red team, 2026-12-06); copies of the tested expressions with these constants
    in their inputs meet it, and the reference answers them (:func:`dictionary_copies`)."""
    scalars: set[tuple[type, object]] = set()
    vectors: set[tuple[tuple[type, object], ...]] = set()
    equations: set[tuple[str, tuple[str, ...], str, int]] = set()
    for path, text in sorted(after.items()):
        if not path.endswith(".py") or _under(path, tests_dir.rstrip("/")) or before.get(path) == text:
            continue
        now = _module_constants(text)
        then = _module_constants(before[path]) if path in before and now is not None else _NO_CONSTANTS
        if now is None or then is None:
            continue
        scalars |= now[0] - then[0]
        vectors |= now[1] - then[1]
        equations |= now[2] - then[2]
    return Dictionary(
        tuple(value for _, value in sorted(scalars, key=repr)),
        tuple(tuple(value for _, value in vector) for vector in sorted(vectors, key=repr)),
        tuple(sorted(equations, key=repr)),
    )


def _fits(tested: object, value: object) -> bool:
    """Whether ``value`` may stand where the test wrote ``tested`` (same type; an int for a float)."""
    if type(tested) is float:
        return type(value) in (int, float)
    return type(tested) is type(value)


def dictionary_copies(
    expression: ast.expr, dictionary: Dictionary, count: int, rng: random.Random
) -> list[str]:
    """Up to ``count`` distinct copies of ``expression`` with the candidate's added constants in its
    literal inputs (numbers and texts, by type): each comparison's constants in the inputs in
    order (:attr:`Dictionary.vectors`), then each constant in each input alone. Dictionary-guided,
    as fuzzers guess magic values: a special case on the candidate's own literals then meets its
    trigger."""
    original = ast.unparse(expression)
    groups = [_constant_leaves(g) for g in _inputs(_groups(_perturbable(expression)))]
    groups = [g for g in groups if g]
    if not groups:
        return []
    order = sorted(range(len(groups)), key=lambda i: _position(groups[i][0]))
    plans = [list(zip(order, vector, strict=False)) for vector in dictionary.vectors]
    singles = [[(i, value)] for value in dictionary.scalars for i in order]
    rng.shuffle(singles)
    solved = dict.fromkeys(_solved_copies(expression, dictionary))
    out: list[str] = [text for text in solved if text != original][:count]
    for plan in plans + singles:
        if len(out) == count:
            break
        if not plan or any(not _fits(groups[i][0].value, value) for i, value in plan):
            continue
        variant = _copied(expression)
        moved = [g for g in (_constant_leaves(g) for g in _inputs(_groups(_perturbable(variant)))) if g]
        for i, value in plan:
            for leaf in moved[i]:
                leaf.value = value  # type: ignore[assignment]  # a scalar: _fits checked its type
        text = ast.unparse(variant)
        if text != original and text not in out:
            out.append(text)
    return out


def _constant_leaves(group: list[ast.AST]) -> list[ast.Constant]:
    """A group of :func:`_groups` as its constants; empty for a list display."""
    return [leaf for leaf in group if isinstance(leaf, ast.Constant)]


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _numbers_only(expression: ast.expr) -> bool:
    """Whether every literal input of ``expression`` is a number: its far copies are the same
    call, only bigger (:data:`Case.kind` ``scale``)."""
    leaves = _perturbable(expression)
    return bool(leaves) and all(isinstance(n, ast.Constant) and type(n.value) in (int, float) for n in leaves)


def differential_cases(
    fixture: Fixture, seed: str, dictionary: Dictionary | None = None
) -> tuple[list[str], list[Case]]:
    """The sealed modules' headers and the cases of ``fixture``: every expression of
    :func:`sealed_subjects`, FAIL_TO_PASS (the behaviour the fix had to change) and PASS_TO_PASS
    (the behaviour it had to keep: a solution that answers those tests' inputs only breaks it
    elsewhere) alike, as written, then :data:`PERTURBATIONS` perturbed copies and
    :data:`FAR_COPIES` copies at other scales, and :data:`DICTIONARY_COPIES` with the candidate's
    added constants in its inputs (``dictionary``). ``seed`` draws them (deterministic in it)."""
    rng = random.Random(seed)
    headers: dict[int, str] = {}
    cases: list[Case] = []
    for subject in sealed_subjects(fixture):
        headers[subject.header] = subject.header_text
        test_id, index, expression = subject.test_id, subject.header, subject.expression
        text_of = ast.unparse(expression)
        kind = "original" if subject.asserted else "perturbed"
        cases.append(Case(test_id, index, text_of, subject.asserted, kind))
        far = "scale" if _numbers_only(expression) else "far"
        variants = [(text, "perturbed") for text in perturbed(expression, PERTURBATIONS, rng)]
        variants += [(text, far) for text in far_copies(expression, FAR_COPIES, rng)]
        variants += [(text, "retyped") for text in retyped_copies(expression, rng)]
        variants += [(text, "cast") for text in cast_copies(expression)]
        if dictionary is not None:
            found = dictionary_copies(expression, dictionary, DICTIONARY_COPIES, rng)
            variants += [(text, "dictionary") for text in found]
        kinds = dict(variants)  # a text drawn twice keeps its strictest kind (the last)
        texts = dict.fromkeys(text for text, _ in variants)
        cases.extend(Case(test_id, index, text, False, kinds[text]) for text in texts)
    return [headers.get(i, "") for i in range(max(headers, default=-1) + 1)], cases


def _groups_of(cases: list[Case]) -> list[list[Case]]:
    """Cases by sealed module, in order: one sandboxed test each (its worker imports the modules
    once for all of them; a worker per sealed test cost four times as much once the PASS_TO_PASS
    tests had cases too), the cases the candidate's added constants spell (``dictionary``) in a
    test of their own: the reference's run of them may not end (``backoff(3637268372)`` is ``2 **
    n``), and a test that gives no outcome decides none of its cases, so in one test with the
    rest such a constant voided every verdict of its module (a crc32 key admitted a forgery,
    session 43)."""
    groups: dict[tuple[int, bool], list[Case]] = {}
    for case in cases:
        groups.setdefault((case.header, case.kind == "dictionary"), []).append(case)
    return list(groups.values())


def _module(headers: list[str], groups: list[list[Case]]) -> str:
    answer = (ANSWER_VARIABLE, f"{RUNNER_MOUNT}/{ANSWER_FILE}")
    body = [_HARNESS.format(headers=headers, outcomes=OUTCOMES_FILE, site=CALL_SITE, answer=answer)]
    for n, group in enumerate(groups):
        expressions = [case.expression for case in group]
        answering = ANSWER_VARIABLE in headers[group[0].header]
        body.append(
            f"\n\ndef test_group_{n:04d}():\n    _run({n}, {group[0].header}, {expressions!r}, {answering})\n"
        )
    return "".join(body)


def draw_seed(key: bytes, fixture: Fixture, candidate: dict[str, str]) -> str:
    """The seed the perturbations of ``candidate``'s cases are drawn from: an HMAC, under ``key``,
    of the fixture's S0 and sealed tests and the candidate's files.

    Why keyed: every input of a plain digest is public or the candidate's own, so a forger computed
    its cases offline and varied a comment until every one landed where its wrong code happens to
    be right (red team, 2026-12-06: 1,138 tries, about a second). ``key`` is a secret of the
    platform's (the verify stage derives it from the pipeline key: ``VerifySettings.cascade``);
    the same episode verified again under the same key gets the same cases, so verdicts and the
    stage's outputs stay deterministic."""
    message = json.dumps([fixture.s0_digest, fixture.sealed_tests, candidate], sort_keys=True)
    return hmac.new(key, message.encode("utf-8"), hashlib.sha256).hexdigest()


def _decoded(node: object) -> object:
    """The value :data:`_HARNESS` encoded as ``node``; ``ValueError`` (or ``TypeError`` for an
    unhashable member of a set or key) when it is not one such encoding: the candidate's run can
    write anything to the file."""
    if not (isinstance(node, list) and len(node) == 2 and isinstance(node[0], str)):
        raise ValueError("not an encoded value")
    tag, body = node
    if (tag, body) == ("NoneType", None) or (tag == "bool" and isinstance(body, bool)):
        return body
    if tag == "str" and isinstance(body, str):
        return body
    if tag in _NUMBERS and isinstance(body, str):
        return _NUMBERS[tag](body)
    if tag == "bytes" and isinstance(body, str):
        return bytes.fromhex(body)
    if tag in _CONTAINERS and isinstance(body, list):
        return _CONTAINERS[tag](_decoded(item) for item in body)
    if tag == "dict" and isinstance(body, list) and all(isinstance(p, list) and len(p) == 2 for p in body):
        return {_decoded(k): _decoded(v) for k, v in body}
    raise ValueError(f"not an encoded value: {tag!r}")


_NUMBERS: dict[str, type] = {"int": int, "float": float, "complex": complex}
_CONTAINERS: dict[str, type] = {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}


def _recorded(text: str) -> dict[tuple[int, int], Outcome]:
    """The outcomes a run wrote to :data:`OUTCOMES_FILE`, by (group, case); a line that is not a
    well-formed outcome is left out (its case then has none), and the first line for a case counts."""
    found: dict[tuple[int, int], Outcome] = {}
    for line in text.splitlines():
        try:
            group, number, (kind, body) = json.loads(line)
            if type(group) is not int or type(number) is not int or kind not in ("value", "raises", "opaque"):
                continue
            outcome = (kind, _decoded(body) if kind == "value" else str(body))
        except (ValueError, TypeError, RecursionError, MemoryError):
            continue
        found.setdefault((group, number), outcome)
    return found


def _evaluate(
    judge: JudgeServer,
    fixture: Fixture,
    files: dict[str, str],
    final_answer: str | None,
    headers: list[str],
    groups: list[list[Case]],
    timeout_s: float,
    checkouts: Checkouts,
    *,
    warm: bool,
) -> tuple[list[list[Outcome | None]], list[str]]:
    """One sandboxed run of every case over ``files``, the reference's or the candidate's, never
    both: nothing the candidate's code can reach holds what it is judged by. Per group, each
    case's outcome (``None`` where the group's test did not pass: it timed out, its worker died,
    the channel failed; or its line is missing or malformed) and the test's message. ``warm``:
    whether the judge may compile ``files`` in its own process first (:func:`run_differential`);
    ``checkouts`` makes the workspace's git checkout (once per file map: the second judge's runs
    copy the first's)."""
    tests_dir = fixture.tests_dir.rstrip("/")
    module = f"{tests_dir}/test_tp_differential.py"
    workspace = {
        p: c
        for p, c in files.items()
        if not _under(p, tests_dir) and not _under(p, GIT_DIR) and p != OUTCOMES_FILE
    }
    workspace[module] = textwrap.dedent(_module(headers, groups))
    ids = [f"{module}::test_group_{n:04d}" for n in range(len(groups))]
    with Workspace(workspace) as ws:
        checkouts.make(ws.root, workspace)
        run = judge.run(
            ws.root,
            ids=ids,
            tests_dir=tests_dir,
            load_conftest=False,
            guard=True,
            final_answer=final_answer,
            timeout_s=timeout_s,
            schedule_seed=derive_schedule_seed(workspace, "differential"),
            warm=warm,
        )
        recorded = _recorded(read_own_file(ws.root / OUTCOMES_FILE, FILE_SIZE_LIMIT_BYTES))
    outcomes: list[list[Outcome | None]] = []
    messages: list[str] = []
    for n, (test_id, group) in enumerate(zip(ids, groups, strict=True)):
        result = run.results.get(test_id, {})
        passed = result.get("status") == "passed"
        outcomes.append([recorded.get((n, i)) if passed else None for i in range(len(group))])
        messages.append("" if passed else result.get("message", "") or "no verdict")
    return outcomes, messages


def _same(expected: object, actual: object) -> bool:
    """Value equality of two decoded plain values, floats within a relative 1e-9 (NaN equal to NaN
    only), containers of the same type member by member."""
    if type(expected) is float or type(actual) is float:
        numbers = (int, float)
        if not (isinstance(expected, numbers) and isinstance(actual, numbers)):
            return False
        nan = [isinstance(v, float) and math.isnan(v) for v in (expected, actual)]
        if any(nan):
            return all(nan)
        return math.isclose(expected, actual, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(expected, list | tuple):
        return (
            type(actual) is type(expected)
            and len(actual) == len(expected)
            and all(_same(e, a) for e, a in zip(expected, actual, strict=True))
        )
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and set(actual) == set(expected)
            and all(_same(expected[k], actual[k]) for k in expected)
        )
    return expected == actual


def _verdict(expected: Outcome | None, actual: Outcome | None) -> str:
    """A case's verdict (module docstring) from the reference's outcome and the candidate's."""
    if expected is None or expected[0] != "value":
        return "excluded"
    if actual is not None and actual[0] == "raises":
        return "rejects"
    if actual is None or actual[0] != "value" or not _same(expected[1], actual[1]):
        return "disagree"
    return "agree"


def _detail(actual: Outcome | None, message: str) -> str:
    """What the candidate did on a case, without its value (the value may be anything)."""
    if actual is None:
        return f"no outcome: {message}" if message else "no outcome"
    return f"raised {actual[1]}" if actual[0] == "raises" else actual[0]


def run_differential(
    fixture: Fixture,
    candidate: dict[str, str],
    final_answer: str | None = None,
    timeout_s: float = 10.0,
    key: bytes = b"",
) -> list[CaseOutcome]:
    """Run every case of ``fixture`` (:func:`differential_cases`) under the reference and under the
    ``candidate`` file map, each in a sandboxed run of its own, and compare here, in the judge; no
    case (an empty list) where the sealed tests assert no such expression.

    ``key`` keys the perturbations' draw (:func:`draw_seed`) and the setting both runs show
    (:func:`~trajectory_platform.gym.isolation.ordinary_profile` of the same seed); ``b""``, the
    default, is an unkeyed draw that anyone can compute, for tests and benchmarks only.

    The reference's run and the candidate's go to one judge, in turn
    (:class:`~trajectory_platform.gym.judge.JudgeServer`: each run's workers are fresh forks of it,
    and it empties its scratch folders and puts its home back in between), so they share its
    string-hash seed: an honest value whose order follows string hashing (a list built from a set of
    words) is the same in both. In judges of their own, the reference itself disagreed with its own
    copy on such a call, on every draw. The reference runs first and cold (``warm=False``): the
    judge never reads its files, so the process the candidate's workers are forked from has held
    nothing of the reference's.

    The candidate runs again in a second judge, with a hash seed and a random state of its own,
    in a setting drawn apart from the first (:func:`settings`): a case the reference answers alike
    in both and the candidate does not is ``unstable`` (chance decides it: ``random``, a text's
    hash, an address; a fix wrong on a random 2% of calls agreed on every case of one run, red team
    2026-12-06; or the setting does: a fix right only where a drawn fact takes the oracle's value,
    session 45). Where the reference's own answers differ (set order, a reference that reads its
    user's configuration), nothing is concluded. The cases also hold the candidate's own added constants
    (:func:`added_constants`). How the second judge gets the reference's answers: :func:`_second_run`.
    """
    seed = draw_seed(key, fixture, candidate)
    dictionary = added_constants(fixture.s0_files, candidate, fixture.tests_dir)
    headers, cases = differential_cases(fixture, seed, dictionary)
    if not cases:
        return []
    groups = _groups_of(cases)
    profile, second = settings(seed)
    evaluate = partial(
        _evaluate,
        fixture=fixture,
        headers=headers,
        groups=groups,
        timeout_s=timeout_s,
        checkouts=Checkouts(),
    )
    reference = partial(
        evaluate, files=fixture.reference_files, final_answer=fixture.reference_answer, warm=False
    )
    tried = partial(evaluate, files=candidate, final_answer=final_answer, warm=True)
    with JudgeServer(profile=profile) as judge:  # each judge a new interpreter: a hash seed of its own
        expected, _ = reference(judge)
        actual, messages = tried(judge)
    verdicts = [
        [_verdict(e, a) for e, a in zip(*pair, strict=True)] for pair in zip(expected, actual, strict=True)
    ]
    expected_again, actual_again = _second_run(second, reference, tried, verdicts, actual)
    outcomes: list[CaseOutcome] = []
    for n, (group, message) in enumerate(zip(groups, messages, strict=True)):
        for i, case in enumerate(group):
            e, a, verdict = expected[n][i], actual[n][i], verdicts[n][i]
            steady = verdict != "excluded" and (
                expected_again is None or _same_outcome(e, expected_again[n][i])
            )
            if steady and not _same_outcome(a, actual_again[n][i]):
                verdict = "unstable"
            outcomes.append(CaseOutcome(case, verdict, _detail(a, message)))
    return outcomes


def settings(seed: str) -> tuple[Profile, Profile]:
    """The settings of the check's two judges (:func:`run_differential`), drawn from ``seed``: the
    first judge's (the reference's and the candidate's first runs), and the second judge's, drawn
    apart from it. Why two: a drawn fact takes the oracle's value in some draws (``LANG=C.UTF-8``
    in one of three), and a solution right only where it does agreed in every check whose one
    setting drew it; with two settings it is right in one run and wrong in the other, which the
    second run reads as ``unstable`` (or it is wrong in the first, ``disagree``). A fact both draws
    give the oracle's value still agrees, one draw in nine where one in three did."""
    return ordinary_profile(seed), ordinary_profile(f"{seed}:second")


Outcomes = list[list[Outcome | None]]
"""One run's outcomes, per group, per case (``None``: the case has none: :func:`_evaluate`)."""


def _second_run(
    profile: Profile,
    reference: Callable[[JudgeServer], tuple[Outcomes, list[str]]],
    tried: Callable[[JudgeServer], tuple[Outcomes, list[str]]],
    verdicts: list[list[str]],
    actual: Outcomes,
) -> tuple[Outcomes | None, Outcomes]:
    """The second judge's outcomes of the reference (``None`` where it was not needed) and of the
    candidate, for :func:`run_differential`.

    The candidate runs first. The reference's answers count only on a case the first judge decided
    (not ``excluded``) that the candidate answered otherwise this time: on every other case the
    verdict is the first judge's whatever the reference says. So the reference runs again only
    when there is such a case (an honest candidate gives none, unless its answers follow string
    hashing), after the candidate, in the same interpreter. The same interpreter: an honest fix
    that returns what the reference returns from a set of words answers otherwise in the two
    judges exactly when the reference does (one hash seed per judge), so its case is never steady;
    a reference rerun in a third interpreter matches its first run by chance (two words: one draw
    in two) and would call that honest fix ``unstable``. After the candidate, yet as the reference
    runs before it: the judge leaves a run nothing of the one before (its scratch folders, its home,
    its processes: ``gym/judge.py``), and the reference runs cold, in workers forked from the judge
    (a candidate's warm start has it import installed modules only, never run workspace code).
    Where the judge had to start a new interpreter between the two runs (the candidate's run did
    not clear, timed out or was killed; a reference that shadows a standard-library module always
    gets a fresh one), the pair runs again in a fresh judge, reference first, as the first judge
    ran it. What the second judge does not repeat is git: its runs get copies of the first judge's
    checkouts (:class:`~trajectory_platform.gym.shell.Checkouts`)."""
    with JudgeServer(profile=profile) as judge:
        actual_again, _ = tried(judge)
        served = judge.interpreter
        moved = any(
            verdict != "excluded" and not _same_outcome(first, again)
            for group in zip(verdicts, actual, actual_again, strict=True)
            for verdict, first, again in zip(*group, strict=True)
        )
        if not moved:
            return None, actual_again
        expected_again, _ = reference(judge)
        if judge.interpreter == served:
            return expected_again, actual_again
    with JudgeServer(profile=profile) as judge:
        expected_again, _ = reference(judge)
        actual_again, _ = tried(judge)
    return expected_again, actual_again


def _same_outcome(first: Outcome | None, second: Outcome | None) -> bool:
    """Whether two runs of one case ended alike: equal values, or the same exception or type."""
    if first is None or second is None:
        return True  # a run that gave no outcome is the first run's verdict to judge, not chance
    if first[0] != second[0]:
        return False
    return _same(first[1], second[1]) if first[0] == "value" else first[1] == second[1]


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")
