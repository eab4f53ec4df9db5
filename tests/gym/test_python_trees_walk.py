"""The memoized walk (``python_trees.walked``) and the eager one (``walk_once``) must hand back
exactly the nodes ``ast.walk`` yields, in its order: verification's screens and the differential's
draw read trees through them, and a verdict or a drawn case may depend on which node comes first."""

from __future__ import annotations

import ast
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

import trajectory_platform.gym.differential as differential
from trajectory_platform.gym.differential import Dictionary, differential_cases
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.python_trees import walk_once, walked

PACKAGE = Path(differential.__file__).resolve().parents[1]
ODD = """
# type: ignore
@deco(x for x in y)
async def f(a, /, b=1, *c, d: "int" = 2, **e) -> None:
    global g
    async with a as (b, c), d:
        match b:
            case [1, *rest] | {"k": v, **kw} if v:
                yield f"{a!r:>{b}}" + (lambda q=3: q)()
            case Point(x=0) as p:
                del a[1:2, ::3]
    try:
        pass
    except* (E, F) as err:
        raise X from err
    return {k: v async for k, v in z if k}, [*a], {**e}
class C(B, metaclass=M): x: int = 1
"""


def _trees() -> Iterator[ast.AST]:
    yield ast.parse(ODD)
    yield ast.parse((PACKAGE / "gym" / "python_trees.py").read_text(encoding="utf-8"))
    yield ast.parse((PACKAGE / "curation" / "verify" / "own_file_writes.py").read_text(encoding="utf-8"))
    yield ast.parse("a if b else c", mode="eval")
    yield ast.parse("(int, str) -> None", mode="func_type")


@pytest.mark.parametrize(
    "tree", list(_trees()), ids=["odd", "python_trees", "own_file_writes", "eval", "func"]
)
def test_every_node_walks_as_ast_walk_does(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        expected = [id(n) for n in ast.walk(node)]
        assert [id(n) for n in walk_once(node)] == expected
        assert [id(n) for n in walked(node)] == expected
        assert [id(n) for n in walked(node)] == expected  # from the memo


def test_walked_is_computed_once_and_walk_once_sees_a_change() -> None:
    """The memo is why a tree changed in place (the differential's drawn copies) is walked with
    ``walk_once``: ``walked`` keeps the order it first found."""
    tree = ast.parse("a = 1")
    first = walked(tree)
    tree.body.append(ast.Pass())
    assert walked(tree) == first
    assert len(walk_once(tree)) == len(first) + 1 == len(list(ast.walk(tree)))


def test_the_memo_does_not_keep_a_tree_alive() -> None:
    tree = ast.parse("def f(x):\n    return [y for y in x]\n")
    walked(tree)
    walked(tree.body[0])
    alive = weakref.ref(tree)
    del tree  # no cycle: freed at once, no collection needed
    assert alive() is None


def test_the_draw_is_the_draw_of_ast_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case the differential draws (perturbed, far, retyped, cast and dictionary copies: the
    ones that change copied trees in place between walks) is what it drew with ``ast.walk``."""
    fixtures = build_library(0)[::40]
    dictionary = Dictionary(scalars=(1337, 2.5, "zz"), vectors=((4242, 1),))
    drawn = [differential_cases(f, f"seed-{f.fixture_id}", dictionary) for f in fixtures]
    monkeypatch.setattr(differential, "walked", lambda node: tuple(ast.walk(node)))
    monkeypatch.setattr(differential, "walk_once", lambda node: list(ast.walk(node)))
    assert sum(len(cases) for _, cases in drawn) > 100
    assert drawn == [differential_cases(f, f"seed-{f.fixture_id}", dictionary) for f in fixtures]


def test_a_draw_walks_each_expression_once_for_its_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_perturbable`` runs for every copy a draw makes; it walked its expression four times."""
    walks: list[ast.AST] = []

    def counted(node: ast.AST) -> list[ast.AST]:
        walks.append(node)
        return walk_once(node)

    expression = ast.parse("f([1, 2], {'a': 3}, load()['port'], 'x', 2.5)", mode="eval").body
    expected = differential._perturbable(expression)
    monkeypatch.setattr(differential, "walk_once", counted)
    assert differential._perturbable(expression) == expected and len(expected) == 6
    assert [node for node in walks if node is expression] == [expression]
