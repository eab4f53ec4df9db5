"""The one shell-word splitter of curation (``curation/shell_split.py``): its words."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.shell_split import bash_words, is_operator


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
