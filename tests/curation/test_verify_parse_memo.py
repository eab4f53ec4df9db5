"""An episode's checks parse each changed file several times; ``parse_python`` keeps one tree per
text, so the walks memoized on it (``python_trees.walked``) serve every check."""

from __future__ import annotations

import ast
from pathlib import Path

from trajectory_platform.curation.verify import pysource
from trajectory_platform.curation.verify.pysource import parse_python


def test_one_tree_per_text_as_a_fresh_parse_reads_it() -> None:
    text = Path(pysource.__file__).read_text(encoding="utf-8")
    tree, error = parse_python(text)
    assert error is None and tree is not None
    assert parse_python(text)[0] is tree
    assert ast.dump(tree, include_attributes=True) == ast.dump(
        pysource.parse_module(text), include_attributes=True
    )
    cookie = "# coding: utf-7\nx = '+AGE-'\n"  # the cookie is honoured by the memoized parse too
    assert ast.literal_eval(parse_python(cookie)[0].body[0].value) == "a"  # type: ignore[union-attr]
    bad = "def f(:\n"
    assert parse_python(bad)[0] is None and parse_python(bad)[1] is parse_python(bad)[1]
