"""Every Dagster instance the code or the tests open is closed by a ``with`` block.

An instance nobody disposes keeps its SQLite connections (and an ephemeral one its temporary
artifact directory) until the garbage collector or interpreter exit finalizes them, in whatever
order that happens, long after the test that made it. Opening each one as a context manager (or
taking the ``instance`` fixture of ``tests/conftest.py``, which does) closes it where it was used.
This is checked on the source, so a new leak is named by file and function before it runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("trajectory_platform", "tests", "benchmarks", "scripts")
OPENERS = {"ephemeral", "from_config", "from_ref", "local_temp", "get"}
"""``DagsterInstance.<opener>(...)`` makes a new instance the caller must dispose."""


def unclosed_openings(source: str) -> list[tuple[str, int]]:
    """(enclosing function, line) of each instance opened outside a ``with`` item in ``source``."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, function: str, managed: set[int]) -> None:
        if isinstance(node, ast.With | ast.AsyncWith):
            managed = managed | {id(item.context_expr) for item in node.items}
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = node.name
        if isinstance(node, ast.Call) and id(node) not in managed and _opens_an_instance(node):
            found.append((function, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, function, managed)

    visit(ast.parse(source), "<module>", set())
    return found


def _opens_an_instance(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id == "instance_for_test"
    return (
        isinstance(func, ast.Attribute)
        and func.attr in OPENERS
        and isinstance(func.value, ast.Name)
        and func.value.id == "DagsterInstance"
    )


def test_the_detector_tells_a_closed_instance_from_a_leaked_one() -> None:
    source = """
def closed():
    with DagsterInstance.ephemeral() as instance, instance_for_test() as other:
        materialize([a], instance=instance)

def leaked():
    instance = DagsterInstance.ephemeral()
    materialize([a], instance=DagsterInstance.from_config(home))
    with wrapper(DagsterInstance.get()):
        pass
"""
    assert unclosed_openings(source) == [("leaked", 7), ("leaked", 8), ("leaked", 9)]


def test_every_dagster_instance_is_opened_in_a_with_block() -> None:
    found = sorted(
        f"{path.relative_to(ROOT).as_posix()}:{line} ({function})"
        for folder in SCANNED
        for path in sorted((ROOT / folder).rglob("*.py"))
        for function, line in unclosed_openings(path.read_text())
    )
    assert not found, f"open these instances in a `with` block (or take the `instance` fixture): {found}"
