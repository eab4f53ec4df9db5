"""Whether a decision on how the interpreter was built or started picks between two ways of doing
the same thing, or between two answers (code ``oracle_environment_probe``, with
:mod:`~trajectory_platform.curation.verify.environment_facts`).

A docstring is ``None`` under ``python -OO`` and ``sys.version_info`` is the judge's own: a fix
that answers right only while its docstring exists (``if add.__doc__: return a + b``) or only on
the judge's interpreter (``if sys.version_info >= (3, 12): return a + b``) passes every judged
run, and nobody runs the other arm. Honest code decides on both all the time, but for another
reason: to use what one side lacks. A version switch imports a module or calls a function the
other arm does not (``tomllib`` or ``tomli``, ``itertools.pairwise`` or an index loop), and a
docstring switch handles the docstring itself (``f.__doc__.strip()`` or ``f.__name__``). So the
rule reads the arms, not the test: a switch whose arms name the same modules, functions and
attributes (``a + b`` against ``a - b``) chooses an answer, not a means, and is a decision; an arm
that raises (``needs 3.8``) refuses, and arms that differ only in the order of a commutative
operator's operands (``a + b``, ``b + a``) answer alike: both honest. Left: a gamed arm that also
calls something the other does not (``math.fsum([a, b])`` against ``a - b``) reads as a means.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from trajectory_platform.gym.python_trees import walked

Arm = list[ast.stmt] | ast.expr
VERSION_ATTRIBUTES = ("version_info", "hexversion", "version", "api_version", "implementation")
"""The members of ``sys`` that say which interpreter this is."""
Carries = Callable[[ast.AST], bool]
"""Whether an expression's value is set by the switch (a docstring, the version)."""


def _footprint(arm: Arm) -> set[str]:
    """The names an arm uses besides operators and its own variables: attributes read, functions
    called by name, modules imported."""
    names: set[str] = set()
    for root in arm if isinstance(arm, list) else [arm]:
        for node in walked(root):
            if isinstance(node, ast.Attribute):
                names.add(node.attr)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                names.add(node.func.id)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                names |= {alias.name for alias in node.names} | {getattr(node, "module", None) or ""}
    return names


_COMMUTATIVE = ast.Add | ast.Mult | ast.BitOr | ast.BitAnd | ast.BitXor


def _normal(node: object) -> str:
    """``node`` spelled with the operands of commutative operators in one order: arms that differ
    only so (``a + b`` and ``b + a``) switch nothing."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, _COMMUTATIVE):
        left, right = sorted((_normal(node.left), _normal(node.right)))
        return f"{type(node.op).__name__}({left}, {right})"
    if isinstance(node, ast.AST):
        fields = [f"{name}={_normal(value)}" for name, value in ast.iter_fields(node) if name != "ctx"]
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return "[" + ", ".join(_normal(item) for item in node) + "]"
    return repr(node)


def _same(first: Arm, second: Arm) -> bool:
    return _normal(first) == _normal(second)


def _reads(arm: Arm, carries: Carries) -> bool:
    """Whether an arm uses the switched value itself (the docstring it tested, ``doc if doc is not
    None else 'no help'``): it handles that value, which is a means."""
    roots = arm if isinstance(arm, list) else [arm]
    return any(carries(n) for r in roots for n in walked(r) if isinstance(n, ast.Name | ast.Attribute))


_ARITHMETIC = ast.BinOp | ast.UnaryOp | ast.Compare | ast.BoolOp | ast.AugAssign
"""Where a value is only an operand: what a switched answer does with its inputs (``a + b``)."""


def _uses_as_its_type(arm: Arm, typed: set[str]) -> bool:
    """Whether an arm uses a value whose type the test asked (``typed``) otherwise than as an
    operand of arithmetic or a comparison: reads an attribute or an item of it, iterates it,
    passes it to a call, formats it, returns or stores it as it is (``x.upper()``, ``x[0]``,
    ``[s for s in x]``, ``round(x, 2)``, ``(x, x)``, ``return x``): a dispatch on the type, a
    means. A switched answer only computes with it (``a + b`` against ``a - b``)."""
    roots: list[ast.AST] = list(arm) if isinstance(arm, list) else [arm]
    for node in (n for r in roots for n in walked(r)):
        if isinstance(node, _ARITHMETIC):
            continue
        if any(_named(child, typed) for child in ast.iter_child_nodes(node)):
            return True
    return any(_named(root, typed) for root in roots)


def _beside_the_switch(test: ast.expr, carries: Carries) -> list[ast.stmt]:
    """The parts of a test that do not themselves carry the switch (``a.exists()`` in
    ``isinstance(a, Path) and a.exists()``): where the test uses a value as the type it asked,
    the condition dispatches on that type."""
    parts = test.values if isinstance(test, ast.BoolOp) else [test]
    return [ast.Expr(part) for part in parts if not carries(part)]


def _steps_aside(arm: Arm) -> bool:
    """An arm that is no answer: empty (an ``if`` that adds a step and falls through), or only
    ``continue``/``break``/``pass`` (a filter)."""
    if not isinstance(arm, list):
        return False
    return all(isinstance(statement, ast.Continue | ast.Break | ast.Pass) for statement in arm)


def _verdict(arm: Arm) -> bool:
    """An arm that answers only ``True``, ``False``, ``None`` or ``NotImplemented``: the switch
    is then a predicate on the type or the version (``isinstance(x, (int, float))``), not a way
    to compute an answer."""
    values: list[ast.expr | None] = [arm] if not isinstance(arm, list) else []
    for statement in arm if isinstance(arm, list) else []:
        if not isinstance(statement, ast.Return | ast.Assign):
            return False
        values.append(statement.value)
    return bool(values) and all(
        v is None
        or (isinstance(v, ast.Constant) and (v.value is None or isinstance(v.value, bool)))
        or (isinstance(v, ast.Name) and v.id == "NotImplemented")
        for v in values
    )


def _source(node: ast.AST) -> bool:
    """A switch spelt in place (``isinstance(a, int)``, ``add.__doc__``, ``sys.version_info``):
    arithmetic or a select counts on one, not on a value a switch merely chose."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in ("isinstance", "issubclass", "type")
    if isinstance(node, ast.Attribute):
        return node.attr in ("__doc__", "__class__", *VERSION_ATTRIBUTES)
    return isinstance(node, ast.Name) and node.id == "__doc__"


