"""The one shell-word splitter of curation (``curation/shell_split.py``): its words, and that no other
module builds a lexer of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import trajectory_platform
from trajectory_platform.curation.shell_split import bash_words, is_operator

PACKAGE = Path(trajectory_platform.__file__).parent


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("echo -n user:pa55@db > f", ["echo", "-n", "user:pa55@db", ">", "f"]),
        ("echo a,b $KEY >> f", ["echo", "a,b", "$KEY", ">>", "f"]),
        ("cd src && ls -la|wc -l", ["cd", "src", "&&", "ls", "-la", "|", "wc", "-l"]),
        (
            "htpasswd -b f u pw>/dev/null 2>&1",
            ["htpasswd", "-b", "f", "u", "pw", ">", "/dev/null", "2", ">&", "1"],
        ),
        ("echo 'a | b' \"c;d\"", ["echo", "a | b", "c;d"]),
        ("(true);", ["(", "true", ");"]),
        ("echo 'open", None),
    ],
)
def test_a_line_is_bashs_words_with_each_operator_run_a_word(line, words):
    assert bash_words(line) == words


@pytest.mark.parametrize(
    ("word", "operator"), [("|", True), (">>", True), (");", True), ("", False), ("a|", False)]
)
def test_an_operator_is_a_nonempty_run_of_operator_characters(word, operator):
    assert is_operator(word) is operator


def _lexers(path: Path) -> list[str]:
    """The ``shlex`` splitting calls (``shlex.shlex``, ``shlex.split``) a module makes."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "shlex"
            and node.attr in ("shlex", "split")
        ):
            found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return found


def test_only_the_splitter_splits_shell_lines_with_shlex():
    """Quoting (``shlex.quote``, ``shlex.join``) is anyone's; splitting is this module's alone, so a
    line is the same words to every reader (the verifier's, dedup's and redaction's)."""
    splitter = PACKAGE / "curation" / "shell_split.py"
    elsewhere = [site for path in sorted(PACKAGE.rglob("*.py")) if path != splitter for site in _lexers(path)]
    assert elsewhere == []
    assert _lexers(splitter)
