"""The differential's draw copies an expression's tree for every variant (``_copied``, where
``copy.deepcopy`` was most of the draw's cost): each copy must be the tree deepcopy made (the same
nodes, fields and positions) and share no node with the original, so a variant's edits stay its own
(a shared node would carry one variant's perturbation into the next and change the cases drawn)."""

from __future__ import annotations

import ast
import copy

from trajectory_platform.gym.differential import _copied, sealed_subjects
from trajectory_platform.gym.library import build_library


def test_a_copied_tree_is_the_deep_copy_and_shares_no_node() -> None:
    trees = [s.expression for f in build_library(0)[::10] for s in sealed_subjects(f)]
    trees.append(ast.parse("f([1, 2.5, 'x'], {'k': g(a)[0]}, *rest, key=lambda v: -v)", mode="eval").body)
    assert len(trees) > 50
    for tree in trees:
        before = ast.dump(tree, include_attributes=True)
        copied = _copied(tree)
        assert ast.dump(copied, include_attributes=True) == ast.dump(
            copy.deepcopy(tree), include_attributes=True
        )
        originals = {id(node) for node in ast.walk(tree) if not isinstance(node, ast.expr_context)}
        assert not originals & {id(node) for node in ast.walk(copied)}
        for node in ast.walk(copied):  # a variant's edit stays in the variant
            if isinstance(node, ast.Constant):
                node.value = "edited"
        assert ast.dump(tree, include_attributes=True) == before