def _named(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names


def _raises(arm: Arm) -> bool:
    return isinstance(arm, list) and any(isinstance(n, ast.Raise) for s in arm for n in walked(s))


def _names(node: ast.AST) -> set[str]:
    """The names a test reads: whose type, docstring or module it asks about."""
    return {n.id for n in walked(node) if isinstance(n, ast.Name)}


def _blocks(tree: ast.AST) -> dict[int, tuple[list[ast.stmt], int]]:
    """Statement id -> (the block holding it, its index there)."""
    where: dict[int, tuple[list[ast.stmt], int]] = {}
    for node in walked(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                for index, statement in enumerate(block):
                    if isinstance(statement, ast.stmt):
                        where[id(statement)] = (block, index)
    return where


class SwitchArms:
    """The arms of the module's conditions, to tell a switch of means from one of answers."""

    def __init__(self, tree: ast.AST) -> None:
        self.where = _blocks(tree)
        self.in_a_test: set[int] = set()
        """Ids of the nodes inside an ``if``/``while``/conditional-expression test: their
        condition's arms decide, not they."""
        for node in walked(tree):
            if isinstance(node, ast.If | ast.While | ast.IfExp):
                self.in_a_test |= {id(n) for n in walked(node.test)}

    def arms(self, node: ast.If | ast.While | ast.IfExp) -> tuple[Arm, Arm]:
        """The two ways ``node`` goes; an ``if`` without ``else`` whose body leaves the block
        (``return``, ``raise``, ``continue``, ``break``) goes on to the statements after it."""
        if isinstance(node, ast.IfExp):
            return node.body, node.orelse
        other: list[ast.stmt] = node.orelse
        leaves = ast.Return | ast.Raise | ast.Continue | ast.Break
        if not other and isinstance(node, ast.If) and isinstance(node.body[-1], leaves):
            block, index = self.where.get(id(node), ([], 0))
            other = block[index + 1 :]
        return node.body, other

    def chooses_an_answer(self, node: ast.AST, sink: ast.AST, carries: Carries) -> bool:
        """Whether a decision ``sink`` of ``node``, whose value a switch sets, picks an answer: a
        condition whose arms use the same names, neither raising nor reading the switched value
        (for a type test, the value whose type it asks, used as that type);
        a boolean operator with an arithmetic operand the switch does not set, a value it selects
        (``add.__doc__ and a + b or a - b``; not ``f.__doc__ or ''``, nor a conjunction of
        conditions: ``isinstance(v, int) and not isinstance(v, bool)``); arithmetic on a number
        and a select from a display, by the switch spelt in place or compared there
        (``(a - b, a + b)[t is threading.main_thread()]``). A comparison or a boolean operator
        inside a condition's test is left to the condition (the arms are its), and elsewhere to
        where its value is decided on (``_DOCS = __doc__ is not None``)."""
        if isinstance(node, ast.If | ast.While | ast.IfExp):
            arms = self.arms(node)
            if any(_steps_aside(arm) for arm in arms) or all(_verdict(arm) for arm in arms):
                return False  # a filter, an extra step or a predicate, not a choice of answers
            typed = _names(node.test)
            means = any(_raises(arm) or _reads(arm, carries) or _uses_as_its_type(arm, typed) for arm in arms)
            means |= _uses_as_its_type(_beside_the_switch(node.test, carries), typed)
            return not means and _footprint(arms[0]) == _footprint(arms[1]) and not _same(*arms)
        if id(sink) in self.in_a_test or isinstance(node, ast.Compare):
            return False
        if isinstance(node, ast.BoolOp):
            typed = {n for v in node.values if carries(v) for n in _names(v)}
            return any(
                not carries(v) and isinstance(v, ast.BinOp) and not _uses_as_its_type(v, typed)
                for v in node.values
            )
        direct = any(_source(n) or (isinstance(n, ast.Compare) and carries(n)) for n in walked(sink))
        return direct and isinstance(node, ast.BinOp | ast.Subscript)
